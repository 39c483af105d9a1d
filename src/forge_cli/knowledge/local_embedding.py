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
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_cli.errors import KnowledgeError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["LOCAL_MODEL_NAME", "LocalEmbedder", "local_model_available"]

LOCAL_MODEL_NAME = "wordllama/l2_supercat-256"
"""The name stored with each vector this embedder makes (see ``embedding_models``)."""
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"
_BATCH = 256


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

    def _load(self) -> tuple[Any, npt.NDArray[np.float32]]:
        with self._lock:
            if self._weights is None:
                root = _package_dir()
                if root is None or not local_model_available():
                    raise KnowledgeError(
                        "the embedded embedding model is not installed (package wordllama)",
                        hint="pip install wordllama, or configure engine.embeddings_base_url",
                    )
                import numpy as np
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(root / _TOKENIZER))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                weights = load_file(str(root / _WEIGHTS))[_TENSOR]
                self._tokenizer = tokenizer
                self._weights = np.ascontiguousarray(weights, dtype=np.float32)
            return self._tokenizer, self._weights

    def embed_array(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors for ``texts`` as a ``(len(texts), 256)`` float32 array.

        A text without any token (empty) gets the zero vector.
        """
        import numpy as np

        tokenizer, weights = self._load()
        out = np.zeros((len(texts), weights.shape[1]), dtype=np.float32)
        top = weights.shape[0] - 1
        for start in range(0, len(texts), _BATCH):
            encoded = tokenizer.encode_batch(
                texts[start : start + _BATCH], add_special_tokens=False
            )
            lengths = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64)
            if not lengths.sum():
                continue
            ids = np.fromiter(
                (i for e in encoded for i in e.ids), dtype=np.int64, count=int(lengths.sum())
            )
            np.clip(ids, 0, top, out=ids)
            rows = np.nonzero(lengths)[0]
            offsets = np.concatenate(([0], np.cumsum(lengths[rows])[:-1]))
            sums = np.add.reduceat(weights[ids], offsets, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            out[start + rows] = sums / norms
        return out

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text, in order (the :class:`Embedder` protocol)."""
        result: list[list[float]] = self.embed_array(texts).tolist()
        return result
