"""Dense embeddings: the :class:`Embedder` seam and the vector arithmetic the store needs.

The knowledge layer never speaks HTTP; an embedder (for example
``forge_cli.backends.embeddings.OpenAIEmbedder``) is handed in by the caller.
"""

from __future__ import annotations

import math
import sys
from array import array
from typing import Protocol, runtime_checkable

from forge_cli.errors import KnowledgeError
from forge_cli.knowledge.embed._numpy import prepare as prepare_numpy
from forge_cli.knowledge.scoring import fuse

__all__ = [
    "RRF_K",
    "Embedder",
    "checked_embed",
    "embed_chunks",
    "embed_packed",
    "embedder_name",
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

    Scores are normalised to 0..1 by the best possible score (first in every list). The
    weighted form is :func:`forge_cli.knowledge.scoring.fuse`.
    """
    return fuse(rankings, k=k)


def embedder_name(embedder: Embedder) -> str:
    """The name vectors of ``embedder`` are stored under (its ``name`` attribute, else its type).

    Vectors of different models are never compared: a search uses only the vectors stored
    under the name of the embedder it runs with.
    """
    name = getattr(embedder, "name", None)
    return name if isinstance(name, str) and name else type(embedder).__name__


def embed_packed(embedder: Embedder, texts: list[str]) -> tuple[int, list[bytes]]:
    """Embed ``texts`` and return (dimension, one packed unit vector per text).

    Uses the embedder's ``embed_array`` (numpy, no per-number Python work) when it has one, as
    :class:`~forge_cli.knowledge.embed.local.LocalEmbedder` does; otherwise
    :func:`checked_embed`.
    """
    if not texts:
        return 0, []
    one = getattr(embedder, "embed_one_packed", None)
    if len(texts) == 1 and callable(one) and "numpy" not in sys.modules:
        packed = one(texts[0])  # a query without importing numpy (``forge vs search``)
        if isinstance(packed, bytes) and packed:
            return len(packed) // 4, [packed]
    embed_array = getattr(embedder, "embed_array", None)
    if callable(embed_array):
        prepare_numpy()
        import numpy as np

        matrix = np.asarray(embed_array(texts), dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or not np.isfinite(matrix).all():
            raise KnowledgeError("the embedder returned vectors of the wrong shape")
        return int(matrix.shape[1]), [row.tobytes() for row in matrix]
    vectors = checked_embed(embedder, texts)
    return len(vectors[0]), [pack(v) for v in vectors]


HEADING_WEIGHT = 1.0
"""How much a chunk's heading path counts against its text in a bag-of-words chunk vector."""
CONTEXT_WEIGHT = 1.0
"""How much the document's lead counts against the chunk text in a bag-of-words chunk vector."""


def embed_chunks(
    embedder: Embedder, chunks: list[tuple[str, str]], contexts: list[str] | None = None
) -> tuple[int, list[bytes]]:
    """Embed ``(heading, text)`` chunks; returns (dimension, one packed unit vector per chunk).

    ``contexts`` holds each chunk's document lead (``chunking.document_context``), if any. A
    contextual model (the remote embedder) gets "lead, heading, text" as one input. A
    bag-of-words model (one with ``embed_array``, such as the local embedder) would let a long
    text drown its short heading path and lead, which say what the page and section are about,
    so there the unit vectors of text, heading (:data:`HEADING_WEIGHT`) and lead
    (:data:`CONTEXT_WEIGHT`) are added; each distinct heading and lead is embedded once.
    Every part is embedded without its markup names (``chunking.strip_markup``).
    """
    if not chunks:
        return 0, []
    from forge_cli.knowledge.chunking import strip_markup  # ingestion only: a search skips it

    leads = contexts if contexts is not None else [""] * len(chunks)
    if len(leads) != len(chunks):
        raise ValueError("one context per chunk is required")
    # Markup names (reST roles and directives) say nothing about the topic (ADR-0009). A
    # document's chunks share its lead and often a heading: each distinct one is cleaned once.
    clean: dict[str, str] = {}
    for label in (*(h for h, _ in chunks), *leads):
        if label not in clean:
            clean[label] = strip_markup(label)
    chunks = [(clean[heading], strip_markup(text)) for heading, text in chunks]
    leads = [clean[lead] for lead in leads]
    embed_array = getattr(embedder, "embed_array", None)
    if not callable(embed_array):
        inputs = [
            "\n\n".join(part for part in (lead, heading, text) if part)
            for (heading, text), lead in zip(chunks, leads, strict=True)
        ]
        return embed_packed(embedder, inputs)
    prepare_numpy()
    import numpy as np

    texts = np.asarray(embed_array([t for _, t in chunks]), dtype=np.float32)
    for weight, labels in ((HEADING_WEIGHT, [h for h, _ in chunks]), (CONTEXT_WEIGHT, leads)):
        distinct = sorted({label for label in labels if label})
        if not distinct:
            continue
        vectors = dict(
            zip(distinct, np.asarray(embed_array(distinct), dtype=np.float32), strict=True)
        )
        for row, label in enumerate(labels):
            if label:
                texts[row] += weight * vectors[label]
    norms = np.linalg.norm(texts, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    texts /= norms
    if not np.isfinite(texts).all():
        raise KnowledgeError("the embedder returned non-finite vectors")
    return int(texts.shape[1]), [row.tobytes() for row in texts]
