"""Standard output whose reader may go away (``forge ask … | head -1``).

Python ignores ``SIGPIPE``, so a write to a pipe nobody reads any more raises
:class:`BrokenPipeError`, an ``OSError`` that nothing above the view expects: the turn would end
as a crash, its conversation unsaved, and click would exit 1. :class:`ClosedAwareOutput` turns
it into :class:`~forge_cli.errors.OutputClosed`, a Forge error: the turn runner ends the turn as
``interrupted`` (what arrived is saved) and the CLI exits quietly with 141, as a program stopped
by ``SIGPIPE`` does. Any other write error (a full disk: ``forge ask … > /dev/full``) becomes
:class:`~forge_cli.errors.OutputError`: the turn is saved the same way, and the error is one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO, cast

from forge_cli.errors import OutputClosed, OutputError

__all__ = ["ClosedAwareOutput", "closed_aware"]


class ClosedAwareOutput:
    """A text stream that raises :class:`OutputClosed` where the stream raises
    :class:`BrokenPipeError`, :class:`OutputError` for any other ``OSError``; everything else is
    the stream's own."""

    __slots__ = ("_stream",)

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _output_error(exc) from exc

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _output_error(exc) from exc

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _output_error(exc: OSError) -> OutputError:
    if isinstance(exc, BrokenPipeError):
        return OutputClosed()
    reason = exc.strerror or type(exc).__name__
    return OutputError(f"could not write the answer to standard output: {reason}")


def closed_aware(stream: TextIO) -> TextIO:
    """``stream`` wrapped in :class:`ClosedAwareOutput` (once)."""
    if isinstance(stream, ClosedAwareOutput):
        return cast(TextIO, stream)
    return cast(TextIO, ClosedAwareOutput(stream))
