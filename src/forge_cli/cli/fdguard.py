"""Keep file descriptor 1 for Forge while user tools run in ``forge ask``.

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

__all__ = ["guard_stdout_fd"]

_MAX_LINE = 4000


def _forward(read_fd: int, err: TextIO) -> None:
    with os.fdopen(read_fd, "rb") as pipe:
        for raw in pipe:
            text = raw.decode("utf-8", "replace").rstrip("\n")[:_MAX_LINE]
            with contextlib.suppress(OSError, ValueError):
                err.write(f"(tool output) {sanitize_inline(text)}\n")
                err.flush()


@contextlib.contextmanager
def guard_stdout_fd() -> Iterator[None]:
    """See the module docstring. Does nothing where fd 1 cannot be duplicated (e.g. under a
    test runner that replaced ``sys.stdout`` with an object without a file descriptor)."""
    try:
        stdout_fd = sys.stdout.fileno()
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        yield
        return
    if stdout_fd != 1:
        yield
        return
    saved = os.dup(1)
    read_fd, write_fd = os.pipe()
    os.dup2(write_fd, 1)
    os.close(write_fd)
    err = sys.stderr
    forwarder = threading.Thread(target=_forward, args=(read_fd, err), daemon=True)
    forwarder.start()
    previous = sys.stdout
    encoding = getattr(previous, "encoding", None) or "utf-8"
    ours = os.fdopen(os.dup(saved), "w", encoding=encoding, errors="replace", buffering=1)
    sys.stdout = ours
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            ours.flush()
        sys.stdout = previous
        os.dup2(saved, 1)  # closes the pipe's write end held by fd 1
        os.close(saved)
        with contextlib.suppress(OSError, ValueError):
            ours.close()
        # Children that still hold the pipe keep the forwarder alive; it is a daemon thread.
        forwarder.join(timeout=1.0)
