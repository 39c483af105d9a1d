"""Make untrusted text (tool names, arguments, results) safe for a terminal.

The render package has the project's full sanitizer, but it sits above this layer; this small one
covers what the tools layer prints itself (approval prompts): C0/C1 control characters other
than newline and tab, DEL, and bidirectional overrides become visible ``\\xNN``/``\\uNNNN`` escapes.
"""

from __future__ import annotations

import re

__all__ = ["sanitize"]

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitize(text: str) -> str:
    """``text`` with terminal control sequences made visible and harmless."""
    return _UNSAFE.sub(_escape, text)
