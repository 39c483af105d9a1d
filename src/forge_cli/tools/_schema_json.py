"""Small JSON-Schema helpers: tidy pydantic's output and resolve local ``$ref``s."""

from __future__ import annotations

from typing import Any

__all__ = ["clean_schema", "resolve_ref", "strict_schema"]

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


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema in the form OpenAI's ``strict`` function calling accepts.

    Every object lists all its properties as required and allows no others; a property that was
    optional becomes nullable instead (the model sends ``null`` to leave it out, and the tool then
    gets its default), and ``default`` keys are dropped (strict mode does not take them).
    """
    converted: dict[str, Any] = _strict(schema)
    return converted


def _strict(value: Any) -> Any:
    if isinstance(value, list):
        return [_strict(sub) for sub in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, sub in value.items():
        if key == "default":
            continue
        if key in _MAP_KEYS and isinstance(sub, dict):
            out[key] = {name: _strict(item) for name, item in sub.items()}
        else:
            out[key] = _strict(sub)
    properties = out.get("properties")
    if isinstance(properties, dict) and (out.get("type") in (None, "object")):
        required = set(value.get("required", ()))
        out["properties"] = {
            name: prop if name in required else _nullable(prop) for name, prop in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _nullable(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return prop
    variants = prop.get("anyOf")
    if isinstance(variants, list):
        if any(isinstance(item, dict) and item.get("type") == "null" for item in variants):
            return prop
        return {**prop, "anyOf": [*variants, {"type": "null"}]}
    kind = prop.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return prop
    if isinstance(kind, str) and "enum" not in prop:
        return {**prop, "type": [kind, "null"]}
    return {"anyOf": [prop, {"type": "null"}]}
