"""When the reader of Forge's output goes away (``forge ask … | head -1``).

Python ignores SIGPIPE, so the next write raises ``BrokenPipeError``. Forge ends quietly with exit
code 141 (128 + SIGPIPE, what a shell reports for a program that SIGPIPE stopped), keeps what
arrived (the turn is saved as ``interrupted``) and prints no error line and no traceback.

Each test gives the forge process a pipe for stdout whose read end is already closed (or closed
after the first line was read), so the broken pipe is certain, not a race with the pipe buffer.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from forge_cli.errors import EXIT_OUTPUT_CLOSED
from forge_cli.testing.fake_chat_server import ChatReply, FakeChatServer, text_chunks
from helpers.connect_probe import isolated_env  # type: ignore[import-not-found]
from helpers.testhook import FORGE_COMMAND as FORGE  # type: ignore[import-not-found]


def _run_into_closed_pipe(tmp_path: Path, *args: str) -> tuple[int, str]:
    """Run forge with stdout a pipe nobody reads (its read end closed before forge starts)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [*FORGE, *args],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=isolated_env(tmp_path),
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    return proc.returncode, proc.stderr


def _ask_into_a_full_disk(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``forge ask --plain`` with stdout ``/dev/full`` (every write fails: no space left)."""
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("this system has no /dev/full")
    answer = text_chunks("An answer for a full disk.")
    with FakeChatServer([answer]) as server, full.open("w") as out:
        return subprocess.run(
            [*FORGE, "ask", "--api", "chat", "--base-url", server.base_url,
             "--model", "fake-model", "--plain", "Say it."],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, text=True,
            env=isolated_env(tmp_path), timeout=60, check=False,
        )  # fmt: skip


def _saved_turns(tmp_path: Path) -> list[dict[str, object]]:
    [saved] = (tmp_path / "data" / "conversations").glob("*.json")
    turns: list[dict[str, object]] = json.loads(saved.read_text())["turns"]
    return turns


@pytest.mark.parametrize("mode", ["--plain", "--jsonl", "--json"])
def test_an_answer_nobody_reads_ends_quietly_and_is_saved_as_interrupted(
    tmp_path: Path, mode: str
) -> None:
    with FakeChatServer([text_chunks("The answer nobody reads.")]) as server:
        code, stderr = _run_into_closed_pipe(
            tmp_path, "ask", "--api", "chat", "--base-url", server.base_url,
            "--model", "fake-model", mode, "Say it.",
        )  # fmt: skip
    assert code == EXIT_OUTPUT_CLOSED, stderr
    assert "error" not in stderr
    assert "Traceback" not in stderr
    [turn] = _saved_turns(tmp_path)
    assert turn["user"] == "Say it."
    # --json writes its document only at the end: the answer was complete, only its output
    # failed. The streaming modes stopped at their first write.
    assert turn["status"] == ("completed" if mode == "--json" else "interrupted")


def test_a_long_answer_cut_by_head_keeps_what_arrived(tmp_path: Path) -> None:
    """The reader takes the first line and leaves while the answer still streams."""
    text = "".join(f"line {n} of an answer much longer than a pipe holds\n" for n in range(8000))
    with FakeChatServer([text_chunks(text, pieces=2000)]) as server, subprocess.Popen(
        [*FORGE, "ask", "--api", "chat", "--base-url", server.base_url,
         "--model", "fake-model", "--plain", "Write it."],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=isolated_env(tmp_path),
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # `head -1` is done
        stderr = proc.stderr.read().decode()
        code = proc.wait(timeout=60)
    assert first == b"line 0 of an answer much longer than a pipe holds\n"
    assert code == EXIT_OUTPUT_CLOSED, stderr
    assert "error" not in stderr
    assert "Traceback" not in stderr
    [turn] = _saved_turns(tmp_path)
    assert turn["status"] == "interrupted"
    kept = json.dumps(turn["output"])
    assert "line 0 of an answer" in kept
    assert "line 7999 of an answer" not in kept  # the rest was never read from the server


def test_other_commands_end_quietly_too(tmp_path: Path) -> None:
    code, stderr = _run_into_closed_pipe(tmp_path, "--version")
    assert (code, stderr) == (EXIT_OUTPUT_CLOSED, "")
    code, stderr = _run_into_closed_pipe(tmp_path, "conversations", "list")
    assert code in (0, EXIT_OUTPUT_CLOSED)  # nothing to list may write nothing at all
    assert "error" not in stderr
    assert "Traceback" not in stderr


def test_a_server_error_still_reads_as_an_error_when_stdout_is_closed(tmp_path: Path) -> None:
    """A real failure is not hidden behind the closed output: its line goes to stderr."""
    refused = ChatReply(status=400, body={"error": {"message": "the model is unknown"}})
    with FakeChatServer([refused]) as server:
        code, stderr = _run_into_closed_pipe(
            tmp_path, "ask", "--api", "chat", "--base-url", server.base_url,
            "--model", "fake-model", "--plain", "Say it.",
        )  # fmt: skip
    assert code == 1
    assert "the model is unknown" in stderr


def test_an_answer_that_cannot_be_written_is_one_error_line_and_saved(tmp_path: Path) -> None:
    """``forge ask … > /dev/full``: a write error other than a closed pipe is a Forge error line
    (exit 1), not an internal error, and the turn is kept."""
    proc = _ask_into_a_full_disk(tmp_path)
    assert proc.returncode == 1, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("forge: error:")]
    assert "No space left on device" in line
    assert "internal error" not in line
    [turn] = _saved_turns(tmp_path)
    assert turn["status"] == "interrupted"


def test_a_full_disk_is_not_reported_as_an_interruption(tmp_path: Path) -> None:
    """``forge ask … > /dev/full`` printed ``■ interrupted`` above its error line: nobody
    interrupted anything, the output failed, and the error line says so (the turn is still saved
    as interrupted)."""
    proc = _ask_into_a_full_disk(tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "interrupted" not in proc.stderr
    assert proc.stderr.count("forge: error:") == 1
    [turn] = _saved_turns(tmp_path)
    assert turn["status"] == "interrupted"
