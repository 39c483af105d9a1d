"""The ``forge-docs`` vector store, seeded from the user guide shipped inside the package.

A new user can ask about Forge at once. The store records a hash of the bundled pages in its
metadata; when a new Forge ships different pages, the store is re-seeded on next use.
"""

from __future__ import annotations

import hashlib
from importlib import resources

from forge_cli.errors import KnowledgeError, NotFoundError
from forge_cli.knowledge.models import VectorStore
from forge_cli.knowledge.store import KnowledgeStore

__all__ = ["SEED_STORE_NAME", "bundled_docs", "ensure_seed_store"]

SEED_STORE_NAME = "forge-docs"
_HASH_KEY = "forge_seed_sha256"


def bundled_docs() -> list[tuple[str, bytes]]:
    """The bundled Markdown pages as (filename, content), sorted by name."""
    root = resources.files("forge_cli.knowledge").joinpath("bundled")
    pages = [
        (entry.name, entry.read_bytes())
        for entry in root.iterdir()
        if entry.is_file() and entry.name.endswith(".md")
    ]
    return sorted(pages)


def _docs_hash(pages: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, content in pages:
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    return digest.hexdigest()


def ensure_seed_store(store: KnowledgeStore) -> VectorStore:
    """Return the ``forge-docs`` vector store, creating or refreshing it when needed.

    Idempotent: a store whose recorded hash matches the bundled pages is returned untouched.
    Safe when several processes seed at once: the store is found or created in one transaction
    (so there is only ever one ``forge-docs``), pages are de-duplicated by content, and removing a
    stale page that another process already removed is not an error.
    """
    pages = bundled_docs()
    wanted = _docs_hash(pages)
    existing = store.find_vector_store(SEED_STORE_NAME)
    if existing is not None and existing.metadata.get(_HASH_KEY) == wanted:
        return existing
    if existing is None:
        existing = store.find_or_create_vector_store(
            SEED_STORE_NAME,
            description="The Forge user guide, shipped with Forge.",
            metadata={"forge_seed": "true"},
        )
    current = {m.file_id for m in store.list_vector_store_files(existing.id)}
    report = store.add_files(
        pages, vector_store_id=existing.id, attributes={"source": "forge-docs"}
    )
    if report.rejected:
        first = report.rejected[0]
        raise KnowledgeError(f"could not seed {SEED_STORE_NAME}: {first.filename}: {first.reason}")
    kept = {r.file.id for r in report.results if r.file is not None}
    for stale in current - kept:
        _remove_stale(store, existing.id, stale)
    metadata = dict(existing.metadata)
    metadata[_HASH_KEY] = wanted
    return store.update_vector_store(existing.id, metadata=metadata)


def _remove_stale(store: KnowledgeStore, vector_store_id: str, file_id: str) -> None:
    """Detach a page no longer shipped, and delete it when no store holds it any more."""
    try:
        store.detach_file(vector_store_id, file_id)
        if not _in_any_store(store, file_id):
            store.delete_file(file_id)
    except NotFoundError:
        pass  # another process seeding at the same time got there first


def _in_any_store(store: KnowledgeStore, file_id: str) -> bool:
    """True when any vector store still holds ``file_id``."""
    return any(
        m.file_id == file_id
        for vs in store.list_vector_stores()
        for m in store.list_vector_store_files(vs.id)
    )
