"""``<think>…</think>`` opening a chat answer is split into reasoning, wherever deltas break."""

from __future__ import annotations

import pytest

from forge_cli.backends.chat.think import ThinkSplitter


def _split(chunks: list[str]) -> tuple[str, str]:
    splitter = ThinkSplitter()
    pieces = [piece for chunk in chunks for piece in splitter.feed(chunk)] + splitter.finish()
    reasoning = "".join(text for kind, text in pieces if kind == "reasoning")
    answer = "".join(text for kind, text in pieces if kind == "text")
    return reasoning, answer


TEXT = "<think>\nStep one.\nStep two.\n</think>\n\nThe answer."


@pytest.mark.parametrize("cut", range(1, len(TEXT)))
def test_any_split_point_gives_the_same_result(cut: int) -> None:
    assert _split([TEXT[:cut], TEXT[cut:]]) == ("Step one.\nStep two.", "The answer.")


def test_one_character_at_a_time() -> None:
    assert _split(list(TEXT)) == ("Step one.\nStep two.", "The answer.")


@pytest.mark.parametrize(
    "text",
    ["Use <think> tags like this.", "<b>bold</b>", "  <thin air", "<"],
)
def test_content_not_opening_with_the_tag_is_left_alone(text: str) -> None:
    assert _split([text]) == ("", text)


def test_thinking_tag_and_leading_whitespace() -> None:
    assert _split(["  <thinking>hm</thinking>ok"]) == ("hm", "ok")


def test_an_unterminated_thought_stays_reasoning() -> None:
    assert _split(["<think>cut off by max_tokens </th"]) == ("cut off by max_tokens </th", "")


def test_a_later_think_tag_is_answer_text() -> None:
    assert _split(["<think>a</think>b <think>c</think>"]) == ("a", "b <think>c</think>")
