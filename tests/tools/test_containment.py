"""Tool containment in the executor: captured prints, exits as results, capped results, and
concurrent tools each keeping their own output."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from forge_cli.tools import ToolCall, ToolExecutor, tool
from forge_cli.tools.containment import CapturedOutput, capturing

pytestmark = pytest.mark.anyio


@tool
def chatty(word: str) -> str:
    """Print, then answer."""
    print(f"chatty says {word}")
    return word.upper()


@tool
async def chatty_async(word: str) -> str:
    """Print from a coroutine, yielding in between so calls interleave."""
    print(f"async says {word}", end="")
    await asyncio.sleep(0)
    sys.stderr.write(f" and {word} again")
    return word


@tool
def exits() -> str:
    """sys.exit(3)."""
    sys.exit(3)


@tool
async def interrupts() -> str:
    """KeyboardInterrupt from a coroutine."""
    raise KeyboardInterrupt


@tool
def long_answer() -> str:
    """Too long."""
    return "y" * 50


def _call(name: str, arguments: str = "{}", call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, name, arguments)


async def test_prints_are_captured_per_call_and_never_reach_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    executor = ToolExecutor([chatty, chatty_async])
    report = await executor.execute(
        [
            _call("chatty", '{"word": "one"}', "a"),
            _call("chatty_async", '{"word": "two"}', "b"),
            _call("chatty_async", '{"word": "three"}', "c"),
        ]
    )
    printed = [r.printed for r in report.results]
    assert printed[0].strip() == "chatty says one"
    assert printed[1] == "async says two and two again"
    assert printed[2] == "async says three and three again"
    assert [r.output for r in report.results] == ["ONE", "two", "three"]
    out, err = capsys.readouterr()
    assert "says" not in out + err
    print("forge's own output")  # outside a tool call: passes through
    assert capsys.readouterr().out == "forge's own output\n"


@pytest.mark.parametrize(
    ("name", "said"), [("exits", "sys.exit(3)"), ("interrupts", "raised KeyboardInterrupt")]
)
async def test_exits_become_error_results(name: str, said: str) -> None:
    report = await ToolExecutor([exits, interrupts]).execute([_call(name)])
    result = report.results[0]
    assert result.status == "failed"
    assert said in result.output


async def test_results_are_capped_with_a_note() -> None:
    report = await ToolExecutor([long_answer], max_result_chars=10).execute([_call("long_answer")])
    output = report.results[0].output
    assert output.startswith("y" * 10 + "\n")
    assert "y" * 11 not in output
    assert "from 50 to 10 characters" in output
    uncapped = await ToolExecutor([long_answer], max_result_chars=None).execute(
        [_call("long_answer")]
    )
    assert uncapped.results[0].output == "y" * 50


async def test_an_abandoned_sync_tool_runs_in_a_daemon_thread() -> None:
    release = threading.Event()

    @tool(timeout=0.01)
    def stuck() -> str:
        """Waits until released."""
        release.wait()
        print("late output")
        return "late"

    report = await ToolExecutor([stuck]).execute([_call("stuck")])
    assert report.results[0].error_kind == "timeout"
    workers = [t for t in threading.enumerate() if t.name == "forge-tool-stuck"]
    assert workers
    assert all(t.daemon for t in workers)
    release.set()
    for worker in workers:
        worker.join(timeout=30)


def test_captured_output_keeps_a_bounded_prefix() -> None:
    buffer = CapturedOutput(limit=5)
    with capturing(buffer):
        print("abcdefghij", end="")
    assert buffer.total == 10
    assert buffer.text() == "abcde [... 5 more characters not shown]"
