"""How a one-shot command lets its process end: without the interpreter's teardown.

The command sets it (:func:`end_without_teardown`, ``forge ask``) and
:func:`forge_cli.cli.main.main` reads it (:func:`leaving_at_once`); it lives apart from both so
that a sub-command never imports the group that imports it by name
(``tests/test_import_cycles.py``).
"""

from __future__ import annotations

__all__ = ["end_without_teardown", "leaving_at_once"]

_leave_at_once = False
"""Set by a command that has written and saved everything (see :func:`end_without_teardown`)."""


def end_without_teardown() -> None:
    """Let this process end without the interpreter's teardown once the command returns.

    A one-shot command (``forge ask``) calls it after its answer is written and its conversation
    saved. :func:`forge_cli.cli.main.main` then flushes stdout and stderr, runs the ``atexit``
    handlers (logging's flush among them) and ends the process with the exit code at once: the
    teardown would free every object one by one and run a last garbage collection -- ~0.1 s of
    CPU for an answer, none of it useful once everything is written (benchmarks/PROFILE.md,
    "Plain path near the floor"). Any other non-daemon thread still running makes it the usual
    exit.
    """
    global _leave_at_once
    _leave_at_once = True


def leaving_at_once() -> bool:
    """Whether the command asked for :func:`end_without_teardown`."""
    return _leave_at_once
