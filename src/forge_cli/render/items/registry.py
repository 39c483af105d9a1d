"""The item-renderer registry: type guard → small renderer, never an if/elif chain.

Entries are tried in order; the first guard that accepts an item wins, and the answer is cached
per item class (the guards are class checks). The last entry accepts anything, so an item kind
nobody registered still gets one generic line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import RenderableType

from forge_cli.render.context import RenderContext

__all__ = ["ItemRegistry", "ItemRenderFn", "Kind", "RegistryEntry"]

Kind = Literal["prose", "status"]
"""``prose`` items (messages, reasoning) are set off by blank lines, one unit per renderable;
``status`` items (tool calls) are a tight group of lines."""

ItemRenderFn = Callable[[Any, str, RenderContext], list[RenderableType]]


@dataclass(frozen=True, slots=True)
class RegistryEntry:
    """One guard and the renderer it selects."""

    guard: Callable[[object], bool]
    render: ItemRenderFn
    kind: Kind


class ItemRegistry:
    """Ordered guard → renderer entries with a per-class cache."""

    def __init__(self, entries: list[RegistryEntry], fallback: RegistryEntry) -> None:
        self._entries = list(entries)
        self._fallback = fallback
        self._cache: dict[type, RegistryEntry] = {}

    def register(self, entry: RegistryEntry) -> None:
        """Add an entry in front of the built-in ones (to override a kind)."""
        self._entries.insert(0, entry)
        self._cache.clear()

    def lookup(self, item: object) -> RegistryEntry:
        """The entry for ``item``."""
        entry = self._cache.get(type(item))
        if entry is None:
            entry = next((e for e in self._entries if e.guard(item)), self._fallback)
            self._cache[type(item)] = entry
        return entry
