"""Progress and an execution trace for long-running tool calls (Knowledge Forge style).

The rules live here once: :func:`unit_progress` (0..1, a percentage some servers send is scaled)
and :func:`trace_line` / :func:`append_trace` (``[HH:MM:SS] [step] message`` lines joined by
newlines). The local engine uses them to produce items and ``.progress`` events; the stream
builder uses them to fold those events into snapshots.
"""

from __future__ import annotations

import time

from pydantic import field_validator

from forge_cli.protocol._base import WireModel

__all__ = ["TraceableToolCall", "append_trace", "trace_line", "unit_progress"]


def unit_progress(value: float) -> float:
    """``value`` as a fraction 0..1; values in (1, 100] are read as a percentage."""
    number = float(value)
    if 1.0 < number <= 100.0:
        number /= 100.0
    return min(1.0, max(0.0, number))


def trace_line(message: str, step: str | None = None, *, now: float | None = None) -> str:
    """One trace line, ``[HH:MM:SS] [step] message``, stamped with local time ``now``."""
    stamp = time.strftime("%H:%M:%S", time.localtime(now))
    return f"[{stamp}] [{step}] {message}" if step else f"[{stamp}] {message}"


def append_trace(trace: str | None, line: str) -> str:
    """``trace`` with ``line`` added as its last line."""
    return f"{trace}\n{line}" if trace else line


class TraceableToolCall(WireModel):
    """A tool call that reports ``progress`` (0..1) and a newline-separated ``execution_trace``.

    Trace lines look like ``[HH:MM:SS] [step] message`` (:func:`trace_line`). Items are values:
    producers build new ones (the stream builder copies with ``model_copy``), renderers only read.
    """

    progress: float | None = None
    execution_trace: str | None = None

    @field_validator("progress", mode="before")
    @classmethod
    def _clamp_progress(cls, value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return unit_progress(value)
        return value

    def trace_lines(self, last: int | None = None) -> list[str]:
        """The trace as lines (only the last ``last`` ones when given)."""
        if not self.execution_trace:
            return []
        lines = [line for line in self.execution_trace.splitlines() if line.strip()]
        return lines[-last:] if last else lines
