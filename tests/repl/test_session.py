"""The chat session driven in-process: slash commands, turns, cancellation, autosave."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.errors import AuthError
from forge_cli.protocol import FileCitation, Message, OutputText, Request, Response
from forge_cli.repl import REGISTRY, ChatSession, backend_responder
from forge_cli.repl.prompt import toolbar_text
from forge_cli.testing.scripted import ScriptedBackend

pytestmark = pytest.mark.anyio


def _snap(text: str, *, status: str = "in_progress", rid: str = "r1") -> Response:
    part = OutputText(text=text, annotations=[FileCitation(file_id="f", filename="doc.md")])
    return Response(id=rid, status=status, output=[Message(id="m", content=[part])])


class FakeResponder:
    """Yields prepared snapshots; optionally blocks after them until cancelled."""

    def __init__(
        self, *answers: list[Response], hang: bool = False, error: Exception | None = None
    ):
        self.answers = list(answers)
        self.hang = hang
        self.error = error
        self.requests: list[Request] = []
        self.started = asyncio.Event()

    async def __call__(self, request: Request) -> AsyncIterator[Response]:
        self.requests.append(request)
        for snapshot in self.answers.pop(0) if self.answers else []:
            yield snapshot
        self.started.set()
        if self.error is not None:
            raise self.error
        if self.hang:
            await asyncio.Event().wait()


def _session(tmp_path: Path, responder: FakeResponder) -> tuple[ChatSession, io.StringIO]:
    out = io.StringIO()
    store = ConversationStore(tmp_path)
    return ChatSession(Conversation(), responder, out=out, store=store), out


async def test_help_lists_every_command_with_a_description(tmp_path: Path) -> None:
    session, out = _session(tmp_path, FakeResponder())
    assert await session.handle_line("/help")
    text = " ".join(out.getvalue().split())  # descriptions wrap to the terminal's width
    for cmd in REGISTRY:
        assert f"/{cmd.name}" in text
        assert cmd.summary in text


async def test_tool_toggle_changes_the_one_source_of_truth(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("ok", status="completed")])
    session, _out = _session(tmp_path, responder)
    await session.handle_line("/tool on web-search")
    await session.handle_line("/vs add vs_9")
    assert session.conversation.settings.tools == ["web-search", "file-search"]
    assert "web-search,file-search" in toolbar_text(session)
    await session.handle_line("hello")
    tools = [tool.type for tool in responder.requests[0].tools]
    assert tools == ["web_search", "file_search"]
    await session.handle_line("/tool off web-search")
    assert session.settings.tools == ["file-search"]


async def test_the_toolbar_counts_the_functions_files_as_tools(tmp_path: Path) -> None:
    """``forge chat --functions FILE`` said "no tools" in its toolbar."""
    session, _out = _session(tmp_path, FakeResponder())
    session.function_files = ("tools.py",)
    assert "no tools" not in toolbar_text(session)
    assert " │ functions │ " in toolbar_text(session)
    await session.handle_line("/tool on web-search")
    assert " │ web-search,functions │ " in toolbar_text(session)


async def test_answer_sources_and_autosave(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("Hel"), _snap("Hello.", status="completed")])
    session, out = _session(tmp_path, responder)
    await session.handle_line("hi")
    assert "Hello." in out.getvalue()
    assert "[1] doc.md" in out.getvalue()
    saved = ConversationStore(tmp_path).load(session.conversation.id)
    assert saved.turns[0].text == "Hello."
    await session.handle_line("/sources")
    assert out.getvalue().count("[1] doc.md") == 2


async def test_cancel_keeps_partial_answer_marked_and_saved(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("Partial ans")], hang=True)
    session, out = _session(tmp_path, responder)
    task = asyncio.create_task(session.handle_line("long question"))
    await responder.started.wait()
    session.cancel()
    assert await task is True
    assert "■ interrupted" in out.getvalue()  # the plain renderer's status note
    saved = ConversationStore(tmp_path).load(session.conversation.id)
    assert (saved.turns[0].status, saved.turns[0].text) == ("interrupted", "Partial ans")


async def test_backend_error_is_one_line_and_session_goes_on(tmp_path: Path) -> None:
    error = AuthError("401 from server", status_code=401, env_var="KEY")
    session, out = _session(tmp_path, FakeResponder([], error=error))
    assert await session.handle_line("hi") is True
    assert "error: 401 from server (hint: set the API key" in out.getvalue()
    assert session.conversation.turns[0].status == "failed"


async def test_unknown_and_failing_commands_do_not_end_the_session(tmp_path: Path) -> None:
    session, out = _session(tmp_path, FakeResponder())
    assert await session.handle_line("/frobnicate") is True
    assert await session.handle_line("/tool sideways x") is True
    assert await session.handle_line('/export md "unterminated') is True
    assert out.getvalue().count("error:") == 3
    assert await session.handle_line("/quit") is False


async def test_double_slash_sends_a_literal_slash(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("ok", status="completed")])
    session, _ = _session(tmp_path, responder)
    await session.handle_line("//etc/hosts is a file")
    assert responder.requests[0].input[-1].content == "/etc/hosts is a file"  # type: ignore[index,union-attr]


async def test_save_load_new_and_export(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("A.", status="completed")])
    session, _out = _session(tmp_path, responder)
    await session.handle_line("q")
    first = session.conversation.id
    await session.handle_line("/save named one")
    await session.handle_line("/new")
    assert session.conversation.id != first
    assert session.conversation.turns == []
    await session.handle_line(f"/load {first}")
    assert session.conversation.name == "named one"
    target = tmp_path / "out dir" / "x.md"
    target.parent.mkdir()
    await session.handle_line(f'/export md "{target}"')
    assert "1. doc.md" in target.read_text()


async def test_retry_resends_the_last_question(tmp_path: Path) -> None:
    responder = FakeResponder([_snap("1", status="completed")], [_snap("2", status="completed")])
    session, _ = _session(tmp_path, responder)
    await session.handle_line("again?")
    await session.handle_line("/retry")
    assert len(session.conversation.turns) == 1
    assert session.conversation.turns[0].text == "2"


async def test_run_loop_hint_on_idle_interrupt_and_exit_on_eof(tmp_path: Path) -> None:
    class Reader:
        def __init__(self) -> None:
            self.steps: list[str | BaseException] = [KeyboardInterrupt(), "/status", EOFError()]

        async def read(self, session: ChatSession) -> str:
            step = self.steps.pop(0)
            if isinstance(step, BaseException):
                raise step
            return step

    session, out = _session(tmp_path, FakeResponder())
    await session.run(Reader())
    assert "Ctrl+D" in out.getvalue()
    assert "tokens used" in out.getvalue()


async def test_backend_responder_with_scripted_backend(tmp_path: Path, sse_dir: Path) -> None:
    from forge_cli.testing.scripted import load_sse_fixture

    backend = ScriptedBackend([load_sse_fixture(sse_dir / "openai_file_search.sse")])
    session, _out = _session(tmp_path, FakeResponder())
    session.responder = backend_responder(backend)
    await session.handle_line("search please")
    backend.assert_consumed()
    assert session.conversation.turns[0].status == "completed"
    assert session.conversation.turns[0].text


async def test_the_real_loop_events_show_as_notices_and_the_turn_is_incomplete(
    tmp_path: Path,
) -> None:
    """The chat session goes through the same turn runner and plain renderer as `forge ask`."""
    from forge_cli.protocol.loop_events import AnswerUpdate
    from forge_cli.testing.loop_run import newsworthy_run

    run = await newsworthy_run()

    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        for update in run.updates:
            yield update
        run.result.raise_for_status()

    out = io.StringIO()
    session = ChatSession(Conversation(), respond, out=out, store=ConversationStore(tmp_path))
    assert await session.handle_line("do the thing") is True
    text = " ".join(out.getvalue().split())
    assert "tool call blocked by a hook: rm" in text
    assert "tool call failed: broken" in text
    assert "retrying the model (attempt 1)" in text
    assert "stopped after 4 model requests in 3 rounds (the tool iteration limit)" in text
    turn = session.conversation.turns[0]
    assert turn.status == "incomplete"
    assert turn.error is not None
    assert "tool iteration limit" in turn.error
