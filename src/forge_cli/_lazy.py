"""Lazy package exports: a package lists ``name -> submodule`` and imports on first access.

Keeps ``forge --version``, ``forge --help`` and the way to ``forge ask``'s first request light:
importing a package does not import every module it re-exports. Imports nothing of ours.
(What a process does while it starts -- the warm-up thread, the collector's pause -- is
:class:`forge_cli.startup.StartUp`.)
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # typing itself costs ``forge --version`` milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_exports"]


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
