"""What each start-up path has imported at the moment it is ready (ADR 0017).

``forge ask``: when its request is about to be sent (the probe stops the process at the socket's
``connect``), no renderer, terminal UI, SDK or numpy is loaded: they are imported after the
request went out (``forge_cli._lazy``). The probe can fail: it reports the modules that are
loaded by then (``test_the_probe_sees_what_loads_before_the_request``). The ``--version``,
``--help``, completion and ``forge vs search`` paths are checked in test_commands.py and
test_knowledge_light.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NOT_BEFORE_THE_REQUEST = (
    "rich",
    "prompt_toolkit",
    "openai",
    "numpy",
    "markdown_it",
    "forge_cli.render.rich_renderer",
    "forge_cli.stream.builder",
)

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


def test_ask_sends_its_request_before_the_heavy_modules_load(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "KNOWLEDGE_FORGE_URL"):
        env.pop(name, None)
    args = ["ask", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1", "--plain", "hi"]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(NOT_BEFORE_THE_REQUEST), *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("AT-CONNECT ")]
    assert json.loads(line.removeprefix("AT-CONNECT ")) == []


def test_the_probe_sees_what_loads_before_the_request(tmp_path: Path) -> None:
    """The probe reports modules that are loaded before the request (so the test above can
    fail)."""
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    args = ["ask", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1", "--plain", "hi"]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(["click", "httpx2"]), *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("AT-CONNECT ")]
    assert json.loads(line.removeprefix("AT-CONNECT ")) == ["click", "httpx2"]
