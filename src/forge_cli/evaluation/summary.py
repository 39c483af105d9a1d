"""The summary of a run: pass rate, recall of expected files, tool use, latency, tokens.

Percentiles use the nearest-rank method (the smallest value with at least p% of the values at or
below it), so a reported p95 is always one of the measured latencies.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from forge_cli.evaluation.results import CaseResult

__all__ = ["EvalSummary", "percentile", "summarize"]


def percentile(values: Sequence[float], p: float) -> float | None:
    """The nearest-rank ``p``-th percentile (0 < p <= 100) of ``values``; ``None`` if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True, slots=True)
class EvalSummary:
    """Figures over the questions that ran.

    ``planned`` counts the dataset's valid questions, ``completed`` those that ran (fewer when
    the run was interrupted), ``skipped`` the dataset entries that were rejected. ``failed``
    includes ``errors``. ``file_recall`` is ``None`` when no question expects a file.
    ``gate_passed`` says whether ``pass_rate`` reached ``min_pass`` (the exit code).
    """

    planned: int
    completed: int
    passed: int
    failed: int
    errors: int
    skipped: int
    pass_rate: float
    expected_files: int
    expected_files_cited: int
    file_recall: float | None
    tool_calls: int
    mean_tool_calls: float
    tool_calls_by_kind: dict[str, int] = field(default_factory=dict)
    latency_p50: float | None = None
    latency_p95: float | None = None
    latency_mean: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    min_pass: float = 1.0
    gate_passed: bool = False
    mean_reward: float | None = None
    expected_tools: int = 0
    expected_tools_called: int = 0
    tool_recall: float | None = None
    tool_calls_by_outcome: dict[str, int] = field(default_factory=dict)
    judged: int = 0
    mean_judge_score: float | None = None

    @property
    def interrupted(self) -> bool:
        """Whether questions were left unrun."""
        return self.completed < self.planned

    def to_json(self) -> dict[str, Any]:
        """The ``type: summary`` record of the JSONL output and of ``--json``."""
        return {
            "type": "summary",
            "planned": self.planned,
            "completed": self.completed,
            "interrupted": self.interrupted,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
            "pass_rate": round(self.pass_rate, 6),
            "min_pass": self.min_pass,
            "gate_passed": self.gate_passed,
            "expected_files": self.expected_files,
            "expected_files_cited": self.expected_files_cited,
            "file_recall": None if self.file_recall is None else round(self.file_recall, 6),
            "tool_calls": self.tool_calls,
            "mean_tool_calls": round(self.mean_tool_calls, 6),
            "tool_calls_by_kind": dict(sorted(self.tool_calls_by_kind.items())),
            "tool_calls_by_outcome": dict(sorted(self.tool_calls_by_outcome.items())),
            "expected_tools": self.expected_tools,
            "expected_tools_called": self.expected_tools_called,
            "tool_recall": _round(self.tool_recall),
            "mean_reward": _round(self.mean_reward),
            "judged": self.judged,
            "mean_judge_score": _round(self.mean_judge_score),
            "latency_s": {
                "p50": _round(self.latency_p50),
                "p95": _round(self.latency_p95),
                "mean": _round(self.latency_mean),
            },
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "total_tokens": self.total_tokens,
            },
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def summarize(
    results: Sequence[CaseResult],
    *,
    planned: int | None = None,
    skipped: int = 0,
    min_pass: float = 1.0,
) -> EvalSummary:
    """The summary of ``results`` (any order)."""
    done = len(results)
    passed = sum(1 for r in results if r.passed)
    expected = sum(len(r.case.expected_files) for r in results)
    cited = sum(len(r.files_cited) for r in results)
    kinds: Counter[str] = Counter()
    for result in results:
        kinds.update(call.kind for call in result.tool_calls)
    outcomes: Counter[str] = Counter()
    for result in results:
        outcomes.update(call.outcome for call in result.tool_calls)
    expected_tools = sum(len(r.case.expected_tools) for r in results)
    tools_called = sum(
        1 for r in results for c in r.checks if c.check == "called_tool" and c.passed
    )
    judge_scores = [
        r.judge.score for r in results if r.judge is not None and r.judge.score is not None
    ]
    latencies = [r.latency for r in results]
    pass_rate = passed / done if done else 0.0
    return EvalSummary(
        planned=done if planned is None else planned,
        completed=done,
        passed=passed,
        failed=done - passed,
        errors=sum(1 for r in results if r.error is not None),
        skipped=skipped,
        pass_rate=pass_rate,
        expected_files=expected,
        expected_files_cited=cited,
        file_recall=cited / expected if expected else None,
        tool_calls=sum(kinds.values()),
        mean_tool_calls=sum(kinds.values()) / done if done else 0.0,
        tool_calls_by_kind=dict(kinds),
        latency_p50=percentile(latencies, 50),
        latency_p95=percentile(latencies, 95),
        latency_mean=sum(latencies) / done if done else None,
        input_tokens=sum(r.usage.input_tokens for r in results if r.usage),
        output_tokens=sum(r.usage.output_tokens for r in results if r.usage),
        total_tokens=sum(r.usage.total_tokens for r in results if r.usage),
        min_pass=min_pass,
        gate_passed=done > 0 and pass_rate >= min_pass,
        mean_reward=sum(r.reward for r in results) / done if done else None,
        expected_tools=expected_tools,
        expected_tools_called=tools_called,
        tool_recall=tools_called / expected_tools if expected_tools else None,
        tool_calls_by_outcome=dict(outcomes),
        judged=sum(1 for r in results if r.judge is not None),
        mean_judge_score=sum(judge_scores) / len(judge_scores) if judge_scores else None,
    )
