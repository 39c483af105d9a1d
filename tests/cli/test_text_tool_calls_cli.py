"""End to end: a model served without a tool parser writes its calls as text; `forge ask` runs
them by default (issue 15), over a loopback Chat Completions server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

TOOLS = '''
from forge_cli.tools import tool


@tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    return f"{city}: 21 C and sunny"
'''

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize(
    "reply",
    [
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
        '<tool_call>get_weather(city="Oslo")</tool_call>',
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>',
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
    ],
    ids=["hermes", "pythonic", "llama", "mistral", "bare-json"],
)
def test_a_call_written_as_text_runs_the_function(forge: Forge, tmp_path: Path, reply: str) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    with FakeChatServer() as server:
        server.add(text_chunks(reply))
        server.add(text_chunks("Oslo is sunny today."))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--model", "plain-model",
            "--functions", str(tools), "--yes", "--json", "Weather in Oslo?",
        )  # fmt: skip
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["text"] == "Oslo is sunny today."
    calls = [item for item in document["items"] if item["type"] == "function_call"]
    assert [(c["name"], c["arguments"]) for c in calls] == [("get_weather", {"city": "Oslo"})]
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "Oslo: 21 C and sunny"


def test_a_call_of_a_tool_that_was_not_offered_stays_text(forge: Forge, tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    reply = '<tool_call>{"name": "delete_files", "arguments": {}}</tool_call>'
    with FakeChatServer() as server:
        server.add(text_chunks(reply))
        proc = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--model", "plain-model",
            "--functions", str(tools), "--yes", "--json", "Clean up",
        )  # fmt: skip
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["text"] == reply
    assert not [item for item in document["items"] if item["type"] == "function_call"]
