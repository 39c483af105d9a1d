"""A chat turn opens the local knowledge store only when its request has hosted tools to replace.

Opening it imports the knowledge package and SQLite and touches the user's data directory; a
plain question on a Chat Completions server needs none of that.
"""

from __future__ import annotations

from typing import Any

import pytest

from forge_cli.backends.chat.stream import ChatStreamTranslator
from forge_cli.protocol import FileSearchTool, FunctionTool, Request
from forge_cli.repl.turn import agent_responder
from forge_cli.testing.scripted import ScriptedBackend

pytestmark = pytest.mark.anyio


class _ChatLikeBackend(ScriptedBackend):
    runs_hosted_tools = False


def _answer(text: str) -> list[Any]:
    translator = ChatStreamTranslator("m")
    chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}
    return [*translator.start(), *translator.feed(chunk), *translator.finish()]


class _StoreFactory:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        return None  # no store: the hosted tool is dropped with a notice


@pytest.mark.parametrize(
    ("tools", "opened"),
    [
        ([], 0),
        ([FunctionTool(name="f", parameters={"type": "object", "properties": {}})], 0),
        ([FileSearchTool(vector_store_ids=["vs_1"])], 1),
    ],
)
async def test_the_store_is_opened_only_for_hosted_tools(tools: list[Any], opened: int) -> None:
    backend = _ChatLikeBackend([_answer("hello")])
    factory = _StoreFactory()
    respond = agent_responder(
        backend, functions=[], max_iterations=3, assume_yes=True, knowledge_store=factory
    )
    updates = [update async for update in respond(Request(model="m", input="hi", tools=tools))]
    assert updates  # the turn ran
    assert factory.calls == opened
    backend.assert_consumed()
