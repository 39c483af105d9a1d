"""The JSON body of a Responses request, shaped for the kind of server that receives it.

One typed :class:`~forge_cli.protocol.request.Request` serves every server; what differs is how
a few settings travel (see ``docs/servers.md``):

- ``openai`` (OpenAI and every OpenAI-compatible Responses server: OpenRouter, vLLM, Ollama,
  LiteLLM, ``forge serve``): only standard fields. The reasoning effort goes out as
  ``reasoning: {"effort": ...}``; a top-level ``effort`` is rejected by strict servers
  (HTTP 400 ``unknown_parameter``) and silently dropped by others.
- ``knowledge-forge``: Knowledge Forge's own top-level ``effort`` and the older Knowledge Forge
  CLI's defaults for anything the user left unset (model ``qwen-max-latest``, effort ``low``,
  ``store: true``, ``temperature: 0.7``, ``max_output_tokens: 1000``, ``max_num_results: 10`` on
  ``file_search``), so users migrating from that CLI get the answers they got before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from forge_cli.protocol.request import Request

__all__ = ["KNOWLEDGE_FORGE_DEFAULTS", "Dialect", "responses_body", "shape_wire"]

Dialect = Literal["openai", "knowledge-forge"]

KNOWLEDGE_FORGE_DEFAULTS: dict[str, Any] = {
    "model": "qwen-max-latest",
    "effort": "low",
    "store": True,
    "temperature": 0.7,
    "max_output_tokens": 1000,
}
"""What the older Knowledge Forge CLI sent when its user set nothing (its ``AppConfig``)."""

_KF_MAX_NUM_RESULTS = 10


def responses_body(request: Request, *, dialect: Dialect = "openai") -> dict[str, Any]:
    """The JSON body for ``POST /responses`` (``stream`` is added by the caller)."""
    return shape_wire(request.to_wire(), dialect=dialect)


def shape_wire(body: dict[str, Any], *, dialect: Dialect = "openai") -> dict[str, Any]:
    """:func:`responses_body` of a request given as its wire dict (``Request.to_wire()``);
    ``body`` is changed in place and returned."""
    effort = body.pop("effort", None)
    if dialect == "knowledge-forge":
        return _knowledge_forge(body, effort)
    if effort:
        reasoning = body.get("reasoning")
        merged = dict(reasoning) if isinstance(reasoning, dict) else {}
        merged.setdefault("effort", effort)
        body["reasoning"] = merged
    return body


def _knowledge_forge(body: dict[str, Any], effort: Any) -> dict[str, Any]:
    reasoning = body.get("reasoning")
    if not effort and isinstance(reasoning, dict):
        effort = reasoning.get("effort")
    if effort:
        body["effort"] = effort
    for key, value in KNOWLEDGE_FORGE_DEFAULTS.items():
        if body.get(key) in (None, ""):
            body[key] = value
    for tool in body.get("tools") or ():
        if isinstance(tool, dict) and tool.get("type") == "file_search":
            tool.setdefault("max_num_results", _KF_MAX_NUM_RESULTS)
    return body
