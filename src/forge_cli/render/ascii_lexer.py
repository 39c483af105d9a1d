"""Lexers for code that is all ASCII, whose regular expressions compile several times faster.

A pygments ``RegexLexer`` compiles every rule of every state the first time it is built. Most
rules are cheap, but identifier rules carry Unicode character sets thousands of characters long
(Python's ``[xid_start][xid_continue]*`` has ~3,500): compiling Python's two identifier patterns
takes ~15 ms of the ~25 ms that building the Python lexer costs, paid on the first Python block
of every answer (docs/adr/0025-ascii-code-lexers.md).

On text that is all ASCII, a character set matches exactly the ASCII characters it holds, so the
set with its other members removed matches the same. :func:`ascii_variant` derives from a lexer
class a subclass whose patterns are the same with every character set restricted that way: the
rules, states, token types and callbacks are inherited, nothing is copied. On ASCII text it yields
the tokens the original yields, and it is used only for such text
(:class:`forge_cli.render.direct_code.CodeBlock` picks by ``str.isascii``).

The rewrite is conservative: a pattern is left as it is when it is all ASCII already (nothing to
gain), when it matches case-insensitively (a non-ASCII character can match an ASCII one then:
KELVIN SIGN and ``k``), when it is verbose (a ``[`` in a comment is no set), or when a set holds
an escape this module does not decode. A lexer that is not a ``RegexLexer`` gets no variant.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["ascii_pattern", "ascii_variant"]

_ASCII_END = 0x7F
_NEVER = "\\x80"  # a set member no ASCII character matches (keeps a set from becoming empty)
_INLINE_FLAGS = re.compile(r"\(\?[aiLmsux]*[ix]")  # (?i) or (?x), alone or with others
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# Escapes in a set that stand for one character (the character itself, escaped).
_PUNCTUATION = frozenset("\\]^-[.$*+?(){}|/ &~#,:;=<>!'\"@%`_")
_CONTROL = {"a": 0x07, "b": 0x08, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
# Class escapes: kept as they are (on ASCII text they match only ASCII characters anyway).
_CLASSES = frozenset("dDsSwW")


class _Unsupported(Exception):
    """A pattern this module does not rewrite (it is then used as it is)."""


def ascii_pattern(pattern: str, flags: int = 0) -> str:
    """``pattern`` with every character set restricted to its ASCII members: on text that is
    all ASCII it matches exactly what ``pattern`` matches. ``pattern`` itself when it is ASCII
    already, matches case-insensitively, is verbose, or holds a set this does not rewrite."""
    if pattern.isascii() or flags & (re.IGNORECASE | re.VERBOSE) or _INLINE_FLAGS.search(pattern):
        return pattern
    try:
        return _rewrite(pattern)
    except _Unsupported:
        return pattern


def _rewrite(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif char == "[":
            i = _rewrite_set(pattern, i, out)
        else:
            out.append(char)
            i += 1
    return "".join(out)


# The ASCII members of pygments' Unicode category sets (``pygments.unistring``), which lexers
# paste into their character sets: these are replaced whole, without reading them member by
# member. tests/render/test_ascii_lexer.py checks every entry against the set itself.
_CATEGORY_ASCII = {
    "Cc": "\\x00-\\x1f\\x7f",
    "Ll": "a-z",
    "Lu": "A-Z",
    "Nd": "0-9",
    "Pc": "_",
    "Pd": "\\-",
    "Pe": ")\\]}",
    "Po": "!\"#%&'*,./:;?@\\\\",
    "Ps": "(\\[{",
    "Sc": "$",
    "Sk": "\\^`",
    "Sm": "+<=>|~",
    "Zs": " ",
    "xid_continue": "0-9A-Z_a-z",
    "xid_start": "A-Z_a-z",
}
"""Category names with no ASCII member: Cf Cn Co Cs Lm Lo Lt Mc Me Mn Nl No Pf Pi So Zl Zp."""


_KEY = 4  # categories are looked up by their first characters


@cache
def _categories() -> dict[str, tuple[tuple[str, str], ...]]:
    """(a category's set text in pygments, its ASCII members as set text), by the text's first
    characters, longest first."""
    from pygments import unistring

    found: dict[str, list[tuple[str, str]]] = {}
    for name in [*unistring.cats, "xid_start", "xid_continue"]:
        text = getattr(unistring, name, None)
        if isinstance(text, str) and len(text) >= _KEY and not text.isascii():
            found.setdefault(text[:_KEY], []).append((text, _CATEGORY_ASCII.get(name, "")))
    return {
        key: tuple(sorted(pairs, key=lambda pair: -len(pair[0]))) for key, pairs in found.items()
    }


def _rewrite_set(pattern: str, start: int, out: list[str]) -> int:
    """Append the set starting at ``pattern[start] == "["``, restricted; return the index after
    its closing ``]``."""
    i = start + 1
    head = "["
    if i < len(pattern) and pattern[i] == "^":
        head += "^"
        i += 1
    members: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise _Unsupported("unterminated set")
        if pattern[i] == "]" and not first:
            break
        first = False
        category = _category_at(pattern, i)
        if category is not None:
            members.append(category[1])
            i += len(category[0])
            continue
        low, text, i = _member(pattern, i)
        if low is not None and i + 1 < len(pattern) and pattern[i] == "-" and pattern[i + 1] != "]":
            high, high_text, i = _member(pattern, i + 1)
            if high is None:
                raise _Unsupported("range to a class escape")
            if low > _ASCII_END:
                continue  # no ASCII character in the range
            if high > _ASCII_END:
                members.append(f"{text}-\\x7f")
            else:
                members.append(f"{text}-{high_text}")
            continue
        if low is None or low <= _ASCII_END:
            members.append(text)
    out.append(head + ("".join(members) or _NEVER) + "]")
    return i + 1


def _category_at(pattern: str, i: int) -> tuple[str, str] | None:
    """The pygments category set that starts at member ``i`` and ends at a member's end (not
    followed by ``-`` starting a range), if any."""
    for text, ascii_members in _categories().get(pattern[i : i + _KEY], ()):
        if pattern.startswith(text, i):
            after = i + len(text)
            if pattern.startswith("-", after) and not pattern.startswith("-]", after):
                return None
            return text, ascii_members
    return None


def _member(pattern: str, i: int) -> tuple[int | None, str, int]:
    """One member of a set at ``pattern[i]``: its code point (None for a class escape such as
    ``\\w``), its text, and the index after it."""
    char = pattern[i]
    if char != "\\":
        return ord(char), _escaped(char), i + 1
    if i + 1 >= len(pattern):
        raise _Unsupported("trailing backslash")
    kind = pattern[i + 1]
    if kind in _CLASSES:
        return None, pattern[i : i + 2], i + 2
    if kind in _HEX_ESCAPES:
        width = _HEX_ESCAPES[kind]
        digits = pattern[i + 2 : i + 2 + width]
        if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
            raise _Unsupported("malformed hex escape")
        code = int(digits, 16)
        return code, pattern[i : i + 2 + width], i + 2 + width
    if kind in _CONTROL:
        return _CONTROL[kind], pattern[i : i + 2], i + 2
    if kind in _PUNCTUATION or (not kind.isascii() and not kind.isalnum()):
        return ord(kind), pattern[i : i + 2], i + 2
    raise _Unsupported(f"escape \\{kind} in a set")  # octal, \N{...}, \0 ...


def _escaped(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


@cache
def ascii_variant(lexer_class: type[Any]) -> type[Any] | None:
    """A subclass of the pygments ``RegexLexer`` class ``lexer_class`` whose patterns are
    restricted to ASCII (:func:`ascii_pattern`), for text that is all ASCII; None when
    ``lexer_class`` is not a ``RegexLexer``."""
    from pygments.lexer import Future, RegexLexer, RegexLexerMeta

    if not issubclass(lexer_class, RegexLexer):
        return None
    meta: Any = type(lexer_class)
    if not issubclass(meta, RegexLexerMeta):
        return None

    def _process_regex(cls: Any, regex: Any, rflags: int, state: str) -> Any:
        if isinstance(regex, Future):
            regex = regex.get()
        if isinstance(regex, str):
            regex = ascii_pattern(regex, rflags)
        return meta._process_regex(cls, regex, rflags, state)

    ascii_meta = type(f"Ascii{meta.__name__}", (meta,), {"_process_regex": _process_regex})
    name = f"Ascii{lexer_class.__name__}"
    variant: type[Any] = ascii_meta(name, (lexer_class,), {"__module__": __name__, "__doc__": None})
    return variant
