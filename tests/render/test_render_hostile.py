"""Hostile strings in answers, tool results, file names and URLs never reach a terminal raw."""

from __future__ import annotations

import io
import json
import re

import pytest
from tests_render_helpers import (  # type: ignore[import-not-found]
    FakeClock,
    Screen,
    real_loop_events,
)

from forge_cli.protocol import (
    FileCitation,
    FileSearchCall,
    FileSearchResult,
    FunctionCall,
    FunctionCallOutput,
    Message,
    OutputText,
    Response,
    UrlCitation,
    WebSearchCall,
    WebSearchSource,
)
from forge_cli.render import make_renderer, sanitize
from forge_cli.sanitize import dangerous_chars, json_dumps_safe, sanitize_inline

HOSTILE = [
    "\x1b[2J\x1b[H",  # clear screen, cursor home
    "\x1b[31mred\x1b[0m",
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52 clipboard write
    "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b]0;pwned title\x07",  # window title
    "\x1bP+q544e\x1b\\",  # DCS
    "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\",
    "\x9b2J\x9d0;t\x9c",  # C1 CSI / OSC / ST
    "safe\u202eevil\u202c \u2066iso\u2069 \u200b\ufeff",
    "back\bspace\rreturn\x07bell\x7fdel\x00nul",
    "[bold red]markup[/] :smile: [link=https://x]y[/link]",
    "\U000e0041\U000e0042 tags",
]
_RICH_OWN = re.compile(r"\x1b\[\?25[lh]|\x1b\[2K|\x1b\[\d*A|\r")


def _hostile_response(payload: str) -> Response:
    return Response(
        id="resp_h",
        status="completed",
        output=[
            FileSearchCall(
                id="fs",
                status="completed",
                queries=[payload],
                results=[FileSearchResult(file_id="f1", filename=payload + ".pdf", text=payload)],
            ),
            WebSearchCall(
                id="ws",
                status="completed",
                queries=[payload],
                sources=[WebSearchSource(url="https://e.example/" + payload, title=payload)],
            ),
            FunctionCall(id="fc", call_id="c1", name=payload, arguments=json.dumps({"q": payload})),
            FunctionCallOutput(call_id="c1", output=payload),
            Message(
                id="m",
                status="completed",
                content=[
                    OutputText(
                        text=f"Answer {payload} done.\n\n```\n{payload}\n```\n",
                        annotations=[
                            FileCitation(file_id="f1", filename=payload, index=6),
                            UrlCitation(
                                url="https://x.example/" + payload,
                                title=payload,
                                start_index=0,
                                end_index=6,
                            ),
                        ],
                    )
                ],
            ),
        ],
    )


def _assert_clean(out: str, *, terminal: bool = False) -> None:
    if terminal:
        out = _RICH_OWN.sub("", out)
    bad = {ch for ch in out if ch in dangerous_chars()}
    assert not bad, f"raw control characters reached the output: {sorted(map(ascii, bad))}"


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
@pytest.mark.parametrize("terminal", [False, True])
def test_rich_output_is_clean(payload: str, terminal: bool) -> None:
    screen = Screen()
    renderer = make_renderer(
        "rich",
        stdout=screen.file,
        stderr=io.StringIO(),
        clock=FakeClock(),
        width=100,
        height=40,
        color=False,
        force_terminal=terminal,
    )
    response = _hostile_response(payload)
    renderer.on_snapshot(response)
    for event in real_loop_events(payload):
        renderer.on_event(event)
    renderer.finish(response, error=payload)
    out = screen.file.getvalue()
    _assert_clean(out, terminal=terminal)
    assert "evil.example" not in out or "\x1b]8" not in out
    if "[bold red]" in payload:
        assert "[bold red]markup" in out, "rich markup in untrusted text must show literally"


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
def test_plain_output_is_clean(payload: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=err, clock=FakeClock())
    response = _hostile_response(payload)
    renderer.on_snapshot(response)
    for event in real_loop_events(payload):
        renderer.on_event(event)
    renderer.finish(response, error=payload)
    _assert_clean(out.getvalue())
    _assert_clean(err.getvalue())
    assert "Answer" in out.getvalue()


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
@pytest.mark.parametrize("mode", ["json", "jsonl"])
def test_json_round_trips_the_original(payload: str, mode: str) -> None:
    out = io.StringIO()
    renderer = make_renderer(mode, stdout=out, stderr=io.StringIO(), clock=FakeClock())  # type: ignore[arg-type]
    response = _hostile_response(payload)
    renderer.on_snapshot(response)
    renderer.finish(response)
    raw = out.getvalue()
    _assert_clean(raw.replace("\n", ""))
    doc = json.loads(raw) if mode == "json" else json.loads(raw.splitlines()[-1])["payload"]
    assert doc["text"] == response.output_text
    assert payload in doc["text"]
    names = [c["filename"] for c in doc["citations"] if c["filename"]]
    assert payload in names


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
def test_jsonl_loop_events_are_escaped_and_keep_the_original(payload: str) -> None:
    """The real loop's events carry model and tool text (a block reason, a tool error, the
    arguments): `agent.<type>` lines escape it and decode back to the original."""
    out = io.StringIO()
    renderer = make_renderer("jsonl", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    for event in real_loop_events(payload):
        renderer.on_event(event)
    raw = out.getvalue()
    _assert_clean(raw.replace("\n", ""))
    lines = [json.loads(line) for line in raw.splitlines()]
    blocked = next(line["payload"] for line in lines if line["type"] == "agent.tool_call.blocked")
    assert blocked["reason"] == f"deleting files is not allowed{payload}"
    failed = next(line["payload"] for line in lines if line["type"] == "agent.tool_call.failed")
    assert payload in failed["error"]


def test_sanitize_shows_escapes_visibly() -> None:
    assert sanitize("\x1b[2J") == "\\x1b[2J"
    assert sanitize("a\r\nb\tc") == "a\nb\tc"
    assert sanitize("x\u202ey") == "x\\u202ey"
    assert sanitize("\U000e0041") == "\\U000e0041"
    assert sanitize("emoji 👨\u200d👩 ok") == "emoji 👨\u200d👩 ok"
    assert sanitize_inline("a\nb\tc") == "a\\nb\\tc"


def test_sanitize_is_chunking_invariant() -> None:
    text = "".join(HOSTILE)
    for cut in range(0, len(text), 7):
        joined = sanitize(text[:cut]) + sanitize(text[cut:])
        assert not set(joined) & dangerous_chars()
        assert joined.replace("\\r\n", "\n") == sanitize(text).replace("\\r\n", "\n")


def test_json_dumps_safe_round_trips() -> None:
    value = {"t": "".join(HOSTILE), "n": "naïve 日本語"}
    text = json_dumps_safe(value)
    assert json.loads(text) == value
    assert "日本語" in text
    assert not set(text) & dangerous_chars()
