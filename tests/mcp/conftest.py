"""Fixtures for the MCP tests (helpers live in mcp_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from mcp_helpers import Corpus, make_corpus


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Corpus:
    """Two documents in one vector store of the default store of an isolated data dir."""
    return make_corpus(tmp_path, monkeypatch)
