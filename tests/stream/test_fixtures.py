"""Every hand-written stream folds into the expected final snapshot, asserted field by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_cli.protocol import (
    FileCitation,
    FileReaderCall,
    FileSearchCall,
    FunctionCall,
    ListDocumentsCall,
    Message,
    OutputText,
    PageReaderCall,
    Reasoning,
    Response,
    UrlCitation,
    WebSearchCall,
)
from forge_cli.stream import SnapshotBuilder
from forge_cli.testing.scripted import load_sse_fixture


def fold(path: Path) -> tuple[SnapshotBuilder, list[Response]]:
    builder = SnapshotBuilder()
    snapshots = [builder.feed(event) for event in load_sse_fixture(path)]
    snapshots.append(builder.finish())
    return builder, snapshots


def test_openai_file_search_with_results_and_file_citations(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "openai_file_search.sse")
    final = snapshots[-1]
    assert builder.terminal == "completed"
    assert builder.diagnostics.problems == 0
    assert (final.id, final.status, final.model) == ("resp_fs1", "completed", "gpt-test")
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (120, 42)
    search, message = final.output
    assert isinstance(search, FileSearchCall)
    assert search.status == "completed"
    assert search.queries == ["how to install forge"]
    assert search.results is not None
    assert [(r.file_id, r.filename, r.score) for r in search.results] == [
        ("file-A", "install.md", 0.91),
        ("file-B", "tools.md", 0.77),
    ]
    assert search.results[0].attributes == {"lang": "en"}
    assert isinstance(message, Message)
    assert message.text == (
        "Run `make run` to install Forge. Then enable web search with `-t web-search`."
    )
    citations = final.annotations()
    assert all(isinstance(c, FileCitation) for c in citations)
    assert [(c.file_id, c.filename, c.index) for c in citations if isinstance(c, FileCitation)] == [
        ("file-A", "install.md", 31),
        ("file-B", "tools.md", 77),
    ]
    # While streaming: the search was seen searching, the text grew piece by piece.
    statuses = [s.output[0].status for s in snapshots if s.output]
    assert "searching" in statuses
    texts = [s.output_text for s in snapshots if len(s.output) > 1]
    assert "Run `make run` to install" in texts


def test_openai_web_search_with_url_citations(sse_dir: Path) -> None:
    _, snapshots = fold(sse_dir / "openai_web_search.sse")
    final = snapshots[-1]
    search = final.output[0]
    assert isinstance(search, WebSearchCall)
    assert search.status == "completed"
    assert search.all_queries() == ["python 3.13 release date"]
    assert [s.url for s in search.all_sources()] == [
        "https://www.python.org/downloads/release/python-3130/",
        "https://docs.python.org/3.13/whatsnew/3.13.html",
    ]
    urls = [a for a in final.annotations() if isinstance(a, UrlCitation)]
    assert [(u.title, u.start_index, u.end_index) for u in urls] == [
        ("Python Release Python 3.13.0", 43, 55),
        ("What's New In Python 3.13", 76, 93),
    ]
    assert final.output_text[43:55] == "(python.org)"


def test_function_call_arguments_in_many_chunks(sse_dir: Path) -> None:
    _, snapshots = fold(sse_dir / "openai_function_call.sse")
    call = snapshots[-1].output[0]
    assert isinstance(call, FunctionCall)
    assert (call.call_id, call.name, call.status) == ("call_abc", "get_weather", "completed")
    assert call.parsed_arguments() == {
        "city": "Zürich",
        "units": "metric",
        "days": 3,
        "include": ["wind", "rain"],
    }
    partial = [s.output[0] for s in snapshots if s.output]
    lengths = [len(c.arguments) for c in partial if isinstance(c, FunctionCall)]
    assert lengths == sorted(lengths)
    assert len(set(lengths)) > 10


def test_reasoning_summary(sse_dir: Path) -> None:
    _, snapshots = fold(sse_dir / "openai_reasoning.sse")
    reasoning, message = snapshots[-1].output
    assert isinstance(reasoning, Reasoning)
    assert [p.text for p in reasoning.summary] == [
        "**Checking units**\n\nThe user wants metres converted to feet.",
        "One metre is 3.28084 feet.",
    ]
    assert isinstance(message, Message)
    assert message.text == "10 m is about 32.8 ft."
    growing = [s.output[0] for s in snapshots if s.output and isinstance(s.output[0], Reasoning)]
    assert any(
        r.summary_text.startswith("**Checking") and "feet" not in r.summary_text for r in growing
    )


def test_refusal(sse_dir: Path) -> None:
    _, snapshots = fold(sse_dir / "openai_refusal.sse")
    message = snapshots[-1].output[0]
    assert isinstance(message, Message)
    assert message.refusal == "I can't help with picking that lock."
    assert message.text == ""


def test_knowledge_forge_full_snapshots_with_progress_and_traces(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "kf_snapshots.sse")
    final = snapshots[-1]
    assert builder.terminal == "completed"
    listing, reader, pages, message = final.output
    assert isinstance(listing, ListDocumentsCall)
    assert (listing.status, listing.count, listing.queries) == (
        "completed",
        3,
        ["quarterly report"],
    )
    assert isinstance(reader, FileReaderCall)
    assert (reader.status, reader.progress, reader.file_name) == ("completed", 1.0, "q3-report.pdf")
    assert reader.trace_lines(last=2) == [
        "[10:00:06] [read] page 3 of 4",
        "[10:00:07] [done] read 4 pages",
    ]
    assert isinstance(pages, PageReaderCall)
    assert (pages.document_id, pages.start_page, pages.end_page) == ("doc_q3", 2, 3)
    assert isinstance(message, Message)
    assert message.text == "Revenue grew 12% in Q3⟦⟦1⟧⟧, driven by services⟦⟦2⟧⟧."
    pages_cited = [a.page for a in final.annotations() if isinstance(a, FileCitation)]
    assert pages_cited == [2, 3]
    progress = [
        s.output[1].progress
        for s in snapshots
        if len(s.output) > 1 and isinstance(s.output[1], FileReaderCall)
    ]
    assert progress[:5] == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_vllm_nonstandard_events(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "vllm_nonstandard.sse")
    reasoning, message = snapshots[-1].output
    assert isinstance(reasoning, Reasoning)
    assert reasoning.text == "The user greets me. Reply briefly."
    assert isinstance(message, Message)
    assert message.text == "Hello! How can I help?"
    assert builder.diagnostics.counts["unknown_event"] == 1
    assert builder.diagnostics.counts["orphan"] == 1  # text arrived without output_item.added
    # The text was visible while streaming, before the final snapshot.
    assert any(s.output_text == "Hello" for s in snapshots)


def test_error_event(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "error_event.sse")
    assert builder.terminal == "error"
    assert builder.error is not None
    assert (builder.error.code, builder.error.message) == (
        "rate_limit_exceeded",
        "Rate limit reached for requests",
    )
    assert snapshots[-1].status == "failed"
    assert snapshots[-1].output_text == "Partial ans"  # the partial answer is kept


def test_response_failed(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "response_failed.sse")
    final = snapshots[-1]
    assert builder.terminal == "failed"
    assert final.status == "failed"
    assert final.error is not None
    assert final.error.message == "The vector store vs_123 is unavailable."
    assert isinstance(final.output[0], FileSearchCall)  # streamed items survive a sparse payload
    assert final.output[0].queries == ["budget"]


def test_stream_cut_off_midway_keeps_the_partial_answer(sse_dir: Path) -> None:
    builder, snapshots = fold(sse_dir / "cut_off.sse")
    final = snapshots[-1]
    assert builder.terminal is None
    assert final.status == "incomplete"
    assert final.output_text == "The answer is forty-two, bec"
    assert builder.diagnostics.counts["truncated"] == 1


@pytest.mark.parametrize("name", ["openai_file_search.sse", "kf_snapshots.sse"])
def test_snapshots_handed_out_are_never_mutated(sse_dir: Path, name: str) -> None:
    builder = SnapshotBuilder()
    handed: list[tuple[Response, str]] = []
    for event in load_sse_fixture(sse_dir / name):
        snapshot = builder.feed(event)
        handed.append((snapshot, json.dumps(snapshot.to_wire(), sort_keys=True)))
    builder.finish()
    for snapshot, dumped in handed:
        assert json.dumps(snapshot.to_wire(), sort_keys=True) == dumped


def test_lazy_text_reads_the_same_after_more_deltas() -> None:
    from forge_cli.protocol import StreamEvent

    builder = SnapshotBuilder()
    delta = {"item_id": "m", "output_index": 0, "content_index": 0}
    builder.feed(
        StreamEvent(
            "response.output_item.added",
            {"output_index": 0, "item": {"type": "message", "id": "m"}},
        )
    )
    first = builder.feed(StreamEvent("response.output_text.delta", {**delta, "delta": "ab"}))
    second = builder.feed(StreamEvent("response.output_text.delta", {**delta, "delta": "cd"}))
    assert (first.output_text, second.output_text) == ("ab", "abcd")
    part = second.output[0].content[0]  # type: ignore[union-attr]
    assert isinstance(part, OutputText)
    assert part.to_wire()["text"] == "abcd"
