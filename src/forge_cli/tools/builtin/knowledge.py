"""Retrieval over the local knowledge store: the four tools and the logic the engine shares.

``file_search``, ``list_documents``, ``file_reader`` and ``page_reader`` give a Chat model the
retrieval a Responses server runs itself. What they find is numbered in a
:class:`~forge_cli.protocol.citing.PassageBook` (unique in the toolkit's lifetime: ``[1]``,
``[2]``, ...), and the model is told to cite with those numbers; the agent loop turns the markers
in the answer into ``file_citation`` annotations. All four are read-only, so the default approval
policy runs them without asking. Store errors (unknown file, bad page range) become results the
model reads, like any tool failure.

The module-level functions (:func:`search_passages`, :func:`documents_text`,
:func:`document_passages`, :func:`page_passages`, :func:`reader_text`) are the one
implementation of how found passages are numbered and shown to a model: the engine's hosted
tools (``engine/hosted.py``) call them too, so a model behind ``forge serve`` reads exactly what a
model behind the client tools reads (ADR-0001, ADR-0004 §2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_cli.protocol.citing import CITE_HINT, Passage, PassageBook, numbered
from forge_cli.tools.base import BaseTool, ToolOutput

if TYPE_CHECKING:
    from forge_cli.knowledge import DocumentHit, FileText, KnowledgeStore, Page, SearchHit

__all__ = [
    "CITE_HINT",
    "KnowledgeToolkit",
    "document_passages",
    "documents_text",
    "page_passages",
    "reader_text",
    "search_passages",
    "search_text",
]


def search_passages(book: PassageBook, hits: Sequence[SearchHit]) -> list[Passage]:
    """Number the hits of a search, best first."""
    return [
        book.add(
            hit.text,
            hit.filename,
            file_id=hit.file_id,
            page=hit.page,
            score=hit.score,
            vector_store_id=hit.vector_store_id,
        )
        for hit in hits
    ]


def search_text(query: str, passages: Sequence[Passage]) -> str:
    """What a model reads after ``file_search``."""
    if not passages:
        return f"No passages found for {query!r}."
    return numbered(passages, hint=True)


def documents_text(docs: Sequence[DocumentHit]) -> str:
    """What a model reads after ``list_documents``: one line per document."""
    if not docs:
        return "No documents found."
    lines = []
    for doc in docs:
        pages = f", {doc.page_count} pages" if doc.page_count else ""
        lines.append(f"- {doc.filename} (file_id {doc.file_id}{pages}): {doc.summary}")
    return "\n".join(lines)


def document_passages(book: PassageBook, document: FileText) -> list[Passage]:
    """Number a whole document for ``file_reader``: a passage per page (one for unpaged text)."""
    return [
        book.add(
            page.text,
            document.filename,
            file_id=document.file_id,
            page=page.number if document.paged else None,
        )
        for page in document.pages
    ]


def page_passages(
    book: PassageBook, file_id: str, filename: str, pages: Sequence[Page]
) -> list[Passage]:
    """Number the pages ``page_reader`` read."""
    return [book.add(page.text, filename, file_id=file_id, page=page.number) for page in pages]


def reader_text(passages: Sequence[Passage], max_chars: int) -> str:
    """What a model reads after ``file_reader``/``page_reader``, cut at ``max_chars``."""
    if not passages:
        return "No such pages."
    text = numbered(passages, hint=True)
    if len(text) <= max_chars:
        return text
    return (
        text[:max_chars]
        + f"\n[... truncated at {max_chars} characters; use page_reader for the rest ...]"
        + f"\n\n{CITE_HINT}"
    )


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchArgs(_Args):
    query: Annotated[str, Field(description="What to look for, in natural language.")]
    max_results: Annotated[
        int | None, Field(default=None, ge=1, le=50, description="How many passages.")
    ] = None


class ListArgs(_Args):
    query: Annotated[
        str | None, Field(default=None, description="Rank documents by this topic.")
    ] = None


class ReadFileArgs(_Args):
    file_id: Annotated[str, Field(description="The file id from file_search or list_documents.")]


class ReadPagesArgs(_Args):
    file_id: Annotated[str, Field(description="The file id.")]
    start_page: Annotated[int, Field(ge=1, description="First page (1-based).")]
    end_page: Annotated[
        int | None, Field(default=None, ge=1, description="Last page (inclusive).")
    ] = None


class KnowledgeToolkit:
    """The four tools over ``store``, limited to ``vector_store_ids``, sharing one passage book."""

    def __init__(
        self,
        store: KnowledgeStore,
        vector_store_ids: Sequence[str],
        *,
        max_num_results: int = 8,
        max_chars: int = 20_000,
    ) -> None:
        self.store = store
        self.vector_store_ids = list(vector_store_ids)
        self.max_num_results = max_num_results
        self.max_chars = max_chars
        self.book = PassageBook()

    def tools(self) -> list[BaseTool]:
        """``file_search``, ``list_documents``, ``file_reader``, ``page_reader``."""
        return [FileSearch(self), ListDocuments(self), FileReader(self), PageReader(self)]


class _KnowledgeTool(BaseTool):
    read_only = True

    def __init__(self, kit: KnowledgeToolkit) -> None:
        self.kit = kit
        super().__init__()


class FileSearch(_KnowledgeTool):
    """Search the knowledge base and number the passages found."""

    name = "file_search"
    description = f"Search the user's documents for passages about a query. {CITE_HINT}"
    args_schema = SearchArgs

    async def run(self, args: SearchArgs) -> ToolOutput:
        kit = self.kit
        hits = kit.store.search(
            kit.vector_store_ids,
            args.query,
            max_num_results=args.max_results or kit.max_num_results,
        )
        passages = search_passages(kit.book, hits)
        return ToolOutput(search_text(args.query, passages), tuple(passages))


class ListDocuments(_KnowledgeTool):
    """List the documents available, optionally ranked by a topic."""

    name = "list_documents"
    description = "List the user's documents (file ids, names, summaries), optionally by topic."
    args_schema = ListArgs

    async def run(self, args: ListArgs) -> ToolOutput:
        kit = self.kit
        docs = kit.store.list_documents(
            kit.vector_store_ids, args.query, max_num_results=kit.max_num_results
        )
        return ToolOutput(documents_text(docs))


class FileReader(_KnowledgeTool):
    """Read a whole document (cut at the toolkit's limit), numbering each page for citation."""

    name = "file_reader"
    description = f"Read the text of one document by file id. {CITE_HINT}"
    args_schema = ReadFileArgs

    async def run(self, args: ReadFileArgs) -> ToolOutput:
        kit = self.kit
        passages = document_passages(kit.book, kit.store.read_file(args.file_id))
        return ToolOutput(reader_text(passages, kit.max_chars), tuple(passages))


class PageReader(_KnowledgeTool):
    """Read a page range of a document, numbering each page for citation."""

    name = "page_reader"
    description = f"Read pages of one document by file id (1-based, inclusive). {CITE_HINT}"
    args_schema = ReadPagesArgs

    async def run(self, args: ReadPagesArgs) -> ToolOutput:
        kit = self.kit
        record = kit.store.get_file(args.file_id)
        pages = kit.store.read_pages(args.file_id, args.start_page, args.end_page)
        passages = page_passages(kit.book, args.file_id, record.filename, pages)
        return ToolOutput(reader_text(passages, kit.max_chars), tuple(passages))
