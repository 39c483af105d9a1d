"""Small JSON-Schema helpers: tidy pydantic's output and resolve local ``$ref``s."""

from __future__ import annotations

from typing import Any

__all__ = ["clean_schema", "resolve_ref"]

_MAP_KEYS = frozenset({"properties", "$defs", "definitions", "patternProperties"})


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy without pydantic's ``title`` keys (noise for the model, tokens for us).

    Keys *inside* ``properties`` are field names, so a field called ``title`` is kept.
    """
    cleaned: dict[str, Any] = _clean(schema, in_map=False)
    return cleaned


def _clean(value: Any, *, in_map: bool) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if key == "title" and not in_map and isinstance(sub, str):
                continue
            out[key] = _clean(sub, in_map=key in _MAP_KEYS and not in_map)
        return out
    if isinstance(value, list):
        return [_clean(sub, in_map=False) for sub in value]
    return value


def resolve_ref(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``{"$ref": "#/$defs/X"}`` to its definition (once; cycles stop there)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part) if isinstance(target, dict) else None
    return target if isinstance(target, dict) else schema
