"""Document-level reads: listing documents of stores, and reading a file's text or pages.

These back the ``list_documents``, ``file_reader`` and ``page_reader`` tools.
"""

from __future__ import annotations

import sqlite3

from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge.embed.embedder import Embedder
from forge_cli.knowledge.models import DocumentHit, FileText, Page
from forge_cli.knowledge.query import query_terms
from forge_cli.knowledge.search import (
    Scope,
    check_limits,
    make_snippet,
    parse_attributes,
    search_chunks,
)

__all__ = ["list_documents", "read_file", "read_pages"]

_SUMMARY_CHARS = 240


def list_documents(
    conn: sqlite3.Connection,
    scope: Scope,
    query: str | None,
    *,
    max_num_results: int,
    score_threshold: float | None,
    deduplicate: bool,
    embedder: Embedder | None,
    notes: list[str] | None = None,
) -> list[DocumentHit]:
    """Documents in scope; with a query, ranked by their best chunk, else by name (score 1).

    With ``deduplicate`` each file appears once (under its best chunk); without it, each
    matching chunk gives one entry, so a file may repeat.
    """
    check_limits(max_num_results, score_threshold)
    if query is None or not query_terms(query):
        return _all_documents(conn, scope, max_num_results)
    pool = min(100, max_num_results * 10) if deduplicate else max_num_results
    hits = search_chunks(
        conn,
        scope,
        query,
        max_num_results=pool,
        score_threshold=score_threshold,
        embedder=embedder,
        notes=notes,
    )
    seen: set[str] = set()
    docs: list[DocumentHit] = []
    info = _file_info(conn, [h.file_id for h in hits])
    for hit in hits:
        if deduplicate and hit.file_id in seen:
            continue
        seen.add(hit.file_id)
        page_count, size = info.get(hit.file_id, (None, 0))
        docs.append(
            DocumentHit(
                file_id=hit.file_id,
                filename=hit.filename,
                vector_store_id=hit.vector_store_id,
                score=hit.score,
                summary=hit.snippet,
                page_count=page_count,
                bytes=size,
                attributes=hit.attributes,
            )
        )
        if len(docs) >= max_num_results:
            break
    return docs


def _file_info(conn: sqlite3.Connection, file_ids: list[str]) -> dict[str, tuple[int | None, int]]:
    ids = list(dict.fromkeys(file_ids))
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    rows = conn.execute(
        f"SELECT f.id, f.paged, f.bytes, (SELECT count(*) FROM pages p WHERE p.file_id = f.id) "
        f"FROM files f WHERE f.id IN ({marks})",
        ids,
    ).fetchall()
    return {str(r[0]): (int(r[3]) if r[1] else None, int(r[2])) for r in rows}


def _all_documents(conn: sqlite3.Connection, scope: Scope, limit: int) -> list[DocumentHit]:
    rows = conn.execute(
        "SELECT f.id, f.filename, m.vector_store_id, m.attributes, f.bytes, f.paged, "
        "(SELECT count(*) FROM pages p WHERE p.file_id = f.id), substr(t.text, 1, 2000) "
        "FROM membership m JOIN files f ON f.id = m.file_id "
        "JOIN file_texts t ON t.file_id = f.id "
        f"WHERE {scope.sql} GROUP BY f.id ORDER BY f.filename, f.id LIMIT ?",
        (*scope.params, limit),
    ).fetchall()
    return [
        DocumentHit(
            file_id=str(r[0]),
            filename=str(r[1]),
            vector_store_id=str(r[2]),
            score=1.0,
            summary=make_snippet(str(r[7]), None, _SUMMARY_CHARS),
            page_count=int(r[6]) if r[5] else None,
            bytes=int(r[4]),
            attributes=parse_attributes(r[3]),
        )
        for r in rows
    ]


def read_file(conn: sqlite3.Connection, file_id: str) -> FileText:
    """A document's whole extracted text with its pages."""
    row = conn.execute(
        "SELECT f.filename, f.paged, t.text FROM files f JOIN file_texts t ON t.file_id = f.id "
        "WHERE f.id = ?",
        (file_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no file with id {file_id!r}")
    filename, paged, text = str(row[0]), bool(row[1]), str(row[2])
    pages = [
        Page(number=int(n), text=text[s:e], char_start=int(s), char_end=int(e))
        for n, s, e in conn.execute(
            "SELECT number, char_start, char_end FROM pages WHERE file_id = ? ORDER BY number",
            (file_id,),
        )
    ]
    return FileText(file_id=file_id, filename=filename, text=text, paged=paged, pages=pages)


def read_pages(
    conn: sqlite3.Connection, file_id: str, start_page: int, end_page: int | None = None
) -> list[Page]:
    """Pages ``start_page..end_page`` (1-based, inclusive) of a document."""
    doc = read_file(conn, file_id)
    last = doc.page_count
    end = start_page if end_page is None else end_page
    if start_page < 1 or end < start_page or end > last:
        raise UsageError(
            f"page range {start_page}-{end} is outside {doc.filename!r}, which has "
            f"{last} page{'s' if last != 1 else ''} (1-{last})"
        )
    return doc.pages[start_page - 1 : end]
