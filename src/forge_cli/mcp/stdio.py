"""Bounded MCP messages on ``forge mcp``'s stdin, and the SDK's stdio log lines (issue 29).

The SDK reads a stdio peer's lines whole, however long, and logs a traceback for every line that
is not a JSON-RPC message: a 200 MB or deeply nested message to ``forge mcp`` took 410-610 MB and
left tracebacks, and a server printing garbage at start gave ~1,000 tracebacks on the terminal.

- :class:`GatedStdin` is ``forge mcp``'s stdin: a line is cut off at :data:`MAX_MESSAGE_BYTES`
  while it is read (never held whole), a message nested deeper than the JSON limit is refused
  before it is parsed, and a line that is no JSON message is dropped. Each kind of refusal is one
  line on stderr; repeats are counted and summarised when the input ends.
- :class:`SdkLogTally` takes the SDK client's log records for a stdio server (one per garbage
  line, each with a traceback): the first of each kind is one line in that server's log file,
  the rest are counted, and a summary line is written when the connection closes.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TextIO

from forge_cli import jsonsafe
from forge_cli.limits import MIB
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = [
    "MAX_MESSAGE_BYTES",
    "GatedStdin",
    "LineGate",
    "Refusal",
    "SdkLogTally",
    "gate_stdin",
    "route_sdk_client_logs",
    "stderr_reporter",
]

MAX_MESSAGE_BYTES = 16 * MIB
"""The largest MCP message read over stdio (as ``serve.max_body_bytes`` for HTTP bodies)."""

_READ_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused line: its kind (``too_large``, ``too_deep``, ``not_json``) and a reason."""

    kind: str
    reason: str


@dataclass
class LineGate:
    """Splits a byte stream into lines of at most ``max_bytes``; checks each line's nesting.

    :meth:`feed` returns the accepted lines (without their newline) and the refusals, in order.
    A line longer than the limit is dropped as it streams (never held whole).
    """

    max_bytes: int = MAX_MESSAGE_BYTES
    max_depth: int = field(default_factory=jsonsafe.max_depth)
    _partial: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, data: bytes) -> list[bytes | Refusal]:
        """The complete lines (or refusals) that ``data`` finishes."""
        out: list[bytes | Refusal] = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            if not self._skipping:
                self._partial += piece
                if len(self._partial) > self.max_bytes:
                    self._partial.clear()
                    self._skipping = True
            if end < 0:
                break
            start = end + 1
            if self._skipping:
                self._skipping = False
                out.append(Refusal("too_large", f"a message larger than {self.max_bytes} bytes"))
            else:
                out.append(self._check(bytes(self._partial)))
                self._partial.clear()
        return out

    def _check(self, line: bytes) -> bytes | Refusal:
        if not line.strip():
            return line
        if jsonsafe.json_depth(line) > self.max_depth:
            return Refusal(
                "too_deep",
                f"a message nested deeper than {self.max_depth} levels "
                "(limits.max_json_depth raises the limit)",
            )
        stripped = line.lstrip()
        if not stripped.startswith(b"{") and not stripped.startswith(b"["):
            shown = sanitize_inline(stripped[:60].decode("utf-8", "replace"))
            return Refusal("not_json", f"a line that is not a JSON-RPC message ({shown!r})")
        return line


@dataclass
class _Tally:
    """Refusals reported once per kind, then counted."""

    report: Callable[[str], None]
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, refusal: Refusal) -> None:
        seen = self.counts.get(refusal.kind, 0)
        self.counts[refusal.kind] = seen + 1
        if seen == 0:
            self.report(f"refused {refusal.reason}")

    def summary(self) -> None:
        more = {kind: n - 1 for kind, n in self.counts.items() if n > 1}
        if more:
            text = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in sorted(more.items()))
            self.report(f"refused {sum(more.values())} more lines like those ({text})")


class GatedStdin(io.RawIOBase):
    """A binary stdin for ``forge mcp`` that passes on only lines within the limits.

    Installed as ``sys.stdin``'s buffer, the SDK's stdio server reads it in a worker thread as
    it would the process's stdin. Refusals are reported through ``report`` (one line each
    kind, then counted; a summary at end of input).
    """

    def __init__(
        self,
        fd: int,
        report: Callable[[str], None],
        *,
        max_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        super().__init__()
        self._fd = fd
        self._gate = LineGate(max_bytes=max_bytes)
        self._tally = _Tally(report)
        self._ready = bytearray()
        self._eof = False

    def readable(self) -> bool:
        """A read-only stream."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` with accepted lines (blocks until one is complete or input ends)."""
        view = memoryview(buffer).cast("B")
        while not self._ready and not self._eof:
            data = os.read(self._fd, _READ_BYTES)
            if not data:
                self._eof = True
                self._tally.summary()
                break
            for item in self._gate.feed(data):
                if isinstance(item, Refusal):
                    self._tally.add(item)
                    continue
                self._ready += item + b"\n"
        count = min(len(view), len(self._ready))
        view[:count] = self._ready[:count]
        del self._ready[:count]
        return count


def stderr_reporter(prefix: str) -> Callable[[str], None]:
    """One ``forge: <prefix>: …`` line on stderr per call."""

    def report(text: str) -> None:
        sys.stderr.write(f"forge: {prefix}: {text}\n")
        sys.stderr.flush()

    return report


def gate_stdin(prefix: str = "mcp") -> None:
    """Make ``sys.stdin`` a :class:`GatedStdin` over fd 0 (``forge mcp``, before serving)."""
    raw = GatedStdin(0, stderr_reporter(prefix))
    sys.stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace")


_current_tally: ContextVar[SdkLogTally | None] = ContextVar("forge_mcp_log_tally", default=None)


class SdkLogTally:
    """One stdio server's SDK log records: the first of each message written, the rest counted.

    :meth:`active` binds it to the current task and the tasks started from it (the SDK's reader
    task inherits the context), so the records of concurrent servers go to their own logs.
    """

    def __init__(self, log: TextIO) -> None:
        self._log = log
        self._counts: dict[str, int] = {}

    def add(self, text: str) -> None:
        """Write the first record of ``text``, count the others."""
        seen = self._counts.get(text, 0)
        self._counts[text] = seen + 1
        if seen == 0:
            self._write(f"--- forge: the MCP client reported: {text}")

    def summary(self) -> None:
        """One line per message that came more than once."""
        for text, count in self._counts.items():
            if count > 1:
                self._write(f"--- forge: ... and {count - 1} more like it: {text}")
        self._counts.clear()

    def _write(self, line: str) -> None:
        try:
            self._log.write(line + "\n")
            self._log.flush()
        except (OSError, ValueError):  # the log closed under a late record
            pass

    @contextmanager
    def active(self) -> Iterator[None]:
        """Route the SDK's records to this tally while the block runs; summarise at its end."""
        token = _current_tally.set(self)
        try:
            yield
        finally:
            _current_tally.reset(token)
            self.summary()


class _SdkClientLog(logging.Handler):
    """The SDK client's records: to the tally of the server they concern, one sanitised line,
    no traceback; a record outside any connection is one line on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = sanitize_inline(redact(record.getMessage()))[:300]
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                text = f"{text}: {type(exc).__name__}"
            tally = _current_tally.get()
            if tally is not None:
                tally.add(text)
            else:
                sys.stderr.write(f"forge: mcp: {text}\n")
        except Exception:  # a log line must never break a connection
            self.handleError(record)


def route_sdk_client_logs() -> None:
    """Send the SDK client's records (loggers ``mcp.client.*``) to :class:`_SdkClientLog` only."""
    logger = logging.getLogger("mcp.client")
    if not any(isinstance(handler, _SdkClientLog) for handler in logger.handlers):
        logger.addHandler(_SdkClientLog())
    logger.setLevel(logging.WARNING)
    logger.propagate = False
