"""What a new conversation's first request needs, as plain data (no pydantic).

``forge ask`` writes its request before pydantic and the protocol models are imported
(docs/adr/0020-plain-first-request.md, as amended by issue 28): :func:`first_request_wire` gives
the JSON body that ``build_request(new_conversation(settings), text, ...).to_wire()`` gives, key
for key and in the same order, for the requests it accepts; for anything else (hosted tools, odd
value types) it returns ``None`` and the caller builds the typed
:class:`~forge_cli.protocol.request.Request` first, as every other request is built. The first
turn's typed request is then derived from this body (``Request.model_validate``) and its reply
taken over by construction (``backends.http.early``); nothing is built twice or compared.
:func:`first_chat_body` gives the same request's Chat Completions body for ``--api chat``.
"""

from __future__ import annotations

import os
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["first_chat_body", "first_request_wire", "new_conversation_id", "strip_credentials"]


def new_conversation_id() -> str:
    """A fresh id: ``c`` + date + random hex, sortable and unique enough for one user.

    ``os.urandom`` is what ``secrets.token_hex`` reads; importing ``secrets`` (hmac, hashlib)
    is not worth it on the way to ``forge ask``'s request.
    """
    return time.strftime("c%Y%m%d-") + os.urandom(4).hex()


def strip_credentials(url: str | None) -> str | None:
    """``url`` without ``user:password@`` so a URL never smuggles a secret into a saved file."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _optional(value: Any, kind: type) -> bool:
    """``value`` is ``None`` or exactly of ``kind`` (a ``bool`` is not an ``int`` here)."""
    return value is None or type(value) is kind


def first_request_wire(
    text: str,
    *,
    model: str | None,
    default_model: str,
    instructions: str | None = None,
    tools: list[str] | tuple[str, ...] = (),
    effort: str | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    max_output_tokens: int | None = None,
) -> dict[str, Any] | None:
    """The wire body (``Request.to_wire()``) of a new conversation's first request, or ``None``.

    The arguments are the conversation's settings (``SessionSettings``) and the question. Only
    values whose wire form is plain are accepted: strings, ``float`` sampling values and an
    ``int`` token limit; a run with tools gives ``None`` (their definitions are models).
    """
    if tools or not isinstance(text, str):
        return None
    if not (_optional(model, str) and isinstance(default_model, str)):
        return None
    if not (_optional(instructions, str) and _optional(effort, str)):
        return None
    if not (_optional(temperature, float) and _optional(max_output_tokens, int)):
        return None
    if not _optional(top_p, float):
        return None
    # The order of ``Request``'s fields, then its extras (``top_p``); ``None`` is never sent.
    wire: dict[str, Any] = {
        "model": model or default_model,
        "input": [{"role": "user", "content": text}],
    }
    if instructions is not None:
        wire["instructions"] = instructions
    if temperature is not None:
        wire["temperature"] = temperature
    if max_output_tokens is not None:
        wire["max_output_tokens"] = max_output_tokens
    if effort is not None:
        wire["effort"] = effort
    wire["stream"] = True
    if top_p is not None:
        wire["top_p"] = top_p
    return wire


def first_chat_body(wire: dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions body (``to_chat_body(request).kwargs``) of the request whose
    Responses body :func:`first_request_wire` gave as ``wire``.

    In ``to_chat_body``'s order: instructions as a leading system message (when not empty), the
    question as the user message, streaming with usage, then the sampling values (the token
    limit as ``max_tokens``) and the effort as ``reasoning_effort`` (when not empty).
    """
    messages: list[dict[str, Any]] = []
    if wire.get("instructions"):
        messages.append({"role": "system", "content": wire["instructions"]})
    messages.extend(wire["input"])
    body: dict[str, Any] = {
        "model": wire["model"],
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    for key, name in (
        ("temperature", "temperature"),
        ("max_output_tokens", "max_tokens"),
        ("top_p", "top_p"),
    ):
        if key in wire:
            body[name] = wire[key]
    if wire.get("effort"):
        body["reasoning_effort"] = wire["effort"]
    return body
