"""``forge vs``/``forge files`` on a local store import no HTTP stack, no openai, no engine.

Each command runs in a fresh interpreter (so nothing an earlier test imported counts), through the
console script's entry point; at exit the interpreter reports which heavy modules were loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.connect_probe import isolated_env

HEAVY = (
    "httpx2",
    "httpcore2",
    "openai",
    "starlette",
    "uvicorn",
    "anyio",
    "forge_cli.engine.engine",
    "forge_cli.backends.base",
    "forge_cli.protocol.request",
    "pydantic",
    "asyncio",
    "numpy",
    "tokenizers",
)
"""Modules a local search does not need (the HTTP stack, the SDK, the engine's answer loop, the
backends and the wire protocol's request models), nor pydantic (the knowledge records are
dataclasses), an event loop (the local client never waits) or, on a small store, numpy and the
tokenizer (the query is embedded and scored in plain Python: test_local_query.py)."""

_PROBE = f"""
import atexit, json, sys
heavy = {HEAVY!r}
def report():
    loaded = [m for m in heavy if m in sys.modules]
    sys.stderr.write("LOADED " + json.dumps(loaded) + "\\n")
atexit.register(report)
from forge_cli.cli.main import run
code = run(sys.argv[1:])
sys.stdout.flush()
sys.exit(code)
"""


def _forge(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = isolated_env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    [report] = [line for line in proc.stderr.splitlines() if line.startswith("LOADED ")]
    return proc, json.loads(report.removeprefix("LOADED "))


@pytest.mark.parametrize(
    "args",
    [
        ("vs", "search", "forge-docs", "install"),
        ("vs", "list"),
        ("vs", "show", "forge-docs"),
        ("files", "list"),
    ],
)
def test_local_knowledge_commands_import_no_http_stack(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    first, _ = _forge(tmp_path, "vs", "list", "--api", "local")  # seeds forge-docs (embeds it)
    assert first.returncode == 0, first.stderr
    proc, loaded = _forge(tmp_path, *args, "--api", "local")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()  # the command really ran (the seeded forge-docs store is there)
    assert loaded == []


def test_the_probe_sees_numpy_on_a_store_too_large_for_plain_python(tmp_path: Path) -> None:
    """Above ``dense.SMALL_ROWS`` vectors the search uses numpy (so the test above can fail)."""
    first, _ = _forge(tmp_path, "vs", "list", "--api", "local")
    assert first.returncode == 0, first.stderr
    env = {**os.environ, "FORGE_DATA_DIR": str(tmp_path / "data")}
    shrink = (
        "import sqlite3, sys\n"
        "from forge_cli.knowledge.paths import default_store_path\n"
        "print(sqlite3.connect(default_store_path()).execute("
        "'SELECT count(*) FROM embeddings').fetchone()[0])\n"
    )
    rows = int(
        subprocess.run(
            [sys.executable, "-c", shrink], env=env, capture_output=True, text=True, check=True
        ).stdout
    )
    probe = _PROBE.replace(
        "from forge_cli.cli.main import run",
        f"import forge_cli.knowledge.embed.dense as d; d.SMALL_ROWS = {rows - 1}\n"
        "from forge_cli.cli.main import run",
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "vs", "search", "forge-docs", "install", "--api", "local"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**env, "FORGE_CONFIG": str(tmp_path / "config.toml")},
    )
    assert proc.returncode == 0, proc.stderr
    [report] = [line for line in proc.stderr.splitlines() if line.startswith("LOADED ")]
    assert "numpy" in json.loads(report.removeprefix("LOADED "))


def test_the_probe_sees_the_http_stack_when_a_server_is_named(tmp_path: Path) -> None:
    """The same probe on the HTTP client path reports httpx2 (so the test above can fail)."""
    proc, loaded = _forge(
        tmp_path, "vs", "list", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert proc.returncode == 1
    assert "httpx2" in loaded
