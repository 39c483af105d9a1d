"""The terminal report of ``forge eval``: summary and failure tables, progress bar, hostile text."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import pytest
from rich.console import Console

from forge_cli.evaluation import CaseResult, EvalCase, ExpectedFile, score_case, summarize

if TYPE_CHECKING:
    from types import ModuleType


@pytest.fixture
def report() -> ModuleType:
    import forge_cli.render.eval_report as module

    return module


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=100, color_system=None, force_terminal=False), buffer


def _results() -> list[CaseResult]:
    hostile = EvalCase(
        index=1, id="evil\x1b[2J\u202eid", question="Q", expected_answer_contains=("x",)
    )
    good = EvalCase(index=0, id="good", question="Q", expected_files=(ExpectedFile(("a.md",)),))
    return [
        score_case(good, None, latency=0.004),
        score_case(hostile, None, latency=1.5, error=RuntimeError("bad \x1b]52;c;AAAA\x07 news")),
    ]


def test_summary_and_failures_are_printed_without_control_characters(report: ModuleType) -> None:
    from forge_cli.sanitize import dangerous_chars

    console, buffer = _console()
    results = _results()
    report.print_eval_report(
        console, results, summarize(results, planned=3, skipped=1, min_pass=0.5)
    )
    text = buffer.getvalue()
    assert "Not passed" in text
    assert "good" in text
    assert "did not cite a.md" in text
    assert "\\x1b[2J" in text
    assert "\\u202e" in text
    assert not set(text) & dangerous_chars()
    assert "forge eval (interrupted)" in text
    assert "2 of 3 (1 skipped)" in text
    assert "0.0% (min 50.0%: interrupted)" in text
    assert "file recall" in text
    assert "0.0% (0/1)" in text
    assert "latency p95" in text
    assert "1.50 s" in text


def test_summary_table_of_a_complete_run(report: ModuleType) -> None:
    console, buffer = _console()
    results = _results()[:1]
    console.print(report.summary_table(summarize(results, min_pass=0.0)))
    text = buffer.getvalue()
    assert "forge eval" in text
    assert "interrupted" not in text
    assert "(min 0.0%: met)" in text


def test_format_seconds(report: ModuleType) -> None:
    assert report.format_seconds(None) == "-"
    assert report.format_seconds(0.0042) == "4.2 ms"
    assert report.format_seconds(0.25) == "250 ms"
    assert report.format_seconds(2.0) == "2.00 s"


def test_progress_is_silent_off_a_terminal(report: ModuleType) -> None:
    stream = io.StringIO()
    with report.EvalProgress(stream, total=2) as progress:
        for result in _results():
            progress.advance(result)
    assert not progress.enabled
    assert (progress.done, progress.passed) == (2, 0)
    assert stream.getvalue() == ""


def test_progress_bar_on_a_terminal_console(report: ModuleType) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=True, color_system=None)
    with report.EvalProgress(buffer, total=2, console=console) as progress:
        for result in _results():
            progress.advance(result)
    assert progress.enabled
    assert "2/2" in buffer.getvalue()
