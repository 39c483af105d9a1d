"""The block splitter: chunking never changes the blocks; fences and continuations stay whole."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from forge_cli.protocol.blocks import BlockSplitter, split_blocks

SAMPLE = (
    "# Title\n\nPara one\nstill one.\n\n- item\n\n    indented continuation\n\n"
    "```python\nx = 1\n\n\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nlast"
)


def _texts(text: str) -> list[str]:
    return [text[b.start : b.end] for b in split_blocks(text)]


def test_blocks_of_sample() -> None:
    assert _texts(SAMPLE) == [
        "# Title",
        "Para one\nstill one.",
        "- item\n\n    indented continuation",
        "```python\nx = 1\n\n\ny = 2\n```",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "last",
    ]


def test_unclosed_fence_is_one_block() -> None:
    assert _texts("intro\n\n```\ncode\n\nmore code") == ["intro", "```\ncode\n\nmore code"]


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab `~-\n\t#")), max_size=80),
    st.lists(st.integers(min_value=0, max_value=80), max_size=8),
)
def test_any_chunking_gives_the_same_blocks(text: str, cuts: list[int]) -> None:
    splitter = BlockSplitter()
    streamed = []
    for cut in sorted(set(cuts)):
        streamed += splitter.feed(text[:cut])
    streamed += splitter.finish(text)
    assert streamed == split_blocks(text)


def test_ownership_covers_every_position_once() -> None:
    blocks = split_blocks(SAMPLE)
    assert blocks[0].own_start == 0
    assert blocks[-1].own_end == len(SAMPLE) + 1
    for before, after in itertools.pairwise(blocks):
        assert before.own_end == after.own_start == after.start
