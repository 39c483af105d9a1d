"""The one sanitiser every untrusted string passes before a terminal sees it.

Model output, tool results, file names, URLs and server error messages may carry terminal control
sequences: screen clears (``ESC [2J``), cursor moves, OSC 52 clipboard writes, OSC 8 hyperlinks,
window-title changes, DCS/APC/PM/SOS strings, C1 single-byte controls (``U+009B`` is a CSI on its
own), bidi overrides that make text read differently from what it is, and invisible characters
that hide content. None of these may reach a terminal raw.

Policy (documented in ``docs/rendering.md``): every dangerous character is replaced by a *visible*
ASCII escape, never dropped silently, so the user can see that something was there:

- C0 controls except newline and tab, DEL and C1 controls → ``\\x1b``-style escapes
  (so ``ESC [2J`` shows as the text ``\\x1b[2J``; the rest of a sequence is harmless text once its
  introducer is neutralised);
- bidi embeddings/overrides/isolates, zero-width and other invisible format characters, line and
  paragraph separators, Unicode tag characters → ``\\u202e``-style escapes (``\\U000e0041`` above
  the BMP);
- a carriage return that is part of ``\\r\\n`` is folded into the newline; a lone ``\\r`` is shown.

Zero-width joiner/non-joiner (U+200C/U+200D) are kept: emoji sequences and several scripts need
them and they cannot move the cursor. The function is pure and works on any chunking of a
stream: escaping each chunk separately gives the same visible result as escaping the whole text.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dangerous_chars", "json_dumps_safe", "sanitize", "sanitize_inline"]


def _dangerous_codepoints() -> list[int]:
    points = [c for c in range(0x20) if c not in (0x09, 0x0A)]
    points += [0x7F, *range(0x80, 0xA0)]
    points += [0x061C, 0x115F, 0x1160, 0x180E, 0x3164, 0xFEFF, 0xFFA0]
    points += [0x200B, 0x200E, 0x200F, 0x2028, 0x2029]
    points += [*range(0x202A, 0x202F), *range(0x2060, 0x2070)]
    points += [*range(0xFFF9, 0xFFFC), *range(0xE0000, 0xE0080)]
    return points


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


_TABLE: dict[int, str] = {code: _escape(code) for code in _dangerous_codepoints()}
_INLINE_TABLE: dict[int, str] = {**_TABLE, 0x0A: "\\n", 0x09: "\\t"}


def _character_class(codes: list[int]) -> str:
    """A regex class of ``codes`` written as runs (``a-b``): one test per run, not per character
    (a class of 227 single characters cost ~20x more per search)."""
    runs: list[list[int]] = []
    for code in sorted(set(codes)):
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    parts = (
        re.escape(chr(first)) + ("" if first == last else "-" + re.escape(chr(last)))
        for first, last in runs
    )
    return "[" + "".join(parts) + "]"


_DANGER = re.compile(_character_class(_dangerous_codepoints()))
_JSON_DANGER = re.compile(
    "[\u007f-\u009f\u061c\u115f\u1160\u180e\u3164\ufeff\uffa0\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u206f\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def dangerous_chars() -> frozenset[str]:
    """Every character the sanitiser neutralises (tests use it to scan output)."""
    return frozenset(chr(code) for code in _TABLE)


def sanitize(text: str) -> str:
    """``text`` with every control/escape/bidi/invisible character shown as a visible escape.

    Newlines and tabs are kept (multi-line text such as answers and logs).
    """
    if not text or _DANGER.search(text) is None:
        return text
    return text.replace("\r\n", "\n").translate(_TABLE)


def sanitize_inline(text: str) -> str:
    """Like :func:`sanitize`, but for one-line fields (file names, URLs, titles, queries).

    Newlines and tabs are escaped too, so a file name cannot forge extra status lines.
    """
    if not text:
        return text
    return text.translate(_INLINE_TABLE)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_dumps_safe(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    allow_nan: bool = True,
) -> str:
    """JSON text that keeps every string exactly (it round-trips) yet is safe to print raw.

    ``json.dumps`` already escapes C0 controls; this also escapes DEL, C1 controls, bidi and
    invisible characters as ``\\uXXXX`` so ``forge ask --json`` piped to a terminal (or
    ``curl`` of ``forge serve``) cannot drive it. Other non-ASCII text stays readable.
    """
    text = json.dumps(
        value, ensure_ascii=False, indent=indent, separators=separators, allow_nan=allow_nan
    )
    return _JSON_DANGER.sub(_json_escape, text)
