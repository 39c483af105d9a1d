"""Writing results: the JSONL file that grows as answers arrive, and the ``--json`` document.

The JSONL file gets one ``{"type": "result", ...}`` line per question as soon as it finishes
(flushed, so an interrupted run keeps valid lines for what it finished) and a final
``{"type": "summary", ...}`` line only when the run completed. Lines are ASCII JSON (every other
character escaped as ``\\uXXXX``): no control or bidi character of an answer reaches a terminal that
``cat``s the file, and every string still round-trips exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from forge_cli.errors import UsageError
from forge_cli.evaluation.dataset import DatasetProblem
from forge_cli.evaluation.results import CaseResult
from forge_cli.evaluation.runner import EvalReport
from forge_cli.evaluation.summary import EvalSummary
from forge_cli.redact import redact

__all__ = ["SCHEMA_ID", "JsonlResultWriter", "report_document"]

SCHEMA_ID = "forge.eval/v1"


class JsonlResultWriter:
    """Appends result lines to a file as they arrive (a context manager; closes the file)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._file: IO[str] = self.path.open("w", encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise UsageError(f"cannot write {str(self.path)!r}: {reason}") from None

    def _line(self, record: dict[str, Any]) -> None:
        self._file.write(redact(json.dumps(record, ensure_ascii=True)) + "\n")
        self._file.flush()

    def write_result(self, result: CaseResult) -> None:
        """One ``type: result`` line."""
        self._line(result.to_json())

    def write_summary(self, summary: EvalSummary) -> None:
        """The final ``type: summary`` line."""
        self._line(summary.to_json())

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> JsonlResultWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def report_document(
    report: EvalReport, *, dataset: str, problems: tuple[DatasetProblem, ...] = ()
) -> dict[str, Any]:
    """The one JSON document of ``forge eval --json``: per-question records and the summary."""
    return {
        "schema": SCHEMA_ID,
        "dataset": dataset,
        "results": [result.to_json() for result in report.results],
        "skipped": [{"line": p.line, "message": p.message} for p in problems],
        "summary": report.summary.to_json(),
    }
