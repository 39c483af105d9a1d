"""Dense retrieval over the SQLite store: the vectors of one model, held in memory for search.

Scoring 50,000 vectors row by row from SQLite would take far longer than a search may, so the
vectors of a model are read once into one numpy matrix per connection and reused until the
store changes (the model's ``generation`` moves). The ranking itself is
:func:`forge_cli.knowledge.scoring.dense_top`, which knows nothing about SQLite.

A small store (at most :data:`SMALL_ROWS` vectors) searched by a process that has not imported
numpy is scored in plain Python instead (:class:`SmallDenseIndex`): importing numpy costs more
than scoring a few thousand vectors, and ``forge vs search`` is one query in a fresh process.
Both score the same cosines (the Python sums are exact to double precision, numpy's to float32)
and order them the same way, best first, ties by row.
"""

from __future__ import annotations

import sqlite3
import struct
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from forge_cli.errors import KnowledgeError
from forge_cli.knowledge.embed._numpy import prepare as prepare_numpy
from forge_cli.knowledge.scoring import coarse_matrix, dense_top

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "SMALL_ROWS",
    "DenseIndex",
    "SmallDenseIndex",
    "bump_generation",
    "dense_index",
    "ensure_model",
    "model_id",
]

SMALL_ROWS = 2_000
"""Up to this many vectors, a process without numpy scores them in Python (see above)."""


@dataclass(frozen=True, slots=True)
class DenseIndex:
    """The vectors of one model: row ``i`` of ``matrix`` is chunk ``chunk_ids[i]``."""

    key: int
    chunk_ids: npt.NDArray[np.int64]
    file_rows: npt.NDArray[np.int32]
    files: dict[str, int]
    matrix: npt.NDArray[np.float32]
    coarse: npt.NDArray[np.float32] | None

    @property
    def dim(self) -> int:
        """The vectors' dimension."""
        return int(self.matrix.shape[1])

    def top(
        self, packed: bytes, limit: int, allowed_files: set[str] | None
    ) -> list[tuple[int, float]]:
        """The ``limit`` chunks nearest to the packed float32 ``query`` as (chunk id, cosine),
        best first."""
        prepare_numpy()
        import numpy as np

        query = np.frombuffer(packed, dtype=np.float32)
        if query.shape[0] != self.matrix.shape[1]:
            return []
        mask = None
        if allowed_files is not None and len(allowed_files) < len(self.files):
            rows = [self.files[f] for f in allowed_files if f in self.files]
            if not rows:
                return []
            mask = np.isin(self.file_rows, np.asarray(rows, dtype=np.int32))
        found = dense_top(self.matrix, query, limit, mask, self.coarse)
        return [(int(self.chunk_ids[i]), s) for i, s in found]


@dataclass(frozen=True, slots=True)
class SmallDenseIndex:
    """The vectors of one model in a small store, as Python floats: row ``i`` is chunk
    ``chunk_ids[i]`` of file ``file_ids[i]``."""

    key: int
    chunk_ids: list[int]
    file_ids: list[str]
    rows: list[tuple[float, ...]]
    dim: int

    def top(
        self, packed: bytes, limit: int, allowed_files: set[str] | None
    ) -> list[tuple[int, float]]:
        """As :meth:`DenseIndex.top`."""
        if len(packed) != self.dim * 4 or limit <= 0:
            return []
        query = struct.unpack(f"<{self.dim}f", packed)
        scored = [
            (-sum(map(float.__mul__, query, row)), i)
            for i, row in enumerate(self.rows)
            if allowed_files is None or self.file_ids[i] in allowed_files
        ]
        scored.sort()
        return [(self.chunk_ids[i], -negative) for negative, i in scored[:limit]]


AnyDenseIndex = DenseIndex | SmallDenseIndex

_CACHE_SIZE = 4
_cache: OrderedDict[tuple[int, int], tuple[sqlite3.Connection, AnyDenseIndex]] = OrderedDict()
"""(id of the connection, model) -> (the connection, its vectors), least recently used first.
sqlite3 connections cannot be weakly referenced; the few most recent are kept instead."""
_cache_lock = threading.Lock()


def model_id(conn: sqlite3.Connection, name: str) -> int | None:
    """The id under which vectors of the model ``name`` are stored (None: there are none)."""
    row = conn.execute("SELECT id FROM embedding_models WHERE name = ?", (name,)).fetchone()
    return None if row is None else int(row[0])


def ensure_model(conn: sqlite3.Connection, name: str, dim: int) -> int:
    """The id of model ``name``, registering it; a model's dimension may never change."""
    row = conn.execute("SELECT id, dim FROM embedding_models WHERE name = ?", (name,)).fetchone()
    if row is None:
        cursor = conn.execute("INSERT INTO embedding_models (name, dim) VALUES (?, ?)", (name, dim))
        return int(cursor.lastrowid or 0)
    if int(row[1]) != dim:
        raise KnowledgeError(
            f"the embedding model {name!r} returned {dim}-dimension vectors, but the store "
            f"holds {int(row[1])}-dimension ones for it",
            hint="give the model another name, or re-embed with `forge vs reembed --all`",
        )
    return int(row[0])


def bump_generation(conn: sqlite3.Connection, model: int) -> None:
    """Mark the vectors of ``model`` as changed (in-memory copies reload)."""
    conn.execute("UPDATE embedding_models SET generation = generation + 1 WHERE id = ?", (model,))


def _key(conn: sqlite3.Connection, model: int) -> int:
    """The model's generation (-1: unknown model); it changes with every write of its vectors."""
    row = conn.execute("SELECT generation FROM embedding_models WHERE id = ?", (model,)).fetchone()
    return -1 if row is None else int(row[0])


def dense_index(conn: sqlite3.Connection, model: int) -> AnyDenseIndex | None:
    """The in-memory vectors of ``model`` (read from the store when missing or stale)."""
    key = _key(conn, model)
    if key < 0:
        return None
    slot = (id(conn), model)
    with _cache_lock:
        entry = _cache.get(slot)
        if entry is not None and entry[0] is conn and entry[1].key == key:
            _cache.move_to_end(slot)
            return entry[1]
    index: AnyDenseIndex | None = None
    if "numpy" not in sys.modules:
        index = _load_small(conn, model, key)
    if index is None:
        index = _load(conn, model, key)
    if index is None:
        return None
    with _cache_lock:
        _cache[slot] = (conn, index)
        _cache.move_to_end(slot)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return index


_VECTORS = (
    "SELECT e.chunk_id, c.file_id, e.vector FROM embeddings e "
    "JOIN chunks c ON c.id = e.chunk_id WHERE e.model_id = ? ORDER BY e.chunk_id"
)


def _dim(conn: sqlite3.Connection, model: int) -> int:
    return int(
        conn.execute("SELECT dim FROM embedding_models WHERE id = ?", (model,)).fetchone()[0]
    )


def _load_small(conn: sqlite3.Connection, model: int, key: int) -> SmallDenseIndex | None:
    """The vectors as Python floats, or ``None`` when there are more than :data:`SMALL_ROWS`."""
    rows: list[Any] = conn.execute(f"{_VECTORS} LIMIT ?", (model, SMALL_ROWS + 1)).fetchall()
    if len(rows) > SMALL_ROWS:
        return None
    dim = _dim(conn, model)
    rows = [r for r in rows if len(r[2]) == dim * 4]
    unpack = struct.Struct(f"<{dim}f").unpack
    return SmallDenseIndex(
        key,
        [int(r[0]) for r in rows],
        [str(r[1]) for r in rows],
        [unpack(r[2]) for r in rows],
        dim,
    )


def _load(conn: sqlite3.Connection, model: int, key: int) -> DenseIndex | None:
    prepare_numpy()
    import numpy as np

    rows: list[Any] = conn.execute(_VECTORS, (model,)).fetchall()
    dim = _dim(conn, model)
    rows = [r for r in rows if len(r[2]) == dim * 4]
    if not rows:
        return None
    files: dict[str, int] = {}
    file_rows = np.fromiter(
        (files.setdefault(str(r[1]), len(files)) for r in rows), dtype=np.int32, count=len(rows)
    )
    chunk_ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dim)
    return DenseIndex(key, chunk_ids, file_rows, files, matrix, coarse_matrix(matrix))
