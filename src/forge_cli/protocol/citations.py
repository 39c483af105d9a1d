"""Citation numbering: one numbering shared by the answer text, the Sources list, ``/sources``,
JSON output, exports and evaluation.

Numbers are given in order of first appearance in the text, so the number in the text is the
number in the Sources list. Two kinds of citation reach us:

- annotations with a character position (OpenAI: ``file_citation.index``,
  ``url_citation.end_index``): a ``[n]`` marker is inserted at that position; the same file and
  page (or the same URL) keeps one number;
- in-text markers written by the server (``⟦⟦n⟧⟧``, ``⁽ⁿ⁾``, ``[n]``, ``¹``; see ``citing.py``):
  rewritten to ``[n]``. Such a message is in *marker mode*: its annotations are matched to
  markers by number (a file citation whose ``index`` is that number, else the n-th annotation)
  and not inserted by position.

Text is processed block by block (``blocks.py``), exactly as the streaming renderer commits it,
so :func:`collect_citations` on the final snapshot gives the numbers the screen showed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from forge_cli.protocol.annotations import (
    Annotation,
    ContainerFileCitation,
    FileCitation,
    UrlCitation,
)
from forge_cli.protocol.blocks import Block, split_blocks
from forge_cli.protocol.citing import MARKER_RE, marker_number
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.guards import (
    is_container_file_citation,
    is_file_citation,
    is_message,
    is_url_citation,
)
from forge_cli.protocol.items import Message
from forge_cli.protocol.response import Response
from forge_cli.sanitize import sanitize_inline

__all__ = [
    "Citation",
    "CitationNumbering",
    "MessageCitations",
    "cite_message",
    "cited_text",
    "collect_citations",
    "positioned_annotations",
    "source_label",
]

SourceKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Citation:
    """One numbered source. ``type`` is the annotation type, or ``unresolved`` for an in-text
    marker the server never described."""

    n: int
    type: str
    file_id: str | None = None
    filename: str | None = None
    page: int | None = None
    url: str | None = None
    title: str | None = None
    snippet: str | None = None

    @property
    def domain(self) -> str | None:
        """The host of a URL citation."""
        if not self.url:
            return None
        host = urlsplit(self.url).hostname or ""
        return host.removeprefix("www.") or None

    def to_json(self) -> dict[str, Any]:
        """The ``citations[]`` entry of the ``forge.answer/v1`` document."""
        return asdict(self)


def _file(ann: FileCitation) -> tuple[SourceKey, Citation]:
    key = ("file", ann.file_id or ann.filename or "", str(ann.page))
    return key, Citation(0, ann.type, ann.file_id or None, ann.filename, ann.page, None, None,
                         ann.snippet)  # fmt: skip


def _url(ann: UrlCitation) -> tuple[SourceKey, Citation]:
    return ("url", ann.url, ""), Citation(0, ann.type, url=ann.url, title=ann.title,
                                          snippet=ann.snippet)  # fmt: skip


def _container(ann: ContainerFileCitation) -> tuple[SourceKey, Citation]:
    key = ("file", ann.file_id or ann.filename or "", "None")
    return key, Citation(0, ann.type, file_id=ann.file_id or None, filename=ann.filename)


_SOURCES: list[tuple[Callable[[object], bool], Callable[[Any], tuple[SourceKey, Citation]]]] = [
    (is_file_citation, _file),
    (is_url_citation, _url),
    (is_container_file_citation, _container),
]


def source_of(annotation: object) -> tuple[SourceKey, Citation] | None:
    """The dedup key and (unnumbered) citation of a citing annotation; ``None`` for others."""
    for guard, make in _SOURCES:
        if guard(annotation):
            return make(annotation)
    return None


def _position(annotation: object) -> int | None:
    if is_file_citation(annotation):
        return annotation.index
    if is_url_citation(annotation) or is_container_file_citation(annotation):
        if not annotation.end_index and not annotation.start_index:
            return None  # 0..0 marks no span (a file the tool produced): listed, not placed
        return annotation.end_index
    return None


def positioned_annotations(message: Message) -> list[tuple[int | None, Annotation]]:
    """The citing annotations of a message with positions made absolute over all its parts."""
    found: list[tuple[int | None, Annotation]] = []
    offset = 0
    for part in message.content:
        if isinstance(part, OutputText):
            for ann in part.annotations:
                if source_of(ann) is not None:
                    pos = _position(ann)
                    found.append((None if pos is None else pos + offset, ann))
            offset += len(part.text)
    return found


@dataclass
class CitationNumbering:
    """Numbers by first appearance; a key keeps its number. Copy it for tentative renders."""

    numbers: dict[object, int] = field(default_factory=dict)
    sources: dict[int, Citation | None] = field(default_factory=dict)

    def number(self, key: object, source: Citation | None) -> int:
        """The number of ``key``, given now if new."""
        n = self.numbers.get(key)
        if n is None:
            n = len(self.numbers) + 1
            self.numbers[key] = n
            self.sources[n] = None
        if source is not None and self.sources.get(n) is None:
            self.sources[n] = Citation(n, **{k: v for k, v in asdict(source).items() if k != "n"})
        return n

    def copy(self) -> CitationNumbering:
        """An independent copy (for the live region, whose numbers are not final)."""
        return CitationNumbering(dict(self.numbers), dict(self.sources))

    def finalize(self, response: Response) -> list[Citation]:
        """Describe markers resolved late and number annotations never placed in the text."""
        for message in _messages(response):
            annotations = positioned_annotations(message)
            for key, n in list(self.numbers.items()):
                if self.sources.get(n) is None and isinstance(key, tuple) and key[0] == "marker":
                    resolved = _resolve(int(key[1]), annotations)
                    if resolved is not None:
                        self.sources[n] = Citation(n, **_fields(resolved[1]))
            for _pos, ann in annotations:
                src = source_of(ann)
                if src is not None and not self._claimed(src[0], src[1]):
                    self.number(src[0], src[1])
        return self.citations()

    def _claimed(self, key: SourceKey, source: Citation) -> bool:
        if key in self.numbers:
            return True
        return any(_same(c, source) for c in self.sources.values() if c is not None)

    def citations(self) -> list[Citation]:
        """Every numbered source in order; unresolved markers get a placeholder entry."""
        return [self.sources.get(n) or Citation(n, "unresolved") for n in sorted(self.sources)]


def _fields(citation: Citation) -> dict[str, Any]:
    return {k: v for k, v in asdict(citation).items() if k != "n"}


def _same(a: Citation, b: Citation) -> bool:
    return _fields(a) == _fields(b) or (
        a.type == b.type and (a.file_id or a.filename, a.page, a.url)
        == (b.file_id or b.filename, b.page, b.url)
    )  # fmt: skip


def _resolve(
    number: int, annotations: list[tuple[int | None, Annotation]]
) -> tuple[SourceKey, Citation] | None:
    """The annotation a strong marker means: the file citation with that number as its
    ``index``, else the n-th citing annotation."""
    exact = _resolve_exact(number, annotations)
    if exact is None and 1 <= number <= len(annotations):
        return source_of(annotations[number - 1][1])
    return exact


def _resolve_exact(
    number: int, annotations: list[tuple[int | None, Annotation]]
) -> tuple[SourceKey, Citation] | None:
    """The file citation whose ``index`` is the marker's number (all a weak marker may mean)."""
    for _pos, ann in annotations:
        if is_file_citation(ann) and ann.index == number:
            return source_of(ann)
    return None


class MessageCitations:
    """Rewrites one message's text, block by block, with ``[n]`` markers."""

    __slots__ = ("marker_mode",)

    def __init__(self) -> None:
        self.marker_mode = False

    def cite(
        self,
        text: str,
        block: Block,
        annotations: list[tuple[int | None, Annotation]],
        numbering: CitationNumbering,
    ) -> str:
        """``text[block.start:block.end]`` with markers normalised and annotations inserted."""
        segment = text[block.start : block.end]
        edits: list[tuple[int, int, str]] = []  # (start, end, replacement) within segment
        for match in MARKER_RE.finditer(segment):
            number, strong = marker_number(match)
            resolved = (
                _resolve(number, annotations) if strong else _resolve_exact(number, annotations)
            )
            if not strong and resolved is None:
                continue
            self.marker_mode = True
            key: object = resolved[0] if resolved else ("marker", str(number), "")
            n = numbering.number(key, resolved[1] if resolved else None)
            edits.append((match.start(), match.end(), f"[{n}]"))
        if not self.marker_mode:
            edits.extend(self._inserts(text, block, annotations, numbering))
        return _apply(segment, edits)

    def _inserts(
        self,
        text: str,
        block: Block,
        annotations: list[tuple[int | None, Annotation]],
        numbering: CitationNumbering,
    ) -> Iterator[tuple[int, int, str]]:
        placed: dict[tuple[int, int], list[int]] = {}
        ordered = sorted(
            (pos, i, ann) for i, (pos, ann) in enumerate(annotations) if pos is not None
        )
        segment = text[block.start : block.end]
        spans: list[tuple[int, int]] | None = None
        for pos, _i, ann in ordered:
            if not block.own_start <= pos < block.own_end:
                continue
            src = source_of(ann)
            assert src is not None
            if spans is None:
                spans = _protected(segment)
            found = _outside(min(max(pos, block.start), block.end) - block.start, spans, segment)
            if found is None:
                continue  # a code block: the source is still listed under Sources
            at = found
            # The agent loop annotates the `[n]` the model wrote (client-side retrieval) at the
            # position just after it: renumber that marker instead of adding a second one.
            written = _CLIENT_MARKER.search(text, block.start, block.start + at)
            start = written.start() - block.start if written is not None else at
            numbers = placed.setdefault((start, at), [])
            n = numbering.number(src[0], src[1])
            if n not in numbers:
                numbers.append(n)
        for (start, at), numbers in placed.items():
            yield (start, at, "".join(f"[{n}]" for n in numbers))


_CLIENT_MARKER = re.compile(r"\[\d{1,4}(?:\s*,\s*\d{1,4})*\]$")
"""A `[n]` / `[n, m]` marker ending where a client-side citation annotation points."""


_CODE_BLOCK = re.compile(r"\A\s*(```|~~~)")
_PROTECTED = re.compile(
    r"(?P<code>(`+).+?(?<!`)\2(?!`))"  # inline code
    r"|!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # link text, then its target:
    r"\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)"
    r"|<[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*>"  # autolink
    r"|\b(?:https?|ftp)://[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"]",  # bare URL
    re.DOTALL,
)


def _protected(segment: str) -> list[tuple[int, int]]:
    """Spans of a block a marker must not split: code, links (text and target), URLs."""
    if _CODE_BLOCK.match(segment):
        return [(-1, len(segment) + 1)]  # fenced code: nowhere inside or at its edges
    return [(m.start(), m.end()) for m in _PROTECTED.finditer(segment)]


def _outside(at: int, spans: list[tuple[int, int]], segment: str) -> int | None:
    """``at`` moved to the end of a protected span or word it falls inside; ``None``: nowhere."""
    for start, end in spans:
        if start < at < end:
            return None if start < 0 else end
    while 0 < at < len(segment) and segment[at - 1].isalnum() and segment[at].isalnum():
        at += 1  # never split a word
    return at


def _apply(segment: str, edits: list[tuple[int, int, str]]) -> str:
    if not edits:
        return segment
    edits.sort(key=lambda edit: (edit[0], edit[1]))
    out: list[str] = []
    cursor = 0
    for start, end, replacement in edits:
        if start < cursor:
            continue
        out.append(segment[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(segment[cursor:])
    return "".join(out)


def _messages(response: Response) -> Iterator[Message]:
    for item in response.output:
        if is_message(item):
            yield item


def cite_message(message: Message, numbering: CitationNumbering) -> list[str]:
    """The blocks of a finished message, with markers, numbered into ``numbering``."""
    text = message.text
    annotations = positioned_annotations(message)
    state = MessageCitations()
    return [state.cite(text, block, annotations, numbering) for block in split_blocks(text)]


def collect_citations(response: Response) -> list[Citation]:
    """Every citation of a response, numbered as the renderers number them (for ``/sources``
    and JSON output)."""
    numbering = CitationNumbering()
    for message in _messages(response):
        cite_message(message, numbering)
    return numbering.finalize(response)


def source_label(citation: Citation, *, ascii_only: bool = False) -> str:
    """``q3-report.pdf, p. 2`` / ``Title — example.com`` (already sanitised)."""
    if citation.url:
        domain = citation.domain or citation.url
        if citation.title:
            dash = " - " if ascii_only else " — "
            return sanitize_inline(f"{citation.title}{dash}{domain}")
        return sanitize_inline(citation.url)
    name = citation.filename or citation.file_id
    if name:
        page = f", p. {citation.page}" if citation.page is not None else ""
        return sanitize_inline(f"{name}{page}")
    return "(source not described by the server)"


def cited_text(response: Response) -> str:
    """The answer text with every citation marker normalised to ``[n]``, numbered as
    :func:`collect_citations` numbers them (for exports and ``text_cited``)."""
    numbering = CitationNumbering()
    return "\n\n".join(
        "\n\n".join(cite_message(message, numbering)) for message in _messages(response)
    )
