"""``forge vs search`` on a local store imports no ingestion (chunking, text extraction,
``html.parser``), no re-embedding, and checks the bundled ``forge-docs`` pages without
``importlib.resources`` or ``hashlib`` once their stamp is recorded (ADR 0017, ADR 0021).

Each command runs in a fresh interpreter; at exit it reports which of those modules were loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.connect_probe import isolated_env

DEFERRED = (
    "forge_cli.knowledge.ingest",
    "forge_cli.knowledge.extract",
    "forge_cli.knowledge.chunking",
    "forge_cli.knowledge.embed.reembed",
    "html.parser",
    "importlib.resources",
    "hashlib",
    "secrets",
    "shutil",
)
"""Imported when a file goes in, a store is re-embedded or the bundled pages changed."""

_PROBE = f"""
import atexit, json, sys
deferred = {DEFERRED!r}
def report():
    loaded = [name for name in deferred if name in sys.modules]
    sys.stderr.write("LOADED " + json.dumps(loaded) + "\\n")
atexit.register(report)
from forge_cli.cli.main import run
code = run(sys.argv[1:])
sys.stdout.flush()
sys.exit(code)
"""


def _forge(tmp_path: Path, *args: str) -> tuple[str, list[str]]:
    env = isolated_env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args, "--api", "local"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    [line] = [line for line in proc.stderr.splitlines() if line.startswith("LOADED ")]
    return proc.stdout, list(json.loads(line.removeprefix("LOADED ")))


def test_a_search_imports_no_ingestion_and_no_hashing(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettle.md").write_text("# Kettles\n\nA kettle boils water for tea.\n")
    _out, loaded = _forge(tmp_path, "vs", "create", "notes", str(docs))
    assert "forge_cli.knowledge.ingest" in loaded  # the probe sees what ingesting imports
    out, loaded = _forge(tmp_path, "vs", "search", "notes", "kettle")
    assert "kettle.md" in out
    assert loaded == []
    out, loaded = _forge(tmp_path, "vs", "search", "forge-docs", "install")
    assert "01-getting-started.md" in out
    assert loaded == []
