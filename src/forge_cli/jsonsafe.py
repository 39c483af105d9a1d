"""JSON parsing with a nesting limit, for every JSON text that comes from outside.

``json.loads`` recurses once per nesting level: ``[[[[…]]]]`` a few thousand deep raises
``RecursionError``, which no caller expects, and values nested a few hundred deep make every
later recursive walk (validation, rendering, ``json.dumps``) slow or fragile. :func:`loads`
refuses such text with :class:`JSONTooDeepError`, a :class:`ValueError` like every other JSON
error, so callers that treat bad JSON as bad input handle it with no extra code.

The depth check is linear: a text with few brackets is parsed at once; otherwise strings are
stripped with one regular expression and the brackets counted. This module imports nothing of ours
but :mod:`forge_cli.limits`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from itertools import accumulate
from typing import Any, cast

from forge_cli.limits import DEFAULT_LIMITS

__all__ = [
    "JSONTooDeepError",
    "json_depth",
    "loads",
    "max_depth",
    "set_max_depth",
    "whole_object",
    "whole_objects",
]

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}

_lock = threading.Lock()
_max_depth = DEFAULT_LIMITS.max_json_depth


class JSONTooDeepError(ValueError):
    """A JSON text nests deeper than the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"JSON nested deeper than {limit} levels (limits.max_json_depth raises the limit)"
        )
        self.limit = limit


def set_max_depth(depth: int) -> None:
    """Set the process-wide default nesting limit (from the ``limits.max_json_depth`` setting)."""
    global _max_depth
    if depth < 1:
        raise ValueError("the JSON nesting limit must be at least 1")
    with _lock:
        _max_depth = depth


def max_depth() -> int:
    """The process-wide default nesting limit."""
    return _max_depth


def json_depth(text: str | bytes) -> int:
    """How deeply ``text`` nests arrays and objects (brackets inside strings do not count).

    For malformed text this is an estimate, which is fine: the parser rejects it anyway.
    """
    data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    if b'"' in data:
        data = _STRING.sub(b"", data)
    brackets = _NOT_BRACKET.sub(b"", data)
    if not brackets:
        return 0
    return max(0, max(accumulate(_STEP[b] for b in brackets)))


def loads(text: str | bytes, *, max_depth: int | None = None) -> Any:
    """``json.loads(text)``, refusing nesting deeper than ``max_depth`` (default: the setting).

    Raises :class:`JSONTooDeepError` (a ``ValueError``) when too deep, ``ValueError`` for bad
    JSON (``json.JSONDecodeError`` and ``UnicodeDecodeError`` both are).
    """
    limit = _max_depth if max_depth is None else max_depth
    openers = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else text.count(b"[") + text.count(b"{")
    )
    if openers > limit and json_depth(text) > limit:
        raise JSONTooDeepError(limit)
    try:
        return json.loads(text)
    except RecursionError:  # only if the limit was set above what the interpreter allows
        raise JSONTooDeepError(limit) from None


_scan = cast("Callable[[str, int], tuple[Any, int]]", json.JSONDecoder().scan_once)  # type: ignore[attr-defined]


def whole_object(text: str, max_depth: int | None = None) -> dict[str, Any] | None:
    """``text`` parsed when it is exactly one JSON object (nothing around it) that nests no deeper
    than ``max_depth`` (default: the setting); else ``None``, and the caller parses it with
    :func:`loads`, which reports what is wrong.

    The fast path of a stream's events: one call of the parser :func:`json.loads` runs, instead
    of four Python calls and two whitespace matches around it.
    """
    limit = _max_depth if max_depth is None else max_depth
    if text.count("{") + text.count("[") > limit:
        return None  # maybe too deep: loads decides
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return value if end == len(text) and type(value) is dict else None


def whole_objects(texts: list[str], max_depth: int | None = None) -> list[dict[str, Any]] | None:
    """``[whole_object(text) for text in texts]`` when every text is exactly one JSON object
    within ``max_depth`` (default: the setting); else ``None``, and the caller parses them one
    by one.

    The texts are parsed in one call of the parser, as the items of one array: the parser then
    builds each repeated key once for all of them, not once per object (the events of one
    network read repeat the same keys: a third less parsing for a read of chat chunks). A text
    that is not exactly one object (two objects separated by a comma, nothing, trailing text)
    makes the array invalid or its length wrong, so it is never taken for something else; each
    text must start with ``{`` and end with ``}``, as :func:`whole_object` requires.
    """
    limit = _max_depth if max_depth is None else max_depth
    for text in texts:
        if text[:1] != "{" or text[-1:] != "}":
            return None  # not exactly an object (whitespace around it is not taken either)
        if text.count("{") + text.count("[") > limit:
            return None  # maybe too deep: one by one, so loads decides
    joined = "[" + ",".join(texts) + "]"
    try:
        values, end = _scan(joined, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    if end != len(joined) or len(values) != len(texts):
        return None
    for value in values:
        if type(value) is not dict:
            return None
    return cast("list[dict[str, Any]]", values)
