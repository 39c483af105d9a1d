"""What one ``forge`` process does while it starts: the warm-up thread, the collector's pause and
the "request sent" signal, in one object (:class:`StartUp`).

``cli.entry.main`` creates it and hands it down as a parameter: to click as the context object
(``ctx.ensure_object(StartUp)``), from the commands to the backend (its ``on_request_sent``
callback), the view factory (the warm-up after the request), the turn runner and the chat
session. Nothing here is global: a test makes its own. Imports nothing of ours, and little else
(``forge --version`` never gets here, but ``forge ask``'s way to its first request does).
"""

from __future__ import annotations

import _thread
import importlib
import sys

TYPE_CHECKING = False  # typing itself costs start-up milliseconds
if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Iterable

__all__ = ["StartUp"]


class StartUp:
    """The start-up of one process.

    **Warming up while the server thinks.** ``forge ask`` sends its request before the response
    models, the fold and the renderer are imported (ADR-0017, ADR-0020). Importing them once the
    first token is here would delay its paint by the whole import time; importing them before
    the request would delay the request. So they are imported on a background thread from the
    moment the request's last byte is written: the HTTP layer calls :meth:`request_sent` (the
    backend's ``on_request_sent``), which runs what the CLI registered with
    :meth:`after_request_sent`.

    **No garbage collection while the process starts** (ADR-0027). Start-up builds a few hundred
    thousand objects that live as long as the process; the cyclic collector scanned each of them
    on its way to the oldest generation and found nothing to free. :meth:`pause_gc` turns it
    off; :meth:`done` moves every object made so far out of its reach (``gc.freeze``) and turns
    it back on, once what the command needs is loaded.
    """

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._after_sent: list[Callable[[], None]] = []
        self._threads: list[threading.Thread] = []
        """Warm-up threads started and not joined yet (one at a time runs)."""
        self._jobs: list[tuple[list[str], Callable[[], None] | None]] = []
        """Steps queued for the warm-up thread, each with its ``then``."""
        self._worker: threading.Thread | None = None
        """The warm-up thread while it takes jobs."""
        self._gc_paused = False

    # --- the "request sent" signal ---------------------------------------------------------------

    def after_request_sent(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once, when the next HTTP request of this start-up has been sent."""
        with self._lock:
            self._after_sent.append(callback)

    def request_sent(self) -> None:
        """An HTTP request was sent: run (and forget) the callbacks registered for it."""
        if not self._after_sent:
            return
        with self._lock:
            callbacks = list(self._after_sent)
            self._after_sent.clear()
        for callback in callbacks:
            callback()

    # --- the warm-up thread ----------------------------------------------------------------------

    def import_in_background(
        self, modules: Iterable[str], then: Callable[[], None] | None = None
    ) -> threading.Thread:
        """Import ``modules`` on the warm-up thread; :meth:`wait_for_imports` joins it.

        An entry ``"package.module:function"`` imports the module and then calls ``function()``
        (no arguments): warming what a module builds on first use, such as validators. Entries
        run in the order given. A module that fails to import (or a function that raises) is
        skipped: the main thread does it again when it needs it and gets the error there, where
        it is reported as usual. ``then`` is called on the thread once the steps are done
        (``forge chat`` hands the rest to its event loop).

        One thread does all of it: a call made while it is still busy queues its steps behind
        the earlier ones (returning that same thread). Two import threads at once finish no
        sooner under the GIL, and cost more CPU: they hand the GIL to each other at every file
        read of an import (benchmarks/PROFILE.md, "One warm-up thread").
        """
        import threading

        steps = [name for name in modules if ":" in name or name not in sys.modules]
        with self._lock:
            self._jobs.append((steps, then))
            if self._worker is None:
                self._worker = threading.Thread(
                    target=self._work, name="forge-warm-up", daemon=True
                )
                self._threads.append(self._worker)
                self._worker.start()
            return self._worker

    def _work(self) -> None:
        """The warm-up thread: run the queued jobs in order until none is left."""
        import contextlib

        while True:
            with self._lock:
                if not self._jobs:
                    self._worker = None
                    break
                steps, then = self._jobs.pop(0)
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
        self.done()  # what the command needs is loaded

    def wait_for_imports(self) -> None:
        """Wait until the background imports are done (so no module is imported twice at
        once); start-up is over then (:meth:`done`)."""
        while self._threads:
            with self._lock:
                threads = list(self._threads)
                self._threads.clear()
            for thread in threads:
                thread.join()
        self.done()

    def imports_pending(self) -> bool:
        """Whether the warm-up thread is still running (never blocks)."""
        return any(thread.is_alive() for thread in self._threads)

    # --- the collector ---------------------------------------------------------------------------

    def pause_gc(self) -> None:
        """Turn the cyclic garbage collector off until :meth:`done` (if it is on)."""
        import gc

        with self._lock:
            if gc.isenabled():
                gc.disable()
                self._gc_paused = True

    def done(self) -> None:
        """Start-up is over: freeze what it made and turn the collector back on, if
        :meth:`pause_gc` turned it off (once; any thread)."""
        if not self._gc_paused:
            return
        import gc

        with self._lock:
            if self._gc_paused:
                self._gc_paused = False
                gc.freeze()
                gc.enable()
