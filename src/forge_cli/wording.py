"""Small helpers for the words Forge prints."""

from __future__ import annotations

import re

__all__ = [
    "MODEL_HINT",
    "RETRIEVAL_FIRST_LINE",
    "RETRIEVAL_LEAD",
    "plain_preview",
    "plural",
    "shorten",
]

RETRIEVAL_LEAD = "Retrieval-only answer (no language model is configured): "
"""How every answer of the retrieval answerer (the local engine without a model) begins."""
RETRIEVAL_FIRST_LINE = (
    RETRIEVAL_LEAD + "the passages of your documents that best match the question."
)
MODEL_HINT = (
    "To get written answers, configure a model: `forge config set engine.upstream_base_url URL` "
    "and `forge config set engine.upstream_model MODEL` (any OpenAI-compatible server, e.g. "
    "Ollama at http://localhost:11434/v1)."
)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 files`` (``plural_form`` for irregular words)."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


def shorten(text: str, limit: int, ellipsis: str = "…") -> str:
    """``text`` in at most ``limit`` characters, cut at a word boundary when one is near the end
    (within the last third), with ``ellipsis`` when anything was cut."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(ellipsis))
    cut = text[:room]
    space = cut.rfind(" ")
    if space >= room * 2 // 3 and not text[room : room + 1].isspace():
        cut = cut[:space]
    return cut.rstrip() + ellipsis


_FENCE = re.compile(r"^\s*(```|~~~)")
_BLOCK_MARK = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_LIST_ITEM = re.compile(r"^\s*(?:>\s?)*(?:[-*+]|\d+[.)])\s+")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?[\s:|-]*-[\s:|-]*$")
_RETRIEVAL_HEADING = re.compile(r"^From (?:the web: )?\*\*.*\*\*(?: \(pp?\. [\d, ]+\))?:$")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~)(?=\S)(.+?)(?<=\S)\1")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!>|~])")
_ENDS_A_CLAUSE = (".", "!", "?", ":", ";", ",", "…")


def _plain_inline(line: str) -> str:
    """One line of Markdown as plain text: links become their text, emphasis and code-span
    backticks go, escaped characters lose their backslash."""
    line = _IMAGE_OR_LINK.sub(r"\1", line)
    for _ in range(2):  # **_nested_** emphasis
        line = _EMPHASIS.sub(r"\2", line)
    line = re.sub(r"(?<!\\)`+", "", line)
    return _ESCAPED.sub(r"\1", line)


def plain_preview(text: str) -> str:
    """An answer as one line of plain readable text, for a preview (``/history``).

    Markdown markers go (headings, quotes, list bullets, emphasis, code-span backticks, link
    targets, table rules and pipes), and so does the boilerplate of a retrieval-only answer: its
    first line, its "From **file**:" headings and its closing hint about configuring a model, so
    the preview starts with the first passage it quotes. The lines of a paragraph join with a
    space; a block (paragraph, list item, heading) that ends without punctuation is kept apart
    from the next one with "; " when either is a list item, else with ". ".
    """
    blocks: list[tuple[list[str], bool]] = []  # the lines of each block; is it a list item
    open_block = False
    for raw in text.splitlines():
        line = raw.strip()
        if (
            not line
            or _FENCE.match(raw)
            or _RULE.match(raw)
            or line == RETRIEVAL_FIRST_LINE
            or line.startswith(MODEL_HINT[:40])
            or _RETRIEVAL_HEADING.match(line)
        ):
            open_block = False
            continue
        if line.startswith(RETRIEVAL_LEAD):  # "nothing matches ...": the lead alone is noise
            rest = line[len(RETRIEVAL_LEAD) :]
            line = rest[:1].upper() + rest[1:]
        item = bool(_LIST_ITEM.match(line))
        heading = line.startswith("#")
        starts = item or heading or not open_block or bool(_BLOCK_MARK.match(line))
        while _BLOCK_MARK.match(line):  # "> - item": every marker of the line
            line = _BLOCK_MARK.sub("", line, count=1)
        if "|" in line:  # a table row: its cells
            line = " ".join(cell.strip() for cell in line.strip("|").split("|") if cell.strip())
        line = _plain_inline(line).strip()
        if not line:
            continue
        if starts or not blocks:
            blocks.append(([line], item))
        else:
            blocks[-1][0].append(line)
        open_block = not heading
    out = ""
    last_item = False
    for lines, item in blocks:
        block = " ".join(lines)
        if out:
            if out.endswith(_ENDS_A_CLAUSE):
                out += " "
            else:
                out += "; " if item or last_item else ". "
        out += block
        last_item = item
    return " ".join(out.split())
