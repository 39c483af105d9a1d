"""Fixtures for agent tests: a loopback fake chat server and a backend pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.testing.fake_chat_server import FakeChatServer


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    """A running fake server; the test fails if a scripted reply is left unused."""
    with FakeChatServer() as fake:
        yield fake
        fake.assert_consumed()


@pytest.fixture
async def backend(server: FakeChatServer) -> AsyncIterator[ChatCompletionsBackend]:
    """A Chat Completions backend talking to ``server`` (no retries)."""
    chat = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
    yield chat
    await chat.aclose()
