"""MCP servers as tool sources, against real SDK servers: stdio subprocesses and streamable HTTP
on loopback. Calls, structured results, progress, error results, a server that crashes, one
that hangs (on start and in a call), Ctrl+C, the stderr log, and closing."""

from __future__ import annotations

import asyncio
import stat
import sys
from collections.abc import AsyncIterator

import pytest
from mcp_helpers import SERVERS, server_command
from starlette.applications import Starlette
from starlette.routing import Route

from forge_cli.engine.server import BackgroundServer
from forge_cli.mcp.config import McpServerSpec, parse_cli_spec
from forge_cli.mcp.http_mount import McpEndpoint
from forge_cli.mcp.manager import McpManager
from forge_cli.tools import ToolCall, ToolExecutor

pytestmark = pytest.mark.anyio


def _stdio(name: str = "tools", **extra: object) -> McpServerSpec:
    argv = server_command("tools_server")
    return McpServerSpec(name=name, command=argv[0], args=tuple(argv[1:]), **extra)  # type: ignore[arg-type]


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    mgr = McpManager([_stdio(timeout=20)])
    yield mgr
    await mgr.aclose()


async def _run(manager: McpManager, name: str, arguments: str) -> tuple[str, str]:
    executor = ToolExecutor(manager.current_tools())
    report = await executor.execute([ToolCall("call_1", name, arguments)])
    result = report.results[0]
    return result.status, result.output


async def test_lazy_start_lists_tools_with_unique_names(manager: McpManager) -> None:
    assert all(conn.state == "idle" for conn in manager.connections.values())
    await manager.prepare()
    names = {tool.name for tool in manager.current_tools()}
    assert {"tools__add", "tools__echo", "tools__steps", "tools__fail"} <= names
    assert manager.policies()["tools__add"] == "ask"
    add = manager.tool("tools__add")
    assert add is not None
    assert add.parameters()["required"] == ["a", "b"]
    assert add.description.startswith("[MCP server tools] Add two integers")
    await manager.prepare()  # once: no second process
    assert manager.drain_notices() == []


async def test_calls_return_text_and_structured_results(manager: McpManager) -> None:
    await manager.prepare()
    status, output = await _run(manager, "tools__add", '{"a": 2, "b": 40}')
    assert status == "completed"
    assert '"total": 42' in output
    status, output = await _run(manager, "tools__echo", '{"text": "hi"}')
    assert (status, output) == ("completed", "echo: hi")


async def test_error_results_go_back_to_the_model(manager: McpManager) -> None:
    await manager.prepare()
    status, output = await _run(manager, "tools__fail", '{"message": "disk full"}')
    assert status == "failed"
    assert "disk full" in output
    status, output = await _run(manager, "tools__add", '{"a": "x"}')
    assert status == "failed"  # the server validates its own arguments


async def test_progress_notifications_reach_the_live_state(manager: McpManager) -> None:
    await manager.prepare()
    status, output = await _run(manager, "tools__steps", '{"count": 4}')
    assert (status, output) == ("completed", "did 4 steps")
    live = manager.live.get("call_1")
    assert live is not None
    assert live.progress == 1.0
    assert live.trace[-1].endswith("step 4 of 4")
    assert live.duration_ms is not None


async def test_a_crashing_server_gives_an_error_result_and_one_notice(
    manager: McpManager,
) -> None:
    await manager.prepare()
    status, output = await _run(manager, "tools__crash", "{}")
    assert status == "failed"
    assert "tools" in output
    notices = manager.drain_notices()
    assert len(notices) == 1
    assert "'tools' stopped" in notices[0]
    assert manager.current_tools() == []
    assert manager.drain_notices() == []  # reported once


async def test_a_hanging_call_times_out_and_the_server_stays_usable(manager: McpManager) -> None:
    await manager.prepare()
    tools = manager.current_tools()
    for item in tools:
        if item.name == "tools__hang":
            item.timeout = 1.0  # this call only; the server's other calls keep theirs
    report = await ToolExecutor(tools).execute([ToolCall("call_1", "tools__hang", "{}")])
    (result,) = report.results
    assert result.status == "failed"
    assert "timed out" in result.output
    status, output = await _run(manager, "tools__echo", '{"text": "still here"}')
    assert (status, output) == ("completed", "echo: still here")


async def test_cancelling_a_call_cancels_it_and_keeps_the_server(manager: McpManager) -> None:
    await manager.prepare()
    executor = ToolExecutor(manager.current_tools())
    task = asyncio.ensure_future(executor.execute([ToolCall("call_h", "tools__hang", "{}")]))
    while manager.live.get("call_h") is None:  # wait for the call to start (no sleep)
        await manager.live.wait_changed()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    status, output = await _run(manager, "tools__was_cancelled", "{}")
    assert (status, output) == ("completed", "yes")  # the server got notifications/cancelled
    status, output = await _run(manager, "tools__echo", '{"text": "after"}')
    assert (status, output) == ("completed", "echo: after")


async def test_a_server_that_cannot_start_gives_one_line() -> None:
    mgr = McpManager([McpServerSpec(name="ghost", command="/nonexistent/forge-mcp-server")])
    try:
        await mgr.prepare()
        assert mgr.current_tools() == []
        (notice,) = mgr.drain_notices()
        assert notice.startswith("MCP server 'ghost' could not start:")
        assert "\n" not in notice
    finally:
        await mgr.aclose()


async def test_a_server_that_exits_at_once_logs_its_stderr_to_a_private_file() -> None:
    code = "import sys; sys.stderr.write('boom: bad config\\n'); sys.exit(2)"
    mgr = McpManager([McpServerSpec(name="quits", command=sys.executable, args=("-c", code))])
    try:
        await mgr.prepare()
        (notice,) = mgr.drain_notices()
        assert "'quits' could not start" in notice
        conn = mgr.connections["quits"]
        assert conn.log_path is not None
        assert "boom: bad config" in conn.log_path.read_text()
        assert stat.S_IMODE(conn.log_path.stat().st_mode) == 0o600
        assert str(conn.log_path) in notice
    finally:
        await mgr.aclose()


async def test_a_server_that_never_answers_fails_its_start_and_closes() -> None:
    silent = "import sys; sys.stdin.read()"
    spec = McpServerSpec(name="silent", command=sys.executable, args=("-c", silent))
    mgr = McpManager([spec], start_timeout=1.0)
    try:
        await mgr.prepare()
        (notice,) = mgr.drain_notices()
        assert "did not start within 1 s" in notice
    finally:
        await mgr.aclose()
    assert mgr.connections["silent"].state == "failed"


async def test_streamable_http_server_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(SERVERS))
    from tools_server import build

    server = build()
    server.streamable_http_app(stateless_http=True)
    app = Starlette(routes=[Route("/mcp", McpEndpoint(server.session_manager))])
    monkeypatch.setenv("TEST_MCP_TOKEN", "t0ken")
    with BackgroundServer(app=app) as http:
        spec = parse_cli_spec(f"web={http.url}/mcp")
        spec = McpServerSpec(
            name=spec.name, url=spec.url, headers={"Authorization": "Bearer ${TEST_MCP_TOKEN}"}
        )
        mgr = McpManager([spec])
        try:
            await mgr.prepare()
            status, output = await _run(mgr, "web__steps", '{"count": 3}')
            assert (status, output) == ("completed", "did 3 steps")
            assert mgr.live.get("call_1") is not None
            assert mgr.live.get("call_1").progress == 1.0  # type: ignore[union-attr]
            status, output = await _run(mgr, "web__fail", '{"message": "nope"}')
            assert status == "failed"
        finally:
            await mgr.aclose()
