"""Hosted tools the engine runs itself: file_search, list_documents, file_reader, page_reader and
web_search. Each runner is an async generator of standard stream events for its call item; what
it found is numbered in the response's :class:`PassageBook` and summarised in an
:class:`Outcome` (the text an upstream model reads as the tool result). The numbering and that
text come from the client tools' functions (``tools/builtin/knowledge.py``), so a model reads the
same thing whether the engine or the agent loop ran the tool (ADR-0001, ADR-0004 §2).

Store calls are synchronous SQLite work, so they run in a worker thread and never block the
event loop that serves other requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from anyio import to_thread

from forge_cli.engine.emitter import ResponseEmitter, ToolCallRun
from forge_cli.engine.toolset import Toolset
from forge_cli.engine.websearch import NOT_CONFIGURED, SearxngClient
from forge_cli.errors import ForgeError
from forge_cli.knowledge import (
    DocumentHit,
    FileRecord,
    FileText,
    KnowledgeStore,
    Page,
    SearchHit,
)
from forge_cli.protocol.citing import Passage, PassageBook, numbered
from forge_cli.protocol.events import StreamEvent
from forge_cli.tools.builtin.knowledge import (
    document_passages,
    documents_text,
    page_passages,
    reader_text,
    search_passages,
    search_text,
)

__all__ = [
    "MAX_READ_CHARS",
    "Outcome",
    "ToolContext",
    "run_file_reader",
    "run_file_search",
    "run_list_documents",
    "run_page_reader",
    "run_web_search",
]

MAX_READ_CHARS = 24_000
"""How much of a document the readers hand to a model (the call item keeps the same text)."""

T = TypeVar("T")


@dataclass
class ToolContext:
    """What the runners of one response share."""

    store: KnowledgeStore
    emitter: ResponseEmitter
    toolset: Toolset
    book: PassageBook = field(default_factory=PassageBook)
    web: SearxngClient | None = None


@dataclass
class Outcome:
    """The result of one hosted tool call."""

    text: str = ""
    passages: list[Passage] = field(default_factory=list)
    error: str | None = None


@dataclass
class _Box(Generic[T]):
    value: T | None = None


async def _fetch(
    run: ToolCallRun, outcome: Outcome, func: Callable[[], T], box: _Box[T]
) -> AsyncIterator[StreamEvent]:
    """Run a store call in a worker thread into ``box``; a ``ForgeError`` fails the call item
    (its events are yielded) and is kept as ``outcome.error``."""
    try:
        box.value = await to_thread.run_sync(func)
    except ForgeError as exc:
        outcome.error = exc.one_line()
        for event in run.fail(outcome.error):
            yield event


async def run_file_search(
    ctx: ToolContext, query: str, outcome: Outcome
) -> AsyncIterator[StreamEvent]:
    """Search the request's vector stores; results go on the finished call item."""
    spec = ctx.toolset.file_search
    assert spec is not None
    run = ToolCallRun(
        ctx.emitter,
        {
            "id": ctx.emitter.new_id("fs"),
            "type": "file_search_call",
            "queries": [query],
            "results": None,
        },
        traceable=False,
    )
    for event in run.start():
        yield event
    yield run.status("searching")
    found: _Box[list[SearchHit]] = _Box()
    search = partial(
        ctx.store.search,
        spec.vector_store_ids,
        query,
        max_num_results=spec.max_num_results,
        score_threshold=spec.score_threshold,
        filters=spec.filters,
    )
    async for event in _fetch(run, outcome, search, found):
        yield event
    if found.value is None:
        return
    hits = found.value
    outcome.passages.extend(search_passages(ctx.book, hits))
    results: list[dict[str, Any]] = []
    for hit in hits:
        result: dict[str, Any] = {
            "file_id": hit.file_id,
            "filename": hit.filename,
            "score": hit.score,
            "text": hit.text,
            "attributes": dict(hit.attributes),
        }
        if hit.page is not None:
            result["page"] = hit.page
        results.append(result)
    outcome.text = search_text(query, outcome.passages)
    # As OpenAI: an asked-for file_search call has its results only with ``include``. The
    # engine's own search of a request that named no tools (Forge's default) always shows them.
    include = ctx.emitter.request.include or ()
    asked = ctx.toolset.implicit or "file_search_call.results" in include
    shown = results if asked else None
    for event in run.finish(results=shown):
        yield event


async def run_list_documents(
    ctx: ToolContext, query: str | None, outcome: Outcome
) -> AsyncIterator[StreamEvent]:
    """List the documents of the request's stores, ranked by ``query`` when given."""
    spec = ctx.toolset.list_documents
    assert spec is not None
    item = {
        "id": ctx.emitter.new_id("ld"),
        "type": "list_documents_call",
        "queries": [query] if query else [],
    }
    run = ToolCallRun(ctx.emitter, item, traceable=True)
    for event in run.start():
        yield event
    yield run.progress(
        0.1, f"listing documents in {len(spec.vector_store_ids)} vector store(s)", "list"
    )
    listed: _Box[list[DocumentHit]] = _Box()
    listing = partial(
        ctx.store.list_documents,
        spec.vector_store_ids,
        query,
        max_num_results=spec.max_num_results,
        score_threshold=spec.score_threshold,
        deduplicate=spec.deduplicate,
        filters=spec.filters,
    )
    async for event in _fetch(run, outcome, listing, listed):
        yield event
    if listed.value is None:
        return
    docs = listed.value
    yield run.progress(0.9, f"found {len(docs)} document(s)", "list")
    documents = [
        {
            "file_id": d.file_id,
            "filename": d.filename,
            "vector_store_id": d.vector_store_id,
            "score": d.score,
            "summary": d.summary,
            "page_count": d.page_count,
            "bytes": d.bytes,
        }
        for d in docs
    ]
    outcome.text = documents_text(docs)
    for event in run.finish(count=len(documents), documents=documents):
        yield event


async def run_file_reader(
    ctx: ToolContext, file_id: str, outcome: Outcome, query: str | None = None
) -> AsyncIterator[StreamEvent]:
    """Read a whole document, page by page, reporting progress as it goes."""
    item = {
        "id": ctx.emitter.new_id("fr"),
        "type": "file_reader_call",
        "doc_ids": [file_id],
        "query": query,
    }
    run = ToolCallRun(ctx.emitter, item, traceable=True)
    for event in run.start():
        yield event
    yield run.progress(0.05, f"opening {file_id}", "open")
    read: _Box[FileText] = _Box()
    async for event in _fetch(run, outcome, partial(ctx.store.read_file, file_id), read):
        yield event
    if read.value is None:
        return
    doc = read.value
    run.item["file_name"] = doc.filename
    yield run.status("reading")
    total = max(1, len(doc.pages))
    outcome.passages.extend(document_passages(ctx.book, doc))
    for number, page in enumerate(doc.pages, start=1):
        what = f"page {page.number}/{total}" if doc.paged else "text"
        yield run.progress(
            0.1 + 0.85 * number / total, f"read {what} ({len(page.text)} chars)", "read"
        )
    content = doc.text[:MAX_READ_CHARS]
    outcome.text = reader_text(outcome.passages, MAX_READ_CHARS)
    for event in run.finish(file_name=doc.filename, content=content):
        yield event


async def run_page_reader(
    ctx: ToolContext, file_id: str, start_page: int, end_page: int | None, outcome: Outcome
) -> AsyncIterator[StreamEvent]:
    """Read pages ``start_page..end_page`` (1-based, inclusive) of a document."""
    item = {
        "id": ctx.emitter.new_id("pr"),
        "type": "page_reader_call",
        "document_id": file_id,
        "start_page": start_page,
        "end_page": end_page,
    }
    run = ToolCallRun(ctx.emitter, item, traceable=True)
    for event in run.start():
        yield event
    yield run.progress(
        0.1, f"reading pages {start_page}-{end_page or start_page} of {file_id}", "open"
    )
    store = ctx.store
    read: _Box[tuple[FileRecord, list[Page]]] = _Box()

    def pages_of_file() -> tuple[FileRecord, list[Page]]:
        return store.get_file(file_id), store.read_pages(file_id, start_page, end_page)

    async for event in _fetch(run, outcome, pages_of_file, read):
        yield event
    if read.value is None:
        return
    doc, pages = read.value
    outcome.passages.extend(page_passages(ctx.book, file_id, doc.filename, pages))
    for count, page in enumerate(pages, start=1):
        yield run.progress(0.1 + 0.85 * count / len(pages), f"read page {page.number}", "read")
    content = "\n\n".join(p.text for p in pages)[:MAX_READ_CHARS]
    outcome.text = reader_text(outcome.passages, MAX_READ_CHARS)
    for event in run.finish(file_name=doc.filename, content=content):
        yield event


async def run_web_search(
    ctx: ToolContext, query: str, outcome: Outcome
) -> AsyncIterator[StreamEvent]:
    """Search the web through SearXNG; without one configured the call fails and says why."""
    item = {
        "id": ctx.emitter.new_id("ws"),
        "type": "web_search_call",
        "action": {"type": "search", "query": query},
    }
    run = ToolCallRun(ctx.emitter, item, traceable=False)
    for event in run.start():
        yield event
    if ctx.web is None:
        outcome.error = NOT_CONFIGURED
        for event in run.fail(NOT_CONFIGURED):
            yield event
        return
    yield run.status("searching")
    try:
        found = await ctx.web.search(query)
    except ForgeError as exc:
        outcome.error = exc.one_line()
        for event in run.fail(outcome.error):
            yield event
        return
    for result in found:
        outcome.passages.append(
            ctx.book.add(
                text=result.content, filename=result.title, url=result.url, title=result.title
            )
        )
    sources = [{"type": "url", "url": r.url, "title": r.title} for r in found]
    outcome.text = (
        numbered(outcome.passages, hint=True) if found else f"No web results for {query!r}."
    )
    action = {"type": "search", "query": query, "sources": sources}
    for event in run.finish(action=action):
        yield event
