"""A session built from a ``connect`` factory: what answers is built once, on first use or after
the prompt is drawn, never seen half-built; a factory error fails the turn with its one line."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.errors import ConfigError
from forge_cli.knowledge.models import VectorStore
from forge_cli.protocol import Message, OutputText, Request, Response
from forge_cli.repl import ChatSession
from forge_cli.repl.session import Connection

pytestmark = pytest.mark.anyio


async def _answer(request: Request) -> AsyncIterator[Response]:
    part = OutputText(text="ok")
    yield Response(id="r1", status="completed", output=[Message(id="m", content=[part])])


class Factory:
    """Counts its calls and the thread they ran on; fails while ``errors`` lasts."""

    def __init__(self, *errors: Exception, knowledge: object = None) -> None:
        self.errors = list(errors)
        self.knowledge = knowledge
        self.calls = 0
        self.threads: list[int] = []
        self.built = asyncio.Event()

    def __call__(self) -> Connection:
        self.calls += 1
        self.threads.append(threading.get_ident())
        if self.errors:
            raise self.errors.pop(0)
        self.built.set()
        return Connection(_answer, knowledge=self.knowledge, stores_responses=True)  # type: ignore[arg-type]


def _session(tmp_path: Path, factory: Factory, **kwargs: object) -> tuple[ChatSession, io.StringIO]:
    out = io.StringIO()
    session = ChatSession(
        Conversation(),
        out=out,
        store=ConversationStore(tmp_path),
        connect=factory,
        **kwargs,  # type: ignore[arg-type]
    )
    return session, out


def test_a_session_needs_a_responder_or_a_factory() -> None:
    with pytest.raises(TypeError):
        ChatSession(Conversation(), out=io.StringIO())
    with pytest.raises(TypeError):
        ChatSession(Conversation(), _answer, out=io.StringIO(), connect=Factory())


async def test_the_factory_runs_once_on_first_use(tmp_path: Path) -> None:
    factory = Factory()
    session, _out = _session(tmp_path, factory)
    assert factory.calls == 0
    assert not session.connected
    await session.handle_line("/help")  # a command that needs nothing of the backend
    assert factory.calls == 0
    turn = await session.send("hello")
    assert turn.status == "completed"
    assert turn.text == "ok"
    assert factory.calls == 1
    assert session.connected
    assert session.stores_responses
    await session.send("again")
    assert factory.calls == 1
    await session.aclose()


async def test_a_factory_error_fails_the_turn_with_its_line_and_is_retried(
    tmp_path: Path,
) -> None:
    factory = Factory(ConfigError("the base URL is wrong", hint="fix it"))
    session, out = _session(tmp_path, factory)
    turn = await session.send("hello")
    assert turn.status == "failed"
    assert turn.error == "the base URL is wrong (hint: fix it)"
    assert "the base URL is wrong" in out.getvalue()
    assert not session.connected
    turn = await session.send("hello again")  # the next use builds it again
    assert turn.status == "completed"
    assert factory.calls == 2
    await session.aclose()


class _Knowledge:
    def __init__(self) -> None:
        self.listed = asyncio.Event()

    async def list_vector_stores(self) -> list[VectorStore]:
        self.listed.set()
        return [VectorStore(id="vs_1", name="notes", created_at=0)]


async def test_after_the_prompt_is_drawn_it_is_built_on_the_loop_thread(tmp_path: Path) -> None:
    knowledge = _Knowledge()
    factory = Factory(knowledge=knowledge)
    module = "forge_cli.testing.scripted"  # any module; imported on the background thread
    sys.modules.pop(module, None)
    session, _out = _session(tmp_path, factory, warm_modules=[module])
    session.prompt_drawn()
    session.prompt_drawn()  # once
    await asyncio.wait_for(factory.built.wait(), 30)
    assert factory.threads == [threading.get_ident()]
    assert module in sys.modules
    await asyncio.wait_for(knowledge.listed.wait(), 30)  # the completion cache is filled next
    await session.aclose()
    assert factory.calls == 1
