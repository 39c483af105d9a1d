"""Every character the model wrote reaches the screen: text that looks like HTML is shown as text
in the rich view (markdown-it would otherwise parse it as inline HTML, which rich drops), in plain
mode and in JSON (issue 14)."""

from __future__ import annotations

import io
import json

import pytest
from tests_render_helpers import answer_response

from forge_cli.render import JsonRenderer, PlainRenderer, RichRenderer
from forge_cli.render.console import make_console

ANSWERS = [
    "Set the `X-Token` header to <API-KEY> before calling the API.",
    "Use std::vector<int> for the list, or std::map<std::string, int>.",
    "dpkg prints <implementations-keywords> for each package.",
    "Wrap the value in <b>bold</b> tags; a line break is <br/>.",
    "The config is XML:\n\n<config>\n  <name>forge</name>\n</config>\n\nDone.",
    "Compare a <b and c> d: both hold.",
    "Generic types: Result<T, E> and Option<T>.",
]


def _words(text: str) -> list[str]:
    return text.replace("`", "").split()


@pytest.mark.parametrize("text", ANSWERS)
def test_rich_view_shows_every_word(text: str) -> None:
    out = io.StringIO()
    console = make_console(out, color=False, width=100, force_terminal=False)
    renderer = RichRenderer(console)
    response = answer_response(text)
    renderer.on_snapshot(response)
    renderer.finish(response)
    shown = " ".join(out.getvalue().split())
    for word in _words(text):
        assert word in shown, f"{word!r} vanished from {shown!r}"


@pytest.mark.parametrize("text", ANSWERS)
def test_plain_and_json_keep_the_text(text: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    plain = PlainRenderer(out, err)
    plain.on_snapshot(answer_response(text))
    plain.finish(answer_response(text))
    assert text in out.getvalue()
    doc_out = io.StringIO()
    renderer = JsonRenderer(doc_out)
    renderer.on_snapshot(answer_response(text))
    renderer.finish(answer_response(text))
    assert json.loads(doc_out.getvalue())["text"] == text
