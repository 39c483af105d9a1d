"""JSON for ``forge serve`` answers that is exact yet safe to show raw on a terminal.

``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but leaves DEL, C1 controls
(``U+009B`` is a CSI on its own), bidi overrides, zero-width and tag characters raw. Names a
client stored (a vector store's, a file's) and questions quoted in answers come back in every
listing and stream, so ``curl`` of the API would drive or spoof the user's terminal. Here those
characters are written as ``\\uXXXX`` escapes (JSON parsers read the same strings), the same set
:mod:`forge_cli.sanitize` neutralises; other non-ASCII text stays readable.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse as _StarletteJSONResponse

from forge_cli.sanitize import json_dumps_safe

__all__ = ["JSONResponse", "dumps"]


def dumps(value: Any, *, allow_nan: bool = True) -> str:
    """Compact JSON of ``value`` with terminal-unsafe characters escaped (as ``forge ask
    --json`` writes them: :func:`forge_cli.sanitize.json_dumps_safe`)."""
    return json_dumps_safe(value, separators=(",", ":"), allow_nan=allow_nan)


class JSONResponse(_StarletteJSONResponse):
    """Starlette's JSON answer, rendered with :func:`dumps`."""

    def render(self, content: Any) -> bytes:
        """The body: compact, no NaN (as Starlette's), unsafe characters escaped."""
        return dumps(content, allow_nan=False).encode("utf-8")
