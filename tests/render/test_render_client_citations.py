"""Client-side citations (issue 15 item 7): the agent loop annotates the `[n]` markers the model
wrote (chat backend + file search); every output mode shows each marker once, renumbered to the
Sources list, never doubled (`[1][1]`)."""

from __future__ import annotations

import io
import json

import pytest
from tests_render_helpers import FakeClock  # type: ignore[import-not-found]

from forge_cli.agent.citations import annotate_citations
from forge_cli.protocol import Message, OutputText, Response
from forge_cli.protocol.citing import Passage
from forge_cli.render import make_renderer
from forge_cli.tools.hooks import ToolResult

SOURCES = (
    Passage(number=3, text="First passage.", filename="first.md", file_id="f3"),
    Passage(number=4, text="Second passage.", filename="second.md", file_id="f4"),
)


def _answer(text: str) -> Response:
    result = ToolResult("call_1", "file_search", "passages...", "completed", citations=SOURCES)
    message = Message(id="m", status="completed", content=[OutputText(text=text)])
    return Response(id="r", status="completed", output=annotate_citations([message], [result]))


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("Paris is sunny [3].", "Paris is sunny [1]."),
        ("Rome [4][3] and Oslo [3].", "Rome [1][2] and Oslo [2]."),
        ("Both [3, 4].", "Both [1][2]."),
    ],
)
def test_text_cited_renumbers_the_models_markers_once(written: str, shown: str) -> None:
    out = io.StringIO()
    renderer = make_renderer("json", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    renderer.finish(_answer(written))
    document = json.loads(out.getvalue())
    assert document["text"] == written
    assert document["text_cited"] == shown


@pytest.mark.parametrize("mode", ["plain", "rich"])
def test_terminal_modes_show_each_marker_once(mode: str) -> None:
    out = io.StringIO()
    renderer = make_renderer(mode, stdout=out, stderr=io.StringIO(), clock=FakeClock(), width=80)  # type: ignore[arg-type]
    answer = _answer("Paris is sunny [3].")
    renderer.on_snapshot(answer)
    renderer.finish(answer)
    text = out.getvalue()
    assert "[1][1]" not in text
    assert "[3][1]" not in text
    assert "first.md" in text
