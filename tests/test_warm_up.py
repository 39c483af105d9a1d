"""Warming up while the server thinks: imports on a background thread once a request is sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forge_cli import _lazy
from forge_cli._lazy import (
    after_request_sent,
    import_in_background,
    request_sent,
    wait_for_background_imports,
)
from forge_cli.backends import ResponsesBackend
from forge_cli.backends.chat_completions import ChatCompletionsBackend
from forge_cli.protocol import Request
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
        "            parse._adapters.cache_info().currsize)\n"
        "before = built()\n"
        "from forge_cli.stream.warm import warm_up_fold\n"
        "warm_up_fold()\n"
        "print(before, built())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "(False, False, 0) (True, True, 1)"
