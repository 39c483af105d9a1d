"""Keeping a tool's side effects on Forge in check: its output, its exits and its threads.

- :func:`run_in_daemon_thread` runs a sync tool in a *daemon* thread (not the default executor,
  whose threads the interpreter joins at exit), so a tool that outlives its timeout no longer holds
  the process when Forge is done.
- :func:`capturing` routes what a tool writes to ``sys.stdout`` / ``sys.stderr`` into a bounded
  buffer instead of the terminal (or the ``--json`` document). The routing follows the tool's
  context (a :class:`~contextvars.ContextVar` copied into its thread), so Forge's own output,
  written at the same time from other tasks, is untouched.
- A thread a tool starts itself (seen when the call ends; no call's context follows it, and it
  may outlive the call) writes untrusted text: it goes to stderr as ``(tool output) …`` lines,
  sanitised, as fd output does.
- :class:`ToolAborted` carries a ``SystemExit`` or ``KeyboardInterrupt`` raised by a tool, so it
  becomes an error result rather than ending Forge.

Writes straight to file descriptors 1 and 2 (``os.write``, child processes that inherit them) are
not captured; ``docs/tools.md`` says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import io
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TextIO, TypeVar

from forge_cli.sanitize import sanitize_inline

__all__ = [
    "CAPTURE_LIMIT",
    "CapturedOutput",
    "ToolAborted",
    "capturing",
    "guard_exits",
    "install_routing",
    "run_in_daemon_thread",
]

T = TypeVar("T")

CAPTURE_LIMIT = 4000
"""Characters of a tool's printed output kept for display; the rest is counted, not kept."""

_CURRENT: contextvars.ContextVar[CapturedOutput | None] = contextvars.ContextVar(
    "forge_tool_output", default=None
)
_INSTALL_LOCK = threading.Lock()


class ToolAborted(Exception):
    """A tool raised ``SystemExit`` or ``KeyboardInterrupt``; ``reason`` says which."""

    def __init__(self, original: BaseException) -> None:
        if isinstance(original, SystemExit):
            reason = f"called sys.exit({original.code!r})"
        else:
            reason = f"raised {type(original).__name__}"
        super().__init__(reason)
        self.reason = reason


class CapturedOutput:
    """What one tool call printed: the first :data:`CAPTURE_LIMIT` characters and the total."""

    def __init__(self, limit: int = CAPTURE_LIMIT) -> None:
        self._parts: list[str] = []
        self._kept = 0
        self._lock = threading.Lock()
        self.limit = limit
        self.total = 0

    def write(self, text: str) -> None:
        """Add ``text`` (called from any thread)."""
        with self._lock:
            self.total += len(text)
            room = self.limit - self._kept
            if room > 0:
                piece = text[:room]
                self._parts.append(piece)
                self._kept += len(piece)

    def text(self) -> str:
        """The kept text, with a note when more was written."""
        with self._lock:
            kept = "".join(self._parts)
            if self.total > self._kept:
                kept += f" [... {self.total - self._kept} more characters not shown]"
            return kept


class _RoutingStream(io.TextIOBase):
    """Stands in for ``sys.stdout``/``sys.stderr``: a tool's writes go to its capture buffer,
    everybody else's to the real stream (whose other attributes show through)."""

    def __init__(self, real: TextIO) -> None:
        super().__init__()
        self.real = real

    def write(self, text: str) -> int:
        target = _CURRENT.get()
        if target is not None:
            target.write(str(text))
            return len(text)
        if threading.current_thread() in _tool_threads:
            # A thread a tool started itself (no call's context follows it; it may outlive the
            # call): untrusted text, shown sanitised on stderr as fd output is.
            _foreign.write(str(text))
            return len(text)
        return self.real.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if _CURRENT.get() is None:
            self.real.flush()

    def isatty(self) -> bool:
        return self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares it read-only
        return str(getattr(self.real, "encoding", "utf-8"))

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.real, "errors", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _ForeignLines:
    """Writes from threads no tool call's context follows, one sanitised line at a time on
    Forge's stderr as ``(tool output) …`` (each line cut at :data:`CAPTURE_LIMIT`)."""

    def __init__(self) -> None:
        self._partial: dict[int, str] = {}
        self._lock = threading.Lock()
        self.stderr: TextIO | None = None

    def write(self, text: str) -> None:
        ident = threading.get_ident()
        with self._lock:
            pending = self._partial.pop(ident, "") + text
            *lines, rest = pending.split("\n")
            if rest:
                self._partial[ident] = rest[:CAPTURE_LIMIT]
            target = self.stderr
            if target is None:
                return
            for line in lines:
                with contextlib.suppress(OSError, ValueError):
                    target.write(f"(tool output) {sanitize_inline(line[:CAPTURE_LIMIT])}\n")
            if lines:
                with contextlib.suppress(OSError, ValueError):
                    target.flush()


_foreign = _ForeignLines()
_tool_threads: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_POOLS = ("forge-", "asyncio_", "AnyIO ", "ThreadPoolExecutor-")
"""Names of threads Forge, asyncio and anyio start for their own work (executor pools may grow
while a call runs); they are not a tool's."""


def install_routing() -> None:
    """Put the routing streams in place of ``sys.stdout``/``sys.stderr`` (idempotent; they pass
    everything through outside tool calls, so they stay installed)."""
    with _INSTALL_LOCK:
        for name in ("stdout", "stderr"):
            current = getattr(sys, name)
            if current is not None and not isinstance(current, _RoutingStream):
                setattr(sys, name, _RoutingStream(current))
        stderr = sys.stderr
        _foreign.stderr = stderr.real if isinstance(stderr, _RoutingStream) else stderr


@contextlib.contextmanager
def capturing(buffer: CapturedOutput) -> Iterator[CapturedOutput]:
    """Within this block (and threads started with its context), tool output goes to ``buffer``."""
    install_routing()
    before = set(threading.enumerate())
    token = _CURRENT.set(buffer)
    try:
        yield buffer
    finally:
        _CURRENT.reset(token)
        # Threads that appeared during the call and live on are the tool's own (Forge starts
        # none while a call runs); their writes are followed from now on.
        _tool_threads.update(
            t for t in set(threading.enumerate()) - before if not t.name.startswith(_POOLS)
        )


async def guard_exits(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable``; a ``SystemExit``/``KeyboardInterrupt`` from it becomes ToolAborted.

    (Caught inside the task, before asyncio would re-raise it out of the event loop.)
    """
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise ToolAborted(exc) from None


async def run_in_daemon_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``func`` in a new daemon thread with the caller's context; await its result.

    If the awaiting task is cancelled (a timeout), the thread is abandoned: it runs on until the
    function returns, but never keeps the process alive.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: tuple[bool, Any]) -> None:
        if future.done():
            return
        ok, value = outcome
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        outcome: tuple[bool, Any]
        try:
            outcome = (True, context.run(func, *args, **kwargs))
        except (SystemExit, KeyboardInterrupt) as exc:
            outcome = (False, ToolAborted(exc))
        except BaseException as exc:  # delivered to the awaiting task
            outcome = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, outcome)

    name = getattr(func, "__name__", "tool")
    threading.Thread(target=target, name=f"forge-tool-{name}", daemon=True).start()
    return await future
