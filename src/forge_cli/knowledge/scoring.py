"""Ranking that does not depend on the storage engine: BM25, dense scores and their fusion.

Everything here takes plain numbers and candidate lists -- never a database connection -- so any
store can rank the same way: the SQLite store gets its BM25 scores and term statistics from FTS5
and its vectors from a table; a PostgreSQL store can fetch the same statistics with its own SQL
(its built-in ``ts_rank`` ranks far worse) and call the same functions.

* :func:`bm25` scores one document from term statistics with the formula FTS5 uses (Robertson's
  IDF floored at a tiny positive value, ``k1 = 1.2``, ``b = 0.75``, per-column weights).
* :func:`dense_top` ranks stored unit vectors by cosine similarity to a query vector.
* :func:`term_alignment` rescores the candidates of both rankings by how well each query term
  finds a close word in them (word vectors, IDF-weighted): an optional third ranking for the
  fusion (``Fusion.alignment_weight``; off by default, see ADR-0009).
* :func:`fuse` combines rankings by weighted reciprocal rank fusion (:class:`Fusion`: k = 60,
  dense weighted 2:1), the choice measured best on ``benchmarks/bench_retrieval.py``
  (``docs/adr/0009-hybrid-retrieval.md``).
* :func:`diversify` keeps one long document from filling every result: a document's passages
  beyond the first :data:`PER_DOCUMENT` wait until the other documents' candidates are listed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from forge_cli.knowledge.embed._numpy import prepare as prepare_numpy

if TYPE_CHECKING:  # numpy is imported only by the functions that need it
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "BM25_B",
    "BM25_K1",
    "DEFAULT_FUSION",
    "PER_DOCUMENT",
    "Fusion",
    "TermStats",
    "bm25",
    "coarse_matrix",
    "dense_top",
    "diversify",
    "document_boost",
    "fuse",
    "idf",
    "ranked",
    "term_alignment",
]

BM25_K1 = 1.2
BM25_B = 0.75
_MIN_IDF = 1e-6


@dataclass(frozen=True, slots=True)
class TermStats:
    """One query term in one document: its frequency per column and its document frequency."""

    tf: Sequence[int]
    """Occurrences of the term in each column of the document (e.g. heading, text)."""
    df: int
    """How many documents of the collection contain the term."""


def idf(df: int, n_docs: int) -> float:
    """Robertson/Sparck Jones IDF as FTS5 computes it (never below a tiny positive value)."""
    value = math.log((n_docs - df + 0.5) / (df + 0.5))
    return value if value > 0 else _MIN_IDF


def bm25(
    terms: Sequence[TermStats],
    doc_lengths: Sequence[int],
    avg_lengths: Sequence[float],
    n_docs: int,
    weights: Sequence[float] = (1.0,),
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> float:
    """The BM25 score (higher is better) of one document for the query ``terms``.

    ``doc_lengths``/``avg_lengths`` are token counts per column; ``weights`` weights each column
    (FTS5: ``bm25(fts, 1.5, 1.0)``). Equals minus what FTS5's ``bm25()`` returns.
    """
    score = 0.0
    for term in terms:
        weight_idf = idf(term.df, n_docs)
        for column, tf in enumerate(term.tf):
            if tf <= 0:
                continue
            weight = weights[column] if column < len(weights) else 1.0
            avg = avg_lengths[column] or 1.0
            norm = k1 * (1 - b + b * doc_lengths[column] / avg)
            score += weight * weight_idf * (tf * (k1 + 1)) / (tf + norm)
    return score


COARSE_DIMS = 64
"""Leading dimensions used for the first pass over a large matrix (see :func:`dense_top`)."""
COARSE_MIN_ROWS = 20_000
_RESCORE_MIN = 1_000


def coarse_matrix(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32] | None:
    """The first-pass copy of a large matrix (its leading :data:`COARSE_DIMS` columns).

    Matryoshka-trained models (WordLlama) keep most of their meaning in the leading dimensions,
    and a 64-column copy of 50,000 vectors is small enough to scan in about a millisecond.
    """
    prepare_numpy()
    import numpy as np

    if matrix.shape[0] < COARSE_MIN_ROWS or matrix.shape[1] <= COARSE_DIMS:
        return None
    return np.ascontiguousarray(matrix[:, :COARSE_DIMS])


def dense_top(
    matrix: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    limit: int,
    mask: npt.NDArray[np.bool_] | None = None,
    coarse: npt.NDArray[np.float32] | None = None,
) -> list[tuple[int, float]]:
    """The ``limit`` rows of ``matrix`` (unit vectors) most similar to ``query``, best first.

    Returns (row index, cosine similarity); rows where ``mask`` is False are skipped. With a
    ``coarse`` matrix (:func:`coarse_matrix`), all rows are first scored on its columns and only
    the best ``max(1000, 20 × limit)`` are scored exactly.
    """
    prepare_numpy()
    import numpy as np

    if matrix.shape[0] == 0 or limit <= 0:
        return []
    keep = max(_RESCORE_MIN, 20 * limit)
    if coarse is not None and coarse.shape[0] == matrix.shape[0] and keep < matrix.shape[0]:
        approx = coarse @ query[: coarse.shape[1]]
        if mask is not None:
            approx = np.where(mask, approx, -np.inf)
        rows = np.argpartition(-approx, keep - 1)[:keep]
        rows = rows[np.isfinite(approx[rows])]
        scores = matrix[rows] @ query
    else:
        rows = np.arange(matrix.shape[0])
        scores = matrix @ query
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
    n = min(limit, scores.shape[0])
    if n == 0:
        return []
    top = np.argpartition(-scores, n - 1)[:n] if n < scores.shape[0] else np.arange(n)
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(rows[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


@dataclass(frozen=True, slots=True)
class Fusion:
    """How keyword and dense rankings are fused (weighted reciprocal rank fusion).

    Each candidate scores ``sum(weight / (k + rank))`` over the rankings it appears in; scores
    are divided by the best possible one, so they fall in 0..1.
    """

    k: int = 60
    keyword_weight: float = 1.0
    dense_weight: float = 2.0
    """Dense counts double: measured best MRR@10 and hit@1 on both benchmark corpora."""
    pool: int = 50
    """How many candidates each ranking contributes."""
    alignment_weight: float = 0.0
    """Weight of the term-alignment ranking of the candidates (0: not computed). Off by
    default: it raised MRR@10 on the Python reference but lowered it on Node.js, was flat on
    the held-out git corpus, and triples query time (ADR-0009)."""
    alignment_floor: float = 0.3
    """Word similarities up to this count as no match in :func:`term_alignment`."""
    document_weight: float = 0.0
    """Share of the other candidates of the same document added to a candidate's score."""


DEFAULT_FUSION = Fusion()


def fuse(
    rankings: Sequence[Sequence[int]],
    weights: Sequence[float] | None = None,
    k: int = DEFAULT_FUSION.k,
) -> dict[int, float]:
    """Fuse ranked id lists by weighted reciprocal rank fusion; scores normalised to 0..1."""
    if not rankings:
        return {}
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking is required")
    fused: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    best = sum(weights) / (k + 1)
    if best <= 0:
        return dict.fromkeys(fused, 0.0)
    return {item: min(1.0, score / best) for item, score in fused.items()}


def term_alignment(
    terms: npt.NDArray[np.float32],
    term_weights: Sequence[float],
    words: npt.NDArray[np.float32],
    candidates: Sequence[Sequence[int]],
    floor: float = DEFAULT_FUSION.alignment_floor,
) -> list[float]:
    """How well each candidate's words cover the query terms, one score in 0..1 per candidate.

    ``terms`` holds one unit vector per query term, ``words`` one unit vector per distinct word
    of the candidates, and ``candidates[i]`` the rows of ``words`` that candidate ``i`` contains.
    A term's match in a candidate is its best cosine with one of the candidate's words, counted
    only above ``floor``, and squared (a close synonym counts, a loosely related word barely);
    the score is the mean over terms weighted by ``term_weights`` (their IDF). Unlike one
    vector per chunk, this does not let a long chunk dilute the one sentence that answers
    ("pause" finds "Suspend ... seconds").
    """
    prepare_numpy()
    import numpy as np

    if terms.shape[0] == 0 or words.shape[0] == 0:
        return [0.0] * len(candidates)
    weights = np.asarray(term_weights, dtype=np.float32)
    total = float(weights.sum()) or 1.0
    sims = words @ terms.T
    sims = np.where(sims > floor, np.minimum(sims, 1.0), 0.0) ** 2
    scores: list[float] = []
    for rows in candidates:
        if len(rows) == 0:
            scores.append(0.0)
            continue
        best = sims[np.asarray(rows, dtype=np.int64)].max(axis=0)
        scores.append(float((weights * best).sum()) / total)
    return scores


def ranked(scores: Mapping[int, float]) -> list[tuple[int, float]]:
    """Scores as a list, best first (ties broken by id, so the order is stable)."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def document_boost(
    scores: Mapping[int, float], documents: Mapping[int, str], weight: float
) -> dict[int, float]:
    """Add ``weight`` times the scores of the other candidates from the same document.

    A page with several good passages is more likely the answer than a page with one; the
    result is renormalised to 0..1.
    """
    if weight <= 0 or not scores:
        return dict(scores)
    totals: dict[str, float] = {}
    for item, score in scores.items():
        doc = documents.get(item)
        if doc is not None:
            totals[doc] = totals.get(doc, 0.0) + score
    boosted = {
        item: score + weight * (totals.get(documents.get(item, ""), score) - score)
        for item, score in scores.items()
    }
    best = max(boosted.values())
    return {item: s / best for item, s in boosted.items()} if best > 0 else boosted


PER_DOCUMENT = 3
"""How many passages of one document a result list shows before other documents' passages."""


def diversify(
    scores: Sequence[tuple[int, float]],
    documents: Mapping[int, str],
    limit: int,
    per_document: int = PER_DOCUMENT,
) -> list[tuple[int, float]]:
    """The first ``limit`` of ``scores`` (best first), at most ``per_document`` per document
    while candidates of other documents remain.

    A long page matches a question in many passages; listed by score alone, they can fill
    every result and push the second-best page out of sight. Here a document's passages after
    its first ``per_document`` come after every other candidate (in score order among
    themselves). Scores stay in descending order: a passage moved down is scored no higher
    than the one before it. ``documents`` maps a candidate to its document (an unmapped
    candidate is never moved).
    """
    if limit <= 0:
        return []
    kept: list[tuple[int, float]] = []
    later: list[tuple[int, float]] = []
    counts: dict[str, int] = {}
    for item, score in scores:
        doc = documents.get(item)
        seen = counts.get(doc, 0) if doc is not None else 0
        if doc is None or seen < per_document:
            kept.append((item, score))
            if doc is not None:
                counts[doc] = seen + 1
            if len(kept) == limit:
                break
        else:
            later.append((item, score))
    result: list[tuple[int, float]] = []
    ceiling = math.inf
    for item, score in (kept + later)[:limit]:
        ceiling = min(score, ceiling)
        result.append((item, ceiling))
    return result
