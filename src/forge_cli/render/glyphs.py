"""Glyphs, status words, colours and icons shared by every item renderer.

Default glyphs are plain Unicode that any UTF-8 terminal font has (no Nerd-Font icons);
:data:`ASCII` is for terminals without Unicode (``--ascii``). Status words come from the item's
own ``status`` (servers invent new ones: ``reading``, ``interpreting``...), mapped onto a few
*phases* that decide colour and icon, so the look is the same across tool kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ASCII", "UNICODE", "Glyphs", "Phase", "StatusLook", "phase_of", "status_look"]

Phase = Literal["running", "completed", "failed", "incomplete", "cancelled", "blocked"]


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters renderers draw with."""

    running: str
    completed: str
    failed: str
    incomplete: str
    cancelled: str
    blocked: str
    sep: str
    branch: str
    last_branch: str
    bar_full: str
    bar_empty: str
    arrow: str
    ellipsis: str
    interrupted: str
    reasoning: str
    ascii_only: bool = False

    def icon(self, phase: Phase) -> str:
        """The icon of a phase."""
        icon: str = getattr(self, phase)
        return icon


UNICODE = Glyphs(
    running="●",
    completed="✓",
    failed="✗",
    incomplete="!",
    cancelled="■",
    blocked="⊘",
    sep=" · ",
    branch="├ ",
    last_branch="└ ",
    bar_full="█",
    bar_empty="░",
    arrow="→",
    ellipsis="…",
    interrupted="■ interrupted",
    reasoning="∴",
)

ASCII = Glyphs(
    running="*",
    completed="+",
    failed="x",
    incomplete="!",
    cancelled="#",
    blocked="/",
    sep=" - ",
    branch="|- ",
    last_branch="`- ",
    bar_full="#",
    bar_empty=".",
    arrow="->",
    ellipsis="...",
    interrupted="# interrupted",
    reasoning="~",
    ascii_only=True,
)

_PHASE_STYLE: dict[Phase, str] = {
    "running": "cyan",
    "completed": "green",
    "failed": "red",
    "incomplete": "yellow",
    "cancelled": "yellow",
    "blocked": "yellow",
}

_PHASE_OF: dict[str, Phase] = {
    "completed": "completed",
    "done": "completed",
    "failed": "failed",
    "error": "failed",
    "incomplete": "incomplete",
    "cancelled": "cancelled",
    "interrupted": "cancelled",
    "blocked": "blocked",
}


def phase_of(status: str | None) -> Phase:
    """The phase of a status; unknown and missing statuses count as running."""
    return _PHASE_OF.get(status or "", "running")


@dataclass(frozen=True, slots=True)
class StatusLook:
    """How one status is drawn: its word, style and icon."""

    word: str
    style: str
    icon: str
    phase: Phase


def status_look(status: str | None, glyphs: Glyphs) -> StatusLook:
    """The word, style and icon of ``status`` (``None`` reads as ``in progress``)."""
    phase = phase_of(status)
    word = (status or "in_progress").replace("_", " ")
    return StatusLook(word=word, style=_PHASE_STYLE[phase], icon=glyphs.icon(phase), phase=phase)
