"""The one citation core: passage numbering and the ``[n]`` grammar every side agrees on."""

from __future__ import annotations

import pytest

from forge_cli.protocol.citing import (
    CITE_HINT,
    MARKER_RE,
    CitationFilter,
    PassageBook,
    Segment,
    find_markers,
    marker_number,
    numbered,
)


def test_passages_are_numbered_in_order_and_shown_with_their_source() -> None:
    book = PassageBook()
    first = book.add("Lamp wick.", "lighthouse.md", file_id="file_1", page=2)
    second = book.add("  Starter.  ", "bread.md", file_id="file_2")
    web = book.add("Tides text", "Tides", url="https://example.com/t", title="Tides")
    assert [p.number for p in (first, second, web)] == [1, 2, 3]
    assert book.get(2) is second
    assert book.get(4) is None
    assert book.get(0) is None
    assert numbered([first, second, web], hint=True) == (
        "[1] lighthouse.md, page 2 (file_id file_1)\nLamp wick.\n\n"
        "[2] bread.md (file_id file_2)\nStarter.\n\n"
        "[3] Tides (https://example.com/t)\nTides text\n\n" + CITE_HINT
    )
    assert numbered([]) == ""
    assert first.annotation(7)["page"] == 2
    assert web.annotation(3)["type"] == "url_citation"


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Fog [1].", (1,)),
        ("Both [1, 2] and [3][4].", (1, 2, 3, 4)),
        ("Big [1234].", (1234,)),
        ("Too big [12345].", ()),
        ("Not a cite [a] or [].", ()),
    ],
)
def test_the_agent_and_the_engine_read_the_same_markers(
    text: str, numbers: tuple[int, ...]
) -> None:
    """The agent loop (annotations in place) and the engine (markers removed while streaming)
    read one grammar, so a model's ``[n]`` means the same on both sides."""
    assert tuple(n for n, _pos in find_markers(text)) == numbers
    streamed = CitationFilter(set(numbers))
    segments: list[Segment] = []
    for ch in text:  # one character at a time: partial markers are held back
        segments += streamed.feed(ch)
    segments += streamed.finish()
    assert tuple(n for s in segments for n in s.cites) == numbers
    if numbers:
        assert "[" not in "".join(s.text for s in segments).replace("[a]", "").replace("[]", "")


def test_server_markers_strong_and_weak() -> None:
    found = [marker_number(m) for m in MARKER_RE.finditer("a⟦⟦12⟧⟧ b⟦3⟧ c⁽¹²⁾ d [4] e²")]
    assert found == [(12, True), (3, True), (12, True), (4, False), (2, False)]
    assert not list(MARKER_RE.finditer("x[1] [link](u)"))  # code-like and link text are no markers
