"""Hosted MCP items of a Responses stream (``mcp_list_tools``, ``mcp_call``,
``mcp_approval_request``) are typed and drawn with the same MCP kind as Forge's own calls."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from forge_cli.protocol import McpApprovalRequest, McpCall, McpListTools, parse_item
from forge_cli.protocol.guards import is_mcp_item
from helpers.testhook import FORGE_COMMAND  # type: ignore[import-not-found]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "streams" / "R06_openai_mcp_call.sse"


def _ask(tmp_path: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(FIXTURE, tmp_path / FIXTURE.name)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"scripts": [FIXTURE.name]}))
    env = {
        **os.environ,
        "FORGE_TEST_BACKEND": str(script),
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "none.toml"),
    }
    return subprocess.run(
        [*FORGE_COMMAND, "ask", *mode, "what is pydantic-ai?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_item_kinds_parse_into_typed_values() -> None:
    call = parse_item(
        {
            "type": "mcp_call",
            "server_label": "wiki",
            "name": "ask",
            "arguments": '{"q": 1}',
            "error": {"message": "boom"},
            "status": "failed",
        }
    )
    assert isinstance(call, McpCall)
    assert call.error_text == "boom"
    assert call.parsed_arguments() == {"q": 1}
    listing = parse_item(
        {"type": "mcp_list_tools", "server_label": "wiki", "tools": [{"name": "a"}]}
    )
    assert isinstance(listing, McpListTools)
    assert listing.tools[0].name == "a"
    request = parse_item(
        {"type": "mcp_approval_request", "server_label": "wiki", "name": "rm", "arguments": "{}"}
    )
    assert isinstance(request, McpApprovalRequest)
    assert all(is_mcp_item(item) for item in (call, listing, request))


def test_recorded_hosted_mcp_stream_in_plain(tmp_path: Path) -> None:
    proc = _ask(tmp_path, "--plain")
    assert proc.returncode == 0, proc.stderr
    assert "MCP tools · " in proc.stderr
    assert "deepwiki" in proc.stderr
    assert 'MCP · completed · deepwiki/ask_question(repoName="pydantic/pydantic-ai"' in proc.stderr
    assert "pydantic-ai is a Python" in proc.stdout


def test_recorded_hosted_mcp_stream_in_json(tmp_path: Path) -> None:
    proc = _ask(tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    items = json.loads(proc.stdout)["items"]
    (listing,) = [i for i in items if i["type"] == "mcp_list_tools"]
    assert listing["server"] == "deepwiki"
    assert {t["name"] for t in listing["result"]["tools"]} == {
        "ask_question",
        "read_wiki_structure",
    }
    (call,) = [i for i in items if i["type"] == "mcp_call"]
    assert call["server"] == "deepwiki"
    assert call["name"] == "ask_question"
    assert call["arguments"]["repoName"] == "pydantic/pydantic-ai"
    assert call["result"]["output"].startswith("The `pydantic/pydantic-ai` repository")
    assert call["result"]["error"] is None
