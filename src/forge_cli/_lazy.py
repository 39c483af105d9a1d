"""Lazy package exports: a package lists ``name -> submodule`` and imports on first access.

Keeps ``forge --version``, ``forge --help`` and the way to ``forge ask``'s first request light:
importing a package does not import every module it re-exports. Imports nothing of ours.
"""

from __future__ import annotations

import _thread
import importlib
import sys

TYPE_CHECKING = False  # typing itself costs ``forge --version`` milliseconds
if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "after_request_sent",
    "background_imports_pending",
    "first_paint",
    "import_in_background",
    "lazy_exports",
    "pause_gc_for_start_up",
    "request_sent",
    "set_first_paint",
    "start_up_done",
    "wait_for_background_imports",
]


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` resolving ``name`` from ``package.where[name]``.

    The value is cached in the package's namespace, so each name is looked up once.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


# --- warming up while the server thinks ---------------------------------------------------------
#
# ``forge ask`` sends its request before the response models, the snapshot builder and the
# renderer are imported (start-up, benchmarks/bench_startup.py). Importing them once the first
# token is here would delay its paint by the whole import time; importing them before the request
# would delay the request. So they are imported on a background thread from the moment the
# request's last byte is written until the first reply arrives: the HTTP layer calls
# :func:`request_sent`, which runs what the CLI registered with :func:`after_request_sent`.

_after_sent: list[Callable[[], None]] = []
_lock = _thread.allocate_lock()
_threads: list[threading.Thread] = []
"""Warm-up threads started and not joined yet (one at a time runs)."""
_jobs: list[tuple[list[str], Callable[[], None] | None]] = []
"""Steps queued for the warm-up thread, each with its ``then``."""
_worker: threading.Thread | None = None
"""The warm-up thread while it takes jobs."""


def after_request_sent(callback: Callable[[], None]) -> None:
    """Run ``callback`` once, when the next HTTP request of this process has been sent."""
    with _lock:
        _after_sent.append(callback)


def request_sent() -> None:
    """An HTTP request was sent: run (and forget) the callbacks registered for it."""
    if not _after_sent:
        return
    with _lock:
        callbacks = list(_after_sent)
        _after_sent.clear()
    for callback in callbacks:
        callback()


def import_in_background(
    modules: Iterable[str], then: Callable[[], None] | None = None
) -> threading.Thread:
    """Import ``modules`` on the warm-up thread; :func:`wait_for_background_imports` joins it.

    An entry ``"package.module:function"`` imports the module and then calls ``function()``
    (no arguments): warming what a module builds on first use, such as validators. Entries run
    in the order given. A module that fails to import (or a function that raises) is skipped:
    the main thread does it again when it needs it and gets the error there, where it is
    reported as usual. ``then`` is called on the thread once the steps are done (``forge chat``
    hands the rest to its event loop).

    One thread does all of it: a call made while it is still busy queues its steps behind the
    earlier ones (returning that same thread). Two import threads at once finish no sooner
    under the GIL, and cost more CPU: they hand the GIL to each other at every file read of
    an import (~400 context switches for one ``forge ask``, ~40 ms of CPU here;
    benchmarks/PROFILE.md, "One warm-up thread").
    """
    import threading

    global _worker
    steps = [name for name in modules if ":" in name or name not in sys.modules]
    with _lock:
        _jobs.append((steps, then))
        if _worker is None:
            _worker = threading.Thread(target=_work, name="forge-warm-up", daemon=True)
            _threads.append(_worker)
            _worker.start()
        return _worker


def _work() -> None:
    """The warm-up thread: run the queued jobs in order until none is left."""
    import contextlib

    global _worker
    while True:
        with _lock:
            if not _jobs:
                _worker = None
                break
            steps, then = _jobs.pop(0)
        for step in steps:
            name, _, function = step.partition(":")
            try:
                module = importlib.import_module(name)
                if function:
                    getattr(module, function)()
            except Exception:  # the main thread does it again and reports the error
                continue
        if then is not None:
            # A failing ``then`` (its event loop closed meanwhile) must not strand the jobs
            # queued behind it: their callers wait for their own ``then``.
            with contextlib.suppress(Exception):
                then()
    start_up_done()  # what the command needs is loaded


def wait_for_background_imports() -> None:
    """Wait until the background imports are done (so no module is imported twice at once);
    start-up is over then (:func:`start_up_done`)."""
    while _threads:
        with _lock:
            threads = list(_threads)
            _threads.clear()
        for thread in threads:
            thread.join()
    start_up_done()


def background_imports_pending() -> bool:
    """Whether the warm-up thread is still running (never blocks)."""
    return any(thread.is_alive() for thread in _threads)


# --- no garbage collection while the process starts --------------------------------------------
#
# Start-up builds a few hundred thousand objects that live as long as the process: modules,
# classes, pydantic's schemas, rich's styles. The cyclic garbage collector scanned each of them
# twice on its way to the oldest generation (~130 young and ~11 middle collections before a 2k
# answer was drawn, ~20 ms of CPU) and found nothing to free. So ``forge`` turns the collector off
# when it starts; once what the command needs is loaded, :func:`start_up_done` moves every object
# made so far out of its reach (``gc.freeze``: they are never scanned again) and turns it back
# on. It is back on before any command's own work: once a command other than ``ask`` and ``chat``
# is loaded, and for those two when the warm-up thread has nothing left to import or the answer
# waits for it, whichever comes first (``forge ask`` also before its turn runs).

_gc_paused = False


def pause_gc_for_start_up() -> None:
    """Turn the cyclic garbage collector off until :func:`start_up_done` (if it is on)."""
    global _gc_paused
    import gc

    with _lock:
        if gc.isenabled():
            gc.disable()
            _gc_paused = True


def start_up_done() -> None:
    """Freeze what start-up made and turn the collector back on, if
    :func:`pause_gc_for_start_up` turned it off (once; any thread)."""
    global _gc_paused
    if not _gc_paused:
        return
    import gc

    with _lock:
        if _gc_paused:
            _gc_paused = False
            gc.freeze()
            gc.enable()


# --- painting the first words while the warm-up runs (ADR-0018) ----------------------------------
#
# With a server that answers at once, the first token arrives while the warm-up thread still
# imports what folding and drawing need. ``forge ask`` registers a light preview
# (``forge_cli.render.preview.TextPreview``) that paints the start of the answer from the raw
# stream events meanwhile; the turn runner offers it every batch read before it folds.

_first_paint: Callable[[Sequence[Any]], bool] | None = None


def set_first_paint(preview: Callable[[Sequence[Any]], bool] | None) -> None:
    """Register the first-paint preview (``None``: none). It takes a batch of stream events and
    says whether it showed all of it."""
    global _first_paint
    _first_paint = preview


def first_paint(batch: Sequence[Any]) -> bool:
    """Offer ``batch`` (the events of one network read, not folded yet) to the first-paint preview.

    ``True``: the background imports still run and the preview showed all of the batch, so the
    caller may read the next batch before folding. ``False``: fold now (no preview, the imports
    are done, or the preview stopped).
    """
    preview = _first_paint
    if preview is None or not background_imports_pending():
        return False
    return preview(batch)
