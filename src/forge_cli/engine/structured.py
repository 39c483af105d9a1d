"""Structured output (``text.format``) on ``forge serve``: honoured only with an upstream model.

The retrieval-only answerer writes prose from passages; it cannot promise JSON matching a schema,
so a request that asks for one is refused with a clear 400 instead of being silently ignored.
"""

from __future__ import annotations

from forge_cli.engine.engine import Engine
from forge_cli.errors import UsageError
from forge_cli.protocol.request import Request

__all__ = ["check_structured_output", "requested_format"]


def requested_format(request: Request) -> str | None:
    """The ``text.format.type`` a request asks for, unless it is plain text."""
    text = (request.model_extra or {}).get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    return None if kind in (None, "text") else str(kind)


def check_structured_output(engine: Engine, request: Request) -> None:
    """Raise ``UsageError`` (HTTP 400) when structured output is asked of the retrieval answerer."""
    kind = requested_format(request)
    if kind is not None and engine.config.upstream is None:
        raise UsageError(
            f"structured output (text.format {kind}) needs an upstream model; this forge serve "
            "answers from retrieval only",
            hint="set engine.upstream_base_url and engine.upstream_model",
        )
