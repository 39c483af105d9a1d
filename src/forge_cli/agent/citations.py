"""Citations for client-side retrieval: map ``[n]`` markers in the answer to file citations.

The built-in knowledge tools number every passage they show the model (``[1]``, ``[2]``, ...,
unique within a run; :class:`~forge_cli.protocol.citing.PassageBook`) and tell it to cite with
those numbers. When the run ends, each marker in a message's text (the one ``[n]`` grammar,
:func:`~forge_cli.protocol.citing.find_markers`) whose number belongs to a passage becomes the
passage's ``file_citation`` annotation (``index`` = the character position just after the
marker), so Chat Completions answers carry the same citations a Responses server would attach.
"""

from __future__ import annotations

from collections.abc import Sequence

from forge_cli.protocol.annotations import Annotation, FileCitation
from forge_cli.protocol.citing import Passage, find_markers
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.items import Message, OutputItem
from forge_cli.tools.hooks import ToolResult

__all__ = ["annotate_citations"]


def annotate_citations(
    items: Sequence[OutputItem], results: Sequence[ToolResult]
) -> list[OutputItem]:
    """``items`` with citation annotations added to messages that cite numbered passages."""
    sources: dict[int, Passage] = {}
    for result in results:
        for source in result.citations:
            sources.setdefault(source.number, source)
    if not sources:
        return list(items)
    return [_annotate(item, sources) if isinstance(item, Message) else item for item in items]


def _annotate(message: Message, sources: dict[int, Passage]) -> Message:
    changed = False
    parts = []
    for part in message.content:
        if isinstance(part, OutputText):
            added = _annotations(part.text, sources, part.annotations)
            if added:
                part = part.model_copy(update={"annotations": [*part.annotations, *added]})
                changed = True
        parts.append(part)
    return message.model_copy(update={"content": parts}) if changed else message


def _annotations(
    text: str, sources: dict[int, Passage], existing: Sequence[Annotation]
) -> list[Annotation]:
    seen = {(a.file_id, a.index) for a in existing if isinstance(a, FileCitation)}
    added: list[Annotation] = []
    for number, position in find_markers(text):
        source = sources.get(number)
        if source is None or source.file_id is None or (source.file_id, position) in seen:
            continue
        seen.add((source.file_id, position))
        added.append(FileCitation.model_validate(source.annotation(position)))
    return added
