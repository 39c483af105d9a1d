"""``forge vs reembed``: re-embedding the local store with the current model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_cli.cli.main import run
from forge_cli.knowledge import KnowledgeStore


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "config.toml"))
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "KNOWLEDGE_FORGE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _store_path(tmp_path: Path) -> Path:
    matches = list((tmp_path / "data").rglob("*.db"))
    assert len(matches) == 1, matches
    return matches[0]


def test_reembed_embeds_a_keyword_only_store_then_has_nothing_left(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = env / "docs"
    docs.mkdir()
    (docs / "sleep.md").write_text("# Sleep\n\nsleep() suspends the thread for some seconds.\n")
    assert run(["vs", "create", "notes", str(docs)]) == 0
    path = _store_path(env)
    with KnowledgeStore(path) as store, store._db.write() as conn:
        conn.execute("DELETE FROM embeddings")  # as a store made without embeddings
    capsys.readouterr()
    assert run(["vs", "reembed", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "wordllama/l2_supercat-256"
    assert report["embedded"] == report["total_chunks"] > 0
    assert run(["vs", "reembed"]) == 0
    assert capsys.readouterr().out.startswith("All ")


def test_reembed_refuses_a_remote_backend_with_a_usage_error(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORGE_API", "responses")
    assert run(["vs", "reembed"]) == 2
    err = capsys.readouterr().err
    assert "local store only" in err
    assert "Traceback" not in err
