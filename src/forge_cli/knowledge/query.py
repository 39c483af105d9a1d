"""Build FTS5 MATCH expressions from free text that can never be an FTS syntax error.

User text is split into word tokens; each token is double-quoted (so ``AND``, ``NEAR``, ``*``,
``-`` or ``"`` in the text mean nothing to FTS5), common English stopwords are dropped, and the
terms are OR-combined so BM25 ranks chunks by how many and how rare the matched terms are.
Long terms also match as prefixes (``configur*`` finds "configuration").
"""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "build_match_query", "query_terms"]

_TOKEN = re.compile(r"\w+", re.UNICODE)
_PREFIX_MIN_LEN = 6
_MAX_TERMS = 32

_STOPWORD_TEXT = """
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers him his how i if in into is it its itself just me more
most my no nor not now of off on once only or other our ours out over own same she should so
some such than that the their theirs them then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you
your yours
"""

STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())


def query_terms(text: str) -> list[str]:
    """Lower-cased, de-duplicated word tokens of ``text`` without stopwords.

    When every token is a stopword (``"what is it"``), the tokens are kept: a weak query is
    better than none.
    """
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    seen: dict[str, None] = {}
    for token in tokens:
        if token not in STOPWORDS and token.strip("_"):
            seen.setdefault(token, None)
    if not seen:
        for token in tokens:
            if token.strip("_"):
                seen.setdefault(token, None)
    return list(seen)[:_MAX_TERMS]


def build_match_query(text: str) -> str | None:
    """An FTS5 MATCH expression for ``text``, or None when it holds no searchable word."""
    terms = query_terms(text)
    if not terms:
        return None
    parts = []
    for term in terms:
        quoted = '"' + term.replace('"', '""') + '"'
        parts.append(quoted + "*" if len(term) >= _PREFIX_MIN_LEN else quoted)
    return " OR ".join(parts)
