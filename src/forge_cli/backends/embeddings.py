"""An :class:`~forge_cli.knowledge.Embedder` for any OpenAI-compatible ``/v1/embeddings`` endpoint.

The knowledge layer must not speak HTTP, so the HTTP embedder lives here and is handed to the
store by whoever builds it. httpx2 errors are mapped to our exception tree in this one place, in
the words every backend uses (``_http``: imported on the first failure, so a working embedder
does not load the async plumbing).
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx2

from forge_cli import jsonsafe
from forge_cli.api_keys import check_api_key, key_source
from forge_cli.errors import ProtocolError, UsageError
from forge_cli.limits import DEFAULT_LIMITS, Limits
from forge_cli.redact import register_secret

if TYPE_CHECKING:
    from forge_cli.backends.http.client import ErrorContext

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder:
    """Embeds texts through ``POST {base_url}/embeddings`` (OpenAI, Ollama, vLLM, llama.cpp…).

    ``api_key_env`` names the environment variable holding the key (the key itself is never
    stored in configuration). Inputs are sent in batches of ``batch_size``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
        client: httpx2.Client | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        if batch_size < 1:
            raise UsageError("the embeddings batch size must be positive")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"api:{model}"
        """The name its vectors are stored under (``knowledge.embedding.embedder_name``)."""
        self.api_key_env = api_key_env
        self._key()  # a key a header cannot carry is refused now, not at the first request
        self.batch_size = batch_size
        self.limits = limits
        self._client = client or httpx2.Client(timeout=timeout, trust_env=False)
        self._owns_client = client is None

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self.batch_size]))
        return vectors

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        key = self._key()
        if key:
            register_secret(key)
            headers["authorization"] = f"Bearer {key}"
        return headers

    def _key(self) -> str | None:
        """The key from ``api_key_env`` (read at each request), refused when a header cannot
        carry it."""
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        check_api_key(key, key_source(None, self.api_key_env, "OpenAIEmbedder"))
        return key

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        url = f"{self.base_url}/embeddings"
        headers = self._headers()
        try:
            response, content = self._post_bounded(
                url, {"model": self.model, "input": texts}, headers
            )
        except httpx2.HTTPError as exc:
            from forge_cli.backends.http.client import map_transport_error

            raise map_transport_error(exc, self._context(url, headers), "connect") from exc
        if response.status_code >= 400:
            from forge_cli.backends.http.client import status_error

            context = self._context(url, headers).with_reply(response.status_code, response.headers)
            raise status_error(response.status_code, content, context)
        return _parse(content, len(texts))

    def _context(self, url: str, headers: dict[str, str]) -> ErrorContext:
        """What an error says: worded as the backends word theirs (``_http``)."""
        from forge_cli.backends.http.client import ErrorContext, display_url

        return ErrorContext(
            url=display_url(url),
            env_var=self.api_key_env,
            key_sent="authorization" in headers,
        )

    def _post_bounded(
        self, url: str, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[httpx2.Response, bytes]:
        """POST and read the reply decoded, in pieces, within bounds: a reply over the limit
        (``limits.max_response_mb``; an error reply: ``limits.max_error_body_kb``) is never
        inflated whole."""
        with self._client.stream("POST", url, json=body, headers=headers) as response:
            ok = response.status_code < 400
            limit = self.limits.max_response_bytes if ok else self.limits.max_error_body_bytes
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes(65536):
                size += len(chunk)
                if size > limit:
                    if ok:
                        raise ProtocolError(
                            f"the embeddings reply from {url} is larger than "
                            f"{limit // (1024 * 1024)} MiB once decompressed; it was stopped",
                            hint="raise limits.max_response_mb (FORGE_MAX_RESPONSE_MB)",
                        )
                    chunks.append(chunk[: len(chunk) - (size - limit)])
                    break
                chunks.append(chunk)
        return response, b"".join(chunks)

    def close(self) -> None:
        """Close the HTTP client if this embedder created it."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _parse(content: bytes, expected: int) -> list[list[float]]:
    try:
        body: Any = jsonsafe.loads(content)
        items = sorted(body["data"], key=lambda item: int(item.get("index", 0)))
        vectors = [[float(x) for x in item["embedding"]] for item in items]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ProtocolError("the embeddings server sent a reply we cannot read") from exc
    if len(vectors) != expected:
        raise ProtocolError(
            f"the embeddings server returned {len(vectors)} vectors for {expected} inputs"
        )
    return vectors
