"""Where Forge's log records go: one sanitised line each on stderr.

Warnings (a tool list cut at 128, hosted tools dropped for a Chat server, a search falling back to
BM25) are always shown; ``--debug`` (or ``FORGE_DEBUG``, or ``/debug on`` in the chat) shows the
debug records too, such as every stream event the SnapshotBuilder had to tolerate.
"""

from __future__ import annotations

import logging
import sys

from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

__all__ = ["configure_logging", "set_debug"]

_LOGGER = "forge_cli"


class _StderrHandler(logging.Handler):
    """Writes to the ``sys.stderr`` of the moment (tests and the REPL may swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = sanitize_inline(redact(record.getMessage()))
            where = f"{record.name}: " if record.levelno < logging.WARNING else ""
            sys.stderr.write(f"forge: {record.levelname.lower()}: {where}{text}\n")
        except Exception:  # a log line must never break the run
            self.handleError(record)


def configure_logging(*, debug: bool) -> None:
    """Route ``forge_cli`` records to stderr (idempotent), at debug level when ``debug``."""
    logger = logging.getLogger(_LOGGER)
    if not any(isinstance(handler, _StderrHandler) for handler in logger.handlers):
        logger.addHandler(_StderrHandler())
        logger.propagate = False
    set_debug(debug)


def set_debug(debug: bool) -> None:
    """Show or hide debug records."""
    logging.getLogger(_LOGGER).setLevel(logging.DEBUG if debug else logging.WARNING)
