"""Issue 14 item 7 (polish): help that offers only what a command uses."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize("command", ["models", "doctor"])
def test_backend_only_commands_offer_backend_options_only(forge: Forge, command: str) -> None:
    proc = forge(command, "--help")
    assert proc.returncode == 0
    for option in ("--profile", "--api", "--base-url", "--api-key-env", "--debug"):
        assert option in proc.stdout
    for option in ("--tool", "--vs", "--functions", "--instructions", "--yes", "--store"):
        assert option not in proc.stdout
    refused = forge(command, "-t", "file-search")
    assert refused.returncode == 2
