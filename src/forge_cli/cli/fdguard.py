"""Keep file descriptors 1 and 2 for Forge while user tools run (``forge ask``, ``forge chat``).

Python-level prints of a tool are captured by the tool executor (``tools/containment.py``); this
covers the rest: ``os.write(1, ...)``, C extensions and child processes that inherit fd 1. While
the guard is active, Forge's own output goes to a duplicate of the original stdout, and fd 1 is a
pipe whose bytes are shown on stderr, sanitised, one line at a time -- so ``--json`` stays one
clean document and escape sequences never reach the terminal through stdout.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

from forge_cli.sanitize import sanitize_inline

__all__ = ["guard_stdio_fds", "guard_stdout_fd"]

_MAX_LINE = 4000


def _forward(read_fd: int, err: TextIO) -> None:
    with os.fdopen(read_fd, "rb") as pipe:
        for raw in pipe:
            text = raw.decode("utf-8", "replace").rstrip("\n")[:_MAX_LINE]
            with contextlib.suppress(OSError, ValueError):
                err.write(f"(tool output) {sanitize_inline(text)}\n")
                err.flush()


@contextlib.contextmanager
def _guard_fd(fd: int, name: str) -> Iterator[None]:
    """Keep ``fd`` (1 or 2) for Forge: it becomes a pipe whose bytes are shown on stderr,
    sanitised; ``sys.<name>`` writes to a duplicate of the original. Does nothing where the
    stream has no such descriptor (e.g. a test runner replaced it)."""
    stream: TextIO = getattr(sys, name)
    try:
        own_fd = stream.fileno()
        stream.flush()
    except (AttributeError, OSError, ValueError):
        yield
        return
    if own_fd != fd:
        yield
        return
    saved = os.dup(fd)
    read_fd, write_fd = os.pipe()
    encoding = getattr(stream, "encoding", None) or "utf-8"
    ours = os.fdopen(os.dup(saved), "w", encoding=encoding, errors="replace", buffering=1)
    os.dup2(write_fd, fd)
    os.close(write_fd)
    # What arrives on the pipe is shown on Forge's stderr (for fd 2: the duplicate just made).
    shown_on = ours if fd == 2 else sys.stderr
    forwarder = threading.Thread(target=_forward, args=(read_fd, shown_on), daemon=True)
    forwarder.start()
    setattr(sys, name, ours)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            ours.flush()
        setattr(sys, name, stream)
        os.dup2(saved, fd)  # closes the pipe's write end held by the descriptor
        os.close(saved)
        # Children that still hold the pipe keep the forwarder alive; it is a daemon thread.
        forwarder.join(timeout=1.0)
        with contextlib.suppress(OSError, ValueError):
            ours.close()


def guard_stdout_fd() -> contextlib.AbstractContextManager[None]:
    """fd 1 stays Forge's: ``--json`` stays one clean document (see the module docstring)."""
    return _guard_fd(1, "stdout")


def guard_stderr_fd() -> contextlib.AbstractContextManager[None]:
    """fd 2 stays Forge's: raw stderr writes of a tool are shown sanitised, never raw."""
    return _guard_fd(2, "stderr")


@contextlib.contextmanager
def guard_stdio_fds() -> Iterator[None]:
    """Both guards: fd 1 and fd 2 stay Forge's while user tools may write to them."""
    with guard_stderr_fd(), guard_stdout_fd():
        yield
