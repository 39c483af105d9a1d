"""Which hosted tools a request enables, validated against the knowledge store.

Validation happens before the stream starts, so an unknown vector store or a malformed filter
becomes one clear error (``NotFoundError`` / ``UsageError``; HTTP 404 / 400 under ``forge serve``)
instead of a half-streamed response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge import KnowledgeStore, parse_filter
from forge_cli.protocol.guards import (
    is_file_reader_tool,
    is_file_search_tool,
    is_function_tool,
    is_list_documents_tool,
    is_page_reader_tool,
    is_web_search_tool,
)
from forge_cli.protocol.request import Request
from forge_cli.protocol.tools import FunctionTool

__all__ = ["SearchSpec", "Toolset", "resolve_toolset", "resolve_vector_store_ids"]


@dataclass(frozen=True, slots=True)
class SearchSpec:
    """A validated file_search or list_documents configuration."""

    vector_store_ids: tuple[str, ...]
    max_num_results: int
    score_threshold: float | None = None
    filters: dict[str, Any] | None = None
    deduplicate: bool = True


@dataclass(frozen=True, slots=True)
class Toolset:
    """The hosted tools of one request (``implicit`` when the request named no tools)."""

    file_search: SearchSpec | None = None
    list_documents: SearchSpec | None = None
    file_reader: bool = False
    page_reader: bool = False
    web_search: bool = False
    functions: tuple[FunctionTool, ...] = ()
    implicit: bool = False
    store_names: dict[str, str] = field(default_factory=dict)


def resolve_vector_store_ids(
    store: KnowledgeStore, refs: list[str] | tuple[str, ...]
) -> tuple[str, ...]:
    """Vector store ids for ``refs`` (ids, or names as a local convenience)."""
    ids: list[str] = []
    for ref in refs:
        try:
            ids.append(store.get_vector_store(ref).id)
        except NotFoundError:
            named = store.find_vector_store(ref)
            if named is None:
                raise NotFoundError(f"no vector store with id {ref!r}") from None
            ids.append(named.id)
    return tuple(dict.fromkeys(ids))


def _check_filters(filters: dict[str, Any] | None) -> dict[str, Any] | None:
    if filters is not None:
        parse_filter(filters)
    return filters


def _limit(value: int | None, default: int) -> int:
    limit = default if value is None else value
    if isinstance(limit, bool) or not 1 <= limit <= 50:
        raise UsageError("max_num_results must be between 1 and 50")
    return limit


def resolve_toolset(
    store: KnowledgeStore, request: Request, *, default_stores: tuple[str, ...], default_max: int
) -> Toolset:
    """Validate the request's tools; with no tools at all, search the default stores.

    A ``file_search`` or ``list_documents`` tool that names no vector store searches the default
    stores too (``default_vector_stores``, else every store), so ``forge ask -t file-search``
    works without ``--vs``.
    """
    fields: dict[str, Any] = {}
    functions: list[FunctionTool] = []

    def stores(refs: list[str]) -> tuple[str, ...]:
        if refs:
            return resolve_vector_store_ids(store, refs)
        defaults = default_stores or tuple(vs.id for vs in store.list_vector_stores())
        return resolve_vector_store_ids(store, defaults) if defaults else ()

    for tool in request.tools:
        if is_file_search_tool(tool):
            threshold = tool.ranking_options.score_threshold if tool.ranking_options else None
            if threshold is not None and not 0.0 <= threshold <= 1.0:
                raise UsageError("ranking_options.score_threshold must be between 0 and 1")
            fields["file_search"] = SearchSpec(
                vector_store_ids=stores(tool.vector_store_ids),
                max_num_results=_limit(tool.max_num_results, default_max),
                score_threshold=threshold,
                filters=_check_filters(tool.filters),
            )
        elif is_list_documents_tool(tool):
            fields["list_documents"] = SearchSpec(
                vector_store_ids=stores(tool.vector_store_ids),
                max_num_results=_limit(tool.max_num_results, 10),
                score_threshold=tool.score_threshold,
                filters=_check_filters(tool.filters),
                deduplicate=tool.deduplicate is not False,
            )
        elif is_file_reader_tool(tool):
            fields["file_reader"] = True
        elif is_page_reader_tool(tool):
            fields["page_reader"] = True
        elif is_web_search_tool(tool):
            fields["web_search"] = True
        elif is_function_tool(tool):
            functions.append(tool)
    if not request.tools:
        ids = stores([])
        if ids:
            fields["file_search"] = SearchSpec(vector_store_ids=ids, max_num_results=default_max)
            fields["list_documents"] = SearchSpec(vector_store_ids=ids, max_num_results=10)
            fields["file_reader"] = fields["page_reader"] = True
        fields["implicit"] = True
    names = {vs.id: vs.name for vs in store.list_vector_stores()}
    return Toolset(functions=tuple(functions), store_names=names, **fields)
