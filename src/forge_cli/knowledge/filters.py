"""Attribute filters in the OpenAI shape, validated up front and compiled to SQL.

A comparison is ``{"key": K, "type": "eq|ne|gt|gte|lt|lte|in|nin", "value": V}``; a compound is
``{"type": "and|or", "filters": [...]}``. Filters apply to the attributes of a file's membership
in a vector store. A missing key never matches ``eq/gt/gte/lt/lte/in`` and always matches
``ne/nin``. Ordering comparisons only compare numbers with numbers and strings with strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from forge_cli.errors import UsageError

__all__ = ["Comparison", "Compound", "Filter", "compile_filter", "parse_filter"]

ComparisonType = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"]
_COMPARISONS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin")
_SQL_OPS = {"eq": "=", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_MAX_DEPTH = 16

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Comparison:
    """``key <type> value`` on one attribute."""

    key: str
    type: ComparisonType
    value: Scalar | tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class Compound:
    """All (``and``) or any (``or``) of the nested filters."""

    type: Literal["and", "or"]
    filters: tuple[Filter, ...]


Filter = Comparison | Compound


def parse_filter(raw: object, *, where: str = "filters") -> Filter:
    """Validate a filter given as JSON-like data; raise :class:`UsageError` naming the problem."""
    return _parse(raw, where, 0)


def _parse(raw: object, where: str, depth: int) -> Filter:
    if depth > _MAX_DEPTH:
        raise UsageError(f"{where}: filters are nested more than {_MAX_DEPTH} levels deep")
    if not isinstance(raw, Mapping):
        raise UsageError(f"{where}: a filter must be an object, got {type(raw).__name__}")
    kind = raw.get("type")
    if kind in ("and", "or"):
        _only_keys(raw, {"type", "filters"}, where)
        items = raw.get("filters")
        if not isinstance(items, list) or not items:
            raise UsageError(f"{where}: a '{kind}' filter needs a non-empty list 'filters'")
        parsed = tuple(
            _parse(item, f"{where}.filters[{i}]", depth + 1) for i, item in enumerate(items)
        )
        return Compound(type=kind, filters=parsed)
    if kind not in _COMPARISONS:
        expected = ", ".join([*_COMPARISONS, "and", "or"])
        raise UsageError(f"{where}: unknown filter type {kind!r} (expected one of {expected})")
    _only_keys(raw, {"type", "key", "value"}, where)
    key = raw.get("key")
    if not isinstance(key, str) or not key:
        raise UsageError(f"{where}: a '{kind}' filter needs a non-empty string 'key'")
    if '"' in key or "\\" in key:
        raise UsageError(f"{where}: filter key {key!r} may not contain quotes or backslashes")
    if "value" not in raw:
        raise UsageError(f"{where}: the '{kind}' filter on {key!r} has no 'value'")
    value = raw["value"]
    if kind in ("in", "nin"):
        if not isinstance(value, list) or not value:
            raise UsageError(f"{where}: '{kind}' on {key!r} needs a non-empty list value")
        for item in value:
            _check_scalar(item, where, key)
        return Comparison(key=key, type=kind, value=tuple(value))
    _check_scalar(value, where, key)
    if kind in ("gt", "gte", "lt", "lte") and isinstance(value, bool):
        raise UsageError(f"{where}: '{kind}' on {key!r} needs a number or string, not a boolean")
    return Comparison(key=key, type=kind, value=value)


def _only_keys(raw: Mapping[Any, Any], allowed: set[str], where: str) -> None:
    extra = sorted(str(k) for k in raw if k not in allowed)
    if extra:
        raise UsageError(f"{where}: unexpected field(s) {', '.join(extra)} in a filter")


def _check_scalar(value: object, where: str, key: str) -> None:
    if not isinstance(value, str | int | float | bool):
        raise UsageError(
            f"{where}: value for {key!r} must be a string, number or boolean, "
            f"got {type(value).__name__}"
        )


def compile_filter(flt: Filter, column: str) -> tuple[str, list[object]]:
    """SQL over the JSON attributes in ``column``: a boolean expression and its parameters."""
    if isinstance(flt, Compound):
        parts: list[str] = []
        params: list[object] = []
        for sub in flt.filters:
            sql, sub_params = compile_filter(sub, column)
            parts.append(f"({sql})")
            params.extend(sub_params)
        return f" {flt.type.upper()} ".join(parts), params
    path = f'$."{flt.key}"'
    value_sql = f"json_extract({column}, ?)"
    type_sql = f"json_type({column}, ?)"
    if flt.type in ("in", "nin"):
        assert isinstance(flt.value, tuple)
        marks = ", ".join("?" for _ in flt.value)
        if flt.type == "in":
            return f"{value_sql} IN ({marks})", [path, *flt.value]
        return f"({value_sql} IS NULL OR {value_sql} NOT IN ({marks}))", [path, path, *flt.value]
    op = _SQL_OPS[flt.type]
    if flt.type == "eq":
        return f"{value_sql} = ? AND {type_sql} IN ({_json_types(flt.value)})", [
            path,
            flt.value,
            path,
        ]
    if flt.type == "ne":
        return (
            f"NOT coalesce({value_sql} = ? AND {type_sql} IN ({_json_types(flt.value)}), 0)",
            [path, flt.value, path],
        )
    return f"{value_sql} {op} ? AND {type_sql} IN ({_json_types(flt.value)})", [
        path,
        flt.value,
        path,
    ]


def _json_types(value: object) -> str:
    """JSON types an attribute may have to be compared with ``value`` (no str/number mixing)."""
    if isinstance(value, bool):
        return "'true', 'false'"
    if isinstance(value, int | float):
        return "'integer', 'real'"
    return "'text'"
