"""Small request/response helpers shared by the HTTP routes of ``forge serve``.

JSON bodies, OpenAI-style list paging and string maps, each turning bad input into a
``UsageError`` (which the app's handlers answer with a 400 in the OpenAI error shape).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from anyio import to_thread
from starlette.requests import Request as HTTPRequest

from forge_cli import jsonsafe
from forge_cli.engine import wire
from forge_cli.engine.safe_json import JSONResponse
from forge_cli.errors import UsageError

__all__ = ["paged", "read_json", "run_sync", "str_dict"]

T = TypeVar("T")

_SUSPECT = re.compile(rb"\\[uU][dD][89a-fA-F]|NaN|Infinity|[eE][+-]?\d{3}|\d{300}")
"""What may make a parsed body unusable: a ``\\uD800``-``\\uDFFF`` escape (JSON may spell a lone
surrogate, which is no text), and ``NaN``, ``Infinity`` or a number too large for a float (read
as inf), which no JSON answer can echo. A body without any of these is not checked further."""


async def run_sync(func: Callable[[], T]) -> T:
    """Run synchronous store work (SQLite) in a worker thread."""
    return await to_thread.run_sync(func)


async def read_json(request: HTTPRequest) -> dict[str, Any]:
    """The JSON object body of a request (an empty body is an empty object)."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        value = jsonsafe.loads(raw)
    except ValueError as exc:
        raise UsageError(f"the request body is not valid JSON: {exc}") from exc
    except RecursionError:
        raise UsageError("the request body is nested too deeply") from None
    if not isinstance(value, dict):
        raise UsageError("the request body must be a JSON object")
    if _SUSPECT.search(raw):
        _check_plain(value)
    return value


def _check_plain(value: object) -> None:
    """Refuse strings that are not Unicode text and numbers that are not finite."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(
            "the request body holds a string with an unpaired UTF-16 surrogate (\\ud800-\\udfff)"
        ) from None
    except ValueError:
        raise UsageError(
            "the request body holds a number that is not finite (NaN, Infinity or too large)"
        ) from None


def paged(request: HTTPRequest, data: list[dict[str, Any]]) -> JSONResponse:
    """Apply ``order``, ``after`` and ``limit`` query parameters to a full listing."""
    params = request.query_params
    order = params.get("order", "desc")
    if order not in ("asc", "desc"):
        raise UsageError("order must be 'asc' or 'desc'")
    if order == "desc":
        data = list(reversed(data))
    after = params.get("after")
    if after:
        ids = [entry["id"] for entry in data]
        data = data[ids.index(after) + 1 :] if after in ids else []
    text = params.get("limit", "100")
    if not (text.isascii() and text.isdigit()) or int(text[:9]) < 1:
        raise UsageError("limit must be an integer of at least 1")
    limit = 10_000 if len(text) > 9 else min(int(text), 10_000)
    page = wire.list_page(data[:limit])
    page["has_more"] = len(data) > limit
    return JSONResponse(page)


def str_dict(value: object, name: str) -> dict[str, str] | None:
    """An optional object of strings (vector store metadata), or a UsageError naming ``name``."""
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise UsageError(f"{name} must be an object of strings")
    return {str(k): v for k, v in value.items()}
