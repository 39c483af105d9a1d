"""The retrieval answerer: an answer composed from the best passages, with no language model.

It runs the enabled hosted tools (file_search over the request's stores, web_search when
enabled), picks the sentences of the best passages that share words with the question, and
writes them grouped by document (with page numbers where the document has pages): one quote per
passage, cited once at its end. Its model name (``forge-retrieval``), first line and last line
say plainly that no model is configured and how to configure one.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from forge_cli.engine.answerer import AnswerContext
from forge_cli.engine.config import RETRIEVAL_MODEL
from forge_cli.engine.emitter import MessageWriter
from forge_cli.engine.hosted import Outcome, run_file_search, run_list_documents, run_web_search
from forge_cli.knowledge.query import query_terms
from forge_cli.protocol.citing import Passage
from forge_cli.protocol.events import StreamEvent
from forge_cli.wording import MODEL_HINT, RETRIEVAL_FIRST_LINE, RETRIEVAL_LEAD

__all__ = ["FIRST_LINE", "MODEL_HINT", "RetrievalAnswerer", "pick_sentences"]

FIRST_LINE = RETRIEVAL_FIRST_LINE
"""The first line of every answer that quotes passages (``/history`` previews skip it)."""
_MAX_DOCUMENTS = 4
_MAX_QUOTES = 8
_GAP = " … "
_MAX_PER_PASSAGE = 4
_MAX_QUOTE_CHARS = 420
_MAX_ECHO = 200
"""The answer that finds nothing quotes at most this much of the question."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)")
_LIST_ITEM = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+")
_ENDS_A_CLAUSE = (".", "!", "?", ":", ";", ",", "…")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
"""An inline code span: a run of backticks, then text up to a run of the same length."""


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence of prose, a line of code or a table row, without its Markdown markers.

    ``heading``: steers the choice but is not quoted on its own; ``item``: a list item, a code
    line or a table row -- a line of its own in the document, kept apart when quoted next to
    another one ("; ") or followed by prose (". ").
    """

    text: str
    heading: bool = False
    item: bool = False


@dataclass(frozen=True, slots=True)
class _Quote:
    passage: Passage
    text: str
    score: float


def _units(text: str, markdown: bool = True) -> list[_Unit]:
    """Sentences of prose, list items, single lines of code and table rows, in order, without
    Markdown markers.

    A source that is not Markdown (``markdown`` false: reStructuredText, plain text, a page's
    text, a PDF) loses its own markup (doctest prompts, directives, roles, reST emphasis) and is
    quoted literally: the answer is drawn as Markdown, so a word that Markdown would read
    (``__complex__`` as emphasis, ``\\`` as an escape) goes into a code span.
    """
    units: list[_Unit] = []
    in_code = False
    paragraph: list[str] = []
    in_item = False
    prose = (lambda part: part) if markdown else _literal
    in_doctest = False

    def flush(heading: bool = False) -> None:
        if paragraph:
            joined = prose(" ".join(paragraph))
            parts = [joined] if heading else _sentences(joined)
            units.extend(_Unit(s.strip(), heading, in_item) for s in parts if s.strip())
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            if line:
                units.append(_Unit(_code(line), item=True))
            continue
        if not markdown:
            in_doctest = bool(line) and (in_doctest or bool(_DOCTEST.match(line)))
            if in_doctest:  # an interactive example and its output: code, prompts removed
                flush()
                code = _DOCTEST.sub("", line)
                if code:
                    units.append(_Unit(_code(code), item=True))
                continue
            if line.startswith(".. "):  # a directive or comment: its marker is not content
                flush()
                raw = line = _DIRECTIVE.sub("", line).strip()
                if not line:
                    continue
        if line.startswith("|"):
            flush()  # a table row is a unit of its own; separator rows are dropped
            if not set(line) <= set("-=|: "):
                units.append(_Unit(line, item=True))
            continue
        if not line or _MARKUP.match(raw):
            flush()
            in_item = bool(_LIST_ITEM.match(raw))  # its continuation lines belong to it
        cleaned = _MARKUP.sub("", raw).strip()
        if cleaned and not set(cleaned) <= set("-=|: "):
            paragraph.append(cleaned)
            if line.startswith("#"):
                flush(heading=True)
    flush()
    return units


_DOCTEST = re.compile(r"^(?:>>>|\.\.\.)(?:\s|$)")
_DIRECTIVE = re.compile(r"^\.\.\s+(?:[\w:-]+::)?")
_REST_ROLE = re.compile(r":[\w.+-]+:`([^`]+)`")
_REST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`__?")
_REST_LITERAL = re.compile(r"``(.+?)``")
_REST_EMPHASIS = re.compile(r"(?<![\w*])(\*\*?)(?=\S)([^*]+?)(?<=\S)\1(?![\w*])")
_ACTIVE = frozenset("\\*_<>`")
"""Characters Markdown may read as markup inside a line (``#``, ``>`` and list markers only
count at its start, which a quote never is; ``[`` only as a link, ``~`` only doubled)."""
_ACTIVE_PAIRS = ("](", "~~")
_TRAILING = ".,;:!?\"'"


def _literal(text: str) -> str:
    """Plain ``text`` (with reST inline markup) as Markdown that shows it as written: roles and
    inline literals become code spans, reST emphasis and link markup go, ``::`` ends as ``:``,
    and any other word holding a character Markdown would read goes into a code span."""
    text = _REST_LINK.sub(r"\1", text)
    text = _REST_ROLE.sub(lambda m: _code(m.group(1)), text)
    text = _REST_LITERAL.sub(lambda m: _code(m.group(1)), text)
    text = _REST_EMPHASIS.sub(r"\2", text)
    if text.endswith("::"):
        text = text[:-1]
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.extend((_literal_words(text[last : span.start()]), span.group(0)))
        last = span.end()
    parts.append(_literal_words(text[last:]))
    return "".join(parts)


def _literal_words(text: str) -> str:
    words = re.split(r"(\s+)", text)
    for index, word in enumerate(words):
        if not _is_active(word) or not word.strip("*_"):  # a lone "*" opens nothing
            continue
        core = word.rstrip(_TRAILING)
        while core.endswith(")") and core.count(")") > core.count("("):
            core = core[:-1].rstrip(_TRAILING)
        if not _is_active(core):
            core = word
        words[index] = _code(core) + word[len(core) :]
    return "".join(words)


def _is_active(word: str) -> bool:
    return bool(_ACTIVE.intersection(word)) or any(pair in word for pair in _ACTIVE_PAIRS)


def _sentences(text: str) -> list[str]:
    """``text`` split at sentence ends, never inside an inline code span.

    Split inside one (``PATH... [--vs ID]`` ends like a sentence), a quote began or ended
    with half a span, and its backticks paired the wrong way when rendered.
    """
    masked = list(text)
    for span in _CODE_SPAN.finditer(text):
        fence = len(span.group(1))
        masked[span.start() + fence : span.end() - fence] = "x" * (
            span.end() - span.start() - 2 * fence
        )
    parts: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer("".join(masked)):
        parts.append(text[start : end.start()])
        start = end.end()
    parts.append(text[start:])
    return parts


def _code(line: str) -> str:
    """A line of a code block as one inline code span, whatever backticks it holds."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if fence != "`" else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def _literal_backticks(text: str) -> str:
    """``text`` with every backtick outside a whole code span escaped: a lone one (``\\`foo'``
    quoting, or a span cut by :func:`_clip`) would otherwise pair with one of the next quote."""
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.extend((text[last : span.start()].replace("`", "\\`"), span.group(0)))
        last = span.end()
    parts.append(text[last:].replace("`", "\\`"))
    return "".join(parts)


def _is_markdown(passage: Passage) -> bool:
    """Whether the passage's own text is Markdown (its markup is then the answer's too)."""
    return passage.url is None and passage.filename.lower().endswith(_MARKDOWN_SUFFIXES)


_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mdx")


def _stems(query: str) -> list[str]:
    return [t[: max(4, len(t) - 3)] for t in query_terms(query)]


def _score(unit: str, stems: list[str]) -> float:
    lowered = unit.lower()
    words = set(re.findall(r"\w+", lowered))
    matched = sum(1 for stem in stems if any(w.startswith(stem) for w in words))
    return matched / max(1, len(stems)) if matched else 0.0


def pick_sentences(passage: Passage, query: str, limit: int = _MAX_PER_PASSAGE) -> list[str]:
    """The sentences of ``passage`` that answer ``query`` best, in document order."""
    return [unit.text for _, unit, _ in _scored_sentences(passage, query, limit)]


def _scored_sentences(passage: Passage, query: str, limit: int) -> list[tuple[int, _Unit, float]]:
    """Chosen sentences with their scores (0 for a fallback), in document order.

    A sentence scores by the share of query words (by stem) it contains; a sentence right after
    a chosen one is kept too when it continues it (e.g. the command after "run this:").
    """
    units = _units(passage.text, markdown=_is_markdown(passage))
    stems = _stems(query)
    scored: list[tuple[int, float]] = []
    heading_bonus = 0.0
    for i, unit in enumerate(units):
        score = _score(unit.text, stems)
        if unit.heading:
            heading_bonus = 0.25 * score  # sentences under a matching heading rank higher
            continue
        scored.append((i, score + heading_bonus if score or heading_bonus else 0.0))
    best = sorted((s for s in scored if s[1] > 0), key=lambda s: (-s[1], s[0]))[:limit]
    chosen = {i for i, _ in best}
    scores = dict(scored)
    for i, score in best:
        if units[i].text.endswith(":") and i + 1 < len(units) and not units[i + 1].heading:
            chosen.add(i + 1)
            scores[i + 1] = max(scores.get(i + 1, 0.0), score)
    if not chosen and scored:
        chosen = {scored[0][0]}
    return [
        (i, _Unit(_clip(units[i].text), item=units[i].item), scores.get(i, 0.0))
        for i in sorted(chosen)
    ]


def _clip(text: str) -> str:
    clipped = text if len(text) <= _MAX_QUOTE_CHARS else text[: _MAX_QUOTE_CHARS - 1] + "…"
    return _literal_backticks(clipped)


def _quotes(passages: list[Passage], query: str) -> list[_Quote]:
    """One quote per passage worth quoting: its best sentences, in order ("…" marks a gap).

    A passage is kept when its best sentence is at least half as relevant as the best one
    found; a sentence already quoted from another passage is not repeated.
    """
    candidates: list[_Quote] = []
    seen: set[str] = set()
    for passage in passages:
        parts: list[str] = []
        best, last, previous = 0.0, -2, _Unit("")
        for index, unit, score in _scored_sentences(passage, query, _MAX_PER_PASSAGE):
            key = " ".join(unit.text.lower().split())
            if key in seen:
                continue
            seen.add(key)
            if parts:
                parts.append(_joint(previous, unit) if index == last + 1 else _GAP)
            parts.append(unit.text)
            best, last, previous = max(best, score), index, unit
        if parts:
            candidates.append(_Quote(passage, "".join(parts), best))
    if not candidates:
        return []
    top = max(q.score for q in candidates)
    kept = [q for q in candidates if q.score >= top / 2]
    return kept or candidates[:1]


def _joint(previous: _Unit, unit: _Unit) -> str:
    """What goes between two adjacent units of one quote: a space after a sentence's end; else
    "; " between two list items (code lines, table rows), ". " before prose. Joined with a
    bare space, "In the chat: `/tool on web-search`" ran into "The web search tool ..."."""
    if not previous.item or previous.text.endswith(_ENDS_A_CLAUSE):
        return " "
    return "; " if unit.item else ". "


def _group(quotes: list[_Quote]) -> list[tuple[str, list[_Quote]]]:
    """Quotes grouped by document (best document first), capped in size."""
    groups: dict[str, list[_Quote]] = {}
    for quote in quotes:
        key = quote.passage.file_id or quote.passage.url or quote.passage.filename
        if key not in groups and len(groups) >= _MAX_DOCUMENTS:
            continue
        groups.setdefault(key, []).append(quote)
    result: list[tuple[str, list[_Quote]]] = []
    budget = _MAX_QUOTES
    for group in groups.values():
        if budget <= 0:
            break
        kept = group[: max(1, min(len(group), budget))]
        budget -= len(kept)
        if any(q.passage.page is not None for q in kept):
            kept.sort(key=lambda q: q.passage.page or 0)
        result.append((kept[0].passage.filename, kept))
    return result


class RetrievalAnswerer:
    """Answers with quoted, cited passages; no model involved."""

    @property
    def model(self) -> str:
        """``forge-retrieval``."""
        return RETRIEVAL_MODEL

    async def answer(self, ctx: AnswerContext) -> AsyncIterator[StreamEvent]:
        """Run the enabled search tools, then write the quotes."""
        toolset = ctx.tools.toolset
        found: list[Passage] = []
        notes: list[str] = []
        if toolset.file_search is not None and ctx.query.strip():
            outcome = Outcome()
            async for event in run_file_search(ctx.tools, ctx.query, outcome):
                yield event
            found.extend(outcome.passages)
            if outcome.error:
                notes.append(f"File search failed: {outcome.error}.")
        if (
            toolset.list_documents is not None
            and not toolset.implicit
            and toolset.file_search is None
        ):
            outcome = Outcome()
            async for event in run_list_documents(ctx.tools, ctx.query or None, outcome):
                yield event
            notes.append(
                "Documents:\n" + outcome.text
                if not outcome.error
                else f"Listing failed: {outcome.error}."
            )
        if toolset.web_search and ctx.query.strip():
            outcome = Outcome()
            async for event in run_web_search(ctx.tools, ctx.query, outcome):
                yield event
            found.extend(outcome.passages)
            if outcome.error:
                notes.append(f"Web search failed: {outcome.error}.")
        async for event in self._write(ctx, found, notes):
            yield event

    async def _write(
        self, ctx: AnswerContext, found: list[Passage], notes: list[str]
    ) -> AsyncIterator[StreamEvent]:
        writer = MessageWriter(ctx.tools.emitter)
        for event in writer.start():
            yield event
        groups = _group(_quotes(found, ctx.query))
        lines = [FIRST_LINE]
        if not groups:
            lines = [self._nothing_found(ctx)]
        for event in self._lines(writer, lines):
            yield event
        for filename, quotes in groups:
            pages = sorted({q.passage.page for q in quotes if q.passage.page is not None})
            where = f" ({'p.' if len(pages) == 1 else 'pp.'} {', '.join(map(str, pages))})"
            source = "the web: " if quotes[0].passage.url else ""
            heading = f"From {source}**{filename}**{where if pages else ''}:"
            for event in self._lines(writer, ["", heading]):
                yield event
            for quote in quotes:
                page = f"p. {quote.passage.page}: " if len(pages) > 1 and quote.passage.page else ""
                delta = writer.write(f"\n\n> {page}{quote.text}")
                if delta is not None:
                    yield delta
                yield writer.annotate(quote.passage.annotation(writer.position, quote.text))
        for event in self._lines(
            writer, ["", *notes, "", MODEL_HINT] if notes else ["", MODEL_HINT]
        ):
            yield event
        ctx.usage["output_tokens"] += max(1, len(writer.text) // 4)
        ctx.transcript.append({"role": "assistant", "content": writer.text})
        for event in writer.finish():
            yield event

    @staticmethod
    def _lines(writer: MessageWriter, lines: list[str]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for number, line in enumerate(lines):
            prefix = "\n" if writer.position or number else ""
            delta = writer.write(prefix + line)
            if delta is not None:
                events.append(delta)
        return events

    @staticmethod
    def _nothing_found(ctx: AnswerContext) -> str:
        toolset = ctx.tools.toolset
        if toolset.list_documents is not None and toolset.file_search is None:
            return (
                RETRIEVAL_LEAD + "the documents are "
                "listed below; enable file_search to quote the passages that answer the question."
            )
        if toolset.file_search is None and not toolset.web_search:
            return (
                RETRIEVAL_LEAD + "there is nothing to "
                "search -- enable file_search with a vector store, or create one with "
                "`forge vs create NAME PATH...`."
            )
        query = ctx.query if len(ctx.query) <= _MAX_ECHO else ctx.query[: _MAX_ECHO - 1] + "…"
        return RETRIEVAL_LEAD + f"nothing in the searched sources matches {query!r}."
