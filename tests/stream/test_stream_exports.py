"""`forge_cli.stream.fold` is the function whichever module imported the fold first."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "first", ["forge_cli.agent.drivers.base", "forge_cli.agent.turn", "forge_cli.stream.folding"]
)
def test_fold_is_the_function_after_any_import_order(first: str) -> None:
    code = (
        f"import {first}\nfrom forge_cli.stream import fold, raise_for_failure\n"
        "print(callable(fold) and fold.__name__, raise_for_failure.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["fold", "raise_for_failure"]
