"""Built-in client tools over the local knowledge store, for models behind Chat Completions.

``file_search``, ``list_documents``, ``file_reader`` and ``page_reader`` give a Chat model the
retrieval a Responses server runs itself. Every passage shown to the model gets a number that is
unique in the toolkit's lifetime (``[1]``, ``[2]``, ...), and the model is told to cite with it;
the agent loop turns the markers in the answer into ``file_citation`` annotations. All four are
read-only, so the default approval policy runs them without asking. Store errors (unknown file,
bad page range) become results the model reads, like any tool failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from forge_cli.tools.base import BaseTool, CitationSource, ToolOutput

if TYPE_CHECKING:
    from forge_cli.knowledge import KnowledgeStore

__all__ = ["CITE_HINT", "KnowledgeToolkit"]

CITE_HINT = "Cite the passages you use with their numbers in square brackets, e.g. [1]."

_SNIPPET = 240


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
    """The four tools over ``store``, limited to ``vector_store_ids``, sharing citation numbers."""

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
        self._next = 1

    def number(self) -> int:
        """The next citation number."""
        value = self._next
        self._next += 1
        return value

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

    async def run(self, args: Any) -> ToolOutput:
        kit = self.kit
        hits = kit.store.search(
            kit.vector_store_ids,
            args.query,
            max_num_results=args.max_results or kit.max_num_results,
        )
        if not hits:
            return ToolOutput(f"No passages found for {args.query!r}.")
        blocks: list[str] = []
        sources: list[CitationSource] = []
        for hit in hits:
            number = kit.number()
            page = f", page {hit.page}" if hit.page is not None else ""
            blocks.append(f"[{number}] {hit.filename}{page} (file_id {hit.file_id})\n{hit.text}")
            sources.append(
                CitationSource(number, hit.file_id, hit.filename, hit.page, hit.snippet[:_SNIPPET])
            )
        return ToolOutput("\n\n".join([*blocks, CITE_HINT]), tuple(sources))


class ListDocuments(_KnowledgeTool):
    """List the documents available, optionally ranked by a topic."""

    name = "list_documents"
    description = "List the user's documents (file ids, names, summaries), optionally by topic."
    args_schema = ListArgs

    async def run(self, args: Any) -> ToolOutput:
        kit = self.kit
        docs = kit.store.list_documents(
            kit.vector_store_ids, args.query, max_num_results=kit.max_num_results
        )
        if not docs:
            return ToolOutput("No documents found.")
        lines = []
        for doc in docs:
            pages = f", {doc.page_count} pages" if doc.page_count else ""
            lines.append(f"- {doc.filename} (file_id {doc.file_id}{pages}): {doc.summary}")
        return ToolOutput("\n".join(lines))


class FileReader(_KnowledgeTool):
    """Read a whole document (truncated to the toolkit's limit)."""

    name = "file_reader"
    description = f"Read the text of one document by file id. {CITE_HINT}"
    args_schema = ReadFileArgs

    async def run(self, args: Any) -> ToolOutput:
        kit = self.kit
        document = kit.store.read_file(args.file_id)
        text = document.text
        cut = "" if len(text) <= kit.max_chars else "\n[... truncated; use page_reader ...]"
        number = kit.number()
        source = CitationSource(number, document.file_id, document.filename, None, text[:_SNIPPET])
        body = f"[{number}] {document.filename} (file_id {document.file_id})\n"
        return ToolOutput(body + text[: kit.max_chars] + cut + f"\n\n{CITE_HINT}", (source,))


class PageReader(_KnowledgeTool):
    """Read a page range of a document, numbering each page for citation."""

    name = "page_reader"
    description = f"Read pages of one document by file id (1-based, inclusive). {CITE_HINT}"
    args_schema = ReadPagesArgs

    async def run(self, args: Any) -> ToolOutput:
        kit = self.kit
        record = kit.store.get_file(args.file_id)
        pages = kit.store.read_pages(args.file_id, args.start_page, args.end_page)
        blocks: list[str] = []
        sources: list[CitationSource] = []
        used = 0
        for page in pages:
            if used >= kit.max_chars:
                blocks.append("[... more pages not shown ...]")
                break
            number = kit.number()
            text = page.text[: kit.max_chars - used]
            used += len(text)
            blocks.append(f"[{number}] {record.filename}, page {page.number}\n{text}")
            sources.append(
                CitationSource(number, args.file_id, record.filename, page.number, text[:_SNIPPET])
            )
        if not blocks:
            return ToolOutput("No such pages.")
        return ToolOutput("\n\n".join([*blocks, CITE_HINT]), tuple(sources))
