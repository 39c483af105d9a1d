"""TextBuffer views: immutable, correct in any read order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from forge_cli.protocol.text import TextBuffer


@given(st.lists(st.text(max_size=5), max_size=30), st.randoms())
def test_views_read_their_own_text_in_any_order(fragments: list[str], rnd: object) -> None:
    import random

    assert isinstance(rnd, random.Random)
    buffer = TextBuffer("seed")
    views = [buffer.view()]
    for fragment in fragments:
        buffer.append(fragment)
        views.append(buffer.view())
    expected = ["seed" + "".join(fragments[:i]) for i in range(len(fragments) + 1)]
    order = list(range(len(views)))
    rnd.shuffle(order)
    for i in order:
        assert views[i].text == expected[i]
    assert [v.text for v in views] == expected


def test_empty_buffer() -> None:
    buffer = TextBuffer()
    empty = buffer.view()
    buffer.append("x")
    assert (empty.text, buffer.view().text) == ("", "x")
