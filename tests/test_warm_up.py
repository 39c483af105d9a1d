"""Warming up while the server thinks: imports on a background thread once a request is sent."""

from __future__ import annotations

import asyncio
import gc
import importlib
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from forge_cli import _lazy
from forge_cli._lazy import (
    after_request_sent,
    background_imports_pending,
    import_in_background,
    pause_gc_for_start_up,
    request_sent,
    set_first_paint,
    start_up_done,
    wait_for_background_imports,
)
from forge_cli.agent.turn import backend_responder
from forge_cli.backends import ResponsesBackend
from forge_cli.backends.chat_completions import ChatCompletionsBackend
from forge_cli.protocol import Request
from forge_cli.protocol.events import StreamEvent
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.loopback import LoopbackServer, Reply, sse, sse_done


@pytest.fixture(autouse=True)
def _no_leftover_callbacks() -> None:
    _lazy._after_sent.clear()


def test_callbacks_run_once_when_the_next_request_is_sent() -> None:
    calls: list[str] = []
    after_request_sent(lambda: calls.append("a"))
    after_request_sent(lambda: calls.append("b"))
    assert calls == []
    request_sent()
    request_sent()
    assert calls == ["a", "b"]


def test_background_imports_are_done_once_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "forge_warm_probe.py").write_text("VALUE = 42\n")
    (tmp_path / "forge_warm_broken.py").write_text("raise RuntimeError('broken module')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forge_warm_probe", raising=False)
    import_in_background(["forge_warm_broken", "forge_warm_probe"])
    wait_for_background_imports()
    assert sys.modules["forge_warm_probe"].VALUE == 42
    assert "forge_warm_broken" not in sys.modules  # a failing module is left to the main thread
    monkeypatch.delitem(sys.modules, "forge_warm_probe")


@pytest.fixture
def queue_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A module of warm-up steps: ``held`` waits for ``GATE`` (so calls made meanwhile queue
    behind it), ``held`` and ``later`` record themselves and their thread in ``SEEN``."""
    (tmp_path / "forge_warm_queue.py").write_text(
        "import threading\n"
        "GATE = threading.Event()\n"
        "SEEN = []\n"
        "def held():\n"
        "    GATE.wait(30)\n"
        "    SEEN.append(('held', threading.get_ident()))\n"
        "def later():\n"
        "    SEEN.append(('later', threading.get_ident()))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forge_warm_queue", raising=False)
    module = importlib.import_module("forge_warm_queue")
    yield module
    module.GATE.set()  # a failed test does not leave the thread waiting
    wait_for_background_imports()
    monkeypatch.delitem(sys.modules, "forge_warm_queue")


def test_later_calls_queue_on_the_one_warm_up_thread(queue_probe: Any) -> None:
    done: list[str] = []
    try:
        first = import_in_background(["forge_warm_queue:held"], then=lambda: done.append("first"))
        second = import_in_background(
            ["forge_warm_queue:later"], then=lambda: done.append("second")
        )
        assert second is first  # queued behind the first call's steps, not a thread of its own
        assert background_imports_pending()
    finally:
        queue_probe.GATE.set()
    wait_for_background_imports()
    assert [step for step, _ in queue_probe.SEEN] == ["held", "later"]
    assert len({thread for _, thread in queue_probe.SEEN}) == 1
    assert done == ["first", "second"]
    assert not background_imports_pending()
    third = import_in_background(["forge_warm_queue:later"])  # the thread ended: a new one
    wait_for_background_imports()
    assert third is not first
    assert len(queue_probe.SEEN) == 3


def test_a_failing_then_leaves_the_jobs_behind_it_running(queue_probe: Any) -> None:
    def closed_loop() -> None:
        raise RuntimeError("Event loop is closed")

    done: list[str] = []
    try:
        first = import_in_background(["forge_warm_queue:held"], then=closed_loop)
        assert import_in_background([], then=lambda: done.append("next")) is first  # queued
    finally:
        queue_probe.GATE.set()
    wait_for_background_imports()
    assert done == ["next"]


def test_the_collector_is_back_on_once_the_warm_up_has_nothing_left(queue_probe: Any) -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        pause_gc_for_start_up()
        assert not gc.isenabled()
        import_in_background(["forge_warm_queue:held"])
        assert not gc.isenabled()  # still starting: the thread has work
        queue_probe.GATE.set()
        wait_for_background_imports()
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before  # what start-up made, out of its reach
        start_up_done()  # once only
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_collector_turned_off_by_someone_else_stays_off() -> None:
    gc.disable()
    try:
        pause_gc_for_start_up()
        start_up_done()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.anyio
async def test_responses_backend_announces_the_sent_request() -> None:
    events: list[str] = []
    after_request_sent(lambda: events.append("sent"))
    with LoopbackServer() as server:
        created = sse({"type": "response.created", "response": {"id": "r"}})
        server.add(Reply.sse([created, sse_done()]))
        async with ResponsesBackend(server.base_url, api_key_env=None) as backend:
            async for event in backend.stream(Request(model="m", input="hi")):
                events.append(event.type)
    assert events[0] == "sent"
    assert events.count("sent") == 1


@pytest.mark.anyio
async def test_chat_backend_announces_the_sent_request() -> None:
    events: list[str] = []
    after_request_sent(lambda: events.append("sent"))
    with FakeChatServer([text_chunks("Hello")]) as server:
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        try:
            async for event in backend.stream(Request(model="m", input="hi")):
                events.append(event.type)
        finally:
            await backend.aclose()
    assert events[0] == "sent"
    assert events.count("sent") == 1


def test_a_step_can_call_a_function_of_its_module_after_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "forge_warm_steps.py").write_text(
        "CALLS = []\ndef warm():\n    CALLS.append('warm')\ndef broken():\n    raise ValueError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forge_warm_steps", raising=False)
    import_in_background(
        ["forge_warm_steps:broken", "forge_warm_steps:warm", "forge_warm_steps:missing"]
    )
    wait_for_background_imports()
    assert sys.modules["forge_warm_steps"].CALLS == ["warm"]  # a failing step is skipped
    monkeypatch.delitem(sys.modules, "forge_warm_steps")


def test_the_fold_warm_up_builds_what_the_first_event_would_build() -> None:
    # In a fresh process: this one may have built the validators already.
    probe = (
        "from forge_cli.protocol import parse\n"
        "from forge_cli.protocol.items import Message\n"
        "from forge_cli.protocol.response import Response\n"
        "def built():\n"
        "    return (Response.__pydantic_complete__, Message.__pydantic_complete__,\n"
        "            parse._item_adapter.cache_info().currsize)\n"
        "before = built()\n"
        "from forge_cli.stream.warm import warm_up_fold\n"
        "warm_up_fold()\n"
        "print(before, built())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "(False, False, 0) (True, True, 1)"


# --- the first paint does not wait for the warm-up (ADR-0018) -----------------------------------

WHERE = {"item_id": "m1", "output_index": 0, "content_index": 0}
ITEM = {"id": "m1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}


def _answer(*pieces: str) -> list[list[StreamEvent]]:
    """A message streamed as one network read per piece (the first also opens the message)."""
    start = [
        StreamEvent("response.created", {"response": {"id": "r1", "status": "in_progress"}}),
        StreamEvent("response.output_item.added", {"output_index": 0, "item": ITEM}),
        StreamEvent(
            "response.content_part.added",
            {**WHERE, "part": {"type": "output_text", "text": "", "annotations": []}},
        ),
    ]
    batches = [[StreamEvent("response.output_text.delta", {**WHERE, "delta": p})] for p in pieces]
    batches[0] = start + batches[0]
    return batches


class _BatchBackend:
    def __init__(self, batches: list[list[StreamEvent]], error: Exception | None = None) -> None:
        self.batches = batches
        self.error = error

    async def stream_batches(self, request: Request) -> AsyncIterator[list[StreamEvent]]:
        request_sent()  # the HTTP layer's announcement: the warm-up thread starts
        for batch in self.batches:
            yield batch
        if self.error is not None:
            raise self.error
        done = {"response": {"id": "r1", "status": "completed"}}
        yield [StreamEvent("response.completed", done)]


@pytest.fixture
def held_warm_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A warm-up whose first step waits until the test releases it (``module.RELEASE``)."""
    (tmp_path / "forge_warm_hold.py").write_text(
        "import threading\nRELEASE = threading.Event()\ndef hold():\n    RELEASE.wait(30)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import forge_warm_hold  # type: ignore[import-not-found]

    after_request_sent(lambda: import_in_background(["forge_warm_hold:hold"]))
    yield forge_warm_hold
    forge_warm_hold.RELEASE.set()
    wait_for_background_imports()
    set_first_paint(None)
    monkeypatch.delitem(sys.modules, "forge_warm_hold")


class _Preview:
    """Records what it was offered and whether the warm-up still ran; releases it after ``n``."""

    def __init__(self, module: Any, release_after: int) -> None:
        self.module = module
        self.release_after = release_after
        self.offered: list[tuple[list[str], bool]] = []

    def __call__(self, batch: list[StreamEvent]) -> bool:
        deltas = [e.data["delta"] for e in batch if e.type.endswith(".delta")]
        self.offered.append((deltas, background_imports_pending()))
        if len(self.offered) == self.release_after:
            self.module.RELEASE.set()
        return True


def _run(backend: _BatchBackend) -> tuple[list[str], BaseException | None]:
    texts: list[str] = []

    async def go() -> None:
        async for update in backend_responder(backend)(Request(model="m", input="hi")):
            texts.append(update.output[0].text if update.output else "")

    try:
        asyncio.run(go())
    except Exception as exc:
        return texts, exc
    return texts, None


def test_batches_are_offered_to_the_preview_while_the_warm_up_runs(held_warm_up: Any) -> None:
    preview = _Preview(held_warm_up, release_after=2)
    set_first_paint(preview)
    texts, error = _run(_BatchBackend(_answer("Zephyrine", " opens", " the answer.")))
    assert error is None
    # Both reads came while the imports were held: shown before anything could be folded.
    assert preview.offered[:2] == [(["Zephyrine"], True), ([" opens"], True)]
    assert texts[-1] == "Zephyrine opens the answer."  # then folded: nothing lost or doubled


def test_a_stream_error_while_previewing_comes_after_what_arrived(held_warm_up: Any) -> None:
    from forge_cli.errors import BackendConnectionError

    set_first_paint(_Preview(held_warm_up, release_after=2))
    failure = BackendConnectionError("cut")
    texts, error = _run(_BatchBackend(_answer("Zephyrine", " opens"), error=failure))
    assert error is failure
    assert texts[-1] == "Zephyrine opens"  # the text that arrived is still folded and shown


def test_without_a_preview_the_fold_waits_for_the_warm_up(held_warm_up: Any) -> None:
    held_warm_up.RELEASE.set()
    texts, error = _run(_BatchBackend(_answer("Zephyrine", " opens")))
    assert (texts[-1], error) == ("Zephyrine opens", None)
