"""Issue 31 at the command line: `forge vs sync`, `vs add` of an edited file, unique names, and a
create whose every file is rejected -- against the local store and `forge serve`."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from forge_cli.cli.main import run
from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.sync import sync_lock


@dataclass
class Result:
    code: int
    out: str
    err: str


Forge = Callable[..., Result]


@pytest.fixture
def forge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Forge:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "config.toml"))
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "KNOWLEDGE_FORGE_URL"):
        monkeypatch.delenv(name, raising=False)

    def call(*args: str) -> Result:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return call


@pytest.fixture(params=["local", "remote"])
def backend(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forge: Forge
) -> Iterator[str]:
    """The local store, or `forge serve` on loopback as `--api knowledge-forge --base-url`."""
    if request.param == "local":
        yield "local"
        return
    store = KnowledgeStore(tmp_path / "served.db")
    try:
        with BackgroundServer(Engine(store, EngineConfig(seed=False))) as server:
            monkeypatch.setenv("FORGE_API", "knowledge-forge")
            monkeypatch.setenv("FORGE_BASE_URL", server.base_url)
            yield server.base_url
    finally:
        store.close()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kettle.md").write_text("# Kettle\n\nThe kettle whistles at ninety degrees.\n")
    (folder / "lamp.txt").write_text("The desk lamp needs a new bulb.\n")
    return folder


def _error_line(result: Result) -> str:
    lines = [line for line in result.err.splitlines() if line.startswith("forge: error: ")]
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err
    return lines[0]


def test_sync_creates_reports_and_a_second_run_has_nothing_to_do(
    forge: Forge, backend: str, notes: Path
) -> None:
    first = forge("vs", "sync", "home", str(notes), "--json")
    assert first.code == 0, first.err
    document = json.loads(first.out)
    assert set(document) == {
        "vector_store_id",
        "added",
        "changed",
        "removed",
        "unchanged",
        "failed",
    }
    assert str(document["vector_store_id"]).startswith("vs_")
    assert sorted(document["added"]) == sorted(
        os.path.abspath(notes / n) for n in ("kettle.md", "lamp.txt")
    )
    assert (document["changed"], document["removed"], document["unchanged"]) == ([], [], 0)
    assert document["failed"] == []

    again = forge("vs", "sync", "home", str(notes))
    assert again.code == 0, again.err
    assert again.out == ""
    assert again.err.strip() == "nothing to do (2 unchanged)"

    (notes / "kettle.md").write_text("# Kettle\n\nThe kettle is descaled every month.\n")
    (notes / "lamp.txt").unlink()
    planned = forge("vs", "sync", "home", str(notes), "--dry-run")
    assert planned.code == 0, planned.err
    assert planned.out.splitlines() == [
        f"change   {os.path.abspath(notes / 'kettle.md')}",
        f"remove   {os.path.abspath(notes / 'lamp.txt')}",
    ]
    assert planned.err.strip() == "would add 0, change 1, remove 1, unchanged 0, failed 0"
    assert "whistles" in forge("vs", "search", "home", "kettle").out  # nothing changed yet

    done = forge("vs", "sync", "home", str(notes))
    assert done.code == 0, done.err
    assert done.err.strip() == "added 0, changed 1, removed 1, unchanged 0, failed 0"
    found = forge("vs", "search", "home", "kettle").out
    assert "descaled" in found
    assert "whistles" not in found
    shown = forge("vs", "show", "home")
    assert os.path.abspath(notes / "kettle.md") in shown.out


def test_a_walked_file_that_cannot_go_in_is_reported_and_a_named_one_fails(
    forge: Forge, notes: Path
) -> None:
    (notes / "blob.txt").write_bytes(b"\x00\x01binary")
    walked = forge("vs", "sync", "home", str(notes))
    assert walked.code == 0, walked.err
    assert f"failed   {os.path.abspath(notes / 'blob.txt')}: binary content" in walked.out
    assert walked.err.strip().endswith("unchanged 0, failed 1")
    named = forge("vs", "sync", "home", str(notes / "blob.txt"), "--no-delete")
    assert named.code == 1
    assert "1 file(s) could not be synced" in _error_line(named)


def test_a_second_sync_of_a_store_is_refused_while_one_runs(
    forge: Forge, backend: str, notes: Path, tmp_path: Path
) -> None:
    created = forge("vs", "create", "home")
    store_id = created.out.strip()
    if backend == "local":
        lock = tmp_path / "data" / f"knowledge.db.sync-{store_id}.lock"
    else:
        server = hashlib.sha256(backend.rstrip("/").encode()).hexdigest()[:16]
        lock = tmp_path / "data" / "locks" / f"sync-{server}-{store_id}.lock"
    with sync_lock(lock, "the other sync"):  # another forge vs sync holds it
        refused = forge("vs", "sync", "home", str(notes))
    assert refused.code == 1
    assert "another forge vs sync of home is running" in _error_line(refused)
    listed = json.loads(forge("vs", "list", "--json").out)
    assert [s["file_counts"]["total"] for s in listed if s["name"] == "home"] == [0]
    assert forge("vs", "sync", "home", str(notes)).code == 0  # then it runs


def test_vs_add_of_an_edited_file_replaces_it(forge: Forge, backend: str, notes: Path) -> None:
    assert forge("vs", "create", "home", str(notes)).code == 0
    (notes / "lamp.txt").write_text("The desk lamp was replaced by a brighter one.\n")
    added = forge("vs", "add", "home", str(notes / "lamp.txt"))
    assert added.code == 0, added.err
    assert added.out.startswith("replaced ")
    assert added.err.strip().endswith("added 0, replaced 1, rejected 0")
    found = forge("vs", "search", "home", "desk lamp").out
    assert "brighter" in found
    assert "new bulb" not in found
    same = forge("vs", "add", "home", str(notes / "lamp.txt"))
    assert same.out.startswith("unchanged ")
    listed = json.loads(forge("vs", "list", "--json").out)
    assert [s["file_counts"]["total"] for s in listed if s["name"] == "home"] == [2]


def test_names_are_unique_and_a_create_that_adds_nothing_leaves_no_store(
    forge: Forge, backend: str, notes: Path, tmp_path: Path
) -> None:
    first = forge("vs", "create", "home")
    twin = forge("vs", "create", "home")
    assert twin.code == 2
    assert f"a vector store named 'home' exists already ({first.out.strip()})" in _error_line(twin)
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.txt").write_bytes(b"\x00binary")
    (junk / "b.txt").write_text("")
    empty = forge("vs", "create", "junk", str(junk))
    assert empty.code == 1
    assert "no vector store was created" in _error_line(empty)
    names = [s["name"] for s in json.loads(forge("vs", "list", "--json").out)]
    assert "junk" not in names
