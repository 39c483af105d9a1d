"""JSON for ``forge serve`` answers that is exact yet safe to show raw on a terminal.

``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but leaves DEL, C1 controls
(``U+009B`` is a CSI on its own), bidi overrides, zero-width and tag characters raw. Names a
client stored (a vector store's, a file's) and questions quoted in answers come back in every
listing and stream, so ``curl`` of the API would drive or spoof the user's terminal. Here those
characters are written as ``\\uXXXX`` escapes (JSON parsers read the same strings), the same set
:mod:`forge_cli.sanitize` neutralises; other non-ASCII text stays readable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.responses import JSONResponse as _StarletteJSONResponse

from forge_cli.sanitize import dangerous_chars

__all__ = ["JSONResponse", "dumps"]


def _character_class(chars: frozenset[str]) -> re.Pattern[str]:
    """One regex class of ``chars`` written as runs (a class of single characters is slow)."""
    runs: list[list[int]] = []
    for code in sorted(ord(c) for c in chars):
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    parts = "".join(
        re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in runs
    )
    return re.compile(f"[{parts}]")


# C0 controls never appear raw in json.dumps output: only what it leaves raw is searched for.
_UNSAFE = _character_class(frozenset(c for c in dangerous_chars() if ord(c) >= 0x20))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def dumps(value: Any, *, allow_nan: bool = True) -> str:
    """Compact JSON of ``value`` with terminal-unsafe characters escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=allow_nan)
    return _UNSAFE.sub(_escape, text)


class JSONResponse(_StarletteJSONResponse):
    """Starlette's JSON answer, rendered with :func:`dumps`."""

    def render(self, content: Any) -> bytes:
        """The body: compact, no NaN (as Starlette's), unsafe characters escaped."""
        return dumps(content, allow_nan=False).encode("utf-8")
