"""Backends: things that turn a Request into a stream of events.

Exports are lazy: importing :mod:`forge_cli.backends` costs nothing, and httpx2 / openai load
only when a backend class is first used, so ``forge --version`` stays fast. The in-process local
backend lives with the engine it runs (:class:`forge_cli.engine.LocalBackend`).
To add an export, add one line to ``_WHERE`` and one to the ``TYPE_CHECKING`` block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.backends.base import Backend
    from forge_cli.backends.chat.backend import ChatCompletionsBackend
    from forge_cli.backends.http.client import RetryPolicy
    from forge_cli.backends.responses.backend import ResponsesBackend

__all__ = ["Backend", "ChatCompletionsBackend", "ResponsesBackend", "RetryPolicy"]

_WHERE = {
    "Backend": "base",
    "ChatCompletionsBackend": "chat.backend",
    "ResponsesBackend": "responses.backend",
    "RetryPolicy": "http.client",
}
"""Public name → the submodule that defines it."""

__getattr__ = lazy_exports(__name__, _WHERE)
