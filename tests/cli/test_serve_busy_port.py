"""`forge serve` on a port another program holds (issue 29): one line before any banner, exit 2.

It printed its banner, then uvicorn's log line, and exited 3 -- the tool-iteration code.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable

Forge = Callable[..., subprocess.CompletedProcess[str]]


def test_a_busy_port_is_one_line_and_exit_2_before_the_banner(forge: Forge) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        proc = forge("serve", "--port", str(port), "--no-mcp", env={"FORGE_SERVE_TOKEN": ""})
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("forge: error: ")
    assert f"127.0.0.1:{port}" in lines[0]
    assert "in use" in lines[0]
    assert "--port" in lines[0]
    assert "forge serve: http" not in proc.stderr
