"""The item registry is checked by mypy: a guard paired with another kind's renderer is an error.

One mypy run (on two tiny files, cache in tmp_path) checks both sides: the mismatched pair is
reported, the matching pair is not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forge_cli.protocol.guards import is_message
from forge_cli.protocol.items import FunctionCall
from forge_cli.render.items import ITEM_RENDERERS, RegistryEntry
from forge_cli.render.items.message import render_message

_HEADER = """\
from forge_cli.protocol.guards import is_function_call, is_message
from forge_cli.render.items import ItemRegistry, RegistryEntry
from forge_cli.render.items.function import render_function_call
from forge_cli.render.items.generic import render_unknown
from forge_cli.render.items.message import render_message
from forge_cli.render.items.registry import accept_any

FALLBACK = RegistryEntry(accept_any, render_unknown, "status")
"""

BAD = (
    _HEADER
    + """
ENTRY = RegistryEntry(is_message, render_function_call, "prose")
REGISTRY = ItemRegistry([RegistryEntry(is_function_call, render_message, "status")], FALLBACK)
"""
)

GOOD = (
    _HEADER
    + """
ENTRY = RegistryEntry(is_message, render_message, "prose")
REGISTRY = ItemRegistry([RegistryEntry(is_function_call, render_function_call, "status")], FALLBACK)
"""
)


def test_mypy_rejects_a_guard_paired_with_the_wrong_renderer(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    (tmp_path / "bad_pair.py").write_text(BAD)
    (tmp_path / "good_pair.py").write_text(GOOD)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "bad_pair.py",
            "good_pair.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not [line for line in lines if line.startswith("good_pair.py")], proc.stdout
    bad = [line for line in lines if line.startswith("bad_pair.py")]
    assert len(bad) == 2, proc.stdout
    assert all("[arg-type]" in line for line in bad), proc.stdout
    wrong = [n for n, line in enumerate(BAD.splitlines(), 1) if "RegistryEntry(is_" in line]
    assert [line.split(":")[1] for line in bad] == [str(n) for n in wrong], proc.stdout


def test_an_entry_renders_only_what_its_guard_accepts() -> None:
    entry = RegistryEntry(is_message, render_message, "prose")
    call = FunctionCall(call_id="c1", name="f", arguments="{}")
    assert not entry.accepts(call)
    with pytest.raises(TypeError, match="FunctionCall"):
        entry.render(call, "k", None)  # type: ignore[arg-type]
    assert ITEM_RENDERERS.lookup(call).accepts(call)
