"""Progress and an execution trace for long-running tool calls (Knowledge Forge style)."""

from __future__ import annotations

import time

from pydantic import field_validator

from forge_cli.protocol._base import WireModel

__all__ = ["TraceableToolCall"]


class TraceableToolCall(WireModel):
    """A tool call that reports ``progress`` (0..1) and a newline-separated ``execution_trace``.

    Trace lines look like ``[HH:MM:SS] [step] message``. The mutators are for producers (the
    local engine builds its own items with them); snapshots handed to renderers are never mutated.
    """

    progress: float | None = None
    execution_trace: str | None = None

    @field_validator("progress", mode="before")
    @classmethod
    def _clamp_progress(cls, value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
            if number > 1.0 and number <= 100.0:
                number /= 100.0  # some servers send a percentage
            return min(1.0, max(0.0, number))
        return value

    def set_progress(self, progress: float) -> None:
        """Set progress, clamped to 0..1."""
        self.progress = min(1.0, max(0.0, float(progress)))

    def append_trace(self, message: str, step: str | None = None) -> None:
        """Append one trace line stamped with the local time."""
        stamp = time.strftime("%H:%M:%S")
        line = f"[{stamp}] [{step}] {message}" if step else f"[{stamp}] {message}"
        self.execution_trace = f"{self.execution_trace}\n{line}" if self.execution_trace else line

    def trace_lines(self, last: int | None = None) -> list[str]:
        """The trace as lines (only the last ``last`` ones when given)."""
        if not self.execution_trace:
            return []
        lines = [line for line in self.execution_trace.splitlines() if line.strip()]
        return lines[-last:] if last else lines
