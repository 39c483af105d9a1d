"""Embeddings: the embedder seam, the bundled local model, dense ranking, re-embedding."""
