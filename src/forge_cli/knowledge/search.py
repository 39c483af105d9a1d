"""Chunk search over vector stores: BM25 through FTS5, optionally fused with dense vectors.

Scores are normalised to 0..1 (higher is better) so a ``score_threshold`` means the same for every
query: BM25 uses ``s / (s + k)``; with an embedder the BM25 and cosine rankings are fused by
weighted reciprocal rank fusion (``scoring.py``) and divided by the best possible fused score.
When the embedder fails at search time the search still answers from BM25 alone and says so in
a note (see :func:`search_chunks`).
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import struct
from collections.abc import Iterable, Mapping, Sequence

from forge_cli.errors import ForgeError, NotFoundError, UsageError
from forge_cli.knowledge.embed._numpy import prepare as prepare_numpy
from forge_cli.knowledge.embed.dense import dense_index, model_id
from forge_cli.knowledge.embed.embedder import Embedder, embed_packed, embedder_name
from forge_cli.knowledge.filters import compile_filter, parse_filter
from forge_cli.knowledge.models import SearchHit
from forge_cli.knowledge.query import STOPWORDS, query_terms, search_terms
from forge_cli.knowledge.ranking import Scope, bm25_ranking, plan_match, term_idf
from forge_cli.knowledge.scoring import (
    DEFAULT_FUSION,
    Fusion,
    diversify,
    document_boost,
    fuse,
    ranked,
    term_alignment,
)

__all__ = [
    "MAX_RESULTS",
    "Scope",
    "check_limits",
    "make_snippet",
    "parse_attributes",
    "resolve_scope",
    "search_chunks",
    "snippet_pattern",
]

MAX_RESULTS = 100
BM25_HALF_SCORE = 4.0
"""The BM25 score that normalises to 0.5; typical multi-term matches score 3–15."""
_KEYWORD_POOL = 3
"""A keyword-only search ranks this many times ``max_num_results`` candidates."""
_SNIPPET_CHARS = 240
_WORD = re.compile(r"\w+")
_log = logging.getLogger(__name__)


def resolve_scope(
    conn: sqlite3.Connection, vector_store_ids: Sequence[str], filters: object | None
) -> Scope:
    """Validate store ids (they must exist) and filters, and return the membership condition."""
    if isinstance(vector_store_ids, str):
        vector_store_ids = [vector_store_ids]
    ids = tuple(dict.fromkeys(vector_store_ids))
    if not ids:
        raise UsageError("no vector store given to search")
    marks = ", ".join("?" for _ in ids)
    found = {
        row[0] for row in conn.execute(f"SELECT id FROM vector_stores WHERE id IN ({marks})", ids)
    }
    for vs_id in ids:
        if vs_id not in found:
            raise NotFoundError(f"no vector store with id {vs_id!r}")
    sql = f"m.vector_store_id IN ({marks})"
    params: list[object] = list(ids)
    if filters is not None:
        filter_sql, filter_params = compile_filter(parse_filter(filters), "m.attributes")
        sql += f" AND ({filter_sql})"
        params.extend(filter_params)
    return Scope(vector_store_ids=ids, sql=sql, params=tuple(params))


def check_limits(max_num_results: int, score_threshold: float | None) -> None:
    """Reject result counts and thresholds outside their ranges."""
    if isinstance(max_num_results, bool) or not 1 <= max_num_results <= MAX_RESULTS:
        raise UsageError(f"max_num_results must be between 1 and {MAX_RESULTS}")
    if score_threshold is not None and not 0.0 <= score_threshold <= 1.0:
        raise UsageError("score_threshold must be between 0 and 1")


def search_chunks(
    conn: sqlite3.Connection,
    scope: Scope,
    query: str,
    *,
    max_num_results: int,
    score_threshold: float | None = None,
    embedder: Embedder | None = None,
    notes: list[str] | None = None,
    fusion: Fusion = DEFAULT_FUSION,
) -> list[SearchHit]:
    """The best chunks for ``query`` within ``scope``, best first.

    With an embedder whose model has vectors in the store, the BM25 and dense rankings are
    fused (``fusion``); otherwise the ranking is BM25 alone and the embedder is never called
    (so a keyword-only store never loads a model). If the embedder fails, the ranking is BM25
    alone and a one-line note saying so is appended to ``notes`` (and logged as a warning): a
    broken embeddings endpoint degrades search, it does not break it.
    """
    check_limits(max_num_results, score_threshold)
    # More candidates than results, so a page that fills the top places with many passages
    # leaves room for the next pages (``scoring.diversify``).
    pool = max(max_num_results, fusion.pool) if embedder else max_num_results * _KEYWORD_POOL
    plan = plan_match(conn, search_terms(query))
    bm25 = bm25_ranking(conn, scope, plan, pool) if plan is not None else []
    dense = _dense_ranking(conn, scope, query, pool, embedder, notes) if embedder else []
    if dense:
        rankings = [[c for c, _ in bm25], [c for c, _ in dense]]
        weights = [fusion.keyword_weight, fusion.dense_weight]
        if fusion.alignment_weight > 0 and embedder is not None:
            candidates = list(dict.fromkeys(c for ranking in rankings for c in ranking))
            aligned = _alignment_ranking(conn, query, candidates, embedder, fusion)
            if aligned:
                rankings.append(aligned)
                weights.append(fusion.alignment_weight)
        fused = fuse(rankings, weights, fusion.k)
        if fusion.document_weight > 0:
            fused = document_boost(fused, _documents(conn, fused), fusion.document_weight)
        scores = ranked(fused)
    else:
        scores = [(chunk_id, s / (s + BM25_HALF_SCORE)) for chunk_id, s in bm25]
    if score_threshold is not None:
        scores = [(c, s) for c, s in scores if s >= score_threshold]
    if len(scores) > 1:
        scores = diversify(scores, _documents(conn, (c for c, _ in scores)), max_num_results)
    return _hits(conn, scope, scores, query)


def _documents(conn: sqlite3.Connection, chunk_ids: Iterable[int]) -> dict[int, str]:
    ids = list(chunk_ids)
    marks = ", ".join("?" for _ in ids)
    rows = conn.execute(f"SELECT id, file_id FROM chunks WHERE id IN ({marks})", ids)
    return {int(r[0]): str(r[1]) for r in rows}


def _alignment_ranking(
    conn: sqlite3.Connection,
    query: str,
    candidates: list[int],
    embedder: Embedder,
    fusion: Fusion,
) -> list[int]:
    """The candidates ranked by :func:`scoring.term_alignment` (empty when not available).

    Needs an embedder with word vectors (the embedded model's ``word_vectors``); a failure
    drops this ranking, never the search.
    """
    word_vectors = getattr(embedder, "word_vectors", None)
    terms = search_terms(query)
    if not callable(word_vectors) or not terms or not candidates:
        return []
    marks = ", ".join("?" for _ in candidates)
    texts = {
        int(row[0]): f"{row[1]}\n{row[2]}"
        for row in conn.execute(
            f"SELECT id, heading, text FROM chunks WHERE id IN ({marks})", candidates
        )
    }
    vocabulary: dict[str, int] = {}
    members: list[list[int]] = []
    for chunk_id in candidates:
        words = _WORD.findall(texts.get(chunk_id, ""))
        members.append(
            list(
                dict.fromkeys(
                    vocabulary.setdefault(w, len(vocabulary))
                    for w in words
                    if w.lower() not in STOPWORDS
                )
            )
        )
    try:
        prepare_numpy()
        import numpy as np

        term_vectors = np.asarray(word_vectors(terms), dtype=np.float32)
        word_matrix = np.asarray(word_vectors(list(vocabulary)), dtype=np.float32)
        scores = term_alignment(
            term_vectors, term_idf(conn, terms), word_matrix, members, fusion.alignment_floor
        )
    except Exception as exc:  # degrade to the two other rankings, never fail the search
        _log.warning("knowledge search: term alignment unavailable (%s)", exc)
        return []
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return [candidates[i] for i in order if scores[i] > 0]


def _dense_ranking(
    conn: sqlite3.Connection,
    scope: Scope,
    query: str,
    limit: int,
    embedder: Embedder,
    notes: list[str] | None,
) -> list[tuple[int, float]]:
    if not query.strip():
        return []
    model = model_id(conn, embedder_name(embedder))
    index = dense_index(conn, model) if model is not None else None
    if index is None:
        return []
    # A bag-of-words model (one with ``embed_array``) gets the query's topic words only; a
    # contextual model gets the question as asked.
    text = (
        " ".join(search_terms(query)) if callable(getattr(embedder, "embed_array", None)) else query
    )
    try:
        dim, blobs = embed_packed(embedder, [text or query])
    except Exception as exc:  # any embedder failure: degrade to BM25, never fail the search
        reason = exc.one_line() if isinstance(exc, ForgeError) else f"{type(exc).__name__}: {exc}"
        note = f"dense retrieval unavailable ({reason}); results are ranked by BM25 alone"
        _log.warning("knowledge search: %s", note)
        if notes is not None:
            notes.append(note)
        return []
    if dim != index.dim or not any(struct.unpack(f"<{dim}f", blobs[0])):
        return []
    allowed = {
        str(row[0])
        for row in conn.execute(
            f"SELECT DISTINCT m.file_id FROM membership m WHERE {scope.sql}", scope.params
        )
    }
    return index.top(blobs[0], limit, allowed)


def _hits(
    conn: sqlite3.Connection, scope: Scope, scores: list[tuple[int, float]], query: str
) -> list[SearchHit]:
    if not scores:
        return []
    marks = ", ".join("?" for _ in scores)
    rows = conn.execute(
        "SELECT c.id, c.file_id, f.filename, c.page, c.text, c.ordinal, c.char_start, "
        "c.char_end, c.heading, m.vector_store_id, m.attributes "
        # CROSS JOIN fixes the loop order: look the few chunks up by id first. Left to itself,
        # the planner may walk every membership of the store instead (10 ms at 50k chunks).
        "FROM chunks c CROSS JOIN files f CROSS JOIN membership m "
        f"WHERE c.id IN ({marks}) AND f.id = c.file_id AND m.file_id = c.file_id "
        f"AND {scope.sql} ORDER BY m.vector_store_id",
        (*(c for c, _ in scores), *scope.params),
    ).fetchall()
    by_id: dict[int, tuple[object, ...]] = {}
    for row in rows:
        by_id.setdefault(int(row[0]), tuple(row))
    pattern = snippet_pattern(query)
    hits: list[SearchHit] = []
    for chunk_id, score in scores:
        row = by_id.get(chunk_id)
        if row is None:
            continue
        _, file_id, filename, page, text, ordinal, start, end, heading, vs_id, attrs = row
        assert isinstance(text, str)
        hits.append(
            SearchHit(
                file_id=str(file_id),
                filename=str(filename),
                vector_store_id=str(vs_id),
                page=page if isinstance(page, int) else None,
                score=round(min(1.0, max(0.0, score)), 6),
                text=text,
                snippet=make_snippet(text, pattern),
                ordinal=int(str(ordinal)),
                char_start=int(str(start)),
                char_end=int(str(end)),
                heading=str(heading) or None,
                attributes=parse_attributes(attrs),
            )
        )
    return hits


def parse_attributes(raw: object) -> dict[str, str | int | float | bool]:
    """Membership attributes from their stored JSON (an empty dict when absent)."""
    value = json.loads(str(raw)) if raw else {}
    return dict(value) if isinstance(value, Mapping) else {}


def snippet_pattern(query: str) -> re.Pattern[str] | None:
    """A regex finding the query's words (by stem-ish prefix) in chunk text."""
    stems = [re.escape(t[: max(4, len(t) - 3)]) for t in query_terms(query)]
    if not stems:
        return None
    return re.compile(r"\b(?:" + "|".join(sorted(stems, key=len, reverse=True)) + ")", re.I)


def make_snippet(text: str, pattern: re.Pattern[str] | None, size: int = _SNIPPET_CHARS) -> str:
    """A short, single-line excerpt of ``text`` around the first match of ``pattern``."""
    match = pattern.search(text) if pattern is not None else None
    start = max(0, match.start() - size // 4) if match else 0
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < (match.start() if match else start + 20) else start
    end = min(len(text), start + size)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    excerpt = " ".join(text[start:end].split())
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    return f"{prefix}{excerpt}{suffix}"
