"""How the REPL and the knowledge commands show knowledge work on a terminal.

The session's ``/vs``, ``/upload``, ``/docs`` and ``/search`` talk to the one knowledge seam,
:class:`~forge_cli.knowledge.KnowledgeClient`, and get its records. Batch uploads report progress
through a ``progress(done, total, filename)`` callback (the knowledge layer's
``ProgressCallback``); :class:`ProgressLine` draws it as a one-line bar on a terminal, and
:func:`result_line` formats the per-file outcome the same way for ``/upload`` and ``forge files
upload``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from forge_cli.sanitize import sanitize

if TYPE_CHECKING:
    from forge_cli.knowledge.models import IngestResult

__all__ = ["RESULT_INDENT", "ProgressLine", "result_line"]

RESULT_INDENT = 11
"""Where the text after the status column of a :func:`result_line` starts."""


def result_line(result: IngestResult) -> str:
    """``ok         file_1  notes.md`` / ``rejected   -  blob.bin: binary content`` (sanitised)."""
    reason = f": {result.reason}" if result.reason else ""
    file_id = result.file.id if result.file is not None else "-"
    status = result.status.ljust(RESULT_INDENT - 2)
    return sanitize(f"{status}  {file_id}  {result.filename}{reason}".replace("\n", " "))


class ProgressLine:
    """A one-line progress bar on a terminal stream, redrawn in place; silent elsewhere.

    Call it as a ``ProgressCallback``; :meth:`close` (or leaving the ``with`` block) erases the
    line so the per-file results print cleanly. Drawn only when ``stream`` is a terminal and
    ``TERM`` is not ``dumb``, so pipes and logs never see carriage returns or escape codes.
    """

    _BAR = 24

    def __init__(
        self,
        stream: TextIO,
        *,
        ascii_only: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.stream = stream
        self.ascii_only = ascii_only
        env = os.environ if env is None else env
        self.enabled = _isatty(stream) and env.get("TERM", "").lower() != "dumb"
        self.drawn = 0
        """How many times the bar was drawn (for tests)."""

    def __call__(self, done: int, total: int, filename: str) -> None:
        if not self.enabled or total <= 0:
            return
        full, empty = ("#", "-") if self.ascii_only else ("█", "░")
        filled = self._BAR * min(done, total) // total
        text = f"{full * filled}{empty * (self._BAR - filled)} {done}/{total}  "
        import shutil  # only a bar being drawn needs it (not ``forge vs search``)

        width = shutil.get_terminal_size((80, 24)).columns - 1
        name = sanitize(filename.replace("\n", " "))
        line = (text + name)[: max(width, len(text))]
        self.stream.write(f"\r\x1b[2K{line}")
        self.stream.flush()
        self.drawn += 1

    def close(self) -> None:
        """Erase the bar (if it was drawn)."""
        if self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
