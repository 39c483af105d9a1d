"""``forge eval`` on screen: a progress bar on stderr while it runs, then the summary tables.

The render layer sits below the evaluation package, so this module reads results and summaries
through small structural protocols (:class:`SummaryView`, :class:`ResultView`) instead of
importing them. Question ids and error messages come from the user's dataset and the backend:
they pass through :func:`~forge_cli.sanitize.sanitize_inline` before a terminal sees them.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from forge_cli.redact import redact
from forge_cli.render.console import make_console
from forge_cli.sanitize import sanitize_inline

__all__ = [
    "EvalProgress",
    "ResultView",
    "SummaryView",
    "failures_table",
    "format_seconds",
    "print_eval_report",
    "summary_table",
]


class CaseView(Protocol):
    """What the report reads of a question."""

    @property
    def id(self) -> str: ...


class ResultView(Protocol):
    """What the report reads of one question's result."""

    @property
    def case(self) -> CaseView: ...
    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def passed(self) -> bool: ...


class SummaryView(Protocol):
    """What the report reads of a run's summary."""

    @property
    def planned(self) -> int: ...
    @property
    def completed(self) -> int: ...
    @property
    def passed(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def skipped(self) -> int: ...
    @property
    def pass_rate(self) -> float: ...
    @property
    def min_pass(self) -> float: ...
    @property
    def gate_passed(self) -> bool: ...
    @property
    def interrupted(self) -> bool: ...
    @property
    def file_recall(self) -> float | None: ...
    @property
    def expected_files(self) -> int: ...
    @property
    def expected_files_cited(self) -> int: ...
    @property
    def mean_tool_calls(self) -> float: ...
    @property
    def tool_calls_by_kind(self) -> dict[str, int]: ...
    @property
    def latency_p50(self) -> float | None: ...
    @property
    def latency_p95(self) -> float | None: ...
    @property
    def total_tokens(self) -> int: ...
    @property
    def mean_reward(self) -> float | None: ...
    @property
    def expected_tools(self) -> int: ...
    @property
    def expected_tools_called(self) -> int: ...
    @property
    def tool_recall(self) -> float | None: ...
    @property
    def tool_calls_by_outcome(self) -> dict[str, int]: ...
    @property
    def judged(self) -> int: ...
    @property
    def mean_judge_score(self) -> float | None: ...


def format_seconds(value: float | None) -> str:
    """``3.4 ms`` / ``120 ms`` below a second, ``1.23 s`` above; ``-`` when unknown."""
    if value is None:
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    return f"{value * 1000:.1f} ms" if value < 0.01 else f"{value * 1000:.0f} ms"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _kinds(counts: dict[str, int]) -> str:
    parts = [f"{kind.removesuffix('_call')} {n}" for kind, n in sorted(counts.items())]
    return ", ".join(parts) or "none"


def summary_table(summary: SummaryView) -> Table:
    """The summary: pass rate, recall of expected files, tool use, latency, errors."""
    title = "forge eval" + (" (interrupted)" if summary.interrupted else "")
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("metric", style="bold")
    table.add_column("value")
    gate = "met" if summary.gate_passed else "NOT met"
    if summary.interrupted:
        gate = "interrupted"
    recall = _percent(summary.file_recall)
    if summary.file_recall is not None:
        recall += f" ({summary.expected_files_cited}/{summary.expected_files})"
    done = f"{summary.completed}"
    if summary.completed != summary.planned:
        done += f" of {summary.planned}"
    rows = [
        ("questions", done + (f" ({summary.skipped} skipped)" if summary.skipped else "")),
        ("passed", f"{summary.passed}"),
        ("failed", f"{summary.failed} ({summary.errors} errors)"),
        ("pass rate", f"{_percent(summary.pass_rate)} (min {_percent(summary.min_pass)}: {gate})"),
        ("file recall", recall),
        ("tool calls / question", f"{summary.mean_tool_calls:.2f}"),
        ("tool calls by kind", _kinds(summary.tool_calls_by_kind)),
        *_tool_rows(summary),
        ("latency p50", format_seconds(summary.latency_p50)),
        ("latency p95", format_seconds(summary.latency_p95)),
        ("tokens", f"{summary.total_tokens}"),
    ]
    for metric, value in rows:
        table.add_row(Text(metric), Text(value))
    return table


def _tool_rows(summary: SummaryView) -> list[tuple[str, str]]:
    """Reward, tool use against expectations, calls that did not complete, the judge."""
    rows: list[tuple[str, str]] = []
    if summary.mean_reward is not None:
        rows.append(("reward (mean)", f"{summary.mean_reward:.3f}"))
    if summary.tool_recall is not None:
        called = f"{summary.expected_tools_called}/{summary.expected_tools}"
        rows.append(("expected tools called", f"{_percent(summary.tool_recall)} ({called})"))
    unfinished = {k: n for k, n in summary.tool_calls_by_outcome.items() if k != "completed"}
    if unfinished:
        text = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in sorted(unfinished.items()))
        rows.append(("calls not completed", text))
    if summary.judged:
        score = "-" if summary.mean_judge_score is None else f"{summary.mean_judge_score:.3f}"
        rows.append(("judge score (mean)", f"{score} ({summary.judged} judged)"))
    return rows


def failures_table(results: Sequence[ResultView], *, limit: int = 20) -> Table | None:
    """The questions that did not pass (at most ``limit``), or ``None`` when all passed."""
    failed = [r for r in results if not r.passed]
    if not failed:
        return None
    more = len(failed) - limit
    title = "Not passed" + (f" (first {limit} of {len(failed)})" if more > 0 else "")
    table = Table(title=title, title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for result in failed[:limit]:
        table.add_row(
            Text(sanitize_inline(result.case.id)),
            Text(result.status),
            Text(sanitize_inline(redact(result.reason))),
        )
    return table


def print_eval_report(
    out: TextIO | Console, results: Sequence[ResultView], summary: SummaryView
) -> None:
    """Print the failures (if any) and the summary to ``out`` (plain when not a terminal)."""
    console = out if isinstance(out, Console) else make_console(out)
    failures = failures_table(results)
    if failures is not None:
        console.print(failures)
    console.print(summary_table(summary))


class EvalProgress:
    """A progress bar on a terminal stream; does nothing when the stream is not a terminal.

    Use as a context manager and call :meth:`advance` with each finished result.
    """

    def __init__(self, stream: TextIO, total: int, *, console: Console | None = None) -> None:
        self.total = total
        self.passed = 0
        self.done = 0
        enabled = console is not None or _isatty(stream)
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[passed]} passed"),
                TimeElapsedColumn(),
                console=console or make_console(stream),
                transient=True,
            )

    @property
    def enabled(self) -> bool:
        """Whether a bar is shown."""
        return self._progress is not None

    def __enter__(self) -> EvalProgress:
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task("evaluating", total=self.total, passed=0)
        return self

    def advance(self, result: ResultView) -> None:
        """Count one finished question."""
        self.done += 1
        self.passed += int(result.passed)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, advance=1, passed=self.passed)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
