"""Backends: things that turn a Request into a stream of events.

Exports are lazy (module ``__getattr__``): importing :mod:`forge_cli.backends` costs nothing, and
httpx2 / openai load only when a backend class is first used, so ``forge --version`` stays fast.
To add an export, add one line to ``_EXPORTS`` and one to the ``TYPE_CHECKING`` block.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_cli.backends._http import RetryPolicy
    from forge_cli.backends.base import Backend
    from forge_cli.backends.responses_http import ResponsesBackend

__all__ = ["Backend", "ResponsesBackend", "RetryPolicy"]

_EXPORTS: dict[str, str] = {
    "Backend": "forge_cli.backends.base",
    "ResponsesBackend": "forge_cli.backends.responses_http",
    "RetryPolicy": "forge_cli.backends._http",
}
"""Public name → the module that defines it."""


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
