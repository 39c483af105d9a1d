"""JSON/JSONL documents validate against the checked-in schema; plain mode streams suffixes;
the mode/console factory follows TTY, --plain, NO_COLOR and TERM=dumb."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource
from tests_render_helpers import (  # type: ignore[import-not-found]
    FakeClock,
    fixture_id,
    real_loop_events,
    snapshots,
    stream_fixtures,
)

import forge_cli.render as render
from forge_cli.render import choose_mode, load_schema, make_renderer

SCHEMA = load_schema()
DOC = jsonschema.Draft202012Validator(SCHEMA)
EVENT = jsonschema.Draft202012Validator(
    {"$ref": SCHEMA["$id"] + "#/$defs/event"},
    registry=Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA)),
)


def _run(mode: str, path: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(mode, stdout=out, stderr=err, clock=FakeClock())  # type: ignore[arg-type]
    seen, final = snapshots(path)
    for snap in seen:
        renderer.on_snapshot(snap)
    for event in real_loop_events():
        renderer.on_event(event)
    renderer.finish(final)
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", stream_fixtures(), ids=fixture_id)
def test_json_document_validates(path: Path) -> None:
    out, _ = _run("json", path)
    doc = json.loads(out)
    DOC.validate(doc)
    _, final = snapshots(path)
    assert doc["text"] == final.output_text
    assert doc["id"] == final.id


@pytest.mark.parametrize("path", stream_fixtures(), ids=fixture_id)
def test_jsonl_lines_validate_and_end_with_the_document(path: Path) -> None:
    out, _ = _run("jsonl", path)
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        EVENT.validate(line)
    assert lines[0]["type"] == "response.started"
    assert lines[-1]["type"] == "answer"
    assert "agent.tool_call.blocked" in [line["type"] for line in lines]
    deltas = "".join(line["payload"]["delta"] for line in lines if line["type"] == "text.delta")
    if not any(line["type"] == "text.replaced" for line in lines):
        assert deltas == lines[-1]["payload"]["text"]


@pytest.mark.parametrize("path", stream_fixtures(), ids=fixture_id)
def test_plain_mode_has_no_escape_codes_and_prints_the_answer(path: Path) -> None:
    out, err = _run("plain", path)
    assert "\x1b" not in out
    assert "\x1b" not in err
    _, final = snapshots(path)
    first_words = final.output_text.split("⟦")[0][:20]
    assert first_words in out


def test_plain_prints_only_new_suffixes() -> None:
    from forge_cli.protocol import Message, OutputText, Response

    out = io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    for text in ["Hel", "Hello wor", "Hello world⟦", "Hello world⟦⟦1⟧⟧ end"]:
        msg = Message(id="m", status="in_progress", content=[OutputText(text=text)])
        renderer.on_snapshot(Response(id="r", output=[msg]))
    assert out.getvalue() == "Hello world[1] end"
    renderer.finish()
    assert out.getvalue().endswith("Sources:\n[1] (source not described by the server)\n")


def test_plain_marks_a_citation_that_arrives_after_the_last_text() -> None:
    """The annotation for the end of the text comes after the final delta: it still gets [n]."""
    from forge_cli.protocol import FileCitation, Message, OutputText, Response

    out = io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    text = "Enable it with -t web-search."
    streaming = Message(id="m", status="in_progress", content=[OutputText(text=text)])
    renderer.on_snapshot(Response(id="r", output=[streaming]))
    cite = FileCitation(file_id="f1", filename="02-tools.md", index=len(text))
    done = Message(id="m", status="completed", content=[OutputText(text=text, annotations=[cite])])
    renderer.on_snapshot(Response(id="r", status="completed", output=[done]))
    renderer.finish()
    assert out.getvalue().startswith("Enable it with -t web-search.[1]\n")
    assert "[1] 02-tools.md" in out.getvalue()


def test_function_call_document_has_arguments_and_result() -> None:
    from forge_cli.protocol import FunctionCall, FunctionCallOutput, Response

    response = Response(
        id="r",
        status="completed",
        output=[
            FunctionCall(
                id="fc", call_id="c", name="add", arguments='{"a": 1}', status="completed"
            ),
            FunctionCallOutput(call_id="c", output="2"),
        ],
    )
    out = io.StringIO()
    renderer = make_renderer("json", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    renderer.finish(response)
    doc = json.loads(out.getvalue())
    DOC.validate(doc)
    assert doc["items"] == [
        {
            "type": "function_call",
            "id": "fc",
            "status": "completed",
            "elapsed_s": doc["items"][0]["elapsed_s"],
            "name": "add",
            "call_id": "c",
            "arguments": {"a": 1},
            "result": {"output": "2", "is_error": False},
        }
    ]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "flags", "env", "expected"),
    [
        (_Tty(), {}, {}, "rich"),
        (io.StringIO(), {}, {}, "plain"),
        (_Tty(), {"plain": True}, {}, "plain"),
        (_Tty(), {}, {"NO_COLOR": "1"}, "rich"),  # no colour, same layout (no-color.org)
        (_Tty(), {}, {"TERM": "dumb"}, "plain"),
        (_Tty(), {"json": True}, {"NO_COLOR": "1"}, "json"),
        (io.StringIO(), {"jsonl": True}, {}, "jsonl"),
    ],
)
def test_choose_mode(
    stream: io.StringIO, flags: dict[str, bool], env: dict[str, str], expected: str
) -> None:
    assert choose_mode(stream, env=env, **flags) == expected


def test_unknown_mode_is_a_usage_error() -> None:
    from forge_cli.errors import UsageError

    with pytest.raises(UsageError):
        make_renderer("html", stdout=io.StringIO(), stderr=io.StringIO())  # type: ignore[arg-type]


def test_public_surface() -> None:
    for name in render.__all__:
        assert getattr(render, name) is not None
    with pytest.raises(AttributeError):
        render.nope  # noqa: B018


def test_event_schema_checks_the_answer_payload() -> None:
    with pytest.raises(jsonschema.ValidationError):
        EVENT.validate({"type": "answer", "payload": {"schema": "forge.answer/v1"}})
    EVENT.validate({"type": "text.delta", "payload": {"index": 0, "delta": "x"}})


def test_no_token_footer_when_the_server_counted_nothing() -> None:
    from forge_cli.protocol.response import Response, Usage
    from forge_cli.render.glyphs import UNICODE
    from forge_cli.render.summary import footer_line

    zero = Response(id="r", status="completed", output=[], usage=Usage())
    assert footer_line(zero, 1.0, UNICODE) is None
    counted = Response(
        id="r", status="completed", output=[], usage=Usage(input_tokens=3, output_tokens=4)
    )
    line = footer_line(counted, 1.0, UNICODE)
    assert line is not None
    assert line.plain.startswith("↑ 3 ↓ 4 tokens")


def test_plain_prints_a_call_that_arrives_finished_once() -> None:
    """Issue 15 item 7: a hosted call whose first event already says completed, folded by the
    real SnapshotBuilder, is printed once (not announced and then printed again)."""
    from forge_cli.protocol import StreamEvent
    from forge_cli.stream import SnapshotBuilder

    head = {"id": "r", "object": "response", "model": "m"}
    result = {"file_id": "f", "filename": "a.md", "score": 0.5, "text": "x"}
    call = {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"],
            "results": [result]}  # fmt: skip
    text = {"type": "output_text", "text": "Hello", "annotations": []}
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
               "content": [text]}  # fmt: skip
    where = {"output_index": 1, "content_index": 0, "item_id": "m1"}
    events = [
        {"type": "response.created", "response": {**head, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": call},
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {**message, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", **where, "part": {**text, "text": ""}},
        {"type": "response.output_text.delta", **where, "delta": "Hello"},
        {"type": "response.completed",
         "response": {**head, "status": "completed", "output": [call, message]}},
    ]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=err, clock=FakeClock())
    builder = SnapshotBuilder()
    for event in events:
        renderer.on_snapshot(builder.feed(StreamEvent(event["type"], event)))
    renderer.finish(builder.finish())
    assert err.getvalue().count("File search") == 1
    assert err.getvalue().count("a.md") == 1
    assert out.getvalue() == "Hello\n"


@pytest.mark.parametrize("show_reasoning", [True, False])
def test_plain_announces_reasoning_without_a_fragment_of_it(show_reasoning: bool) -> None:
    """Plain mode's lines stay: the reasoning's first words, announced while it streamed, were a
    dangling fragment printed before the whole reasoning (and printed even with reasoning
    hidden). The announcement is its head line alone; the text is printed once, when shown."""
    from forge_cli.protocol import Message, OutputText, Response
    from forge_cli.protocol.items import Reasoning, SummaryText

    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=err, clock=FakeClock(),
                             show_reasoning=show_reasoning)  # fmt: skip
    thinking = Reasoning(id="rs", status="in_progress", summary=[SummaryText(text="**Checking")])
    renderer.on_snapshot(Response(id="r", output=[thinking]))
    full = "**Checking units**\n\nThe user wants metres."
    done = Reasoning(id="rs", status="completed", summary=[SummaryText(text=full)])
    msg = Message(id="m", status="completed", content=[OutputText(text="10 m.")])
    renderer.on_snapshot(Response(id="r", status="completed", output=[done, msg]))
    renderer.finish()
    shown = err.getvalue()
    assert shown.startswith("∴ Reasoning… ")
    assert shown.count("Checking") == (1 if show_reasoning else 0)
    assert out.getvalue() == "10 m.\n"


def test_plain_announces_a_call_once_its_arguments_read_whole() -> None:
    """Plain mode's lines stay: a call announced while its arguments streamed kept a raw piece
    of JSON (``final_result({")``) on stderr for good."""
    from forge_cli.protocol import FunctionCall, Response

    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=err, clock=FakeClock())
    for arguments in ['{"', '{"result": 66']:
        call = FunctionCall(id="fc", call_id="c1", name="final_result", arguments=arguments,
                            status="in_progress")  # fmt: skip
        renderer.on_snapshot(Response(id="r", output=[call]))
    whole = FunctionCall(id="fc", call_id="c1", name="final_result",
                         arguments='{"result": 6666}', status="in_progress")  # fmt: skip
    renderer.on_snapshot(Response(id="r", output=[whole]))
    done = whole.model_copy(update={"status": "completed"})
    renderer.on_snapshot(Response(id="r", status="completed", output=[done]))
    renderer.finish()
    lines = err.getvalue().splitlines()
    assert not any('({"' in line or "result=66)" in line for line in lines), lines
    assert [line.split(" · ")[1] for line in lines if "final_result" in line] == [
        "in progress",
        "completed",
    ]
    assert all("final_result(result=6666)" in line for line in lines if "final_result" in line)
