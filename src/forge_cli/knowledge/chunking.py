"""Split extracted text into retrieval chunks that follow headings and paragraphs.

A chunk is a span of the extracted text (``text[char_start:char_end]``), roughly ``target``
characters long, never cut inside a word, never across a PDF page, and labelled with the heading
path it sits under (``Guide > Tools > Web search``) so a search can match section titles too.

:func:`document_context` is the lead of the whole document (its first prose, about 50 words:
what the page is about). It is indexed and embedded with every chunk of the document, so a
passage deep in a page still carries what the page is for ("time: Time access and
conversions" for the chunk about ``sleep()``). ADR-0009 has the measurements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CONTEXT_WORDS", "ChunkSpec", "chunk_text", "document_context", "strip_markup"]

TARGET_CHARS = 1000
MAX_CHARS = 1200
MIN_CHARS = 200

_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_MD_HEADING = re.compile(r"#{1,6}[ \t]+\S")
_RST_UNDERLINE = re.compile(r"([=\-~^\"'`#*+])\1{2,}[ \t]*")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s+")
_WHITESPACE = re.compile(r"\s+")

CONTEXT_WORDS = 50
"""How many words of a document's lead go with each of its chunks."""
CONTEXT_SCAN_CHARS = 4000
"""How much of the start of a document :func:`document_context` reads."""
_UNDERLINE_LINE = re.compile(r"([=\-~^\"'`#*+])\1{2,}")
_FIELD = re.compile(r":[\w-]+:(?!`)")
"""A reST field or directive option (``:synopsis:``); a role (``:mod:`x```) is kept."""
_NON_PROSE = (".. ", "#", "<", "[", "|", "```", "~~~", "**Source code:**", "> Stability")
_INDEX_ENTRY = re.compile(r"(?:single|pair|triple|see|seealso):\s")
_API_ENTRY = re.compile(
    r"\.\. (?:py:|js:|c:|cpp:)?(?:function|class|method|data|attribute|exception|decorator"
    r"|decoratormethod|classmethod|staticmethod|abstractmethod|coroutinefunction|coroutinemethod"
    r"|module|describe|envvar|opcode|option|cmdoption|macro|type|member)::[ \t]*(\S[^\n]*)"
)
"""A reST (Sphinx) description of an API object: ``.. function:: rmtree(path, …)``."""
API_LEVEL = 100
"""The heading level an API description takes: below every section."""
API_TITLE_CHARS = 100
"""How much of an API description's signature goes into the heading path."""
_ROLE = re.compile(r":[\w.+-]+:(?=`)")
"""A reST role's name (``:func:`open``` keeps ```open```)."""
_DIRECTIVE = re.compile(r"\.\. [\w:-]+::")
"""A reST directive's name (``.. versionchanged::``, ``.. index::``)."""
_INDEX_KIND = re.compile(r"\b(?:single|pair|triple|seealso)(?=:)")
"""The kind of a reST index entry (``single: environment variables``)."""


@dataclass(frozen=True, slots=True)
class ChunkSpec:
    """A chunk before it is stored: its span of the text, page and heading path."""

    ordinal: int
    text: str
    heading: str
    page: int | None
    char_start: int
    char_end: int


def document_context(text: str, words: int = CONTEXT_WORDS) -> str:
    """The lead of a document: its first ``words`` words of prose (headings and markup skipped).

    Left out: heading lines (Markdown ``#``, reST/AsciiDoc underlined titles), directives,
    HTML and its comments, index entries, field lists, code (fenced, indented, or a block
    under an AsciiDoc ``[attribute]`` line); a reST ``:synopsis:`` keeps its text. Works on
    any extracted text (plain, Markdown, reST, AsciiDoc, a PDF's text).
    """
    lines = text[:CONTEXT_SCAN_CHARS].split("\n")
    kept: list[str] = []
    fenced = skip_block = comment = False
    for n, raw in enumerate(lines):
        line = raw.strip()
        if comment or line.startswith("<!--"):
            comment = "-->" not in line
            continue
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not line:
            skip_block = False
            continue
        if line.startswith(":synopsis:"):
            kept.extend(line[len(":synopsis:") :].split())
        elif line.startswith("[") and line.endswith("]"):
            skip_block = True
        elif not (fenced or skip_block or raw[:1].isspace() or _is_markup(line, lines, n)):
            kept.extend(line.split())
        if len(kept) >= words:
            break
    return " ".join(kept[:words])


def strip_markup(text: str) -> str:
    """``text`` without the names of reST roles, directives and index-entry kinds.

    What they mark stays (``:func:`os.getenv``` keeps ``os.getenv``). The names themselves are
    in most chunks of a reST document (a quarter of the Python reference's chunks say "func"),
    so in a bag-of-words vector they pull every chunk the same way. Used for the text a chunk
    is embedded from (``embedding.embed_chunks``); stored and indexed text is unchanged.
    """
    if ":`" in text:  # cheap checks first: most text has no markup at all
        text = _ROLE.sub(" ", text)
    if ".. " in text:
        if ".. index::" in text:
            text = _INDEX_KIND.sub(" ", text)
        text = _DIRECTIVE.sub(" ", text)
    return text


def _is_markup(line: str, lines: list[str], n: int) -> bool:
    following = lines[n + 1].strip() if n + 1 < len(lines) else ""
    return bool(
        _UNDERLINE_LINE.fullmatch(line)
        or (following and _UNDERLINE_LINE.fullmatch(following) and len(following) >= len(line))
        or line.startswith(_NON_PROSE)
        or _INDEX_ENTRY.match(line)
        or _FIELD.match(line)
    )


def chunk_text(
    text: str,
    pages: list[tuple[int, int]] | None = None,
    *,
    target: int = TARGET_CHARS,
    max_chars: int = MAX_CHARS,
    min_chars: int = MIN_CHARS,
) -> list[ChunkSpec]:
    """Chunk ``text``; with ``pages`` (start, end offsets) chunks keep their page number."""
    chunker = _Chunker(text, target=target, max_chars=max_chars, min_chars=min_chars)
    if pages is None:
        chunker.run(0, len(text), None)
    else:
        for number, (start, end) in enumerate(pages, start=1):
            chunker.run(start, end, number)
    return chunker.chunks


class _Chunker:
    def __init__(self, text: str, *, target: int, max_chars: int, min_chars: int) -> None:
        self.text = text
        self.target = target
        self.max_chars = max(max_chars, target)
        self.min_chars = min(min_chars, target)
        self.chunks: list[ChunkSpec] = []
        self.headings: list[tuple[int, str]] = []
        self.rst_levels: dict[str, int] = {}
        self._start = -1
        self._end = -1
        self._heading = ""
        self._page: int | None = None

    def run(self, start: int, end: int, page: int | None) -> None:
        self._page = page
        for block_start, block_end in self._blocks(start, end):
            self._add_block(block_start, block_end)
        self._flush()

    def _blocks(self, start: int, end: int) -> list[tuple[int, int]]:
        """Paragraph spans (stripped), with fenced code blocks kept whole."""
        raw: list[tuple[int, int]] = []
        pos = start
        for match in _BLANK_LINES.finditer(self.text, start, end):
            raw.append((pos, match.start()))
            pos = match.end()
        raw.append((pos, end))
        blocks: list[tuple[int, int]] = []
        open_fence = False
        for b_start, b_end in raw:
            while b_start < b_end and self.text[b_start].isspace():
                b_start += 1
            while b_end > b_start and self.text[b_end - 1].isspace():
                b_end -= 1
            if b_start >= b_end:
                continue
            fences = self.text.count("```", b_start, b_end)
            if open_fence and blocks:
                blocks[-1] = (blocks[-1][0], b_end)
            else:
                blocks.append((b_start, b_end))
            if fences % 2 == 1:
                open_fence = not open_fence
        return blocks

    def _heading_of(self, start: int, end: int) -> tuple[int, str] | None:
        first_end = self.text.find("\n", start, end)
        first_end = end if first_end < 0 else first_end
        first = self.text[start:first_end]
        if _MD_HEADING.match(first) and not self._indented(start):
            level = len(first) - len(first.lstrip("#"))
            return level, first.strip("# \t")
        if first_end < end:
            second_end = self.text.find("\n", first_end + 1, end)
            second = self.text[first_end + 1 : end if second_end < 0 else second_end]
            title = first.strip()
            if title and _RST_UNDERLINE.fullmatch(second) and len(second.strip()) >= len(title):
                level = self.rst_levels.setdefault(second[0], len(self.rst_levels) + 1)
                return level, title
        return None

    def _indented(self, start: int) -> bool:
        """True when the line of ``start`` is indented (a ``#`` line in code, not a heading).

        Blocks are stripped, so the indentation is what precedes ``start`` on its line. reST
        literal blocks and indented Markdown code put ``# comment`` lines there; taken for
        headings, they replaced the real heading path of a quarter of the Python reference.
        """
        line_start = self.text.rfind("\n", 0, start) + 1
        return start > line_start

    def _api_entry(self, start: int) -> tuple[int, str] | None:
        """The heading level and title of a reST API description starting at ``start``.

        ``.. function:: rmtree(path, ignore_errors=False)`` names what the paragraphs after it
        describe, as a Markdown API reference's ``### fs.rm(path[, options])`` heading does;
        its signature joins the heading path of the chunks that start after it. Only a
        description at the start of a line counts: members nested in a class description
        (indented) stay under the class (measured worse as their own level, ADR-0009).
        """
        if self._indented(start):
            return None
        line_end = self.text.find("\n", start)
        match = _API_ENTRY.fullmatch(self.text, start, len(self.text) if line_end < 0 else line_end)
        if match is None:
            return None
        return API_LEVEL, match.group(1).strip()[:API_TITLE_CHARS]

    def _add_block(self, start: int, end: int) -> None:
        api = self._api_entry(start) if self.text.startswith(".. ", start) else None
        if api is not None:  # a new heading path for the chunks after it; no chunk boundary
            self.headings = [(lv, t) for lv, t in self.headings if lv < api[0]]
            self.headings.append(api)
        heading = None if api is not None else self._heading_of(start, end)
        if heading is not None:
            if self._start >= 0 and self._end - self._start >= self.min_chars:
                self._flush()
            level, title = heading
            self.headings = [(lv, t) for lv, t in self.headings if lv < level]
            self.headings.append((level, title))
            if self._start >= 0 and not self._heading:
                # A short lead-in without a heading (a reST label such as ``.. _x:``) is
                # labelled by the heading that follows it.
                self._heading = " > ".join(t for _, t in self.headings)
        if self._start >= 0 and end - self._start > self.max_chars:
            self._flush()
        if end - start > self.max_chars:
            self._flush()
            self._split_long(start, end)
            return
        if self._start < 0:
            self._start = start
            self._heading = " > ".join(t for _, t in self.headings)
        self._end = end
        if self._end - self._start >= self.target:
            self._flush()

    def _split_long(self, start: int, end: int) -> None:
        heading = " > ".join(t for _, t in self.headings)
        pos = start
        while pos < end:
            cut = end if end - pos <= self.max_chars else self._cut_point(pos, end)
            self._emit(pos, cut, heading)
            pos = cut
            while pos < end and self.text[pos].isspace():
                pos += 1

    def _cut_point(self, pos: int, end: int) -> int:
        low, high = pos + self.min_chars, min(end, pos + self.max_chars)
        best = -1
        for match in _SENTENCE_END.finditer(self.text, low, high):
            cut = match.start() + 1
            if cut - pos <= self.target or best < 0:
                best = cut
        if best > 0:
            return best
        for match in _WHITESPACE.finditer(self.text, low, high):
            best = match.start()
        if best > 0:
            return best
        # One very long "word": cut at the next whitespace after it, or take the rest.
        following = _WHITESPACE.search(self.text, high, end)
        return following.start() if following else end

    def _flush(self) -> None:
        if self._start >= 0:
            self._emit(self._start, self._end, self._heading)
        self._start = self._end = -1

    def _emit(self, start: int, end: int, heading: str) -> None:
        while end > start and self.text[end - 1].isspace():
            end -= 1
        if end <= start:
            return
        self.chunks.append(
            ChunkSpec(
                ordinal=len(self.chunks),
                text=self.text[start:end],
                heading=heading,
                page=self._page,
                char_start=start,
                char_end=end,
            )
        )
