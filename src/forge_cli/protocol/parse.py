"""Lenient parsing of raw JSON into protocol values: never raises on server data.

A known item that fails validation (a required field of the wrong type, say) falls back to
:class:`UnknownItem` with its raw fields kept, so one odd item never breaks a stream.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from forge_cli.protocol.annotations import Annotation, UnknownAnnotation
from forge_cli.protocol.items import OutputItem, UnknownItem
from forge_cli.protocol.response import Response
from forge_cli.protocol.tools import Tool, UnknownTool

__all__ = ["parse_annotation", "parse_item", "parse_response", "parse_tool"]


@cache
def _item_adapter() -> TypeAdapter[OutputItem]:
    """Built on first use, not at import (start-up time). Each adapter is built on its own, and
    a union's members on their own first use (``_base.BUILT_ON_USE``): a text answer builds no
    annotation, tool or tool-call model."""
    return TypeAdapter(OutputItem)


@cache
def _annotation_adapter() -> TypeAdapter[Annotation]:
    return TypeAdapter(Annotation)


@cache
def _tool_adapter() -> TypeAdapter[Tool]:
    return TypeAdapter(Tool)


def _fallback_type(raw: dict[str, Any]) -> str:
    value = raw.get("type")
    return value if isinstance(value, str) else "unknown"


def parse_item(raw: Any) -> OutputItem:
    """An output item from JSON; anything unparseable becomes an :class:`UnknownItem`."""
    if not isinstance(raw, dict):
        return UnknownItem(type="invalid", value=raw)
    try:
        return _item_adapter().validate_python(raw)
    except ValidationError:
        data = {k: v for k, v in raw.items() if k not in ("id", "status", "type")}
        ident = raw.get("id") if isinstance(raw.get("id"), str) else None
        status = raw.get("status") if isinstance(raw.get("status"), str) else None
        return UnknownItem(type=_fallback_type(raw), id=ident, status=status, **data)


def parse_annotation(raw: Any) -> Annotation | None:
    """An annotation from JSON, or ``None`` for a null/garbage one."""
    if not isinstance(raw, dict):
        return None
    try:
        return _annotation_adapter().validate_python(raw)
    except ValidationError:
        return UnknownAnnotation.model_validate({**raw, "type": _fallback_type(raw)})


def parse_tool(raw: Any) -> Tool:
    """A tool definition from JSON; unknown or invalid ones pass through as :class:`UnknownTool`."""
    if not isinstance(raw, dict):
        return UnknownTool(type="invalid")
    try:
        return _tool_adapter().validate_python(raw)
    except ValidationError:
        return UnknownTool.model_validate({**raw, "type": _fallback_type(raw)})


def parse_response(raw: Any) -> Response:
    """A Response from JSON, item by item so one bad item does not spoil the rest."""
    if not isinstance(raw, dict):
        return Response()
    fields = dict(raw)
    output = fields.pop("output", None)
    tools = fields.pop("tools", None)
    try:
        response = Response.model_validate(fields)
    except ValidationError:
        response = Response.model_construct(
            id=str(fields.get("id") or ""), status=_str_or_none(fields.get("status"))
        )
    items = [parse_item(entry) for entry in output] if isinstance(output, list) else []
    parsed_tools = [parse_tool(entry) for entry in tools] if isinstance(tools, list) else None
    return response.model_copy(update={"output": items, "tools": parsed_tools})


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
