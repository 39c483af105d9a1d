"""The public surface of ``forge_cli.evaluation`` is listed once and importable."""

from __future__ import annotations

import subprocess
import sys

import forge_cli.evaluation as evaluation


def test_all_names_exist_once() -> None:
    assert len(set(evaluation.__all__)) == len(evaluation.__all__)
    public = {name for name in vars(evaluation) if not name.startswith("_")}
    assert public - {"annotations"} - set(evaluation.__all__) <= {
        "cases",
        "dataset",
        "judge",
        "output",
        "requests",
        "results",
        "runner",
        "scoring",
        "summary",
    }
    for name in evaluation.__all__:
        assert getattr(evaluation, name) is not None


def test_evaluation_imports_no_terminal_libraries() -> None:
    code = (
        "import sys, forge_cli.evaluation\n"
        "print([m for m in ('rich', 'click', 'prompt_toolkit') if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
