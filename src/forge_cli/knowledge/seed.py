"""The ``forge-docs`` vector store, seeded from the user guide shipped inside the package.

A new user can ask about Forge at once. The store records a hash of the bundled pages in its
metadata; when a new Forge ships different pages, the store is re-seeded on next use.

Every first use of the store checks this, so the check is cheap: the pages are read from the
package's directory (``importlib.resources`` only when the package is not on disk), and a stamp
(Forge's version, the number of pages, a CRC-32 of their names and contents) stands for the
SHA-256 once it has been recorded next to it; ``hashlib`` is imported only when the stamp differs.
"""

from __future__ import annotations

import os
import zlib

from forge_cli.__about__ import __version__
from forge_cli.errors import ForgeError, KnowledgeError, NotFoundError
from forge_cli.knowledge.models import VectorStore
from forge_cli.knowledge.store import KnowledgeStore

__all__ = ["SEED_STORE_NAME", "bundled_docs", "ensure_seed_store"]

SEED_STORE_NAME = "forge-docs"
_HASH_KEY = "forge_seed_sha256"
_STAMP_KEY = "forge_seed_stamp"


def bundled_docs() -> list[tuple[str, bytes]]:
    """The bundled Markdown pages as (filename, content), sorted by name."""
    root = os.path.join(os.path.dirname(__file__), "bundled")
    if not os.path.isdir(root):  # installed in a zip: ask the import system
        return _bundled_by_resources()
    pages = []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_file() and entry.name.endswith(".md"):
                with open(entry.path, "rb") as handle:
                    pages.append((entry.name, handle.read()))
    return sorted(pages)


def _bundled_by_resources() -> list[tuple[str, bytes]]:
    from importlib import resources

    root = resources.files("forge_cli.knowledge").joinpath("bundled")
    pages = [
        (entry.name, entry.read_bytes())
        for entry in root.iterdir()
        if entry.is_file() and entry.name.endswith(".md")
    ]
    return sorted(pages)


def _docs_hash(pages: list[tuple[str, bytes]]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for name, content in pages:
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    return digest.hexdigest()


def _docs_stamp(pages: list[tuple[str, bytes]]) -> str:
    """``VERSION/PAGES/CRC32``: changes with the version and with any page's name or content."""
    crc = 0
    for name, content in pages:
        crc = zlib.crc32(content, zlib.crc32(name.encode() + b"\0", crc))
    return f"{__version__}/{len(pages)}/{crc:08x}"


def ensure_seed_store(store: KnowledgeStore) -> VectorStore:
    """Return the ``forge-docs`` vector store, creating or refreshing it when needed.

    Idempotent: a store whose recorded hash matches the bundled pages is returned untouched.
    Safe when several processes seed at once: the store is found or created in one transaction
    (so there is only ever one ``forge-docs``), pages are de-duplicated by content, and removing a
    stale page that another process already removed is not an error.
    """
    pages = bundled_docs()
    stamp = _docs_stamp(pages)
    existing = store.find_vector_store(SEED_STORE_NAME)
    metadata = existing.metadata if existing is not None else {}
    if existing is not None and _HASH_KEY in metadata and metadata.get(_STAMP_KEY) == stamp:
        return existing  # recorded with these very pages: no need to hash them
    wanted = _docs_hash(pages)
    if existing is not None and existing.metadata.get(_HASH_KEY) == wanted:
        # Seeded by a Forge that recorded no stamp (or another version with the same pages):
        # record this one, so the next use need not hash. A store that cannot be written to
        # is still the right one.
        try:
            return store.update_vector_store(
                existing.id, metadata={**existing.metadata, _STAMP_KEY: stamp}
            )
        except ForgeError:
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
    metadata[_STAMP_KEY] = stamp
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
