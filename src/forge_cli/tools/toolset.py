"""A named collection of tools, and the definitions a request may carry (at most 128)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from forge_cli.errors import ToolError
from forge_cli.protocol.tools import FunctionTool
from forge_cli.tools.base import BaseTool

__all__ = ["MAX_TOOLS_PER_REQUEST", "ToolSet"]

MAX_TOOLS_PER_REQUEST = 128
"""The most function tools OpenAI-compatible servers accept in one request."""

_log = logging.getLogger(__name__)


class ToolSet:
    """Tools by name, in the order they were added. Two tools with one name is an error."""

    def __init__(self, tools: Iterable[BaseTool] = ()) -> None:
        self._tools: dict[str, BaseTool] = {}
        for item in tools:
            self.add(item)

    def add(self, item: BaseTool) -> None:
        """Add a tool; a second tool with the same name raises :class:`ToolError`."""
        if not isinstance(item, BaseTool):
            raise ToolError(f"{item!r} is not a tool (decorate it with @tool)")
        if item.name in self._tools:
            raise ToolError(f"two tools are named {item.name!r}")
        self._tools[item.name] = item

    def get(self, name: str) -> BaseTool | None:
        """The tool called ``name``, if any."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def definitions(
        self, limit: int = MAX_TOOLS_PER_REQUEST
    ) -> tuple[list[FunctionTool], tuple[str, ...]]:
        """The first ``limit`` definitions and the names of those left out (logged as a warning)."""
        tools = list(self._tools.values())
        dropped = tuple(item.name for item in tools[limit:])
        if dropped:
            _log.warning(
                "more than %d tools; left out of the request: %s", limit, ", ".join(dropped)
            )
        return [item.definition() for item in tools[:limit]], dropped
