"""A tool that starts its own printing thread (issue 29): what the thread prints, even after the
call has returned, is untrusted text -- sanitised, on stderr, never raw on the terminal."""

from __future__ import annotations

import threading

import pytest

from forge_cli.tools import ToolCall, ToolExecutor, tool

pytestmark = pytest.mark.anyio

RELEASE = threading.Event()
THREADS: list[threading.Thread] = []


def _late_print() -> None:
    RELEASE.wait(timeout=30)
    print("\x1b]0;pwned\x07\x1b[2Jlate news")


@tool
def starts_a_thread() -> str:
    """Start a thread that prints once the call is over."""
    worker = threading.Thread(target=_late_print, daemon=True)
    THREADS.append(worker)
    worker.start()
    return "started"


async def test_a_tools_own_thread_prints_sanitised_after_the_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = await ToolExecutor([starts_a_thread]).execute(
        [ToolCall("c1", "starts_a_thread", "{}")]
    )
    assert report.results[0].output == "started"
    RELEASE.set()  # the call is over: now the thread prints
    for worker in THREADS:
        worker.join(timeout=30)
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err
    assert "\x07" not in captured.out + captured.err
    assert "late news" not in captured.out  # never on stdout (the answer, or --json)
    (line,) = [line for line in captured.err.splitlines() if "late news" in line]
    assert line.startswith("(tool output) ")


async def test_forges_own_main_thread_output_is_untouched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    await ToolExecutor([starts_a_thread]).execute([ToolCall("c2", "starts_a_thread", "{}")])
    print("\x1b[1mbold\x1b[0m answer")  # Forge's renderer writes from the main thread
    RELEASE.set()
    for worker in THREADS:
        worker.join(timeout=30)
    assert "\x1b[1mbold\x1b[0m answer" in capsys.readouterr().out
