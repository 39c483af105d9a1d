"""HTTP for every backend: the client, retries and error wording, bounded bodies, the early send."""
