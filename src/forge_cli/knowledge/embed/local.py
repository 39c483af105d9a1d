"""The embedded embedding model: WordLlama's 256-dimension token embeddings, fully offline.

The ``wordllama`` wheel ships its weights (``weights/l2_supercat_256.safetensors``) and its
tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``). A text's vector is the mean of its
tokens' embeddings (what ``WordLlama.embed`` computes), normalised to unit length. We read the
two files ourselves instead of importing the ``wordllama`` package: its import pulls in
``requests`` and its download logic, a quarter of a second that a search should not pay, and
its default loader tries the network first.

Nothing heavy is imported until the first :meth:`LocalEmbedder.embed` call: then numpy loads,
the vocabulary is read and the weights are memory-mapped (rows are read as used); the
``tokenizers`` tokenizer is built only for a word that is not a single vocabulary entry, which
most queries never contain.
"""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_cli.errors import KnowledgeError
from forge_cli.knowledge.embed._numpy import prepare as prepare_numpy
from forge_cli.knowledge.query import STOPWORDS

if TYPE_CHECKING:
    from forge_cli.knowledge.local_query import QueryTokenizer

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["LOCAL_MODEL_NAME", "LocalEmbedder", "local_model_available"]

LOCAL_MODEL_NAME = "wordllama/l2_supercat-256"
"""The name stored with each vector this embedder makes (see ``embedding_models``)."""
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"
_WORD_CACHE = 64_000
"""Distinct words whose vectors are remembered (64 MB at most)."""
_WORD = re.compile(r"\w+")
"""A word: a run of letters, digits and underscores (punctuation and markup carry no topic)."""


def _package_dir() -> Path | None:
    spec = importlib.util.find_spec("wordllama")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def local_model_available() -> bool:
    """True when the wordllama wheel and its bundled files are installed."""
    root = _package_dir()
    return root is not None and (root / _WEIGHTS).is_file() and (root / _TOKENIZER).is_file()


def _map_weights(path: Path) -> npt.NDArray[np.float16]:
    """The float16 ``(vocabulary, 256)`` table of a safetensors file, memory-mapped."""
    prepare_numpy()
    import numpy as np

    with path.open("rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    tensor = header.get(_TENSOR) or {}
    shape = tensor.get("shape") or []
    if tensor.get("dtype") != "F16" or len(shape) != 2:
        raise KnowledgeError(f"unexpected embedding weights in {path} ({tensor!r:.80})")
    start = 8 + size + int(tensor["data_offsets"][0])
    return np.memmap(path, dtype=np.float16, mode="r", offset=start, shape=(shape[0], shape[1]))


class LocalEmbedder:
    """Embeds texts with the bundled WordLlama model; no network, no download."""

    name = LOCAL_MODEL_NAME
    dimensions = 256

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._weights: Any = None
        self._word_rows_cache: dict[str, int] = {}
        self._word_vectors: Any = None
        self._vocab: dict[str, int] = {}
        self._word_start: Any = None
        self._query_tokenizer: QueryTokenizer | bool | None = None

    def _load(self) -> npt.NDArray[np.float16]:
        """The token-embedding table, memory-mapped (rows are read as they are used).

        Only the vocabulary is read up front; the tokenizer itself is built on the first word
        that is not a single vocabulary entry (:meth:`_tokenize`), which most queries never have.
        """
        with self._lock:
            if self._weights is None:
                root = _package_dir()
                if root is None or not local_model_available():
                    raise KnowledgeError(
                        "the embedded embedding model is not installed (package wordllama)",
                        hint="pip install wordllama, or configure engine.embeddings_base_url",
                    )
                prepare_numpy()
                import numpy as np

                weights = _map_weights(root / _WEIGHTS)
                with (root / _TOKENIZER).open(encoding="utf-8") as handle:
                    vocab = json.load(handle)["model"]["vocab"]
                self._vocab = {str(k): int(v) for k, v in vocab.items()}
                self._word_vectors = np.zeros((0, weights.shape[1]), dtype=np.float32)
                self._weights = weights
            weights_table: npt.NDArray[np.float16] = self._weights
            return weights_table

    def _tokenizer_and_starts(self) -> tuple[Any, npt.NDArray[np.bool_]]:
        """The tokenizer, and which token ids start a word ("▁…"); built on first use."""
        if self._tokenizer is None:
            prepare_numpy()
            import numpy as np
            from tokenizers import Tokenizer

            root = _package_dir()
            assert root is not None  # _load checked it
            tokenizer = Tokenizer.from_file(str(root / _TOKENIZER))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            starts = np.zeros(self._weights.shape[0], dtype=bool)
            for piece, token in self._vocab.items():
                if piece.startswith("▁") and 0 <= token < starts.shape[0]:
                    starts[token] = True
            self._word_start = starts
            self._tokenizer = tokenizer
        return self._tokenizer, self._word_start

    def _word_rows(
        self, weights: npt.NDArray[np.float16], texts: list[str]
    ) -> tuple[list[int], list[int], npt.NDArray[np.float32]]:
        """Each text as rows of a word-vector table (concatenated), its word count, and the table.

        The model is a bag of tokens (a text's vector is the sum of its tokens' vectors), and
        its SentencePiece tokenizer never merges across a word boundary, so a text's vector is
        the sum of its words' vectors. Words are runs of letters/digits ("open()," is "open");
        each distinct word is embedded once and remembered (tokenizing every text whole was the
        slowest step of ingest): a word that is one vocabulary entry ("▁" + word) needs no
        tokenizer run at all.

        The cache holds at most :data:`_WORD_CACHE` words. When the new words would overflow
        it, the words this call does not use are evicted (the ones it uses are hot, and every
        lookup below must hit); a call whose own vocabulary is larger than the cache gets its
        table and leaves the cache empty. The cache changes only once every new vector is made,
        so an embedding that fails midway leaves it as it was.
        """
        prepare_numpy()
        import numpy as np

        cache = self._word_rows_cache
        table: npt.NDArray[np.float32] = self._word_vectors
        split = list(map(_WORD.findall, texts))
        flat = list(chain.from_iterable(split))
        distinct = set(flat)
        new = sorted(distinct.difference(cache))
        if new:
            vectors = self._new_word_vectors(weights, new)
            if len(cache) + len(new) > _WORD_CACHE:
                kept = sorted(distinct.intersection(cache), key=cache.__getitem__)
                table = table[[cache[word] for word in kept]]
                cache = {word: n for n, word in enumerate(kept)}
            base = len(cache)
            table = np.concatenate((table, vectors))
            cache.update((word, base + n) for n, word in enumerate(new))
        rows = list(map(cache.__getitem__, flat))
        if len(cache) > _WORD_CACHE:  # this call alone has more words than the cache holds
            cache, self._word_vectors = {}, table[:0]
        else:
            self._word_vectors = table
        self._word_rows_cache = cache
        return rows, list(map(len, split)), table

    def _new_word_vectors(
        self, weights: npt.NDArray[np.float16], new: list[str]
    ) -> npt.NDArray[np.float32]:
        """The (unnormalised) vectors of ``new`` words, one row each, in order."""
        prepare_numpy()
        import numpy as np

        vectors = np.zeros((len(new), weights.shape[1]), dtype=np.float32)
        # Stopwords stay zero: they say nothing about the topic, and in a mean of word
        # vectors they drown the words that do (as punctuation and markup would).
        single = [-2 if w.lower() in STOPWORDS else self._vocab.get("▁" + w, -1) for w in new]
        known = [n for n, i in enumerate(single) if i >= 0]
        if known:
            vectors[known] = weights[[single[n] for n in known]]
        rest = [n for n, i in enumerate(single) if i == -1]
        if rest:
            ids, starts = self._tokenize([new[n] for n in rest])
            lengths = np.diff(np.append(starts, len(ids)))
            targets = np.asarray(rest, dtype=np.int64)
            # The words with the same number of tokens are summed together (a sum per word was
            # the slowest step on a text of many rare words), each exactly as
            # ``weights[ids].sum(axis=0, dtype=np.float32)`` sums it, bit for bit (numpy's
            # order of additions; local_query depends on it). A word without tokens stays zero.
            for length in np.unique(lengths[lengths > 0]).tolist():
                group = np.nonzero(lengths == length)[0]
                at = starts[group][:, None] + np.arange(length, dtype=np.int64)[None, :]
                vectors[targets[group]] = weights[ids[at]].sum(axis=1, dtype=np.float32)
        return vectors

    def _tokenize(self, words: list[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The token ids of the words (none contains whitespace), concatenated, and where each
        word's ids start.

        The words are tokenized as one space-separated text, which is many times faster than
        one tokenizer input per word, and split where a token starts a word ("▁…"). Should the
        split not come out one piece per word, each word is tokenized on its own instead.
        """
        prepare_numpy()
        import numpy as np

        tokenizer, word_start = self._tokenizer_and_starts()
        top = self._weights.shape[0] - 1
        encoding = tokenizer.encode(" ".join(words), add_special_tokens=False)
        ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, top)
        starts = np.nonzero(word_start[ids])[0]
        if len(starts) == len(words) and (len(starts) == 0 or starts[0] == 0):
            return ids, starts.astype(np.int64)
        encodings = tokenizer.encode_batch_fast(words, add_special_tokens=False)
        pieces = [np.clip(np.asarray(e.ids, dtype=np.int64), 0, top) for e in encodings]
        lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        return np.concatenate([*pieces, np.zeros(0, dtype=np.int64)]), starts

    def embed_array(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors for ``texts`` as a ``(len(texts), 256)`` float32 array.

        A text without any word gets the zero vector.
        """
        prepare_numpy()
        import numpy as np

        weights = self._load()
        out = np.zeros((len(texts), weights.shape[1]), dtype=np.float32)
        with self._lock:
            all_rows, all_lengths, table = self._word_rows(weights, texts)
        rows = np.asarray(all_rows, dtype=np.int64)
        ends = np.cumsum(np.asarray(all_lengths, dtype=np.int64)).tolist()
        begin = 0
        for n, end in enumerate(ends):
            if end > begin:  # one small gather and sum per text (np.add.reduceat is far slower)
                out[n] = table[rows[begin:end]].sum(axis=0)
            begin = end
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out /= norms
        return out

    def embed_one_packed(self, text: str) -> bytes | None:
        """``text``'s packed unit vector without numpy (a search's query), or ``None``.

        Bit for bit the row :meth:`embed_array` gives (:mod:`forge_cli.knowledge.local_query`),
        for a process that has not loaded numpy yet: ``forge vs search`` on a small store never
        does. ``None`` once numpy is in use (take :meth:`embed_array`) or when the bundled files
        are not as expected.
        """
        if self._weights is not None:
            return None
        from forge_cli.knowledge.local_query import QueryTokenizer, embed_query

        root = _package_dir()
        if root is None or not local_model_available():
            return None
        with self._lock:
            if self._query_tokenizer is None:
                self._query_tokenizer = QueryTokenizer.load(root / _TOKENIZER) or False
            tokenizer = self._query_tokenizer
        if not isinstance(tokenizer, QueryTokenizer):
            return None
        return embed_query(_WORD.findall(text), STOPWORDS, tokenizer, root / _WEIGHTS, _TENSOR)

    def word_vectors(self, words: list[str]) -> npt.NDArray[np.float32]:
        """One unit vector per word (each a run of ``\\w`` characters); zero for a stopword.

        Used to align query terms with a candidate's words (``scoring.term_alignment``): the
        words are looked up in the same cache as :meth:`embed_array`, so this is cheap.
        """
        prepare_numpy()
        import numpy as np

        weights = self._load()
        with self._lock:
            rows, _, table = self._word_rows(weights, words)
        if len(rows) != len(words):  # a "word" that is not one \w run: embed it whole
            return self.embed_array(words)
        out = np.asarray(table[np.asarray(rows, dtype=np.int64)], dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out /= norms
        return out

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text, in order (the :class:`Embedder` protocol)."""
        result: list[list[float]] = self.embed_array(texts).tolist()
        return result
