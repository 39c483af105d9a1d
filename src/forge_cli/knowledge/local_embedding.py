"""The embedded embedding model: WordLlama's 256-dimension token embeddings, fully offline.

The ``wordllama`` wheel ships its weights (``weights/l2_supercat_256.safetensors``) and its
tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``). A text's vector is the mean of its
tokens' embeddings (what ``WordLlama.embed`` computes), normalised to unit length. We read the
two files ourselves instead of importing the ``wordllama`` package: its import pulls in
``requests`` and its download logic, a quarter of a second that a search should not pay, and
its default loader tries the network first.

Nothing heavy is imported until the first :meth:`LocalEmbedder.embed` call: numpy and
``tokenizers`` load then, the model after that (about 0.2 s), once per process.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_cli.errors import KnowledgeError
from forge_cli.knowledge._numpy import prepare as prepare_numpy
from forge_cli.knowledge.query import STOPWORDS

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

    def _load(self) -> tuple[Any, npt.NDArray[np.float32]]:
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
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(root / _TOKENIZER))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                weights = load_file(str(root / _WEIGHTS))[_TENSOR]
                self._tokenizer = tokenizer
                self._weights = np.ascontiguousarray(weights, dtype=np.float32)
                self._word_vectors = self._weights[:0]
                self._vocab = dict(tokenizer.get_vocab())
                starts = np.zeros(self._weights.shape[0], dtype=bool)
                for piece, token in self._vocab.items():
                    if piece.startswith("▁") and 0 <= token < starts.shape[0]:
                        starts[token] = True
                self._word_start = starts
            return self._tokenizer, self._weights

    def _word_rows(
        self, tokenizer: Any, weights: npt.NDArray[np.float32], texts: list[str]
    ) -> tuple[list[int], list[int]]:
        """Each text as rows of the word-vector table (concatenated), and its word count.

        The model is a bag of tokens (a text's vector is the sum of its tokens' vectors), and
        its SentencePiece tokenizer never merges across a word boundary, so a text's vector is
        the sum of its words' vectors. Words are runs of letters/digits ("open()," is "open");
        each distinct word is embedded once and remembered (tokenizing every text whole was the
        slowest step of ingest): a word that is one vocabulary entry ("▁" + word) needs no
        tokenizer run at all.
        """
        prepare_numpy()
        import numpy as np

        cache = self._word_rows_cache
        split = list(map(_WORD.findall, texts))
        flat = list(chain.from_iterable(split))
        new = sorted(set(flat).difference(cache))
        if new:
            if len(cache) + len(new) > _WORD_CACHE:
                cache.clear()
                self._word_vectors = weights[:0]
            vectors = np.zeros((len(new), weights.shape[1]), dtype=np.float32)
            # Stopwords stay zero: they say nothing about the topic, and in a mean of word
            # vectors they drown the words that do (as punctuation and markup would).
            single = [-2 if w.lower() in STOPWORDS else self._vocab.get("▁" + w, -1) for w in new]
            known = [n for n, i in enumerate(single) if i >= 0]
            if known:
                vectors[known] = weights[[single[n] for n in known]]
            rest = [n for n, i in enumerate(single) if i == -1]
            if rest:
                for n, ids in zip(rest, self._tokenize([new[n] for n in rest]), strict=True):
                    vectors[n] = weights[ids].sum(axis=0)
            base = len(cache)
            self._word_vectors = np.concatenate((self._word_vectors, vectors))
            cache.update((word, base + n) for n, word in enumerate(new))
        return list(map(cache.__getitem__, flat)), list(map(len, split))

    def _tokenize(self, words: list[str]) -> list[npt.NDArray[np.int64]]:
        """The token ids of each word (none contains whitespace).

        The words are tokenized as one space-separated text, which is many times faster than
        one tokenizer input per word, and split where a token starts a word ("▁…"). Should the
        split not come out one piece per word, each word is tokenized on its own instead.
        """
        prepare_numpy()
        import numpy as np

        top = self._weights.shape[0] - 1
        encoding = self._tokenizer.encode(" ".join(words), add_special_tokens=False)
        ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, top)
        starts = np.nonzero(self._word_start[ids])[0]
        if len(starts) == len(words) and (len(starts) == 0 or starts[0] == 0):
            return np.split(ids, starts[1:])
        encodings = self._tokenizer.encode_batch_fast(words, add_special_tokens=False)
        return [np.clip(np.asarray(e.ids, dtype=np.int64), 0, top) for e in encodings]

    def embed_array(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors for ``texts`` as a ``(len(texts), 256)`` float32 array.

        A text without any word gets the zero vector.
        """
        prepare_numpy()
        import numpy as np

        tokenizer, weights = self._load()
        out = np.zeros((len(texts), weights.shape[1]), dtype=np.float32)
        with self._lock:
            all_rows, all_lengths = self._word_rows(tokenizer, weights, texts)
            table = self._word_vectors
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

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text, in order (the :class:`Embedder` protocol)."""
        result: list[list[float]] = self.embed_array(texts).tolist()
        return result
