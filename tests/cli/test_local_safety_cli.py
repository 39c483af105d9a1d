"""Local safety through the real CLI: serve refuses before its banner, bad config values exit 2."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Forge = Callable[..., subprocess.CompletedProcess[str]]


def test_serve_on_all_interfaces_without_token_refuses_before_the_banner(forge: Forge) -> None:
    proc = forge("serve", "--host", "0.0.0.0", env={"FORGE_SERVE_TOKEN": ""})
    assert proc.returncode == 2
    assert "refusing to serve on 0.0.0.0" in proc.stderr
    assert "forge serve: http" not in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("timeout = inf", "timeout"),
        ("timeout = nan", "timeout"),
        ('tools = "file-search"', 'tools = ["file-search"]'),
        ('vector_stores = "vs_1"', "expected a list"),
    ],
)
def test_bad_config_values_exit_2_with_one_line(
    forge: Forge, tmp_path: Path, line: str, expected: str
) -> None:
    (tmp_path / "config.toml").write_text(f"[profiles.default]\n{line}\n", encoding="utf-8")
    proc = forge("config", "show")
    assert proc.returncode == 2, proc.stderr
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr


def test_env_and_config_set_still_take_comma_lists(forge: Forge, tmp_path: Path) -> None:
    assert forge("config", "set", "tools", "file-search,web-search").returncode == 0
    text = (tmp_path / "config.toml").read_text(encoding="utf-8")
    assert 'tools = ["file-search", "web-search"]' in text
    assert forge("config", "show").returncode == 0


def test_pypdf_warnings_do_not_reach_stderr(forge: Forge, tmp_path: Path) -> None:
    from knowledge.knowledge_helpers import make_pdf

    data = make_pdf(["the lighthouse keeper trims the wick"])
    cut = data.rindex(b"startxref")
    damaged = data[:cut] + b"startxref\n12345\n%%EOF\n"  # pypdf repairs it, and complains
    (tmp_path / "damaged.pdf").write_bytes(damaged)
    proc = forge("files", "upload", str(tmp_path / "damaged.pdf"))
    assert proc.returncode == 0, proc.stderr
    assert "startxref" not in proc.stderr
    assert "damaged.pdf" in proc.stdout + proc.stderr


def test_a_second_chat_on_one_conversation_is_refused(forge: Forge, tmp_path: Path) -> None:
    from forge_cli.conversations import Conversation, ConversationStore

    store = ConversationStore(tmp_path / "data" / "conversations")
    conversation = Conversation()
    store.save(conversation)
    with store.open_for_writing(conversation.id):  # another forge chat holds it
        proc = forge("chat", "--resume", conversation.id)
    assert proc.returncode == 2
    assert f"conversation {conversation.id} is open in another forge chat" in proc.stderr
    assert "Traceback" not in proc.stderr
    free = forge("chat", "--resume", conversation.id, env={"FORGE_TEST_BACKEND": ""})
    assert "open in another forge chat" not in free.stderr


INTERRUPT_DRIVER = """
import sys

import forge_cli.knowledge.batch as batch

batch.BATCH_BYTES = 1  # commit every file on its own, so the first commit comes early
original = batch._BatchWriter._report


def report(self):
    before = self._reported
    original(self)
    if before == 0 and self._reported and self._total == 400:  # not the forge-docs seeding
        print("FIRST FILE COMMITTED", file=sys.__stderr__, flush=True)
        sys.stdin.readline()  # the test sends SIGINT, then a line: the ingest goes on from here


batch._BatchWriter._report = report
from forge_cli.cli.main import main

main(sys.argv[1:])
"""


def test_ctrl_c_stops_an_ingest_after_the_current_file(tmp_path: Path) -> None:
    """SIGINT once the first file is committed: exit 130, the committed files are kept and the
    summary names the store (synchronised on output, not on time)."""
    import json
    import os
    import signal
    import sys

    tree = tmp_path / "notes"
    tree.mkdir()
    for n in range(400):
        (tree / f"{n:04d}.md").write_text(f"# Note {n}\n\nUnique words number{n} here.\n")
    driver = tmp_path / "driver.py"
    driver.write_text(INTERRUPT_DRIVER)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    proc = subprocess.Popen(
        [sys.executable, str(driver), "vs", "create", "notes", str(tree)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.strip() == "FIRST FILE COMMITTED", line
        proc.send_signal(signal.SIGINT)
        _stdout, stderr = proc.communicate("go\n", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    summary = [ln for ln in stderr.splitlines() if "interrupted:" in ln]
    assert len(summary) == 1, stderr
    assert " in vs_" in summary[0]
    assert "not started" in summary[0]
    not_started = int(summary[0].split(" rejected, ")[1].split(" not started")[0])
    assert not_started > 0
    added = [ln for ln in stderr.splitlines() if ln.startswith("ok ")]
    assert added
    listing = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "vs", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=True,
    )
    stores = json.loads(listing.stdout)
    stores = stores["data"] if isinstance(stores, dict) else stores
    notes = [s for s in stores if s["name"] == "notes"]
    assert notes[0]["file_counts"]["total"] == len(added)
    assert len(added) + not_started <= 400


DISK_FULL_DRIVER = """
import sys

from forge_cli.knowledge.batch import IngestOps

original = IngestOps.ingest_paths


def ingest_paths(self, *args, **kwargs):
    # The disk "fills up" once the store exists: SQLite answers SQLITE_FULL past this size.
    conn = self._db._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    return original(self, *args, **kwargs)


IngestOps.ingest_paths = ingest_paths
from forge_cli.cli.main import main

main(sys.argv[1:])
"""


def test_disk_full_during_vs_create_is_clear_and_leaves_no_empty_store(tmp_path: Path) -> None:
    import json
    import os
    import sys

    tree = tmp_path / "big"
    tree.mkdir()
    for n in range(3):
        (tree / f"{n}.md").write_text(f"# Doc {n}\n\n" + f"words{n} and more words " * 20_000)
    driver = tmp_path / "driver.py"
    driver.write_text(DISK_FULL_DRIVER)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    proc = subprocess.run(
        [sys.executable, str(driver), "vs", "create", "notes", str(tree)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "the disk is full" in proc.stderr
    assert "rollback" not in proc.stderr
    assert "Traceback" not in proc.stderr
    listing = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "vs", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=True,
    )
    stores = json.loads(listing.stdout)
    stores = stores["data"] if isinstance(stores, dict) else stores
    assert [s["name"] for s in stores if s["name"] == "notes"] == []
