"""Build FTS5 MATCH expressions from free text that can never be an FTS syntax error.

User text is split into word tokens; each token is double-quoted (so ``AND``, ``NEAR``, ``*``,
``-`` or ``"`` in the text mean nothing to FTS5), common English stopwords are dropped, and the
terms are OR-combined so BM25 ranks chunks by how many and how rare the matched terms are.
Long terms also match as prefixes (``configur*`` finds "configuration").
"""

from __future__ import annotations

import re

__all__ = ["QUESTION_FILLER", "STOPWORDS", "build_match_query", "query_terms", "search_terms"]

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


_QUESTION_START_TEXT = """
how what why where which who whom when can could is are do does did should would will may might i
"""
_QUESTION_FILLER_TEXT = """
best easy else find get good like make need one possible program script code simple someone
something sure tell thing things use using want way without write
"""
_QUESTION_START = frozenset(_QUESTION_START_TEXT.split())
QUESTION_FILLER: frozenset[str] = frozenset(_QUESTION_FILLER_TEXT.split())
"""Words of question phrasing ("How can I make my program…") that name no topic."""


def search_terms(text: str) -> list[str]:
    """The terms a search ranks by: :func:`query_terms`, less question filler in a question.

    A text that starts like a question ("How do I…", "Can I…") is phrased around its topic
    with words such as "make", "program" or "way", which match everywhere and pull a
    bag-of-words query vector away from the topic; they are left out (unless nothing else
    is left). A keyword-style query keeps every term.
    """
    terms = query_terms(text)
    first = _TOKEN.search(text)
    if first is None or first.group().lower() not in _QUESTION_START:
        return terms
    topical = [t for t in terms if t not in QUESTION_FILLER]
    return topical or terms


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
