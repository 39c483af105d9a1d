"""The retrieval-only answer: one citation per passage, grouped by document with pages, and a
plain statement that no model is configured with how to configure one."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import collect, file_search_request

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.retrieval import FIRST_LINE, MODEL_HINT
from forge_cli.knowledge import KnowledgeStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "knowledge"))
from knowledge_helpers import make_pdf

pytestmark = pytest.mark.anyio

PAGES = [
    "The harbour light is lit at dusk. The keeper checks the harbour light every hour.",
    "Storms bring heavy rain. Nothing here concerns the light.",
    "At dawn the keeper puts out the harbour light. The harbour light rests during the day.",
]


async def _answer(store: KnowledgeStore, vs: str, question: str) -> dict[str, Any]:
    engine = Engine(store, EngineConfig(seed=False))
    events = await collect(engine.stream(file_search_request(vs, question)))
    message = events[-1].data["response"]["output"][-1]
    content: dict[str, Any] = message["content"][0]
    return content


async def test_each_passage_is_cited_once_grouped_by_document_with_pages(
    tmp_path: Path,
) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(make_pdf(PAGES), "keeper.pdf", vector_store_id=vs)
        store.add_file(
            b"# Lamps\n\nA harbour light uses a lamp. The light is bright.\n\n"
            b"The harbour light was electrified in 1920.",
            "lamps.md",
            vector_store_id=vs,
        )
        content = await _answer(store, vs, "when is the harbour light lit")
    text, annotations = content["text"], content["annotations"]
    assert text.startswith(FIRST_LINE)
    assert text.rstrip().endswith(MODEL_HINT)
    assert "engine.upstream_base_url" in MODEL_HINT  # the setting docs/engine.md names
    quotes = [line for line in text.splitlines() if line.startswith("> ")]
    assert quotes
    assert len(annotations) == len(quotes)
    for annotation in annotations:  # each citation sits at the end of its quote
        line_end = text.rfind("\n", 0, annotation["index"]) + 1
        assert text[line_end : annotation["index"]].startswith("> ")
        assert annotation["index"] == len(text) or text[annotation["index"]] == "\n"
    headings = [line for line in text.splitlines() if line.startswith("From ")]
    assert len(headings) == len({a["file_id"] for a in annotations})  # one heading per document
    pdf_heading = next(h for h in headings if "keeper.pdf" in h)
    pdf_pages = sorted({a["page"] for a in annotations if a["filename"] == "keeper.pdf"})
    label = "p." if len(pdf_pages) == 1 else "pp."
    assert f"({label} {', '.join(map(str, pdf_pages))})" in pdf_heading
    md_heading = next(h for h in headings if "lamps.md" in h)
    assert "p." not in md_heading  # no pages, no page numbers
    assert all("page" not in a for a in annotations if a["filename"] == "lamps.md")


async def test_nothing_found_still_says_how_to_configure_a_model(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(b"# Bread\n\nYeast makes dough rise.", "bread.md", vector_store_id=vs)
        content = await _answer(store, vs, "zeppelin")
    assert "no language model is configured" in content["text"]
    assert content["text"].rstrip().endswith(MODEL_HINT)
    assert content["annotations"] == []


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


def _unpaired_backticks(line: str) -> str:
    """What is left of ``line`` once its code spans and escaped backticks are taken out."""
    return _CODE_SPAN.sub("", line.replace("\\`", "")).count("`") * "`"


async def test_a_quote_never_splits_or_clips_an_inline_code_span(tmp_path: Path) -> None:
    """ "PATH... [--vs ID]" inside a code span is no sentence end: split there, the quote began
    with "[--vs ID]` uploads" and every later pair of backticks paired the wrong way (rendered:
    "[--vs ID]uploads files, with progress;/docslists")."""
    upload = (
        "- `/upload PATH... [--vs ID]` uploads files, with progress; `/docs` lists the documents "
        "of the active vector stores; `/search QUERY` searches them."
    )
    long_code = "Run " + " ".join(["uploads"] * 40) + " `" + "x " * 300 + "uploads` to finish."
    document = "\n\n".join(["# Uploads", upload, long_code])
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(document.encode(), "uploads.md", vector_store_id=vs)
        content = await _answer(store, vs, "uploads files with progress")
    text = content["text"]
    quotes = [line for line in text.splitlines() if line.startswith("> ")]
    assert quotes
    for line in quotes:
        assert _unpaired_backticks(line) == "", line
    assert "`/upload PATH... [--vs ID]` uploads files, with progress; `/docs` lists" in text
    assert "uploads \\`x x x" in text  # the clipped span's opening backtick is literal


def test_sentences_split_outside_code_spans_only() -> None:
    from forge_cli.engine.retrieval import pick_sentences
    from forge_cli.protocol.citing import Passage

    passage = Passage(1, "Call `os.path.join(a, b)` here. Then `x... Y` stays. Done.", "a.md")
    assert pick_sentences(passage, "call join stays done", limit=5) == [
        "Call `os.path.join(a, b)` here.",
        "Then `x... Y` stays.",
        "Done.",
    ]


def test_lone_backticks_are_literal_and_code_lines_stay_one_span() -> None:
    from forge_cli.engine.retrieval import pick_sentences
    from forge_cli.protocol.citing import Passage

    text = (
        "Quote old style: `date' is a lone backtick.\n\nThe next one has `date` code.\n\n"
        "```sh\necho `date` now\n```"
    )
    assert pick_sentences(Passage(1, text, "a.md"), "date", limit=5) == [
        "Quote old style: \\`date' is a lone backtick.",  # literal: pairs with nothing
        "The next one has `date` code.",
        "`` echo `date` now ``",  # a code line with backticks stays one span
    ]


def test_adjacent_list_items_stay_apart_in_a_quote() -> None:
    """Quoted together, "In the chat: `/tool on web-search`" ran into the next item and into
    the prose after the list with a bare space ("... `/tool on web-search` The web search
    tool ..."): items are now joined with "; ", and ". " goes before the prose."""
    from forge_cli.engine.retrieval import _quotes
    from forge_cli.protocol.citing import Passage

    text = (
        "## How to enable web search\n\n"
        "- One question: `forge ask -t web-search`\n"
        "- In the chat: `/tool on web-search`\n"
        "  (or `/tools` to see them)\n\n"
        "The web search tool needs a search provider.\n"
    )
    [quote] = _quotes([Passage(1, text, "02-tools.md")], "enable web search tool chat")
    assert quote.text.startswith(
        "One question: `forge ask -t web-search`; In the chat: `/tool on web-search` (or "
        "`/tools` to see them). The web search tool needs a search provider."
    )
    code = "```sh\nforge config set web search\nforge ask web search\n```\n"
    [lines] = _quotes([Passage(1, code, "a.md")], "web search")
    assert lines.text == "`forge config set web search`; `forge ask web search`"


REST = (
    "Numeric types\n"
    "=============\n\n"
    "Implement __complex__ to support :func:`complex`. A string holding \\\\ is one backslash;\n"
    "see ``repr()`` and the *args form.\n\n"
    ">>> import json\n"
    ">>> json.dumps([1, 2])\n"
    "'[1, 2]'\n\n"
    ".. note::\n"
    "   The **default** protocol is used when __complex__ is missing.\n"
)


def _shown(markdown: str) -> str:
    """What the rich view draws of ``markdown`` (rich's Markdown, which the view mirrors)."""
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(Markdown(markdown))
    return console.export_text()


async def test_quotes_of_a_plain_source_are_shown_as_written(tmp_path: Path) -> None:
    """Issue 30 item 12: reST/plain sources are quoted verbatim, their own markup removed and
    nothing in them read as Markdown (no nested quote bars, no eaten underscores)."""
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(REST.encode(), "numbers.rst.txt", vector_store_id=vs)
        content = await _answer(store, vs, "how to implement __complex__ complex json dumps")
    shown = _shown(content["text"])
    assert "__complex__" in shown
    assert "▌ ▌" not in shown
    assert ">>>" not in content["text"]
    assert "import json" in shown
    assert ":func:" not in shown
    assert "complex" in shown
    with KnowledgeStore(tmp_path / "k2.db") as store:
        vs = store.create_vector_store("s").id
        store.add_file(REST.encode(), "numbers.txt", vector_store_id=vs)
        content2 = await _answer(store, vs, "string holding backslash")
    shown2 = _shown(content2["text"])
    assert "\\\\ is one backslash" in shown2
    assert "*args" in shown2


async def test_quotes_of_a_markdown_source_keep_its_markdown(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        vs = store.create_vector_store("s").id
        tips = b"# Tips\n\nUse **bold** for the keeper's log."
        store.add_file(tips, "tips.md", vector_store_id=vs)
        content = await _answer(store, vs, "keeper log bold")
    assert "**bold**" in content["text"]
    assert "bold for the keeper" in _shown(content["text"])
