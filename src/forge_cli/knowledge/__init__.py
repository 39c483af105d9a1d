"""The local knowledge store: SQLite files and vector stores, ingestion, chunking and search.

Synchronous and typed; no HTTP and no terminal output here (the CLI draws progress from the
``progress`` callback, and an :class:`Embedder` for dense retrieval is handed in by the caller).
"""

from __future__ import annotations

from forge_cli._lazy import lazy_exports

TYPE_CHECKING = False  # typing is not imported for this
if TYPE_CHECKING:
    from forge_cli.knowledge.chunking import ChunkSpec, chunk_text
    from forge_cli.knowledge.client import (
        KnowledgeClient,
        LocalKnowledgeClient,
        attach_file,
        ensure_vector_store,
        list_documents,
        resolve_vector_store,
        search_stores,
    )
    from forge_cli.knowledge.embed.embedder import Embedder, reciprocal_rank_fusion
    from forge_cli.knowledge.extract import SUPPORTED_EXTENSIONS, FileRejected, extract_text
    from forge_cli.knowledge.filters import parse_filter
    from forge_cli.knowledge.ingest import DEFAULT_MAX_FILE_BYTES, expand_paths
    from forge_cli.knowledge.migrations import SCHEMA_VERSION
    from forge_cli.knowledge.models import (
        Attributes,
        AttributeValue,
        BatchReport,
        DocumentHit,
        FileCounts,
        FileRecord,
        FileText,
        IngestResult,
        IngestStatus,
        Page,
        ProgressCallback,
        SearchHit,
        VectorStore,
        VectorStoreFile,
    )
    from forge_cli.knowledge.paths import DATA_DIR_ENV, default_store_path
    from forge_cli.knowledge.query import build_match_query, query_terms
    from forge_cli.knowledge.seed import SEED_STORE_NAME, bundled_docs, ensure_seed_store
    from forge_cli.knowledge.store import KnowledgeStore

__all__ = [
    "DATA_DIR_ENV",
    "DEFAULT_MAX_FILE_BYTES",
    "SCHEMA_VERSION",
    "SEED_STORE_NAME",
    "SUPPORTED_EXTENSIONS",
    "AttributeValue",
    "Attributes",
    "BatchReport",
    "ChunkSpec",
    "DocumentHit",
    "Embedder",
    "FileCounts",
    "FileRecord",
    "FileRejected",
    "FileText",
    "IngestResult",
    "IngestStatus",
    "KnowledgeClient",
    "KnowledgeStore",
    "LocalKnowledgeClient",
    "Page",
    "ProgressCallback",
    "SearchHit",
    "VectorStore",
    "VectorStoreFile",
    "attach_file",
    "build_match_query",
    "bundled_docs",
    "chunk_text",
    "default_store_path",
    "ensure_seed_store",
    "ensure_vector_store",
    "expand_paths",
    "extract_text",
    "list_documents",
    "parse_filter",
    "query_terms",
    "reciprocal_rank_fusion",
    "resolve_vector_store",
    "search_stores",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "AttributeValue": "models",
        "Attributes": "models",
        "BatchReport": "models",
        "ChunkSpec": "chunking",
        "DATA_DIR_ENV": "paths",
        "DEFAULT_MAX_FILE_BYTES": "ingest",
        "DocumentHit": "models",
        "Embedder": "embed.embedder",
        "FileCounts": "models",
        "FileRecord": "models",
        "FileRejected": "extract",
        "FileText": "models",
        "IngestResult": "models",
        "IngestStatus": "models",
        "KnowledgeClient": "client",
        "KnowledgeStore": "store",
        "LocalKnowledgeClient": "client",
        "Page": "models",
        "ProgressCallback": "models",
        "SCHEMA_VERSION": "migrations",
        "SEED_STORE_NAME": "seed",
        "SUPPORTED_EXTENSIONS": "extract",
        "SearchHit": "models",
        "VectorStore": "models",
        "VectorStoreFile": "models",
        "attach_file": "client",
        "build_match_query": "query",
        "bundled_docs": "seed",
        "chunk_text": "chunking",
        "default_store_path": "paths",
        "ensure_seed_store": "seed",
        "ensure_vector_store": "client",
        "expand_paths": "ingest",
        "extract_text": "extract",
        "list_documents": "client",
        "parse_filter": "filters",
        "query_terms": "query",
        "reciprocal_rank_fusion": "embed.embedder",
        "resolve_vector_store": "client",
        "search_stores": "client",
    },
)
