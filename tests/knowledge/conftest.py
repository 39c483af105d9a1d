"""Fixtures for the knowledge store tests: a fresh store, PDF bytes, and a network guard."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from knowledge_helpers import make_pdf

from forge_cli.knowledge import KnowledgeStore


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests may only talk to loopback."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            if host not in ("127.0.0.1", "::1", "localhost"):
                raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


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
