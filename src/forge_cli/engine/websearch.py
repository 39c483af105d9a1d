"""Web search through a SearXNG instance's JSON API (``GET {url}/search?q=...&format=json``).

The one place httpx2 errors of web search become ours (:class:`BackendError` subclasses).
"""

from __future__ import annotations

from dataclasses import dataclass

from forge_cli import jsonsafe
from forge_cli.engine.config import SEARXNG_ENV
from forge_cli.errors import BackendConnectionError, BackendError, BackendHTTPError, ConfigError

__all__ = ["NOT_CONFIGURED", "SearxngClient", "WebResult"]

NOT_CONFIGURED = (
    "web search is not configured: set engine.searxng_url in the Forge config "
    f"(or the environment variable {SEARXNG_ENV}) to the URL of a SearXNG instance "
    "whose JSON format is enabled"
)


@dataclass(frozen=True, slots=True)
class WebResult:
    """One search result."""

    url: str
    title: str
    content: str


class SearxngClient:
    """Queries one SearXNG instance."""

    def __init__(self, base_url: str, *, timeout: float = 15.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"engine.searxng_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    async def search(self, query: str, *, max_results: int = 5) -> list[WebResult]:
        """The first ``max_results`` results for ``query``."""
        import httpx2  # lazily: only web search needs it, and it costs start-up time

        url = f"{self.base_url}/search"
        try:
            async with httpx2.AsyncClient(timeout=self.timeout) as client:
                reply = await client.get(url, params={"q": query, "format": "json"})
        except httpx2.TimeoutException as exc:
            raise BackendConnectionError(f"web search at {self.base_url} timed out") from exc
        except httpx2.HTTPError as exc:
            raise BackendConnectionError(f"web search at {self.base_url} failed: {exc}") from exc
        if reply.status_code != 200:
            raise BackendHTTPError(
                f"web search at {self.base_url} answered HTTP {reply.status_code}",
                status_code=reply.status_code,
                hint="enable the json format in the SearXNG settings (search.formats)",
            )
        try:
            payload = jsonsafe.loads(reply.content)
        except ValueError as exc:
            raise BackendError(f"web search at {self.base_url} did not answer JSON") from exc
        raw = payload.get("results") if isinstance(payload, dict) else None
        results: list[WebResult] = []
        for entry in raw if isinstance(raw, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
                continue
            results.append(
                WebResult(
                    url=entry["url"],
                    title=str(entry.get("title") or entry["url"]),
                    content=str(entry.get("content") or ""),
                )
            )
            if len(results) >= max_results:
                break
        return results
