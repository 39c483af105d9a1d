"""Fixtures for the local engine tests: a knowledge store with a small corpus, and an engine."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

_TESTS_DIR = str(Path(__file__).resolve().parents[1])
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

from forge_cli.engine import Engine, EngineConfig  # noqa: E402
from forge_cli.knowledge import KnowledgeStore  # noqa: E402

DOCS = {
    "lighthouse.md": (
        "# Lighthouses\n\nA lighthouse keeper trims the lamp wick every evening. "
        "The Fresnel lens focuses the beam so ships see it thirty miles away.\n\n"
        "## Fog signals\n\nIn fog the keeper sounds the foghorn every thirty seconds."
    ),
    "sourdough.md": (
        "# Sourdough\n\nA sourdough starter is a culture of wild yeast and lactobacilli. "
        "Feed the starter with equal weights of flour and water every day.\n\n"
        "Bake the loaf at 250 degrees with steam for the first twenty minutes."
    ),
    "tides.md": (
        "# Tides\n\nTides are caused by the gravity of the moon and the sun. "
        "Spring tides happen at new and full moon, when the pull adds up."
    ),
}


@dataclass
class Corpus:
    """A store holding ``DOCS`` in one vector store, with their file ids by name."""

    store: KnowledgeStore
    vector_store_id: str
    file_ids: dict[str, str]


@pytest.fixture
def corpus(tmp_path: Path) -> Iterator[Corpus]:
    """A fresh store with the three documents (kind "guide" for lighthouse, else "recipe"...)."""
    with KnowledgeStore(tmp_path / "knowledge.db") as store:
        vs = store.create_vector_store("corpus")
        ids: dict[str, str] = {}
        for name, text in DOCS.items():
            kind = {"lighthouse.md": "guide", "sourdough.md": "recipe"}.get(name, "science")
            result = store.add_file(
                text.encode(), name, vector_store_id=vs.id, attributes={"kind": kind}
            )
            assert result.file is not None
            ids[name] = result.file.id
        yield Corpus(store, vs.id, ids)


@pytest.fixture
def engine(corpus: Corpus) -> Engine:
    """A retrieval engine over the corpus (no forge-docs seeding, to keep the corpus alone)."""
    return Engine(corpus.store, EngineConfig(seed=False))
