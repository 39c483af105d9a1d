"""A turn with MCP tools: start the servers (lazily, once), offer their tools, show their calls.

Wraps the agent responder: before the first request it starts the session's MCP servers and says
in one line which could not start; while the loop runs it redraws the last snapshot whenever a
call reports progress, and it draws every MCP function call as an ``mcp_call`` item.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from forge_cli.mcp.manager import McpManager
from forge_cli.mcp.present import present
from forge_cli.protocol.loop_events import AnswerUpdate, Notice
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response
from forge_cli.repl.turn import Responder

__all__ = ["mcp_responder"]

_END = object()


def mcp_responder(
    inner: Responder, manager: McpManager, *, present_calls: bool = True
) -> Responder:
    """``inner`` (an agent responder built over ``manager``'s tools) with MCP start and display.

    ``present_calls=False`` leaves MCP calls as the loop's function calls (``SERVER__TOOL``),
    which is what ``forge eval`` scores tool use on.
    """

    lookup = manager.lookup

    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        await manager.prepare()
        for message in manager.drain_notices():
            yield Notice(message)
        if not present_calls:
            async for update in inner(request):
                yield update
            return
        async for update in _with_progress(inner(request), manager, lookup):
            yield update

    return respond


async def _with_progress(
    updates: AsyncIterator[AnswerUpdate],
    manager: McpManager,
    lookup: Callable[[str], tuple[str, str] | None],
) -> AsyncIterator[AnswerUpdate]:
    """The inner updates (snapshots presented), plus a redraw on every progress change."""
    source = aiter(updates)
    pending: asyncio.Future[Any] = asyncio.ensure_future(anext(source, _END))
    changed: asyncio.Future[None] | None = None
    raw: Response | None = None
    try:
        while True:
            changed = asyncio.ensure_future(manager.live.wait_changed())
            await asyncio.wait({pending, changed}, return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                if raw is not None:
                    yield present(raw, lookup, manager.live)
                continue
            changed.cancel()
            update = pending.result()
            if update is _END:
                break
            pending = asyncio.ensure_future(anext(source, _END))
            if isinstance(update, Response):
                raw = update
                yield present(update, lookup, manager.live)
            else:
                yield update
            for message in manager.drain_notices():
                yield Notice(message)
    finally:
        if changed is not None:
            changed.cancel()
        if not pending.done():
            pending.cancel()
            await asyncio.wait({pending})
        if not pending.cancelled():
            pending.exception()  # retrieved: the error (if any) already went up from result()
        if isinstance(source, AsyncGenerator):  # a responder's generator: close it now
            await source.aclose()
