"""``forge`` with its warm-up thread held, for tests/cli/test_first_paint_pty.py.

Run as ``python tests/helpers/held_warm_up.py FIFO REPORT ARGS``. The background thread that
imports what folding and drawing need (``forge_cli._lazy.import_in_background``) first waits
until a byte can be read from the named pipe FIFO; then it writes to REPORT which of the modules
the first frame of the real renderer needs (and of the models, which ``--api responses`` imports
on another such thread, held too) were already imported, and goes on as usual. So the
test sees what is painted before any of them can be loaded, however fast or slow the machine.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HEAVY = (
    "rich",
    "markdown_it",
    "forge_cli.render.rich_renderer",
    "forge_cli.render.plain",
    "forge_cli.stream.builder",
)
"""Modules the renderer or the fold need and the first-paint preview must not."""

MODELS = ("pydantic", "forge_cli.conversations.model", "forge_cli.protocol.request")
"""What ``forge ask --api responses`` imports on a thread once its first request is out."""

_fifo = Path()
_report = Path()
_released = threading.Event()
_holding = threading.Lock()


def hold() -> None:
    """A step run before all others on every background import thread: the first one waits for
    the test and reports what was loaded; the others wait for it."""
    if not _holding.acquire(blocking=False):
        _released.wait()
        return
    with _fifo.open("rb") as fifo:
        fifo.read(1)
    loaded = sorted(name for name in (*HEAVY, *MODELS) if name in sys.modules)
    _report.write_text(json.dumps(loaded))
    _released.set()


def main(argv: list[str]) -> None:
    global _fifo, _report
    _fifo, _report = Path(argv[0]), Path(argv[1])
    sys.argv = [sys.argv[0], *argv[2:]]
    from forge_cli import _lazy

    unheld = _lazy.import_in_background

    def held(modules: Iterable[str], then: Any = None) -> Any:
        return unheld(["__main__:hold", *modules], then)

    _lazy.import_in_background = held  # type: ignore[assignment]
    from forge_cli.cli.main import main as forge

    forge()


if __name__ == "__main__":
    main(sys.argv[1:])
