"""``forge vs`` and ``forge files`` against the local store and against ``forge serve`` (parity).

The commands run in-process through :func:`forge_cli.cli.main.run` (the same entry point as the
console script, errors mapped to exit codes) so the suite stays fast; one test drives the
progress bar through a real pseudo-terminal.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from forge_cli.cli.main import run
from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


Forge = Callable[..., Result]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A directory with two good files and one the store rejects (NUL bytes)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\n\nThe zebra protocol uses port 4242.\n")
    (folder / "beta.txt").write_bytes(b"\x00\x01binary\x00")
    (folder / "gamma.txt").write_text("Gamma notes: the walrus index is rebuilt nightly.\n")
    return folder


@pytest.fixture
def forge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Forge:
    """Run ``forge ARGS`` in-process with an isolated data dir and config."""
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
    """The local store, or ``forge serve`` on loopback reached with ``--api responses``."""
    if request.param == "local":
        yield "local"
        return
    store = KnowledgeStore(tmp_path / "served.db")
    try:
        with BackgroundServer(Engine(store, EngineConfig(seed=False))) as server:
            monkeypatch.setenv("FORGE_API", "responses")
            monkeypatch.setenv("FORGE_BASE_URL", server.base_url)
            yield "remote"
    finally:
        store.close()


def _error_line(result: Result) -> str:
    lines = [line for line in result.err.splitlines() if line.startswith("forge: error: ")]
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err
    return lines[0]


def _by_name(listing: object) -> dict[str, dict[str, object]]:
    assert isinstance(listing, list)
    return {str(entry["name"]): entry for entry in listing}


def test_batch_reports_each_file_and_a_walked_reject_does_not_fail_the_ingest(
    forge: Forge, backend: str, docs: Path
) -> None:
    created = forge("vs", "create", "team", str(docs))
    assert created.code == 0  # a file the directory walk could not read is reported, not fatal
    store_id = created.out.strip()
    assert store_id.startswith("vs_")  # stdout holds only the id, for $(...)
    lines = created.err.splitlines()
    assert lines[0].startswith("ok ")
    assert lines[0].endswith("alpha.md")
    assert lines[1].startswith("rejected   -  beta.txt: ")
    assert lines[2].startswith("ok ")
    assert lines[2].endswith("gamma.txt")
    assert lines[3] == "added 2, rejected 1"
    named = forge("files", "upload", str(docs / "beta.txt"))
    assert named.code == 1  # a file named on the command line that cannot be added fails
    assert "1 of 1 file(s) could not be added" in _error_line(named)

    again = forge("files", "upload", str(docs / "alpha.md"), "--vs", "team")
    assert again.code == 0, again.err
    # The local store says "duplicate"; the files API has no such status, so over HTTP the
    # same content is reported "ok" -- either way it is stored once.
    assert again.out.startswith("duplicate  file_" if backend == "local" else "ok ")
    listing = _by_name(forge("vs", "list", "--json").json())
    assert listing["team"]["file_counts"]["total"] == 2  # type: ignore[index]


def test_show_add_remove_search_delete_by_id_or_name(
    forge: Forge, backend: str, docs: Path, tmp_path: Path
) -> None:
    assert forge("vs", "create", "team").code == 0
    uploaded = forge("files", "upload", str(docs / "gamma.txt"), "--json")
    assert uploaded.code == 0, uploaded.err
    file_id = uploaded.json()[0]["file_id"]  # type: ignore[index]

    added = forge("vs", "add", "team", str(docs / "alpha.md"), file_id, "file_missing")
    assert added.code == 1
    statuses = [line.split()[0] for line in added.out.splitlines()]
    assert statuses == ["ok", "ok", "rejected"]
    assert "file_missing" in added.out

    shown = forge("vs", "show", "team", "--json").json()
    assert isinstance(shown, dict)
    assert sorted(f["filename"] for f in shown["files"]) == ["alpha.md", "gamma.txt"]
    text = forge("vs", "show", "team")
    assert text.code == 0
    assert "name         team" in text.out
    assert "gamma.txt" in text.out

    hits = forge("vs", "search", "team", "walrus index", "--json").json()
    assert isinstance(hits, list)
    assert hits[0]["filename"] == "gamma.txt"
    assert "gamma.txt" in forge("vs", "search", "team", "walrus").out

    removed = forge("vs", "remove", "team", file_id, "file_missing")
    assert removed.code == 2  # a file id that is not there is a bad argument
    assert removed.out.splitlines() == [f"removed    {file_id}", "not found  file_missing"]
    shown = forge("vs", "show", shown["id"], "--json").json()
    assert isinstance(shown, dict)
    assert [f["filename"] for f in shown["files"]] == ["alpha.md"]

    record = forge("files", "show", file_id, "--json").json()
    assert isinstance(record, dict)
    assert record["filename"] == "gamma.txt"
    assert "filename  gamma.txt" in forge("files", "show", file_id).out
    assert file_id in forge("files", "list").out

    assert forge("vs", "delete", "team").code == 0
    assert "team" not in _by_name(forge("vs", "list", "--json").json())
    assert forge("files", "delete", file_id).code == 0
    missing = forge("files", "show", file_id)
    assert missing.code == 2  # an unknown file id is a bad argument
    _error_line(missing)


def test_unknown_store_and_empty_batch_are_one_line_errors(forge: Forge, tmp_path: Path) -> None:
    unknown = forge("vs", "show", "nope")
    assert unknown.code == 2  # an unknown store is a bad argument
    assert "no vector store with id or name 'nope'" in _error_line(unknown)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "image.png").write_bytes(b"\x89PNG")
    nothing = forge("files", "upload", str(empty))
    assert nothing.code == 2
    assert "no supported files" in _error_line(nothing)
    chat = forge("vs", "list", "--api", "chat")
    assert chat.code == 2


def test_names_are_sanitised_in_text_output(forge: Forge, tmp_path: Path) -> None:
    created = forge("vs", "create", "evil\x1b[2Jname")
    assert created.code == 0
    listed = forge("vs", "list")
    assert "\x1b" not in listed.out
    assert "evil\\x1b[2Jname" in listed.out
    assert "evil\x1b[2Jname" in _by_name(forge("vs", "list", "--json").json())


def test_upload_draws_a_progress_bar_on_a_terminal(docs: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm",
        "COLUMNS": "100",
    }
    child = TerminalSpawn(
        sys.executable,
        ["-m", "forge_cli.cli", "files", "upload", str(docs)],
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    output = child.read()
    child.close()
    assert child.exitstatus == 0  # beta.txt, found by the walk, is rejected and reported
    assert "\r\x1b[2K" in output
    assert "3/3" in output
    assert "rejected   -  beta.txt" in output


def test_duplicates_are_counted_apart_and_a_file_added_again_is_already_there(
    forge: Forge, docs: Path
) -> None:
    """`forge vs create` said "added 3" for two files and a copy of one (`vs list`: 2 files),
    and adding a file again said it had the "same content as" itself."""
    (docs / "beta.txt").unlink()
    (docs / "copy.md").write_bytes((docs / "alpha.md").read_bytes())
    created = forge("vs", "create", "team", str(docs))
    assert created.code == 0, created.err
    lines = created.err.splitlines()
    [copy] = [line for line in lines if line.startswith("duplicate ")]
    assert "copy.md: same content as alpha.md, already in this vector store (file_" in copy
    assert lines[-1] == "added 2, 1 duplicate of a file already added, rejected 0"
    listing = _by_name(forge("vs", "list", "--json").json())
    assert listing["team"]["file_counts"]["total"] == 2  # type: ignore[index]

    # Issue 31: a path the store holds already is known by its path: "unchanged", not a
    # duplicate of itself; a copy under another name is still a duplicate of its first name.
    again = forge("vs", "add", "team", str(docs / "gamma.txt"))
    assert again.code == 0, again.err
    shown = (again.out + again.err).splitlines()
    [line] = [line for line in shown if line.startswith("unchanged ")]
    assert line.endswith("gamma.txt")
    assert "same content as" not in line
    assert shown[-1] == "added 0, unchanged 1, rejected 0"
    elsewhere = docs.parent / "gamma-copy.txt"
    elsewhere.write_bytes((docs / "gamma.txt").read_bytes())
    copied = forge("vs", "add", "team", str(elsewhere))
    [line] = [line for line in (copied.out + copied.err).splitlines() if "gamma-copy" in line]
    assert line.startswith("duplicate ")
    assert "gamma-copy.txt: same content as gamma.txt, already in this vector store" in line

    other = forge("vs", "create", "other", str(docs / "gamma.txt"))
    assert other.code == 0, other.err
    assert "gamma.txt: uploaded before (file_" in other.err
    assert "now in this vector store too" in other.err
    assert other.err.splitlines()[-1] == "added 1, rejected 0"  # `vs list`: other has 1 file
    assert _by_name(forge("vs", "list", "--json").json())["other"]["file_counts"]["total"] == 1  # type: ignore[index]
