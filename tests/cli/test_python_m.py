"""``python -m forge_cli`` is the ``forge`` command (where its console script is missing)."""

from __future__ import annotations

import subprocess
import sys

from forge_cli.__about__ import __version__


def test_python_m_runs_forge() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "forge_cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"forge, version {__version__}\n"


def test_python_m_reports_usage_errors() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "forge_cli", "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "no-such-command" in done.stderr
    assert "Traceback" not in done.stderr
