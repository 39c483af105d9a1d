"""In-text citation markers servers write, found by one regular expression.

*Strong* markers are unambiguous and always count: ``⟦⟦n⟧⟧`` (Knowledge Forge), ``⟦n⟧`` and
``⁽ⁿ⁾``. *Weak* markers (``[n]`` and bare superscript digits such as ``¹``) also occur in ordinary
text (``x[1]``, ``m²``), so they count only when an annotation of the message claims their
number. Whatever the style, the renderer shows every marker as ``[n]`` with its own numbering.
"""

from __future__ import annotations

import re

__all__ = ["MARKER_RE", "PARTIAL_MARKER_RE", "marker_number", "superscript_to_int"]

_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_CLASS = f"[{_SUP}]"
_SUP_VALUE = {ch: str(i) for i, ch in enumerate(_SUP)}

MARKER_RE = re.compile(
    rf"⟦⟦(?P<s1>\d{{1,4}})⟧⟧"
    rf"|⟦(?P<s2>\d{{1,4}})⟧"
    rf"|⁽(?P<s3>{_SUP_CLASS}{{1,4}})⁾"
    rf"|(?<![\w\]\\!\[])\[(?P<w1>\d{{1,3}})\](?![(\[:])"
    rf"|(?P<w2>{_SUP_CLASS}{{1,3}})"
)
"""Any marker; groups ``s1``-``s3`` are strong, ``w1``/``w2`` weak."""

PARTIAL_MARKER_RE = re.compile(
    rf"(?:⟦⟦?\d{{0,4}}⟧?|⁽{_SUP_CLASS}{{0,4}}|\[\d{{0,3}}|{_SUP_CLASS}+)$"
)
"""A text end that may be the start of a marker still streaming in (held back by plain mode)."""


def superscript_to_int(text: str) -> int:
    """``¹²`` → 12."""
    return int("".join(_SUP_VALUE[ch] for ch in text))


def marker_number(match: re.Match[str]) -> tuple[int, bool]:
    """The server's number of a marker match and whether the marker is strong."""
    for group in ("s1", "s2"):
        if match.group(group):
            return int(match.group(group)), True
    if match.group("s3"):
        return superscript_to_int(match.group("s3")), True
    if match.group("w1"):
        return int(match.group("w1")), False
    return superscript_to_int(match.group("w2")), False
