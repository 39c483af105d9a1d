"""BM25 candidates from the FTS5 index, with a bounded amount of scoring work per query.

FTS5 computes ``bm25()`` row by row (about a microsecond each, most of it reading the row's
column sizes), so the cost of a query is the number of chunks it has to score. Two rules keep
that number small without changing what a good query finds:

* **Rarest terms first, within a budget.** Each term's document frequency is counted (capped,
  which is cheap). Terms are taken rarest first; a term found in more than 10% of the chunks is
  dropped when a rarer one remains (its IDF is near zero), and so is a term that would push the
  number of chunks to score past :data:`SCORING_BUDGET`.
* **A window for hopeless queries.** When even the rarest term matches more than the budget (every
  word is very common), BM25 can barely tell those chunks apart; only the most recently added
  :data:`WINDOW_ROWS` matching chunks are scored.

Small stores (up to the budget) skip all of this: every term is kept and every match scored.
Ranking uses ``ORDER BY bm25(...) LIMIT n``, which lets SQLite keep a small top-n heap; FTS5's own
``ORDER BY rank`` sorts every match first and is a third slower.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

from forge_cli.knowledge.query import build_match_query

__all__ = [
    "BM25_WEIGHTS",
    "SCORING_BUDGET",
    "WINDOW_ROWS",
    "MatchPlan",
    "Scope",
    "bm25_ranking",
    "plan_match",
    "term_idf",
]

SCORING_BUDGET = 6_000
"""The most chunks one query scores with ``bm25()`` (a few ms of SQLite work)."""
WINDOW_ROWS = 3_000
"""How many of the most recent matches a query of only very common words scores."""
BM25_WEIGHTS = "1.5, 1.0, 1.0"
"""Column weights of ``bm25()``: heading path 1.5, chunk text 1, document lead 1 (BM25F-like:
each column has its own length normalisation and weight)."""
_COMMON_FRACTION = 0.10
_COMMON_MIN_ROWS = 500
_OVERFETCH = 4
_BM25 = f"bm25(chunks_fts, {BM25_WEIGHTS})"


@dataclass(frozen=True, slots=True)
class Scope:
    """Which memberships a search may see: a SQL condition over ``membership m``."""

    vector_store_ids: tuple[str, ...]
    sql: str
    params: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """The FTS5 expression to rank and the lowest chunk id worth scoring (0: all)."""

    match: str
    min_rowid: int
    terms: tuple[str, ...]


def _count(conn: sqlite3.Connection, match: str, cap: int) -> int:
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
        (match, cap),
    ).fetchone()
    return int(row[0])


def _window_start(conn: sqlite3.Connection, match: str, budget: int) -> int:
    """The chunk id from which on ``match`` has ``budget`` matches (0 when it has fewer)."""
    row = conn.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC "
        "LIMIT 1 OFFSET ?",
        (match, budget - 1),
    ).fetchone()
    return 0 if row is None else int(row[0])


def plan_match(
    conn: sqlite3.Connection,
    terms: list[str],
    budget: int = SCORING_BUDGET,
    window: int = WINDOW_ROWS,
) -> MatchPlan | None:
    """Choose the terms to rank by (rarest first, within ``budget``) and the scoring window."""
    if not terms:
        return None
    total = int(conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
    if total <= budget:
        match = build_match_query(" ".join(terms))
        return None if match is None else MatchPlan(match, 0, tuple(terms))
    common = max(_COMMON_MIN_ROWS, int(total * _COMMON_FRACTION))
    cap = max(common, budget) + 1
    freqs = {t: _count(conn, build_match_query(t) or '""', cap) for t in terms}
    ordered = sorted(terms, key=lambda t: freqs[t])
    kept, spent = [ordered[0]], freqs[ordered[0]]
    for term in ordered[1:]:
        if freqs[term] > common or spent + freqs[term] > budget:
            break
        kept.append(term)
        spent += freqs[term]
    match = build_match_query(" ".join(kept))
    if match is None:
        return None
    start = _window_start(conn, match, window) if spent > budget else 0
    return MatchPlan(match, start, tuple(kept))


def term_idf(conn: sqlite3.Connection, terms: list[str]) -> list[float]:
    """The IDF of each term over the indexed chunks, from FTS5 match counts.

    ``log(1 + (N - df + 0.5) / (df + 0.5))``; counts stop at a quarter of the chunks (beyond
    that a term's weight hardly moves), which bounds the work on a large store.
    """
    total = int(conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
    cap = max(2_000, total // 4)
    weights = []
    for term in terms:
        match = build_match_query(term)
        df = _count(conn, match, cap) if match is not None else 0
        weights.append(math.log(1.0 + (total - df + 0.5) / (df + 0.5)))
    return weights


def bm25_ranking(
    conn: sqlite3.Connection, scope: Scope, plan: MatchPlan, limit: int
) -> list[tuple[int, float]]:
    """The best ``limit`` chunks in ``scope`` for ``plan`` as (chunk id, BM25 score ≥ 0).

    Fast path: FTS5's top ``4 × limit`` over the whole index, then the scope filter. When the
    filter leaves too few and more matches exist, the query is re-run with the scope inside.
    """
    inner = limit * _OVERFETCH
    ranked = conn.execute(
        f"SELECT rowid, {_BM25} AS score FROM chunks_fts WHERE chunks_fts MATCH ? "
        "AND rowid >= ? ORDER BY score LIMIT ?",
        (plan.match, plan.min_rowid, inner),
    ).fetchall()
    if not ranked:
        return []
    marks = ", ".join("?" for _ in ranked)
    # EXISTS keeps the loop order: the few ranked chunks by id, then their memberships. With
    # ``file_id IN (SELECT …)`` the planner walked every chunk of the store's files once the
    # id list grew past ~100 (8 ms at 50k chunks for 200 ids, against 0.7 ms).
    in_scope = {
        int(row[0])
        for row in conn.execute(
            f"SELECT c.id FROM chunks c WHERE c.id IN ({marks}) AND EXISTS "
            f"(SELECT 1 FROM membership m WHERE m.file_id = c.file_id AND {scope.sql})",
            (*(r[0] for r in ranked), *scope.params),
        )
    }
    rows = [(int(r[0]), float(r[1])) for r in ranked if int(r[0]) in in_scope]
    if len(rows) < limit and len(ranked) == inner:
        rows = _ranking_in_scope(conn, scope, plan.match, limit)
    return [(chunk_id, max(0.0, -score)) for chunk_id, score in rows[:limit]]


def _ranking_in_scope(
    conn: sqlite3.Connection, scope: Scope, match: str, limit: int
) -> list[tuple[int, float]]:
    """Rank with the scope inside the query (for a store holding few of the matches)."""
    where = (
        "chunks_fts MATCH ? AND c.file_id IN "
        f"(SELECT m.file_id FROM membership m WHERE {scope.sql})"
    )
    window = conn.execute(
        f"SELECT c.id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE {where} "
        "ORDER BY chunks_fts.rowid DESC LIMIT 1 OFFSET ?",
        (match, *scope.params, SCORING_BUDGET - 1),
    ).fetchone()
    start = 0 if window is None else int(window[0])
    rows = conn.execute(
        f"SELECT c.id, {_BM25} AS score FROM chunks_fts JOIN chunks c "
        f"ON c.id = chunks_fts.rowid WHERE {where} AND chunks_fts.rowid >= ? "
        "ORDER BY score LIMIT ?",
        (match, *scope.params, start, limit),
    ).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]
