"""Which modules a ``forge`` command has loaded when its first request connects.

``loaded_at_connect`` runs ``forge ARGS`` in a subprocess whose ``socket.connect`` reports which
of ``modules`` are in ``sys.modules`` and ends the process there (nothing is sent), so a test can
assert what a command imports before its request goes out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

_PROBE = """
import json, os, socket, sys
heavy = json.loads(sys.argv[1])
def connect(self, address):
    loaded = [m for m in heavy if m in sys.modules]
    sys.stderr.write("AT-CONNECT " + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
    os._exit(0)
socket.socket.connect = connect
from forge_cli.cli.entry import main
main(sys.argv[2:])
"""


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """This environment with Forge's data and config under ``tmp_path`` and no backend chosen by
    the environment (``FORGE_API``, ``FORGE_BASE_URL``, a profile, a Knowledge Forge URL)."""
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "KNOWLEDGE_FORGE_URL"):
        env.pop(name, None)
    return env


def loaded_at_connect(tmp_path: Path, modules: Sequence[str], args: Sequence[str]) -> list[str]:
    """Which of ``modules`` ``forge ARGS`` (isolated data and config dirs) has loaded when it
    connects to send its first request."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(modules)), *args],
        capture_output=True,
        text=True,
        env=isolated_env(tmp_path),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("AT-CONNECT ")]
    loaded: list[str] = json.loads(line.removeprefix("AT-CONNECT "))
    return loaded
