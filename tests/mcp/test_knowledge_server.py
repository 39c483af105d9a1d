"""The knowledge store as an MCP server, driven by the MCP SDK's own client: ``forge mcp`` over
stdio (a real subprocess) and ``/mcp`` on ``forge serve`` over streamable HTTP on loopback."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from mcp_helpers import Corpus

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.app import create_app
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from forge_cli.mcp.http_mount import mount_knowledge_mcp

pytestmark = pytest.mark.anyio


def _structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # The text content carries the same JSON for clients without structured output.
    text = "".join(getattr(part, "text", "") for part in result.content)
    assert json.loads(text) == result.structured_content
    return result.structured_content


async def _exercise(client: Client, corpus: Corpus) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"search", "list_vector_stores", "list_documents", "read_document"}
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in tools.values())

    stores = _structured(await client.call_tool("list_vector_stores", {}))
    assert [(s["id"], s["file_count"]) for s in stores["vector_stores"]] == [
        (corpus.vector_store_id, 2)
    ]

    found = _structured(
        await client.call_tool(
            "search",
            {
                "query": "lighthouse keeper lamp",
                "vector_store_ids": [corpus.vector_store_id],
                "max_num_results": 1,
            },
        )
    )
    assert len(found["results"]) == 1
    hit = found["results"][0]
    assert hit["file_id"] == corpus.file_ids["lighthouse.md"]
    assert hit["filename"] == "lighthouse.md"
    assert 0 <= hit["score"] <= 1
    assert hit["page"] in (None, 1)

    filtered = _structured(
        await client.call_tool(
            "search",
            {"query": "starter", "filters": {"key": "kind", "type": "eq", "value": "guide"}},
        )
    )
    assert {r["filename"] for r in filtered["results"]} <= {"lighthouse.md"}

    docs = _structured(await client.call_tool("list_documents", {"query": "sourdough"}))
    assert docs["documents"][0]["file_id"] == corpus.file_ids["sourdough.md"]

    text = _structured(
        await client.call_tool(
            "read_document", {"file_id": corpus.file_ids["sourdough.md"], "start_page": 1}
        )
    )
    assert text["filename"] == "sourdough.md"
    assert "wild yeast" in text["pages"][0]["text"]

    missing = await client.call_tool("read_document", {"file_id": "file-nope"})
    assert missing.is_error
    assert "file-nope" in "".join(getattr(part, "text", "") for part in missing.content)

    bad = await client.call_tool("search", {"query": "x", "vector_store_ids": ["vs_nope"]})
    assert bad.is_error


async def test_forge_mcp_over_stdio(corpus: Corpus) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "forge_cli.cli", "mcp"],
        env={"FORGE_DATA_DIR": os.environ["FORGE_DATA_DIR"], "HOME": os.environ["HOME"]},
    )
    async with Client(params, read_timeout_seconds=30) as client:
        await _exercise(client, corpus)


def _serve(corpus: Corpus, store: KnowledgeStore, token: str | None) -> BackgroundServer:
    app = create_app(Engine(store, EngineConfig(seed=False)), token=token)
    mount_knowledge_mcp(app, store)
    return BackgroundServer(app=app)


async def test_serve_mounts_mcp_over_streamable_http(corpus: Corpus) -> None:
    with KnowledgeStore(corpus.path) as store, _serve(corpus, store, None) as server:
        async with Client(f"{server.url}/mcp", read_timeout_seconds=30) as client:
            await _exercise(client, corpus)


async def test_serve_mcp_requires_the_token(corpus: Corpus) -> None:
    import httpx2

    with KnowledgeStore(corpus.path) as store, _serve(corpus, store, "s3cret") as server:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx2.AsyncClient() as http:
            refused = await http.post(f"{server.url}/mcp", json=body)
            assert refused.status_code == 401
        headers = {"Authorization": "Bearer s3cret"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(_transport(f"{server.url}/mcp", http), read_timeout_seconds=30) as client,
        ):
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "search" in names


def _transport(url: str, http: Any) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=http)
