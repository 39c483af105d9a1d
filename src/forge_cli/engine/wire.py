"""Knowledge-store records as OpenAI API objects (files, vector stores, their files, search pages).

The shapes follow the openai SDK types (``FileObject``, ``VectorStore``, ``VectorStoreFile``,
``VectorStoreSearchResponse``) so the official SDK parses every ``forge serve`` answer.
"""

from __future__ import annotations

from typing import Any

from forge_cli.knowledge import FileRecord, SearchHit, VectorStore, VectorStoreFile

__all__ = [
    "deleted",
    "file_object",
    "list_page",
    "search_page",
    "vector_store_file_object",
    "vector_store_object",
]


def file_object(record: FileRecord) -> dict[str, Any]:
    """A ``file`` object."""
    return {
        "id": record.id,
        "object": "file",
        "bytes": record.bytes,
        "created_at": record.created_at,
        "filename": record.filename,
        "purpose": record.metadata.get("purpose", "assistants"),
        "status": "processed",
        "status_details": None,
        "mime_type": record.mime_type,
        "sha256": record.sha256,
        "page_count": record.page_count,
        "chunk_count": record.chunk_count,
    }


def vector_store_object(store: VectorStore) -> dict[str, Any]:
    """A ``vector_store`` object."""
    counts = store.file_counts
    return {
        "id": store.id,
        "object": "vector_store",
        "name": store.name,
        "description": store.description,
        "status": "completed",
        "usage_bytes": store.usage_bytes,
        "file_counts": {
            "in_progress": counts.in_progress,
            "completed": counts.completed,
            "failed": counts.failed,
            "cancelled": counts.cancelled,
            "total": counts.total,
        },
        "created_at": store.created_at,
        "last_active_at": store.created_at,
        "expires_after": None,
        "expires_at": None,
        "metadata": dict(store.metadata),
    }


def vector_store_file_object(member: VectorStoreFile) -> dict[str, Any]:
    """A ``vector_store.file`` object."""
    return {
        "id": member.file_id,
        "object": "vector_store.file",
        "status": "completed",
        "last_error": None,
        "usage_bytes": member.bytes,
        "vector_store_id": member.vector_store_id,
        "created_at": member.created_at,
        "attributes": dict(member.attributes),
        "chunking_strategy": {"type": "other"},
        "filename": member.filename,
    }


def search_result(hit: SearchHit) -> dict[str, Any]:
    """One ``vector_store.search_results`` entry (with the Knowledge Forge ``page`` extra)."""
    return {
        "file_id": hit.file_id,
        "filename": hit.filename,
        "score": hit.score,
        "attributes": dict(hit.attributes),
        "content": [{"type": "text", "text": hit.text}],
        "page": hit.page,
        "vector_store_id": hit.vector_store_id,
    }


def search_page(query: str, hits: list[SearchHit]) -> dict[str, Any]:
    """The page a vector store search returns."""
    return {
        "object": "vector_store.search_results.page",
        "search_query": [query],
        "data": [search_result(hit) for hit in hits],
        "has_more": False,
        "next_page": None,
    }


def list_page(data: list[dict[str, Any]]) -> dict[str, Any]:
    """A cursor page holding every entry (the local store is small enough not to paginate)."""
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": False,
    }


def deleted(object_name: str, ident: str) -> dict[str, Any]:
    """A deletion receipt."""
    return {"id": ident, "object": object_name, "deleted": True}
