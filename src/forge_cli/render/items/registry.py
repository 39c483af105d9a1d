"""The item-renderer registry: type guard → small renderer, never an if/elif chain.

Entries are tried in order; the first guard that accepts an item wins, and the answer is cached
per item class (the guards are class checks). The last entry accepts anything, so an item kind
nobody registered still gets one generic line.

An entry is generic in the item type it handles: its guard is a ``TypeGuard[T]`` and its renderer
takes a ``T``, so pairing a guard with the wrong renderer (``RegistryEntry(is_message,
render_function_call, ...)``) is a type error under ``mypy --strict``, not a crash at run time.
``tests/render/test_registry_typing.py`` proves it by running mypy on a bad pair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeGuard, TypeVar

from forge_cli.render.context import RenderContext

if TYPE_CHECKING:  # rich loads with the first renderer, not with the registry (plain mode)
    from rich.console import RenderableType

__all__ = ["ItemEntry", "ItemRegistry", "ItemRenderFn", "Kind", "RegistryEntry", "accept_any"]

Kind = Literal["prose", "status"]
"""``prose`` items (messages, reasoning) are set off by blank lines, one unit per renderable;
``status`` items (tool calls) are a tight group of lines."""

T = TypeVar("T")

ItemRenderFn = Callable[[T, str, RenderContext], list["RenderableType"]]
"""A renderer for items of type ``T``: ``(item, timing key, context) -> renderables``."""


class ItemEntry(Protocol):
    """What the registry hands back for an item: its layout kind and a renderer for any item."""

    @property
    def kind(self) -> Kind:
        """How the item's renderables are laid out."""
        ...

    def accepts(self, item: object) -> bool:
        """Whether this entry's guard accepts ``item``."""
        ...

    def render(self, item: object, key: str, ctx: RenderContext) -> list[RenderableType]:
        """The item's renderables (the item must be accepted by this entry's guard)."""
        ...


@dataclass(frozen=True, slots=True)
class RegistryEntry(Generic[T]):
    """One guard and the renderer it selects; both are about the same item type ``T``."""

    guard: Callable[[object], TypeGuard[T]]
    renderer: ItemRenderFn[T]
    kind: Kind

    def accepts(self, item: object) -> bool:
        """Whether the guard accepts ``item``."""
        return self.guard(item)

    def render(self, item: object, key: str, ctx: RenderContext) -> list[RenderableType]:
        """Render ``item`` through the guard, which narrows it to ``T``."""
        if not self.guard(item):
            raise TypeError(f"{type(item).__name__} is not an item this entry renders")
        return self.renderer(item, key, ctx)


def accept_any(item: object) -> TypeGuard[object]:
    """The fallback guard: accepts every item."""
    return True


class ItemRegistry:
    """Ordered guard → renderer entries with a per-class cache."""

    def __init__(self, entries: Sequence[ItemEntry], fallback: ItemEntry) -> None:
        self._entries: list[ItemEntry] = list(entries)
        self._fallback = fallback
        self._cache: dict[type, ItemEntry] = {}

    def register(self, entry: ItemEntry) -> None:
        """Add an entry in front of the built-in ones (to override a kind)."""
        self._entries.insert(0, entry)
        self._cache.clear()

    def lookup(self, item: object) -> ItemEntry:
        """The entry for ``item``."""
        entry = self._cache.get(type(item))
        if entry is None:
            entry = next((e for e in self._entries if e.accepts(item)), self._fallback)
            self._cache[type(item)] = entry
        return entry
