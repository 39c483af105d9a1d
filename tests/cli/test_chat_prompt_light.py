"""``forge chat`` draws its prompt before it imports the HTTP stack, the backends, the knowledge
client, the response models and the slash commands (ADR 0021).

Each run is a fresh interpreter with a terminal on stdin (so the chat is interactive); the
prompt's ``prompt_async`` is replaced by a probe that reports which of those modules are loaded
at the moment the prompt would be drawn, then ends the chat as Ctrl+D does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

DEFERRED = (
    "httpx2",
    "httpcore2",
    "anyio",
    "openai",
    "forge_cli.backends.responses.backend",
    "forge_cli.backends.knowledge_http",
    "forge_cli.backends.chat.backend",
    "forge_cli.cli.knowledge",
    "forge_cli.knowledge.client",
    "forge_cli.protocol.response",
    "forge_cli.repl.commands",
    "forge_cli.conversations.export",
    "pydantic.plugin._loader",
)
"""Built or imported after the prompt is drawn (or on first use); pydantic scans the installed
packages for plugins when it builds its first validator, which the prompt does not need."""

_PROBE = f"""
import json, sys
import prompt_toolkit.shortcuts.prompt
prompts = sys.modules["prompt_toolkit.shortcuts.prompt"]
deferred = {DEFERRED!r}

async def probe(self, *args, **kwargs):
    loaded = [name for name in deferred if name in sys.modules]
    sys.stderr.write("LOADED " + json.dumps(loaded) + "\\n")
    raise EOFError

prompts.PromptSession.prompt_async = probe
from forge_cli.cli.main import run
sys.exit(run(sys.argv[1:]))
"""


def _loaded_at_prompt(tmp_path: Path, *args: str) -> list[str]:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "FORGE_MODEL"):
        env.pop(name, None)
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, "chat", *args],
            stdin=slave,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0, proc.stderr
    [report] = [line for line in proc.stderr.splitlines() if line.startswith("LOADED ")]
    return list(json.loads(report.removeprefix("LOADED ")))


@pytest.mark.parametrize(
    "args",
    [
        ("--api", "responses", "--base-url", "http://127.0.0.1:9/v1"),
        ("--api", "knowledge-forge", "--base-url", "http://127.0.0.1:9/v1"),
        ("--api", "chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"),
    ],
    ids=["responses", "knowledge-forge", "chat"],
)
def test_the_prompt_comes_before_the_backend(tmp_path: Path, args: tuple[str, ...]) -> None:
    assert _loaded_at_prompt(tmp_path, *args) == []


def test_the_probe_sees_what_a_run_that_needs_the_agent_builds_first(tmp_path: Path) -> None:
    # The agent's options are checked before the prompt (their errors show at start-up), so
    # this run builds its backend first: the probe does report the HTTP stack then.
    loaded = _loaded_at_prompt(
        tmp_path, "--api", "responses", "--base-url", "http://127.0.0.1:9/v1", "--driver", "react"
    )
    assert "httpx2" in loaded
    assert "forge_cli.backends.responses.backend" in loaded
