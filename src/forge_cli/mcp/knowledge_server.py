"""``forge mcp``: the local knowledge store as an MCP server (search, list, read).

Every tool answers from :class:`~forge_cli.knowledge.KnowledgeStore`'s own API (no retrieval of
our own here) and returns a typed result, so MCP clients get structured content (and the same as
JSON text): file ids, file names, pages and scores, enough for the client to cite. Store errors
(an unknown vector store or file, a bad filter) become MCP tool errors with the store's message.

The SDK runs the (synchronous, thread-safe) store calls in a worker thread so a long search never
blocks other requests of a streamable-HTTP session.

The SDK logs a request that fails (an unknown prompt, a handler error) with the client's text in
the message, and would install a ``rich`` handler with full tracebacks on the root logger. Its
records go instead to one sanitised, redacted line each on stderr (the operator's terminal for
``forge serve``, the client's log for ``forge mcp``), and the root logger is left as it was.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, Field

from forge_cli.__about__ import __version__
from forge_cli.errors import ForgeError
from forge_cli.redact import redact
from forge_cli.sanitize import sanitize_inline

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from forge_cli.knowledge import KnowledgeStore

__all__ = [
    "DocumentEntry",
    "DocumentPage",
    "DocumentText",
    "DocumentsResult",
    "SearchResult",
    "SearchResultItem",
    "VectorStoreEntry",
    "VectorStoresResult",
    "build_knowledge_server",
]

SERVER_NAME = "forge-knowledge"
MAX_READ_CHARS = 200_000
"""A read answers at most this many characters; the result says when it was cut."""

INSTRUCTIONS = (
    "Search the user's local Forge knowledge store. Use list_vector_stores to find store ids, "
    "search for passages (cite them by file_id, filename and page), list_documents to see what "
    "a store holds, and read_document to read a whole document or a page range."
)


class SearchResultItem(BaseModel):
    """One passage: where it comes from, how well it matched (0..1), and its text."""

    file_id: str
    filename: str
    vector_store_id: str
    page: int | None = None
    score: float
    text: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class SearchResult(BaseModel):
    """Passages best first, and notes about a degraded search (e.g. embeddings unavailable)."""

    query: str
    vector_store_ids: list[str]
    results: list[SearchResultItem]
    notes: list[str] = Field(default_factory=list)


class VectorStoreEntry(BaseModel):
    """A vector store and how many files it holds."""

    id: str
    name: str
    description: str | None = None
    file_count: int
    usage_bytes: int


class VectorStoresResult(BaseModel):
    """Every vector store of the local store."""

    vector_stores: list[VectorStoreEntry]


class DocumentEntry(BaseModel):
    """A document of a vector store (ranked by the query when one was given)."""

    file_id: str
    filename: str
    vector_store_id: str
    score: float
    summary: str
    page_count: int | None = None
    bytes: int = 0


class DocumentsResult(BaseModel):
    """Documents of the given vector stores."""

    vector_store_ids: list[str]
    documents: list[DocumentEntry]
    notes: list[str] = Field(default_factory=list)


class DocumentPage(BaseModel):
    """One page of a document's extracted text (a file without pages is one page)."""

    number: int
    text: str


class DocumentText(BaseModel):
    """A document, or a page range of it."""

    file_id: str
    filename: str
    page_count: int
    pages: list[DocumentPage]
    truncated: bool = False


def _all_store_ids(store: KnowledgeStore) -> list[str]:
    return [vs.id for vs in store.list_vector_stores()]


def _search(
    store: KnowledgeStore,
    query: str,
    vector_store_ids: list[str] | None,
    max_num_results: int,
    score_threshold: float | None,
    filters: dict[str, Any] | None,
) -> SearchResult:
    ids = list(vector_store_ids or _all_store_ids(store))
    notes: list[str] = []
    if not ids:
        return SearchResult(query=query, vector_store_ids=[], results=[], notes=["no stores"])
    hits = store.search(
        ids,
        query,
        max_num_results=max_num_results,
        score_threshold=score_threshold,
        filters=filters,
        notes=notes,
    )
    items = [
        SearchResultItem(
            file_id=hit.file_id,
            filename=hit.filename,
            vector_store_id=hit.vector_store_id,
            page=hit.page,
            score=hit.score,
            text=hit.text,
            attributes=dict(hit.attributes),
        )
        for hit in hits
    ]
    return SearchResult(query=query, vector_store_ids=ids, results=items, notes=notes)


def _documents(
    store: KnowledgeStore,
    vector_store_ids: list[str] | None,
    query: str | None,
    max_num_results: int,
    filters: dict[str, Any] | None,
) -> DocumentsResult:
    ids = list(vector_store_ids or _all_store_ids(store))
    notes: list[str] = []
    if not ids:
        return DocumentsResult(vector_store_ids=[], documents=[], notes=["no stores"])
    hits = store.list_documents(
        ids, query, max_num_results=max_num_results, filters=filters, notes=notes
    )
    documents = [
        DocumentEntry(
            file_id=hit.file_id,
            filename=hit.filename,
            vector_store_id=hit.vector_store_id,
            score=hit.score,
            summary=hit.summary,
            page_count=hit.page_count,
            bytes=hit.bytes,
        )
        for hit in hits
    ]
    return DocumentsResult(vector_store_ids=ids, documents=documents, notes=notes)


def _read(
    store: KnowledgeStore, file_id: str, start_page: int | None, end_page: int | None
) -> DocumentText:
    whole = store.read_file(file_id)
    pages = whole.pages
    if start_page is not None or end_page is not None:
        pages = store.read_pages(file_id, start_page or 1, end_page)
    kept: list[DocumentPage] = []
    budget = MAX_READ_CHARS
    truncated = False
    for page in pages:
        if budget <= 0:
            truncated = True
            break
        text = page.text[:budget]
        truncated = truncated or len(text) < len(page.text)
        budget -= len(text)
        kept.append(DocumentPage(number=page.number, text=text))
    return DocumentText(
        file_id=whole.file_id,
        filename=whole.filename,
        page_count=whole.page_count,
        pages=kept,
        truncated=truncated,
    )


def _vector_stores(store: KnowledgeStore) -> VectorStoresResult:
    entries = [
        VectorStoreEntry(
            id=vs.id,
            name=vs.name,
            description=vs.description,
            file_count=vs.file_counts.total,
            usage_bytes=vs.usage_bytes,
        )
        for vs in store.list_vector_stores()
    ]
    return VectorStoresResult(vector_stores=entries)


async def _in_thread(func: Any, *args: Any) -> Any:
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return await anyio.to_thread.run_sync(func, *args)
    except ForgeError as exc:
        # A deliberate ToolError reaches the client as an error result with this message.
        raise ToolError(exc.one_line()) from exc


_MAX_LOG_CHARS = 1000


class _OneLineLog(logging.Handler):
    """The SDK's records as one line each on stderr: client text made visible, secrets redacted,
    an exception as its type and message (no traceback)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                text = f"{text}: {type(exc).__name__}: {exc}"
            text = sanitize_inline(redact(text))[:_MAX_LOG_CHARS]
            sys.stderr.write(f"forge: {record.levelname.lower()}: {record.name}: {text}\n")
        except Exception:  # a log line must never break a request
            self.handleError(record)


def _route_sdk_logs() -> None:
    """Send the SDK's server records (loggers ``mcp.*``) to :class:`_OneLineLog` only."""
    logger = logging.getLogger("mcp")
    if not any(isinstance(handler, _OneLineLog) for handler in logger.handlers):
        logger.addHandler(_OneLineLog())
    logger.setLevel(logging.WARNING)
    logger.propagate = False


def build_knowledge_server(store: KnowledgeStore) -> MCPServer:
    """An MCP server whose tools search and read ``store``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        server = MCPServer(
            SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
        )
    finally:
        # MCPServer calls logging.basicConfig with a rich handler: keep the root logger as it was.
        root.handlers[:] = handlers
        root.setLevel(level)
    _route_sdk_logs()
    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    @server.tool(annotations=read_only)
    async def search(
        query: str,
        vector_store_ids: list[str] | None = None,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: dict[str, Any] | None = None,
    ) -> SearchResult:
        """Search the knowledge store for passages that answer a query.

        Args:
            query: What to look for.
            vector_store_ids: Stores to search (default: every store).
            max_num_results: At most this many passages (1-50).
            score_threshold: Leave out passages scoring below this (0..1).
            filters: An attribute filter in the OpenAI shape, e.g. {"key": "lang", "type": "eq",
                "value": "en"}.
        """
        result: SearchResult = await _in_thread(
            _search, store, query, vector_store_ids, max_num_results, score_threshold, filters
        )
        return result

    @server.tool(annotations=read_only)
    async def list_vector_stores() -> VectorStoresResult:
        """List the vector stores (id, name, number of files)."""
        result: VectorStoresResult = await _in_thread(_vector_stores, store)
        return result

    @server.tool(annotations=read_only)
    async def list_documents(
        vector_store_ids: list[str] | None = None,
        query: str | None = None,
        max_num_results: int = 20,
        filters: dict[str, Any] | None = None,
    ) -> DocumentsResult:
        """List the documents of vector stores, ranked by a query when one is given.

        Args:
            vector_store_ids: Stores to list (default: every store).
            query: Rank documents by this query.
            max_num_results: At most this many documents.
            filters: An attribute filter in the OpenAI shape.
        """
        result: DocumentsResult = await _in_thread(
            _documents, store, vector_store_ids, query, max_num_results, filters
        )
        return result

    @server.tool(annotations=read_only)
    async def read_document(
        file_id: str, start_page: int | None = None, end_page: int | None = None
    ) -> DocumentText:
        """Read a document's text: all of it, or pages start_page..end_page (1-based).

        Args:
            file_id: The document's file id (from search or list_documents).
            start_page: First page to read.
            end_page: Last page to read (inclusive).
        """
        result: DocumentText = await _in_thread(_read, store, file_id, start_page, end_page)
        return result

    return server
