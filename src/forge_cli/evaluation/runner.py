"""Running a dataset: each question through a responder, at most N at a time.

The runner does no I/O of its own. It takes a *responder factory* (dependency injection): the
CLI passes one that answers exactly as ``forge ask`` does (same backend, agent loop and tools);
tests pass scripted ones. Each question goes through the same turn runner as ``forge ask`` and
``forge chat`` (:func:`forge_cli.agent.turn.run_turn`). Results are reported to ``on_result`` as
they complete (for the JSONL file and the progress bar) and kept in :attr:`Evaluator.results`,
so an interrupted run still has everything it finished. The final report is in dataset order
whatever the concurrency.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from forge_cli.agent.turn import Responder, run_turn
from forge_cli.errors import UsageError
from forge_cli.evaluation.cases import EvalCase
from forge_cli.evaluation.judge import Judge
from forge_cli.evaluation.requests import RequestDefaults, build_case_request
from forge_cli.evaluation.results import CaseResult
from forge_cli.evaluation.scoring import score_case, with_judge
from forge_cli.evaluation.summary import EvalSummary, summarize
from forge_cli.protocol.response import Response

__all__ = [
    "MAX_CONCURRENCY",
    "Clock",
    "EvalReport",
    "Evaluator",
    "Responder",
    "ResponderFactory",
    "ResultSink",
]

MAX_CONCURRENCY = 64

ResponderFactory = Callable[[EvalCase], Responder]
"""The responder that answers a given question (usually the same one for every question)."""

ResultSink = Callable[[CaseResult], None]
"""Receives each result as it completes (completion order); must not block."""

Clock = Callable[[], float]
"""Seconds from an arbitrary origin (``time.perf_counter`` unless a test injects one)."""


@dataclass(frozen=True, slots=True)
class EvalReport:
    """The results in dataset order and their summary."""

    results: tuple[CaseResult, ...]
    summary: EvalSummary


class Evaluator:
    """Runs questions through responders and scores the answers.

    A failing question (any exception from its responder) is recorded with its error and counts
    as failed; the run goes on. Cancellation (Ctrl+C) is not caught: it stops the run, and
    :attr:`results` keeps what finished.
    """

    def __init__(
        self,
        responders: ResponderFactory,
        *,
        defaults: RequestDefaults | None = None,
        concurrency: int = 1,
        clock: Clock = time.perf_counter,
        on_result: ResultSink | None = None,
        judge: Judge | None = None,
    ) -> None:
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise UsageError(f"concurrency must be between 1 and {MAX_CONCURRENCY}")
        self._responders = responders
        self._defaults = defaults or RequestDefaults()
        self._concurrency = concurrency
        self._clock = clock
        self._on_result = on_result
        self._judge = judge
        self.results: list[CaseResult] = []
        """Finished results, in completion order."""

    async def run(
        self, cases: Sequence[EvalCase], *, skipped: int = 0, min_pass: float = 1.0
    ) -> EvalReport:
        """Run every case; the report lists results in dataset order."""
        pending: Iterable[EvalCase] = iter(cases)

        async def worker() -> None:
            for case in pending:  # one shared iterator: each case is taken by one worker
                self._record(await self._judged(await self.run_case(case)))

        async with asyncio.TaskGroup() as group:
            for _ in range(min(self._concurrency, len(cases))):
                group.create_task(worker())
        return self.report(planned=len(cases), skipped=skipped, min_pass=min_pass)

    def report(self, *, planned: int, skipped: int = 0, min_pass: float = 1.0) -> EvalReport:
        """The report of what has finished so far (also after an interruption)."""
        ordered = tuple(sorted(self.results, key=lambda r: r.case.index))
        summary = summarize(ordered, planned=planned, skipped=skipped, min_pass=min_pass)
        return EvalReport(results=ordered, summary=summary)

    async def run_case(self, case: EvalCase) -> CaseResult:
        """Ask one question and score the answer (errors are recorded, not raised)."""
        last: Response | None = None
        error: Exception | None = None
        start = self._clock()
        try:
            request = build_case_request(case, self._defaults)
            outcome = await run_turn(self._responders(case), request)
            last, error = outcome.response, outcome.error
        except Exception as exc:  # any failure belongs to this question; the run goes on
            error = exc
        latency = max(0.0, self._clock() - start)
        return score_case(case, last, latency=latency, error=error)

    async def _judged(self, result: CaseResult) -> CaseResult:
        """``result`` graded by the judge model, when there is one and the question ran."""
        if self._judge is None or result.error is not None:
            return result
        verdict = await self._judge(result.case, result.answer)
        return with_judge(result, verdict, threshold=self._judge.threshold)

    def _record(self, result: CaseResult) -> None:
        self.results.append(result)
        if self._on_result is not None:
            self._on_result(result)
