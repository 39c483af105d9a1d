"""Issue 12: Ctrl+C during an upload to a remote server (`forge serve` here) stops after the
file being sent, keeps what the server took and says how many were not started."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from forge_cli.backends.knowledge_http import HttpKnowledgeClient
from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore

pytestmark = pytest.mark.anyio


async def test_ctrl_c_stops_a_remote_upload_after_the_current_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(5):
        (notes / f"{n}.md").write_text(f"note number{n}\n")
    with KnowledgeStore(tmp_path / "k.db") as store:
        engine = Engine(store, EngineConfig(seed=False))
        with BackgroundServer(engine) as srv:
            client = HttpKnowledgeClient(srv.base_url)
            try:
                created = await client.create_vector_store("notes")

                def progress(done: int, total: int, name: str) -> None:
                    if done == 2:  # the user presses Ctrl+C while the second file is sent
                        os.kill(os.getpid(), signal.SIGINT)

                report = await client.upload_files(
                    [notes], vector_store_id=created.id, progress=progress
                )
                kept = await client.get_vector_store(created.id)
            finally:
                await client.aclose()
    assert report.interrupted
    assert len(report.results) == 2
    assert report.not_started == 3
    assert kept.file_counts.total == 2
