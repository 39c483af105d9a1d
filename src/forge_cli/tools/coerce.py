"""A lenient type fix for small models: ``"5"`` where the schema says integer becomes ``5``.

Small local models often quote numbers and booleans. Before validation, string values are cast
to ``integer``, ``number`` or ``boolean`` (and scalars to ``string``) where the JSON Schema says
so. A cast that does not work leaves the value alone: validation then reports it to the model.
"""

from __future__ import annotations

from typing import Any

from forge_cli.tools._schema_json import resolve_ref

__all__ = ["coerce_arguments"]

_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


def coerce_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``arguments`` with values cast to the types ``schema`` declares. Never raises."""
    result = _coerce(arguments, schema, schema, depth=0)
    return result if isinstance(result, dict) else arguments


def _coerce(value: Any, schema: dict[str, Any], root: dict[str, Any], *, depth: int) -> Any:
    if depth > 20:
        return value
    schema = resolve_ref(schema, root)
    if isinstance(value, dict | list):
        schema = _branch(schema, root, "object" if isinstance(value, dict) else "array")
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        return {
            key: _coerce(sub, props[key], root, depth=depth + 1)
            if isinstance(props.get(key), dict)
            else sub
            for key, sub in value.items()
        }
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            return value
        return [_coerce(sub, items, root, depth=depth + 1) for sub in value]
    types = _types(schema, root)
    if not types or _matches(value, types):
        return value
    for kind in types:
        cast = _cast(value, kind)
        if cast is not None:
            return cast
    return value


def _branch(schema: dict[str, Any], root: dict[str, Any], kind: str) -> dict[str, Any]:
    """The ``anyOf``/``oneOf`` option of type ``kind`` (Optional[list[...]] and the like)."""
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                resolved = resolve_ref(option, root)
                if resolved.get("type") == kind:
                    return resolved
    return schema


def _types(schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                found.extend(_types(resolve_ref(option, root), root))
    return found


def _matches(value: Any, types: list[str]) -> bool:
    checks = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "null": value is None,
    }
    return any(checks.get(kind, True) for kind in types)


def _cast(value: Any, kind: str) -> Any:
    if kind == "string" and isinstance(value, int | float | bool):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if kind == "integer":
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) if number.is_integer() else None
    if kind == "number":
        try:
            return float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            return None
    if kind == "boolean":
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else None
    return None
