"""The MCP item renderer in the live rich view: progress bar, trace, result, error, listing,
approval, and hostile server text neutralised."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "render"))

from tests_render_helpers import (  # type: ignore[import-not-found]
    FakeClock,
    Screen,
    render_plain_text,
)

from forge_cli.protocol import McpApprovalRequest, McpCall, McpListTools, Response
from forge_cli.protocol.items import McpToolInfo
from forge_cli.render.rich_renderer import RichRenderer


def _live(*items: object, final: bool = False) -> str:
    renderer = RichRenderer(Screen().console(), clock=FakeClock(0.5))
    response = Response(id="r", output=list(items))  # type: ignore[arg-type]
    renderer.on_snapshot(response)
    if final:
        return render_plain_text(renderer.render_static(response))
    return render_plain_text(renderer._live_view(response).renderables)


def test_running_call_shows_server_tool_progress_and_trace() -> None:
    out = _live(
        McpCall(
            id="m1",
            status="in_progress",
            server_label="build",
            name="compile",
            arguments='{"target": "all"}',
            progress=0.7,
            execution_trace="[10:00:01] compiling\n[10:00:02] linking",
        )
    )
    assert 'MCP · in progress · build/compile(target="all")' in out
    assert "70%" in out
    assert "linking" in out


def test_finished_calls_show_result_or_error() -> None:
    out = _live(
        McpCall(id="a", status="completed", server_label="s", name="t", output="line 1\nline 2"),
        McpCall(id="b", status="failed", server_label="s", name="u", error={"message": "denied"}),
        final=True,
    )
    assert "✓ MCP · completed · s/t()" in out
    assert "→ line 1 (+1 lines)" in out
    assert "✗ MCP · failed · s/u()" in out
    assert "→ denied" in out


def test_listing_and_approval_request() -> None:
    out = _live(
        McpListTools(
            id="l", status="completed", server_label="wiki", tools=[McpToolInfo(name="ask")]
        ),
        McpApprovalRequest(id="q", server_label="wiki", name="delete", arguments='{"id": 3}'),
        final=True,
    )
    assert "MCP tools · completed · wiki · 1 tool" in out
    assert "ask" in out
    assert "MCP approval · awaiting approval · wiki/delete(id=3)" in out


def test_hostile_server_text_is_neutralised() -> None:
    out = _live(
        McpCall(
            id="h",
            status="completed",
            server_label="evil\x1b[2J",
            name="t\x07",
            output="\x1b]0;pwned\x07result",
        ),
        final=True,
    )
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "result" in out
