"""Warming up while the server thinks: imports on a background thread once a request is sent."""

from __future__ import annotations

import gc
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forge_cli.backends import ResponsesBackend
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.protocol import Request
from forge_cli.startup import StartUp
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.loopback import LoopbackServer, Reply, sse, sse_done


@pytest.fixture
def start_up() -> StartUp:
    """A start-up of its own for each test (the CLI makes one per process)."""
    return StartUp()


def test_callbacks_run_once_when_the_next_request_is_sent(start_up: StartUp) -> None:
    calls: list[str] = []
    start_up.after_request_sent(lambda: calls.append("a"))
    start_up.after_request_sent(lambda: calls.append("b"))
    assert calls == []
    start_up.request_sent()
    start_up.request_sent()
    assert calls == ["a", "b"]


def test_background_imports_are_done_once_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start_up: StartUp
) -> None:
    (tmp_path / "forge_warm_probe.py").write_text("VALUE = 42\n")
    (tmp_path / "forge_warm_broken.py").write_text("raise RuntimeError('broken module')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forge_warm_probe", raising=False)
    start_up.import_in_background(["forge_warm_broken", "forge_warm_probe"])
    start_up.wait_for_imports()
    assert sys.modules["forge_warm_probe"].VALUE == 42
    assert "forge_warm_broken" not in sys.modules  # a failing module is left to the main thread
    monkeypatch.delitem(sys.modules, "forge_warm_probe")


@pytest.fixture
def queue_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start_up: StartUp
) -> Iterator[Any]:
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
    start_up.wait_for_imports()
    monkeypatch.delitem(sys.modules, "forge_warm_queue")


def test_later_calls_queue_on_the_one_warm_up_thread(queue_probe: Any, start_up: StartUp) -> None:
    done: list[str] = []
    try:
        first = start_up.import_in_background(
            ["forge_warm_queue:held"], then=lambda: done.append("first")
        )
        second = start_up.import_in_background(
            ["forge_warm_queue:later"], then=lambda: done.append("second")
        )
        assert second is first  # queued behind the first call's steps, not a thread of its own
        assert start_up.imports_pending()
    finally:
        queue_probe.GATE.set()
    start_up.wait_for_imports()
    assert [step for step, _ in queue_probe.SEEN] == ["held", "later"]
    assert len({thread for _, thread in queue_probe.SEEN}) == 1
    assert done == ["first", "second"]
    assert not start_up.imports_pending()
    third = start_up.import_in_background(["forge_warm_queue:later"])  # the thread ended: a new one
    start_up.wait_for_imports()
    assert third is not first
    assert len(queue_probe.SEEN) == 3


def test_a_failing_then_leaves_the_jobs_behind_it_running(
    queue_probe: Any, start_up: StartUp
) -> None:
    def closed_loop() -> None:
        raise RuntimeError("Event loop is closed")

    done: list[str] = []
    try:
        first = start_up.import_in_background(["forge_warm_queue:held"], then=closed_loop)
        assert (
            start_up.import_in_background([], then=lambda: done.append("next")) is first
        )  # queued
    finally:
        queue_probe.GATE.set()
    start_up.wait_for_imports()
    assert done == ["next"]


def test_the_collector_is_back_on_once_the_warm_up_has_nothing_left(
    queue_probe: Any, start_up: StartUp
) -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        start_up.pause_gc()
        assert not gc.isenabled()
        start_up.import_in_background(["forge_warm_queue:held"])
        assert not gc.isenabled()  # still starting: the thread has work
        queue_probe.GATE.set()
        start_up.wait_for_imports()
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before  # what start-up made, out of its reach
        start_up.done()  # once only
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_collector_turned_off_by_someone_else_stays_off(start_up: StartUp) -> None:
    gc.disable()
    try:
        start_up.pause_gc()
        start_up.done()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.anyio
async def test_responses_backend_announces_the_sent_request(start_up: StartUp) -> None:
    events: list[str] = []
    start_up.after_request_sent(lambda: events.append("sent"))
    with LoopbackServer() as server:
        created = sse({"type": "response.created", "response": {"id": "r"}})
        server.add(Reply.sse([created, sse_done()]))
        async with ResponsesBackend(
            server.base_url, api_key_env=None, on_request_sent=start_up.request_sent
        ) as backend:
            async for event in backend.stream(Request(model="m", input="hi")):
                events.append(event.type)
    assert events[0] == "sent"
    assert events.count("sent") == 1


@pytest.mark.anyio
async def test_chat_backend_announces_the_sent_request(start_up: StartUp) -> None:
    events: list[str] = []
    start_up.after_request_sent(lambda: events.append("sent"))
    with FakeChatServer([text_chunks("Hello")]) as server:
        backend = ChatCompletionsBackend(
            base_url=server.base_url, max_retries=0, on_request_sent=start_up.request_sent
        )
        try:
            async for event in backend.stream(Request(model="m", input="hi")):
                events.append(event.type)
        finally:
            await backend.aclose()
    assert events[0] == "sent"
    assert events.count("sent") == 1


def test_a_step_can_call_a_function_of_its_module_after_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start_up: StartUp
) -> None:
    (tmp_path / "forge_warm_steps.py").write_text(
        "CALLS = []\ndef warm():\n    CALLS.append('warm')\ndef broken():\n    raise ValueError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forge_warm_steps", raising=False)
    start_up.import_in_background(
        ["forge_warm_steps:broken", "forge_warm_steps:warm", "forge_warm_steps:missing"]
    )
    start_up.wait_for_imports()
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
