"""Helpers for the MCP tests: a small knowledge store in the test's data dir, and the paths of
the SDK-written test servers."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from forge_cli.knowledge import KnowledgeStore, default_store_path

SERVERS = Path(__file__).parent / "servers"

DOCS = {
    "lighthouse.md": (
        "# Lighthouses\n\nA lighthouse keeper trims the lamp wick every evening. "
        "The Fresnel lens focuses the beam so ships see it thirty miles away."
    ),
    "sourdough.md": (
        "# Sourdough\n\nA sourdough starter is a culture of wild yeast and lactobacilli. "
        "Feed the starter with equal weights of flour and water every day."
    ),
}


@dataclass
class Corpus:
    """The store's path, its one vector store and the file ids by name."""

    path: Path
    vector_store_id: str
    file_ids: dict[str, str]


def make_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Corpus:
    """``DOCS`` in one vector store of the default store of an isolated data dir."""
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    path = default_store_path()
    with KnowledgeStore(path) as store:
        vs = store.create_vector_store("corpus")
        ids: dict[str, str] = {}
        for name, text in DOCS.items():
            kind = "guide" if name == "lighthouse.md" else "recipe"
            result = store.add_file(
                text.encode(), name, vector_store_id=vs.id, attributes={"kind": kind}
            )
            assert result.file is not None
            ids[name] = result.file.id
    return Corpus(path, vs.id, ids)


def server_command(name: str, *args: str) -> list[str]:
    """The argv that starts the test server ``servers/<name>.py`` over stdio."""
    return [sys.executable, str(SERVERS / f"{name}.py"), *args]
