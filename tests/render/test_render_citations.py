"""One numbering: text markers equal Sources numbers; dedup; marker styles; collect_citations."""

from __future__ import annotations

import io

from tests_render_helpers import FakeClock  # type: ignore[import-not-found]

from forge_cli.protocol import FileCitation, Message, OutputText, Response, UrlCitation
from forge_cli.protocol.citations import CitationNumbering, cite_message, collect_citations
from forge_cli.render import make_renderer


def _msg(text: str, *annotations: object) -> Message:
    return Message(
        id="m", status="completed", content=[OutputText(text=text, annotations=list(annotations))]
    )  # type: ignore[arg-type]


def _cite(message: Message) -> str:
    return "\n\n".join(cite_message(message, CitationNumbering()))


def test_positional_file_citations_share_a_number_per_file_and_page() -> None:
    text = "Alpha. Beta. Gamma."
    msg = _msg(
        text,
        FileCitation(file_id="f1", filename="a.pdf", index=6, page=2),
        FileCitation(file_id="f2", filename="b.pdf", index=12),
        FileCitation(file_id="f1", filename="a.pdf", index=19, page=2),
    )
    assert _cite(msg) == "Alpha.[1] Beta.[2] Gamma.[1]"
    cites = collect_citations(Response(output=[msg]))
    assert [(c.n, c.filename, c.page) for c in cites] == [(1, "a.pdf", 2), (2, "b.pdf", None)]


def test_numbers_follow_text_order_not_annotation_order() -> None:
    msg = _msg(
        "One. Two.", FileCitation(file_id="late", index=9), FileCitation(file_id="early", index=4)
    )
    assert _cite(msg) == "One.[1] Two.[2]"
    assert [c.file_id for c in collect_citations(Response(output=[msg]))] == ["early", "late"]


def test_url_citation_shows_title_and_domain() -> None:
    msg = _msg(
        "See docs.",
        UrlCitation(url="https://www.python.org/x", title="Py", start_index=0, end_index=8),
    )
    assert _cite(msg) == "See docs[1]."
    (cite,) = collect_citations(Response(output=[msg]))
    assert (cite.type, cite.title, cite.domain) == ("url_citation", "Py", "python.org")


def test_knowledge_forge_markers_map_by_number() -> None:
    msg = _msg(
        "A⟦⟦2⟧⟧ and B⟦⟦1⟧⟧ and again⟦⟦2⟧⟧.",
        FileCitation(file_id="d", filename="r.pdf", index=1, page=5),
        FileCitation(file_id="d", filename="r.pdf", index=2, page=7),
    )
    assert _cite(msg) == "A[1] and B[2] and again[1]."
    cites = collect_citations(Response(output=[msg]))
    assert [(c.n, c.page) for c in cites] == [(1, 7), (2, 5)]


def test_marker_styles_are_normalised() -> None:
    msg = _msg(
        "a⁽¹⁾ b⟦2⟧ c[1] d²", FileCitation(file_id="x", index=1), FileCitation(file_id="y", index=2)
    )
    assert _cite(msg) == "a[1] b[2] c[1] d[2]"


def test_weak_markers_without_annotations_are_left_alone() -> None:
    msg = _msg("x[1] = 5 m² and arr[0]")
    assert _cite(msg) == "x[1] = 5 m² and arr[0]"
    assert collect_citations(Response(output=[msg])) == []


def test_unresolved_strong_marker_gets_a_placeholder_source() -> None:
    msg = _msg("claim⟦⟦4⟧⟧")
    assert _cite(msg) == "claim[1]"
    (cite,) = collect_citations(Response(output=[msg]))
    assert (cite.n, cite.type) == (1, "unresolved")


def test_renderer_citations_match_collect_citations_and_sources_list() -> None:
    msg = _msg(
        "Alpha.\n\nBeta.",
        FileCitation(file_id="f2", filename="b.md", index=13),
        FileCitation(file_id="f1", filename="a.md", index=6),
    )
    response = Response(id="r", status="completed", output=[msg])
    out = io.StringIO()
    renderer = make_renderer("plain", stdout=out, stderr=io.StringIO(), clock=FakeClock())
    renderer.on_snapshot(response)
    renderer.finish(response)
    assert renderer.citations == collect_citations(response)
    assert out.getvalue() == "Alpha.[1]\n\nBeta.[2]\n\nSources:\n[1] a.md\n[2] b.md\n"


def _at(text: str, fragment: str) -> int:
    return text.index(fragment) + len(fragment)


def test_markers_never_go_inside_a_link_target_or_its_text() -> None:
    text = "Download it: [the chart](sandbox:/mnt/data/plot.png) now."
    for inside in ("the ch", "sandbox:/mnt", "plot.png"):
        msg = _msg(text, UrlCitation(url="https://u", end_index=_at(text, inside)))
        assert _cite(msg) == "Download it: [the chart](sandbox:/mnt/data/plot.png)[1] now."


def test_markers_never_go_inside_code_or_a_bare_url() -> None:
    text = "Run `pip install forge` from https://example.com/docs today."
    msg = _msg(
        text,
        UrlCitation(url="https://a", end_index=_at(text, "pip in")),
        UrlCitation(url="https://b", end_index=_at(text, "example.com/d")),
    )
    assert _cite(msg) == "Run `pip install forge`[1] from https://example.com/docs[2] today."


def test_a_citation_inside_a_code_block_is_only_listed() -> None:
    text = "```python\nprint(1)\n```"
    msg = _msg(text, FileCitation(file_id="f1", filename="a.py", index=12))
    assert _cite(msg) == text
    assert [c.filename for c in collect_citations(Response(output=[msg]))] == ["a.py"]


def test_markers_never_split_a_word() -> None:
    text = "It adds a local engine."
    msg = _msg(text, UrlCitation(url="https://u", end_index=_at(text, "a lo")))
    assert _cite(msg) == "It adds a local[1] engine."


def test_a_citation_spanning_nothing_is_listed_not_placed() -> None:
    text = "Here is the chart."
    msg = _msg(text, UrlCitation(url="https://u", start_index=0, end_index=0))
    assert _cite(msg) == text
    assert [c.url for c in collect_citations(Response(output=[msg]))] == ["https://u"]
