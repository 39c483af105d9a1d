"""Fixtures for the knowledge store tests: a fresh store and PDF bytes (the suite-wide
conftest guards the network)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from knowledge_helpers import make_pdf

from forge_cli.knowledge import KnowledgeStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[KnowledgeStore]:
    with KnowledgeStore(tmp_path / "knowledge.db") as st:
        yield st


@pytest.fixture
def pdf_bytes() -> bytes:
    return make_pdf(
        [
            "Chapter one introduces the lighthouse keeper.",
            "Chapter two describes the great storm of the winter.",
            "Chapter three ends with the rescue of the sailors.",
        ]
    )
