"""One query through the embedded WordLlama model without numpy, ``tokenizers`` or a JSON parse.

``forge vs search`` embeds one short query. The batch path (:mod:`.local_embedding`) imports numpy
(50-100 ms), parses the 1.8 MB tokenizer file (45 ms) and, for a word that is not one vocabulary
entry, builds the ``tokenizers`` tokenizer (80 ms): far more than the search itself. Here the
query's few words are looked up directly in the tokenizer file's bytes (its ``vocab`` map and its
``merges`` list, which is in rank order, so a merge's byte offset orders it like its rank), a word
that is not one entry is split by the same byte-pair merges the ``tokenizers`` BPE model applies,
and the few embedding rows needed are read from the float16 table with ``struct``.

The arithmetic is numpy's, step by step, in float32 (every sum and product rounded to float32,
the norm's sum of squares in numpy's pairwise order), so the vector is bit-for-bit the one
:meth:`LocalEmbedder.embed_array <forge_cli.knowledge.embed.local.LocalEmbedder.embed_array>`
returns (tests/knowledge/test_local_query.py compares both). Anything unexpected in the files
returns ``None``, and the caller takes the numpy path.
"""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path

__all__ = ["QueryTokenizer", "embed_query"]

_F32 = struct.Struct("<f")
_BLOCK = 128
"""numpy's pairwise-summation block (``PW_BLOCKSIZE``)."""
_KEY_START = b" \n\r\t{,"
_MERGE_START = b" \n\r\t[,"
_DIGITS = re.compile(rb"\d+")


def _f32(value: float) -> float:
    """``value`` rounded to float32 (round to nearest even)."""
    result: float = _F32.unpack(_F32.pack(value))[0]
    return result


def _round_all(values: list[float]) -> list[float]:
    packed = struct.pack(f"<{len(values)}f", *values)
    return list(struct.unpack(f"<{len(values)}f", packed))


def _pairwise_sum(values: list[float]) -> float:
    """numpy's float32 ``add.reduce`` over a contiguous row (``pairwise_sum`` in its loops)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for value in values:
            total = _f32(total + value)
        return total
    if n <= _BLOCK:
        acc = list(values[:8])
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                acc[j] = _f32(acc[j] + values[i + j])
            i += 8
        left = _f32(_f32(acc[0] + acc[1]) + _f32(acc[2] + acc[3]))
        right = _f32(_f32(acc[4] + acc[5]) + _f32(acc[6] + acc[7]))
        total = _f32(left + right)
        for value in values[i:]:
            total = _f32(total + value)
        return total
    half = n // 2
    half -= half % 8
    return _f32(_pairwise_sum(values[:half]) + _pairwise_sum(values[half:]))


class QueryTokenizer:
    """Token ids of single words from the tokenizer file's bytes (a byte-pair-encoding model)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._vocab_at = data.find(b'"vocab": {')
        self._merges_at = data.find(b'"merges": [', max(self._vocab_at, 0))
        self._ids: dict[str, int | None] = {}
        self._ranks: dict[tuple[str, str], int | None] = {}

    @classmethod
    def load(cls, path: Path) -> QueryTokenizer | None:
        """The tokenizer of ``path``, or ``None`` when it is not the BPE model we expect."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        tokenizer = cls(data)
        head = data[: max(tokenizer._vocab_at, 0)]
        expected = (b'"type": "BPE"', b'"byte_fallback": true', b'"prepend": "\xe2\x96\x81"')
        if tokenizer._vocab_at < 0 or tokenizer._merges_at < 0:
            return None
        if not all(marker in head for marker in expected) or b'"dropout": null' not in head:
            return None
        return tokenizer

    def token_id(self, piece: str) -> int | None:
        """The id of vocabulary entry ``piece`` (``None``: not an entry)."""
        if piece in self._ids:
            return self._ids[piece]
        key = json.dumps(piece, ensure_ascii=False).encode() + b": "
        found: int | None = None
        # Single characters come last in a BPE vocabulary (merged pieces are listed by rank
        # before them): look for them from the end.
        backwards = len(piece) == 1
        start, end = self._vocab_at, self._merges_at
        at = self._data.rfind(key, start, end) if backwards else self._data.find(key, start, end)
        while at >= 0:
            if self._data[at - 1] in _KEY_START:
                digits = _DIGITS.match(self._data, at + len(key))
                found = int(digits.group()) if digits else None
                break
            if backwards:
                at = self._data.rfind(key, start, at)
            else:
                at = self._data.find(key, at + 1, end)
        self._ids[piece] = found
        return found

    def _rank(self, left: str, right: str) -> int | None:
        """Where the merge ``left right`` is listed (earlier merges apply first), or ``None``."""
        pair = (left, right)
        if pair in self._ranks:
            return self._ranks[pair]
        if self.token_id(left + right) is None:  # a merge makes a vocabulary entry
            self._ranks[pair] = None
            return None
        needle = json.dumps(f"{left} {right}", ensure_ascii=False).encode()
        found: int | None = None
        at = self._data.find(needle, self._merges_at)
        while at >= 0:
            after = self._data[at + len(needle) : at + len(needle) + 1]
            if self._data[at - 1] in _MERGE_START and after in (b",", b"\n", b" ", b"]"):
                found = at
                break
            at = self._data.find(needle, at + 1)
        self._ranks[pair] = found
        return found

    def word_ids(self, word: str) -> list[int] | None:
        """The token ids of ``"▁" + word`` as the BPE model encodes it (``None``: unexpected)."""
        symbols: list[str] = []
        fallback: set[int] = set()
        for char in "▁" + word:
            if self.token_id(char) is not None:
                symbols.append(char)
                continue
            for byte in char.encode():  # byte fallback: never merged
                fallback.add(len(symbols))
                symbols.append(f"<0x{byte:02X}>")
        while len(symbols) > 1:
            best: tuple[int, int] | None = None
            for i in range(len(symbols) - 1):
                if i in fallback or i + 1 in fallback:
                    continue
                rank = self._rank(symbols[i], symbols[i + 1])
                if rank is not None and (best is None or rank < best[0]):
                    best = (rank, i)
            if best is None:
                break
            i = best[1]
            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
            fallback = {k - 1 if k > i else k for k in fallback}
        ids = [self.token_id(symbol) for symbol in symbols]
        if any(token is None for token in ids):
            return None
        return [token for token in ids if token is not None]


class _Rows:
    """Rows of the float16 embedding table of a safetensors file, read as needed."""

    def __init__(self, path: Path, tensor: str) -> None:
        with path.open("rb") as handle:
            size = int.from_bytes(handle.read(8), "little")
            header = json.loads(handle.read(size))
        info = header.get(tensor) or {}
        shape = info.get("shape") or []
        if info.get("dtype") != "F16" or len(shape) != 2:
            raise ValueError("unexpected embedding table")
        self.count, self.dim = int(shape[0]), int(shape[1])
        self._start = 8 + size + int(info["data_offsets"][0])
        self._path = path
        self._row = struct.Struct(f"<{self.dim}e")

    def read(self, rows: list[int]) -> list[list[float]]:
        with self._path.open("rb") as handle:
            out = []
            for row in rows:
                handle.seek(self._start + row * self._row.size)
                out.append(list(self._row.unpack(handle.read(self._row.size))))
        return out


def embed_query(
    words: list[str],
    stopwords: frozenset[str],
    tokenizer: QueryTokenizer,
    weights: Path,
    tensor: str,
) -> bytes | None:
    """The packed float32 unit vector of a text made of ``words`` (each a run of ``\\w``).

    As in the batch embedder, a stopword adds nothing, a word that is one vocabulary entry
    (``"▁" + word``) is that row and any other word is the sum of its tokens' rows. ``None`` when
    the files are not what is expected.
    """
    try:
        table = _Rows(weights, tensor)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    word_tokens: dict[str, list[int]] = {}
    for word in dict.fromkeys(words):
        if word.lower() in stopwords:
            continue
        single = tokenizer.token_id("▁" + word)
        if single is not None:
            word_tokens[word] = [single]
            continue
        ids = tokenizer.word_ids(word)
        if ids is None:
            return None
        word_tokens[word] = [min(max(i, 0), table.count - 1) for i in ids]
    needed = sorted({i for ids in word_tokens.values() for i in ids})
    rows = dict(zip(needed, table.read(needed), strict=True))
    zero = [0.0] * table.dim
    vectors: dict[str, list[float]] = {}
    for word, ids in word_tokens.items():
        acc = zero
        for token in ids:  # numpy sums a word's rows in float32, one row after the other
            acc = _round_all([a + b for a, b in zip(acc, rows[token], strict=True)])
        vectors[word] = acc if len(ids) > 1 else rows[ids[0]]
    out = zero
    for word in words:
        vector = vectors.get(word)
        if vector is not None:
            out = _round_all([a + b for a, b in zip(out, vector, strict=True)])
    norm = _f32(math.sqrt(_f32(0.0 + _pairwise_sum(_round_all([x * x for x in out])))))
    if norm == 0.0:
        norm = 1.0
    return struct.pack(f"<{table.dim}f", *[x / norm for x in out])
