"""Dense embeddings: the :class:`Embedder` seam and the vector arithmetic the store needs.

The knowledge layer never speaks HTTP; an embedder (for example
``forge_cli.backends.embeddings.OpenAIEmbedder``) is handed in by the caller.
"""

from __future__ import annotations

import math
from array import array
from typing import Protocol, runtime_checkable

from forge_cli.errors import KnowledgeError

__all__ = [
    "RRF_K",
    "Embedder",
    "checked_embed",
    "normalise",
    "pack",
    "reciprocal_rank_fusion",
    "unpack",
]

RRF_K = 60
"""The usual reciprocal rank fusion constant (Cormack et al.)."""


@runtime_checkable
class Embedder(Protocol):
    """Something that turns texts into vectors, one per text, all of the same length."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts``; the result has one vector per text, in order."""
        ...


def normalise(vector: list[float]) -> list[float]:
    """The unit vector along ``vector`` (so cosine similarity becomes a dot product)."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if norm == 0.0 or not math.isfinite(norm):
        raise KnowledgeError("the embedder returned a zero or non-finite vector")
    return [x / norm for x in vector]


def pack(vector: list[float]) -> bytes:
    """Store a vector compactly as float32 bytes."""
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> array[float]:
    """Read back a vector written by :func:`pack`."""
    values = array("f")
    values.frombytes(blob)
    return values


def checked_embed(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Call the embedder and check it kept its promise (one vector per text, equal sizes)."""
    vectors = embedder.embed(texts)
    if len(vectors) != len(texts):
        raise KnowledgeError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
    dims = {len(v) for v in vectors}
    if len(dims) > 1 or 0 in dims:
        raise KnowledgeError("the embedder returned vectors of different or zero length")
    return [normalise(list(v)) for v in vectors]


def reciprocal_rank_fusion(rankings: list[list[int]], k: int = RRF_K) -> dict[int, float]:
    """Fuse ranked id lists: each id scores ``sum(1 / (k + rank))`` over the lists it is in.

    Scores are normalised to 0..1 by the best possible score (first in every list).
    """
    if not rankings:
        return {}
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    best = len(rankings) / (k + 1)
    return {item: min(1.0, score / best) for item, score in fused.items()}
