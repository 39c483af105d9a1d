"""Private data (issue 12): modes regardless of umask, symlinks that leave the tree, disk full
and read-only stores give clear errors."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.errors import ForgeError, KnowledgeError, UsageError
from forge_cli.knowledge import KnowledgeStore
from forge_cli.knowledge.db import StoreUnwritable

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.usefixtures("loose_umask")
def test_a_new_store_is_private(tmp_path: Path) -> None:
    path = tmp_path / "data" / "deeper" / "knowledge.db"
    with KnowledgeStore(path) as store:
        store.add_file(b"# Secret\n\nmy diary", "diary.md")
        assert _mode(path) == 0o600
        wal = Path(f"{path}-wal")
        assert wal.exists()
        assert _mode(wal) == 0o600
    assert _mode(path.parent) == 0o700
    assert _mode(path.parent.parent) == 0o700


@pytest.mark.usefixtures("loose_umask")
def test_an_existing_readable_store_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.db"
    with KnowledgeStore(path):
        pass
    path.chmod(0o644)
    with KnowledgeStore(path):
        assert _mode(path) == 0o600


@pytest.mark.usefixtures("loose_umask")
def test_the_default_data_dir_is_tightened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forge_cli.engine import EngineConfig, open_store

    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    monkeypatch.setenv("FORGE_DATA_DIR", str(data))
    with open_store(None, EngineConfig(seed=False)):
        pass
    assert _mode(data) == 0o700
    assert _mode(data / "knowledge.db") == 0o600


@pytest.mark.usefixtures("loose_umask")
def test_conversations_are_private(tmp_path: Path) -> None:
    root = tmp_path / "data" / "conversations"
    store = ConversationStore(root)
    saved = store.save(Conversation())
    assert _mode(root) == 0o700
    assert _mode(saved) == 0o600
    root.chmod(0o755)
    store.save(Conversation())
    assert _mode(root) == 0o700


@pytest.mark.usefixtures("loose_umask")
def test_the_input_history_is_private(tmp_path: Path) -> None:
    from forge_cli.repl.prompt import PromptReader

    history = tmp_path / "data" / "history"
    PromptReader(history)
    assert _mode(history) == 0o600
    assert _mode(history.parent) == 0o700


def test_directory_ingest_does_not_follow_symlinks_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.md").write_text("root:x:0:0 secret outside the tree")
    (outside / "more.md").write_text("another secret outside")
    tree = tmp_path / "notes"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nan ordinary note")
    (tree / "passwd.md").symlink_to(outside / "passwd.md")
    (tree / "alias.md").symlink_to(tree / "a.md")  # inside the tree: fine
    (tree / "dangling.md").symlink_to(tmp_path / "missing.md")
    (tree / "linked-dir").symlink_to(outside, target_is_directory=True)
    with KnowledgeStore(tmp_path / "k.db") as store:
        report = store.ingest_paths([tree])
        by_name = {Path(r.path or "").name: r for r in report.results}
        assert by_name["passwd.md"].status == "rejected"
        assert "symlink that leads outside" in (by_name["passwd.md"].reason or "")
        assert by_name["dangling.md"].status == "rejected"
        assert by_name["a.md"].status == "ok"
        assert by_name["alias.md"].status == "duplicate"
        assert "more.md" not in by_name  # a symlinked directory is not entered
        texts = b" ".join(store.get_file_content(f.id) for f in store.list_files())
    assert b"secret" not in texts


def test_disk_full_is_a_clear_error_not_cannot_rollback(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("full")
        pages = store._db._conn.execute("PRAGMA page_count").fetchone()[0]
        store._db._conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        big = tmp_path / "big"
        big.mkdir()
        for n in range(3):
            (big / f"{n}.md").write_text(f"# Doc {n}\n\n" + "lorem ipsum dolor " * 20_000)
        with pytest.raises(StoreUnwritable) as caught:
            store.ingest_paths([big], vector_store_id=vs.id)
        message = caught.value.one_line()
        assert "disk is full" in message
        assert "rollback" not in message
        assert store.get_vector_store(vs.id).file_counts.total == 0
        # The store is still usable afterwards.
        store._db._conn.execute("PRAGMA max_page_count = 1073741823")
        assert store.add_file(b"# Small\n\nfits now", "small.md").status == "ok"


def test_a_read_only_data_dir_names_the_path(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    data = tmp_path / "ro"
    data.mkdir()
    data.chmod(0o500)
    try:
        with pytest.raises(ForgeError) as caught:
            KnowledgeStore(data / "knowledge.db")
    finally:
        data.chmod(0o700)
    assert str(data / "knowledge.db") in caught.value.one_line()


def test_an_unusable_store_path_names_the_path(tmp_path: Path) -> None:
    """(Also as root, where permission bits do not stop anything.)"""
    in_place = tmp_path / "dir-not-file.db"
    in_place.mkdir()
    in_place.chmod(0o755)
    with pytest.raises(KnowledgeError) as caught:
        KnowledgeStore(in_place)
    assert str(in_place) in caught.value.one_line()
    assert _mode(in_place) == 0o755  # a directory in the way is not "tightened" as a file
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ForgeError) as caught_dir:
        KnowledgeStore(blocker / "data" / "knowledge.db")
    assert str(blocker / "data") in caught_dir.value.one_line()


def test_a_second_writer_of_a_conversation_is_refused(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "conversations")
    conversation = Conversation()
    store.save(conversation)
    with store.open_for_writing(conversation.id):
        with (
            pytest.raises(UsageError, match="open in another forge chat") as caught,
            store.open_for_writing(conversation.id),
        ):
            pass
        assert str(os.getpid()) in caught.value.one_line()
    with store.open_for_writing(conversation.id):  # released: free again
        pass
    assert not list((tmp_path / "conversations").glob(".*.lock"))


def test_a_directory_the_walk_cannot_read_is_reported_not_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-directory that cannot be listed (permission denied) was left out without a word:
    the summary said nothing of the files in it. It is a rejected entry with the reason, and
    the other files still go in. (``os.scandir`` fails for it here, as it does for a user
    without the permission; root ignores permission bits.)"""
    tree = tmp_path / "notes"
    (tree / "locked").mkdir(parents=True)
    (tree / "locked" / "inside.md").write_text("# Hidden\n\nnever listed")
    (tree / "a.md").write_text("# A\n\nan ordinary note")
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with KnowledgeStore(tmp_path / "k.db") as store:
        report = store.ingest_paths([tree])
    by_name = {Path(r.path or "").name: r for r in report.results}
    assert by_name["a.md"].status == "ok"
    assert by_name["locked"].status == "rejected"
    assert by_name["locked"].reason == "cannot read the directory (Permission denied)"
    assert "inside.md" not in by_name


def test_a_broken_or_looping_symlink_is_named_as_such(tmp_path: Path) -> None:
    """A dangling symlink or a loop was reported as "a symlink that leads outside the
    directory", which sends the user looking for a target that is not there."""
    tree = tmp_path / "notes"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nan ordinary note")
    (tree / "dangling.md").symlink_to(tmp_path / "missing.md")
    (tree / "loop1.md").symlink_to(tree / "loop2.md")
    (tree / "loop2.md").symlink_to(tree / "loop1.md")
    with KnowledgeStore(tmp_path / "k.db") as store:
        report = store.ingest_paths([tree])
    reasons = {Path(r.path or "").name: r.reason for r in report.results}
    broken = "skipped: a broken symlink (its target is missing, or it loops)"
    assert reasons == {"a.md": None, "dangling.md": broken, "loop1.md": broken, "loop2.md": broken}
