"""Every recorded real-server stream, replayed over loopback through ``forge ask`` in every mode.

The recordings (``tests/fixtures/streams/``, see :mod:`replay.recordings`) are served byte for
byte by a real HTTP server on 127.0.0.1, one chunk per SSE event. ``forge ask`` runs for real:
``--json``, ``--jsonl`` and ``--plain`` in-process through click (the same command, argument
parsing, backend and renderer as in a shell), and the live rich view in a pseudo-terminal of
100×40 whose screen is read back through pyte. What each run must show is read from the
recording's bytes alone (the text deltas, reasoning, refusals, citations, tool calls), not from
Forge's parser. Recordings in which the model calls a function are replayed with a ``--functions``
file that defines it, so the client-side tool loop runs, and the server answers the follow-up.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pexpect
import pyte
import pytest
from click.testing import CliRunner

from helpers.loopback import LoopbackServer, RecordedRequest, Reply, Send
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]
from replay.recordings import Recording, recordings

RECORDINGS = recordings()
BY_NAME = {rec.name: rec for rec in RECORDINGS}
FOLLOW_UP = "Done."
QUESTION = "What does the recording say?"

# Known gaps, each an acceptance point of issue 13 ("Works with every real server"): the test
# states the right behaviour and fails today on these (recording, mode) pairs; `strict` makes the
# fix remove the entry here.
GAPS: dict[tuple[str, str], str] = {}

SETTLED = {"completed", "failed", "incomplete", "cancelled", "interrupted", "blocked"}


def _tools_source(rec: Recording) -> str:
    """A Python file defining each recorded tool, taking the arguments the model sent."""
    lines = ["from typing import Any", "from forge_cli.tools import tool", ""]
    for number, name in enumerate(dict.fromkeys(rec.tool_calls)):
        params = ", ".join(f"{arg}: Any = None" for arg in sorted(rec.tool_arguments[name]))
        lines += [
            "",
            f"@tool(name={name!r})",
            f"def recorded_{number}({params}) -> str:",
            f'    """The recorded tool {name}."""',
            f"    return 'result of {name}'",
            "",
        ]
    return "\n".join(lines)


def _follow_up(api: str) -> Reply:
    if api == "chat":
        chunk = {
            "id": "chatcmpl-follow",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": FOLLOW_UP}, "finish_reason": "stop"}],
        }
        return Reply.sse(
            [Send(f"data: {json.dumps(chunk)}\n\n".encode()), Send(b"data: [DONE]\n\n")]
        )
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_f", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "mf", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "mf",
            "delta": FOLLOW_UP,
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "type": "message",
                "id": "mf",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": FOLLOW_UP, "annotations": []}],
            },
        },
        {"type": "response.completed", "response": {"id": "resp_f", "status": "completed"}},
    ]
    return Reply.sse([Send(f"data: {json.dumps(e)}\n\n".encode()) for e in events])


class Replay:
    """One recording served on loopback, and the arguments that point ``forge ask`` at it."""

    def __init__(self, rec: Recording, tmp: Path) -> None:
        self.rec = rec
        self.server = LoopbackServer().start()
        self.server.add(Reply.sse([Send(frame) for frame in rec.frames]))
        self.args = ["ask", "--api", rec.api, "--base-url", self.server.base_url, "--model", "m"]
        if rec.tool_calls:
            tools = tmp / "recorded_tools.py"
            tools.write_text(_tools_source(rec))
            self.args += ["--functions", str(tools), "--yes"]
            self.server.add(_follow_up(rec.api))
        self.env = {
            "FORGE_DATA_DIR": str(tmp / "data"),
            "FORGE_CONFIG": str(tmp / "config.toml"),
            "FORGE_API_KEY": "sk-replay-test",
            "OPENAI_API_KEY": "sk-replay-test",
            "NO_COLOR": "",
        }

    @property
    def expected_text(self) -> str:
        return self.rec.text + (FOLLOW_UP if self.rec.tool_calls else "")

    def requests(self) -> list[RecordedRequest]:
        return self.server.requests

    def close(self) -> None:
        self.server.stop()


@pytest.fixture
def replay(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Replay]:
    rec: Recording = request.param
    mode = request.function.__name__.removeprefix("test_")
    gap = GAPS.get((rec.name, mode))
    if gap:
        request.applymarker(pytest.mark.xfail(reason=gap, strict=True))
    r = Replay(rec, tmp_path)
    yield r
    r.close()


def _ids(rec: Recording) -> str:
    return rec.name


@click.command(context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def _forge(args: tuple[str, ...]) -> None:
    """The console script's own entry (``forge_cli.cli.main.run``: exit codes, one-line errors)."""
    from forge_cli.cli.main import run

    sys.exit(run(list(args)))


def _run(r: Replay, *mode: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(_forge, [*r.args, *mode, QUESTION], env=r.env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.stdout, result.stderr


def _expected_exit(rec: Recording) -> int:
    return 1 if rec.error else 0


def _check_request(r: Replay) -> None:
    first = r.requests()[0]
    body = first.json()
    assert body["model"] == "m"
    assert body["stream"] is True
    if r.rec.api == "chat":
        assert first.path == "/v1/chat/completions"
        assert body["messages"][-1] == {"role": "user", "content": QUESTION}
    else:
        assert first.path == "/v1/responses"
        assert QUESTION in json.dumps(body["input"])
    assert first.headers.get("authorization") == "Bearer sk-replay-test"
    if r.rec.tool_calls:
        follow = r.requests()[1].json()
        sent = json.dumps(follow)
        for name in r.rec.tool_calls:
            assert f"result of {name}" in sent, f"the follow-up must carry {name}'s output"


def _reasoning(doc: dict[str, Any]) -> str:
    return "".join(i.get("text") or "" for i in doc["items"] if i["type"] == "reasoning")


def _bare(text: str) -> str:
    """The text without any whitespace (clients may join summary parts with blank lines)."""
    return "".join(text.split())


def _check_document(r: Replay, doc: dict[str, Any]) -> None:
    rec = r.rec
    assert doc["schema"] == "forge.answer/v1"
    assert doc["text"] == r.expected_text
    assert _bare(_reasoning(doc)) == _bare(rec.reasoning)
    refusal = "".join(i.get("refusal") or "" for i in doc["items"] if i["type"] == "message")
    assert refusal == rec.refusal
    assert len(doc["citations"]) == rec.citations
    calls = [i["name"] for i in doc["items"] if i["type"] == "function_call"]
    assert calls == rec.tool_calls
    if rec.error:
        assert doc["status"] == "failed"
        assert doc["error"]
        assert doc["error"]["message"]
        assert doc["error"]["code"] in ("server_error", "protocol_error", "http_error")
        return
    expected = rec.final_status or ("incomplete" if rec.finish_reason == "length" else "completed")
    assert doc["status"] == expected
    assert doc["error"] is None
    unsettled = [(i["type"], i["status"]) for i in doc["items"] if i["status"] not in SETTLED]
    assert not unsettled, f"items left unsettled: {unsettled}"


@pytest.mark.parametrize("replay", RECORDINGS, ids=_ids, indirect=True)
def test_json(replay: Replay) -> None:
    code, out, err = _run(replay, "--json")
    assert code == _expected_exit(replay.rec), err
    _check_document(replay, json.loads(out))
    _check_request(replay)


@pytest.mark.parametrize("replay", RECORDINGS, ids=_ids, indirect=True)
def test_jsonl(replay: Replay) -> None:
    code, out, err = _run(replay, "--jsonl")
    assert code == _expected_exit(replay.rec), err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["type"] == "answer"
    doc = lines[-1]["payload"]
    _check_document(replay, doc)
    if not any(line["type"] == "text.replaced" for line in lines):
        deltas = "".join(line["payload"]["delta"] for line in lines if line["type"] == "text.delta")
        assert deltas == doc["text"]
    reasoning = "".join(
        line["payload"]["delta"] for line in lines if line["type"] == "reasoning.delta"
    )
    assert _bare(reasoning) in ("", _bare(replay.rec.reasoning))


_MARKER = re.compile(r"\[\d+\]|⟦⟦\d+⟧⟧|[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_MARKUP = str.maketrans("", "", "`*_#[]()")


def _visible(text: str) -> str:
    """What a terminal shows of Markdown text, compared without markers, markup and spacing."""
    return _bare(_MARKER.sub("", text)).translate(_MARKUP)


def _squash(text: str) -> str:
    return " ".join(_MARKER.sub("", text).split())


@pytest.mark.parametrize("replay", RECORDINGS, ids=_ids, indirect=True)
def test_plain(replay: Replay) -> None:
    code, out, err = _run(replay, "--plain")
    assert code == _expected_exit(replay.rec), err
    shown = _squash(out)
    assert _bare(_squash(replay.expected_text)) in _bare(shown)
    if replay.rec.reasoning:
        # Reasoning goes to stderr in plain mode, once.
        probe = _squash(replay.rec.reasoning)[:60]
        assert _squash(err).count(probe) == 1
    if replay.rec.refusal:
        assert _squash(replay.rec.refusal) in shown + _squash(err)
    assert "\x1b" not in out


class _Screen(pyte.HistoryScreen):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(100, 40, history=10_000)

    def text(self) -> str:
        top = ["".join(ch.data for ch in line.values()) for line in self.history.top]
        return "\n".join([*top, *self.display])


@pytest.mark.pty
@pytest.mark.parametrize("replay", RECORDINGS, ids=_ids, indirect=True)
def test_rich(replay: Replay) -> None:
    env = {**os.environ, **replay.env, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40"}
    env.pop("NO_COLOR", None)
    child = TerminalSpawn(
        sys.executable,
        ["-m", "forge_cli.cli", *replay.args, QUESTION],
        env=env,
        dimensions=(40, 100),
        timeout=30,
    )
    screen = _Screen()
    stream = pyte.ByteStream(screen)
    chunks: list[bytes] = []
    while True:
        try:
            data = child.read_nonblocking(65536, timeout=30)
        except pexpect.EOF:
            break
        chunks.append(data)
        stream.feed(data)
    child.close()
    assert child.exitstatus == _expected_exit(replay.rec), screen.text()
    shown = _squash(screen.text())
    pieces = [replay.rec.text, FOLLOW_UP if replay.rec.tool_calls else ""]
    for piece in filter(None, pieces):
        tail = _visible(piece)[-60:]
        assert tail in _visible(shown), f"the end of the answer is not on the screen:\n{shown}"
    if replay.rec.reasoning:
        # The reasoning is shown (possibly folded to its first lines), and only once.
        probe = _squash(replay.rec.reasoning)[:40]
        assert shown.count(probe) == 1, screen.text()
    if replay.rec.refusal:
        assert _squash(replay.rec.refusal) in shown


CITING = [rec for rec in RECORDINGS if rec.citations]


@pytest.mark.parametrize("replay", CITING, ids=_ids, indirect=True)
def test_plain_numbers_sources_as_json_does(replay: Replay) -> None:
    """Plain text and ``--json`` give one source one number: the ``[n]`` markers in the plain
    answer are those of ``text_cited``, and its Sources list is ``citations[]`` in order. (R15: a
    citation on a link at the very end of the answer arrives after its text was printed; plain
    numbered it after a file citation listed without a position and wrote no marker, so its
    ``[1]`` was the JSON's ``[2]``.)"""
    from forge_cli.protocol.citations import Citation, source_label

    code, out, err = _run(replay, "--plain")
    assert code == _expected_exit(replay.rec), err
    answer, _, sources = out.partition("\nSources:\n")
    replay.server.add(Reply.sse([Send(frame) for frame in replay.rec.frames]))
    code, doc_out, err = _run(replay, "--json")
    doc = json.loads(doc_out)
    # A marker whose annotation arrived after its text was printed cannot be written: plain
    # shows the markers of ``text_cited`` less those, never another number.
    cited = iter(re.findall(r"\[\d+\]", doc["text_cited"]))
    assert all(marker in cited for marker in re.findall(r"\[\d+\]", answer)), (out, doc)
    listed = [f"[{c['n']}] {source_label(Citation(**c))}" for c in doc["citations"]]
    assert sources.splitlines() == listed, out
