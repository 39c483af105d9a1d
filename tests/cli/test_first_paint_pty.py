"""The first words of an answer are painted before the renderer's modules load (ADR-0018).

``forge ask`` imports the renderer, rich, markdown-it and the fold on a background thread once
its request is out. Here that thread is held (tests/helpers/held_warm_up.py) until the first word
is on the screen, so the test does not depend on timing: the word can only come from the light
first-paint path. Once released, the real view takes over: the final screen is the answer once,
as the renderer draws it, at 40, 100 and 200 columns, in the rich view and with ``--plain``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks
from helpers.held_warm_up import MODELS
from helpers.loopback import LoopbackServer, Reply, sse
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

HELPER = Path(__file__).resolve().parents[1] / "helpers" / "held_warm_up.py"
FIRST = "Zephyrine opens the answer"
ANSWER = f"{FIRST}.\n\n## Section one\n\nA list:\n\n- first **bold** item\n- second item\n"


def _screen(raw: str, columns: int) -> list[str]:
    screen = pyte.Screen(columns, 60)
    pyte.Stream(screen).feed(raw)
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _ask(
    tmp_path: Path, columns: int, *, plain: bool, held: bool, api: str = "chat"
) -> tuple[str, list[str]]:
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    env.pop("COLUMNS", None)
    tmp_path.mkdir()
    fifo, report = tmp_path / "release", tmp_path / "report.json"
    with _server(api) as server:
        args = ["ask", "--api", api, "--base-url", server.base_url, "--model", "m",
                *(["--plain"] if plain else []), "Write it."]  # fmt: skip
        if held:
            os.mkfifo(fifo)
            args = [str(HELPER), str(fifo), str(report), *args]
        else:
            args = ["-m", "forge_cli.cli", *args]
        child = TerminalSpawn(
            sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(60, columns)
        )
        raw = ""
        try:
            if held:
                child.expect("Zephyrine")  # painted while the warm-up thread waits
                raw = child.before + child.after
                fifo.write_bytes(b"go")
            child.expect(pexpect.EOF)
            raw += child.before
        finally:
            child.close(force=True)
    if held:
        loaded = json.loads(report.read_text())
        expected = [] if api == "responses" else sorted(m for m in MODELS if m in loaded)
        assert loaded == expected  # none of the heavy modules was needed
    return raw, _screen(raw, columns)


@contextmanager
def _server(api: str) -> Iterator[Any]:
    """A loopback server streaming ANSWER in a dozen pieces, in ``api``'s format."""
    if api == "chat":
        with FakeChatServer() as server:
            server.add(text_chunks(ANSWER, pieces=12, usage=False))
            yield server
        return
    step = -(-len(ANSWER) // 12)
    deltas = [ANSWER[i : i + step] for i in range(0, len(ANSWER), step)]
    with LoopbackServer() as server:
        opening = [
            {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": _MESSAGE},
            {"type": "response.content_part.added", "item_id": "m1", "output_index": 0,
             "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
        ]  # fmt: skip
        delta = {"type": _DELTA, "item_id": "m1", "output_index": 0, "content_index": 0}
        events = [*opening, *({**delta, "delta": d} for d in deltas), _done()]
        server.add(Reply.sse([sse(event) for event in events]))
        yield server


_DELTA = "response.output_text.delta"
_MESSAGE = {"type": "message", "id": "m1", "role": "assistant", "status": "in_progress",
            "content": []}  # fmt: skip


def _done() -> dict[str, Any]:
    text = {"type": "output_text", "text": ANSWER, "annotations": []}
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
               "content": [text]}  # fmt: skip
    response = {"id": "r1", "object": "response", "status": "completed", "output": [message]}
    return {"type": "response.completed", "response": response}


@pytest.mark.parametrize("plain", [False, True], ids=["rich", "plain"])
def test_responses_first_words_paint_before_the_models_load(tmp_path: Path, plain: bool) -> None:
    """``--api responses`` writes a new conversation's request before pydantic loads (ADR-0020);
    its first words are painted while pydantic and the models are imported (held here)."""
    _, held = _ask(tmp_path / "held", 100, plain=plain, held=True, api="responses")
    _, usual = _ask(tmp_path / "usual", 100, plain=plain, held=False, api="responses")
    assert held == usual
    assert sum(line.count("Zephyrine") for line in held) == 1
    assert any("Section one" in line for line in held)


@pytest.mark.parametrize("columns", [40, 100, 200])
@pytest.mark.parametrize("plain", [False, True], ids=["rich", "plain"])
def test_first_words_paint_before_the_renderer_loads(
    tmp_path: Path, columns: int, plain: bool
) -> None:
    _, held = _ask(tmp_path / "held", columns, plain=plain, held=True)
    _, usual = _ask(tmp_path / "usual", columns, plain=plain, held=False)
    assert held == usual  # the real view took over: the same screen, the answer once
    assert sum(line.count("Zephyrine") for line in held) == 1
    assert any("Section one" in line for line in held)
