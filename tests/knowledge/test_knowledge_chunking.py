"""Chunking follows headings and paragraphs, never splits words, and keeps exact offsets."""

from __future__ import annotations

import re

from forge_cli.knowledge import chunk_text
from forge_cli.knowledge.chunking import document_context, strip_markup


def _doc() -> str:
    words = " ".join(f"word{i}" for i in range(400))
    return (
        "# Guide\n\nIntro paragraph about the guide.\n\n"
        "## Install\n\n" + ("Install step sentence here. " * 30) + "\n\n"
        "### Linux\n\nUse the package manager.\n\n"
        "## Usage\n\n" + words + "\n\n"
        "```\ncode line one\n\ncode line two after blank\n```\n"
    )


def test_offsets_are_exact_and_sizes_bounded() -> None:
    text = _doc()
    chunks = chunk_text(text)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert 0 < len(chunk.text) <= 1200
        assert chunk.page is None
    starts = [c.char_start for c in chunks]
    assert starts == sorted(starts)


def test_never_splits_inside_a_word() -> None:
    text = _doc()
    for chunk in chunk_text(text):
        before = text[chunk.char_start - 1] if chunk.char_start else " "
        after = text[chunk.char_end] if chunk.char_end < len(text) else " "
        assert not (before.isalnum() and chunk.text[0].isalnum())
        assert not (after.isalnum() and chunk.text[-1].isalnum())


def test_heading_paths() -> None:
    chunks = chunk_text(_doc())
    headings = [c.heading for c in chunks]
    assert headings[0].startswith("Guide")
    install = next(c for c in chunks if "Install step" in c.text)
    # A short intro is merged with the next section rather than left as a tiny chunk.
    assert install.heading == "Guide"
    assert "## Install" in install.text
    assert any(h == "Guide > Usage" for h in headings)
    linux = next(c for c in chunks if "package manager" in c.text)
    assert linux.heading in ("Guide > Install > Linux", "Guide > Install")


def test_fenced_code_stays_whole() -> None:
    chunks = chunk_text(_doc())
    code = [c for c in chunks if "code line one" in c.text]
    assert len(code) == 1
    assert "code line two" in code[0].text


def test_rst_headings() -> None:
    text = "Title\n=====\n\n" + "Body text. " * 40 + "\n\nSection\n-------\n\n" + "More. " * 50
    chunks = chunk_text(text)
    assert chunks[0].heading == "Title"
    assert chunks[-1].heading == "Title > Section"


def test_pages_are_kept_and_not_crossed() -> None:
    text = "page one text\n\npage two text"
    chunks = chunk_text(text, [(0, 13), (15, 28)])
    assert [(c.text, c.page) for c in chunks] == [("page one text", 1), ("page two text", 2)]


def test_one_huge_word_is_not_lost() -> None:
    text = "x" * 3000 + " tail"
    chunks = chunk_text(text)
    assert "".join(c.text for c in chunks).replace(" ", "") == text.replace(" ", "")
    assert all(re.fullmatch(r"x+|x* ?tail", c.text) for c in chunks)


def test_indented_hash_lines_are_code_comments_not_headings() -> None:
    body = "Explanation of the example that follows. " * 8
    text = (
        ".. _sleep-label:\n\n"
        "Time access\n===========\n\n"
        "Sleeping\n--------\n\n" + body + "\n\n"
        "Example::\n\n"
        "   # Simulate a slow call\n"
        "   time.sleep(1)\n\n"
        "       # deeper comment\n"
        "       pass\n\n" + body + "\n\n" + body + "\n\n" + body
    )
    chunks = chunk_text(text, target=400, max_chars=500, min_chars=100)
    assert len(chunks) > 2
    assert all(c.heading.startswith("Time access") for c in chunks)
    assert chunks[-1].heading == "Time access > Sleeping"


def test_markdown_heading_at_line_start_still_counts() -> None:
    text = "# Title\n\n" + "Some words here. " * 20 + "\n\n## Part\n\n" + "More words. " * 30
    headings = [c.heading for c in chunk_text(text, target=300, max_chars=400, min_chars=100)]
    assert headings[0] == "Title"
    assert headings[-1] == "Title > Part"


def test_document_context_is_the_lead_prose_without_markup() -> None:
    rst = (
        ".. _time-mod:\n\n"
        ":mod:`time` --- Time access\n===========================\n\n"
        ".. module:: time\n   :synopsis: Time access and conversions.\n\n"
        "**Source code:** :source:`Lib/time.py`\n\n"
        ".. index::\n   single: epoch\n\n"
        "This module provides various time-related functions::\n\n"
        "   # a code comment, not prose\n   time.sleep(1)\n\n"
        "More prose follows here."
    )
    assert document_context(rst) == (
        "Time access and conversions. This module provides various time-related "
        "functions:: More prose follows here."
    )
    markdown = (
        "# Timers\n\n<!--introduced_in=v0.10.0\nchanges: none\n-->\n\n> Stability: 2 - Stable\n\n"
        "The timer module schedules functions.\n\n```js\nsetTimeout(f, 10);\n```\n\nLater words."
    )
    assert document_context(markdown) == "The timer module schedules functions. Later words."
    asciidoc = (
        "git-stash(1)\n============\n\nNAME\n----\ngit-stash - Stash the changes away\n\n"
        "SYNOPSIS\n--------\n[verse]\n'git stash' list\n'git stash' drop\n\nDESCRIPTION\n"
        "-----------\n\nUse git stash when you want to record the current state."
    )
    assert document_context(asciidoc, words=8) == ("git-stash - Stash the changes away Use git")
    assert document_context("") == ""
    assert len(document_context("word " * 500).split()) == 50


def test_strip_markup_drops_rest_role_and_directive_names_but_keeps_their_text() -> None:
    rst = (
        "Use :func:`os.getenv` or :py:data:`os.environ` (see :ref:`env-vars`).\n\n"
        ".. index:: single: environment variables; reading\n"
        "   pair: process; environment\n\n"
        ".. versionchanged:: 3.9\n   Now a :class:`dict`."
    )
    words = strip_markup(rst).split()
    assert {"`os.getenv`", "`os.environ`", "`env-vars`).", "`dict`."} <= set(words)
    for name in ("func", "data", "ref", "index", "single", "pair", "versionchanged", "class"):
        assert not any(re.fullmatch(rf"\W*{name}\W*", w) for w in words), name
    assert {"environment", "variables;", "3.9", "Now"} <= set(words)
    plain = "A ratio of 3:4 at 10:30, a URL http://x.org/a:b and time: now.\n.. not a directive"
    assert strip_markup(plain) == plain


def _rst_api_page() -> str:
    body = "Removes files and directories, following the options given here. " * 12
    return (
        ":mod:`shutil` --- High-level file operations\n"
        "=============================================\n\n"
        "Directory and files operations\n"
        "------------------------------\n\n"
        f"Introduction. {body}{body}\n\n"
        ".. function:: rmtree(path, ignore_errors=False)\n\n"
        "   .. index:: single: directory; deleting\n\n"
        f"   Delete an entire directory tree. {body}\n\n"
        ".. class:: Archive(name)\n\n"
        f"   An archive. {body}\n\n"
        "   .. method:: extract(member)\n\n"
        f"      Extract one member. {body}\n\n"
        "Other section\n"
        "-------------\n\n"
        "Closing words about this page.\n"
    )


def test_a_rest_api_description_names_the_chunks_after_it() -> None:
    text = _rst_api_page()
    chunks = chunk_text(text)
    section = ":mod:`shutil` --- High-level file operations > Directory and files operations"
    headings = {c.text.split()[1] if c.text.startswith(".. ") else c.text.split()[0]: c.heading
                for c in chunks}  # fmt: skip
    assert headings["Introduction."] == section
    assert headings["function::"] == f"{section} > rmtree(path, ignore_errors=False)"
    assert headings["An"] == f"{section} > Archive(name)"
    assert headings["Extract"] == f"{section} > Archive(name)"  # a nested member: its class
    assert headings["Other"] == ":mod:`shutil` --- High-level file operations > Other section"
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text


def test_an_api_description_is_no_chunk_boundary() -> None:
    text = "Title\n=====\n\nShort intro.\n\n.. function:: f(x)\n\n   Returns x.\n"
    (chunk,) = chunk_text(text)  # one chunk: the description joins the text before it
    assert chunk.heading == "Title"


def test_api_titles_are_short_and_only_rest_directives_count() -> None:
    long_sig = "f(" + ", ".join(f"argument{i}=None" for i in range(30)) + ")"
    text = f"Title\n=====\n\n.. function:: {long_sig}\n\nBody of the function.\n"
    assert chunk_text(text, target=20, max_chars=40, min_chars=10)[-1].heading == (
        "Title > " + long_sig[:100]
    )
    markdown = "# Guide\n\nSee `.. function:: x()` in the docs.\n\nMore text follows here.\n"
    assert {c.heading for c in chunk_text(markdown)} == {"Guide"}
