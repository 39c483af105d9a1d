"""How `forge ask` ends: without the interpreter's teardown once the answer is written and saved
(cli/ending.py ``end_without_teardown``), yet with every byte flushed, the conversation saved, the
``atexit`` handlers run, other non-daemon threads joined and the exit code unchanged."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import ChatReply, FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

# Imported by --functions inside the forge process: an atexit handler and, when asked, a
# non-daemon thread that only finishes once the main thread has ended (as the interpreter's
# usual exit lets it: it joins such threads before exiting).
TOOLS = """
import atexit, os, threading
from pathlib import Path

from forge_cli.tools import tool

_marks = Path(os.environ["EXIT_MARKS"])
atexit.register(lambda: _marks.joinpath("atexit").write_text("ran"))
if os.environ.get("EXIT_THREAD"):
    def _after_main() -> None:
        threading.main_thread().join()
        _marks.joinpath("thread").write_text("joined")

    threading.Thread(target=_after_main, daemon=False).start()


@tool
def noop() -> str:
    \"\"\"Does nothing.\"\"\"
    return "ok"
"""


def _ask(
    forge: Forge, tmp_path: Path, server: FakeChatServer, *extra: str, thread: bool = False
) -> subprocess.CompletedProcess[str]:
    tools = tmp_path / "exit_tools.py"
    tools.write_text(TOOLS)
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    env = {"EXIT_MARKS": str(marks), "EXIT_THREAD": "1" if thread else ""}
    return forge(
        "ask", "--api", "chat", "--base-url", server.base_url, "--model", "fake-model",
        "--functions", str(tools), *extra, "Say it.", env=env,
    )  # fmt: skip


def test_a_long_answer_is_written_whole_and_saved_before_the_process_ends(
    forge: Forge, tmp_path: Path
) -> None:
    text = "".join(f"line {n} of a long answer that fills the pipe\n" for n in range(4000))
    with FakeChatServer([text_chunks(text, pieces=500)]) as server:
        proc = _ask(forge, tmp_path, server, "--plain")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text
    assert (tmp_path / "marks" / "atexit").read_text() == "ran"
    saved = list((tmp_path / "data" / "conversations").glob("*.json"))
    assert len(saved) == 1
    turns = json.loads(saved[0].read_text())["turns"]
    assert "line 3999 of a long answer" in json.dumps(turns)


def test_jsonl_ends_with_its_answer_line(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer([text_chunks("All done.")]) as server:
        proc = _ask(forge, tmp_path, server, "--jsonl")
    assert proc.returncode == 0, proc.stderr
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last["type"] == "answer"
    assert last["payload"]["status"] == "completed"


def test_a_non_daemon_thread_still_running_is_joined_as_usual(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer([text_chunks("Hello.")]) as server:
        proc = _ask(forge, tmp_path, server, "--plain", thread=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello.\n"
    assert (tmp_path / "marks" / "thread").read_text() == "joined"
    assert (tmp_path / "marks" / "atexit").read_text() == "ran"


def test_a_failed_answer_keeps_its_exit_code(forge: Forge, tmp_path: Path) -> None:
    with FakeChatServer([ChatReply(text_chunks("cut short")[:2], done=False)]) as server:
        proc = _ask(forge, tmp_path, server, "--plain")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "cut\n"  # what arrived, then the error
    assert "forge: error: " in proc.stderr
    assert (tmp_path / "marks" / "atexit").read_text() == "ran"
