"""Issue 12: the embeddings client reads replies within bounds (a gzip bomb is never inflated
whole) and keeps only the start of an error page."""

from __future__ import annotations

import gzip

import pytest

from forge_cli.backends.embeddings import OpenAIEmbedder
from forge_cli.errors import BackendHTTPError, ProtocolError
from forge_cli.limits import Limits
from helpers.loopback import LoopbackServer, Reply  # type: ignore[import-not-found]

SMALL = Limits(max_response_bytes=1 << 20, max_error_body_bytes=1024)


def test_a_compressed_reply_over_the_limit_is_stopped() -> None:
    bomb = gzip.compress(b"[" + b" " * (64 << 20) + b"]")  # 64 MiB once inflated
    with LoopbackServer() as server:
        server.add(
            Reply(
                status=200,
                headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
                body=bomb,
            )
        )
        embedder = OpenAIEmbedder(server.base_url, "m", limits=SMALL)
        with pytest.raises(ProtocolError, match="larger than 1 MiB"):
            embedder.embed(["hello"])
        embedder.close()


def test_an_error_page_is_read_only_in_part() -> None:
    page = "<html>" + "x" * 100_000 + "</html>"
    with LoopbackServer() as server:
        server.add(Reply.text(500, '{"error": {"message": "overloaded"}}' + " " * 5000))
        server.add(Reply.text(502, page))
        embedder = OpenAIEmbedder(server.base_url, "m", limits=SMALL)
        with pytest.raises(BackendHTTPError) as first:
            embedder.embed(["a"])
        assert first.value.status_code == 500
        with pytest.raises(BackendHTTPError) as second:
            embedder.embed(["b"])
        assert "xxxx" not in str(second.value)  # an HTML page is not quoted
        embedder.close()
