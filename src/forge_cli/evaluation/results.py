"""What one evaluated question produced: tool calls, cited files, checks, latency, tokens, error.

Plain frozen values with a ``to_json`` each; the JSONL output file, ``--json`` and the summary
all read them, so every output agrees on what happened.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from forge_cli.evaluation.cases import EvalCase

__all__ = [
    "CaseResult",
    "CheckResult",
    "CitedFile",
    "JudgeVerdict",
    "TokenUsage",
    "ToolCallRecord",
]

CheckName = Literal[
    "cited_expected_file", "answer_contains", "called_tool", "tools_in_order", "judge"
]

Outcome = Literal["completed", "failed", "blocked", "not_finished"]
"""What became of a tool call: it ran and returned, it failed (raised, timed out, bad
arguments), it was blocked (denied by the approval policy or a hook, or not run at the
iteration limit), or it had not finished when the answer ended."""


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of an answer: its item kind, function name (function calls) and arguments."""

    kind: str
    name: str | None
    status: str | None
    arguments: dict[str, Any]
    outcome: Outcome = "completed"

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        data: dict[str, Any] = {"kind": self.kind}
        if self.name is not None:
            data["name"] = self.name
        data["status"] = self.status
        data["outcome"] = self.outcome
        data["arguments"] = self.arguments
        return data


@dataclass(frozen=True, slots=True)
class CitedFile:
    """A file the answer cites."""

    file_id: str | None
    filename: str | None

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"file_id": self.file_id, "filename": self.filename}


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check of one answer; ``expected`` is what it looked for."""

    check: CheckName
    expected: str
    passed: bool

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"check": self.check, "expected": self.expected, "passed": self.passed}


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A judge model's grade of a free-form answer: ``score`` in [0, 1], or an ``error``."""

    model: str
    score: float | None
    reason: str = ""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "model": self.model,
            "score": None if self.score is None else round(self.score, 6),
            "reason": self.reason,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts reported by the backend for the whole answer."""

    input_tokens: int
    output_tokens: int
    total_tokens: int

    def to_json(self) -> dict[str, int]:
        """Plain data."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one question.

    ``passed`` is true when the question ran without error and every check passed (a question
    without checks passes when it ran without error). ``files_cited`` lists the expected files
    the answer cited (for the recall of expected files).
    """

    case: EvalCase
    passed: bool
    answer: str
    checks: tuple[CheckResult, ...]
    tool_calls: tuple[ToolCallRecord, ...]
    cited_files: tuple[CitedFile, ...]
    files_cited: tuple[str, ...]
    latency: float
    usage: TokenUsage | None = None
    model: str | None = None
    response_status: str | None = None
    error: str | None = None
    error_type: str | None = None
    scores: dict[str, float] = field(default_factory=dict)
    """Each reward component that applies to the question, in [0, 1]."""
    reward: float = 0.0
    """The weighted mean of ``scores`` (0 when the question failed with an error)."""
    judge: JudgeVerdict | None = None

    @property
    def status(self) -> Literal["passed", "failed", "error"]:
        """``error`` when the question could not be answered, else passed or failed."""
        if self.error is not None:
            return "error"
        return "passed" if self.passed else "failed"

    @property
    def tool_counts(self) -> dict[str, int]:
        """Number of tool calls per kind."""
        return dict(Counter(call.kind for call in self.tool_calls))

    @property
    def reason(self) -> str:
        """Why the question did not pass, in a few words ('' when it passed)."""
        if self.error is not None:
            return self.error
        return "; ".join(_why(c) for c in self.checks if not c.passed)

    def to_json(self) -> dict[str, Any]:
        """One record of the JSONL output and of ``--json`` (``type: result``)."""
        return {
            "type": "result",
            "index": self.case.index,
            "id": self.case.id,
            "question": self.case.question,
            "status": self.status,
            "passed": self.passed,
            "checks": [check.to_json() for check in self.checks],
            "expected_files": [f.label for f in self.case.expected_files],
            "files_cited": list(self.files_cited),
            "cited_files": [f.to_json() for f in self.cited_files],
            "tool_calls": [call.to_json() for call in self.tool_calls],
            "tool_call_counts": self.tool_counts,
            "reward": round(self.reward, 6),
            "scores": {key: round(value, 6) for key, value in self.scores.items()},
            "judge": self.judge.to_json() if self.judge is not None else None,
            "latency_s": round(self.latency, 6),
            "usage": self.usage.to_json() if self.usage else None,
            "model": self.model,
            "response_status": self.response_status,
            "error": self.error,
            "error_type": self.error_type,
            "answer": self.answer,
        }


def _why(check: CheckResult) -> str:
    if check.check == "cited_expected_file":
        return f"did not cite {check.expected}"
    if check.check == "answer_contains":
        return f"answer lacks {check.expected!r}"
    if check.check == "called_tool":
        return f"did not call {check.expected}"
    if check.check == "tools_in_order":
        return f"tools not called in order ({check.expected})"
    return f"judge score below {check.expected}"
