"""Plain previews of answers (forge_cli.wording.plain_preview, used by /history)."""

from __future__ import annotations

from forge_cli.wording import MODEL_HINT, RETRIEVAL_FIRST_LINE, RETRIEVAL_LEAD, plain_preview


def test_a_retrieval_answer_previews_as_its_first_passage() -> None:
    answer = (
        f"{RETRIEVAL_FIRST_LINE}\n\nFrom **02-tools.md** (pp. 2, 3):\n\n"
        "> p. 2: Run `forge ask -t web-search` to **search** the web.\n\n"
        f"> p. 3: See [the guide](https://example.com/a_(b)).\n\n{MODEL_HINT}"
    )
    assert plain_preview(answer) == (
        "p. 2: Run forge ask -t web-search to search the web. p. 3: See the guide."
    )


def test_a_retrieval_answer_that_found_nothing_keeps_what_it_says() -> None:
    answer = f"{RETRIEVAL_LEAD}nothing in the searched sources matches 'zebra'.\n\n{MODEL_HINT}"
    assert plain_preview(answer) == "Nothing in the searched sources matches 'zebra'."


def test_markdown_blocks_become_readable_text() -> None:
    answer = (
        "# Install\n\nRun *pip*\ninstall forge.\n\n- one\n- two\n  more\n1. three.\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\nmake run\n```\n"
    )
    assert plain_preview(answer) == (
        "Install. Run pip install forge. one; two more; three. a b. 1 2. make run"
    )
    assert plain_preview(r"snake_case \`tick\` 2 * 3 * 4") == "snake_case `tick` 2 * 3 * 4"
