"""Split ``<think>…</think>`` at the start of streamed content into reasoning and answer.

DeepSeek-R1, QwQ and Qwen3 served without a reasoning parser (vLLM, TGI, llama.cpp, Together)
write their chain of thought into ``content`` between ``<think>`` and ``</think>``. Only a tag
that opens the content (after whitespace) is taken as reasoning, so an answer that merely
mentions ``<think>`` is left alone. Tags may be split across deltas: a possible tag is held back
until the next delta decides it, never longer.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["ThinkSplitter"]

Kind = Literal["reasoning", "text"]
_OPEN = ("<think>", "<thinking>")
_CLOSE = {"<think>": "</think>", "<thinking>": "</thinking>"}


class ThinkSplitter:
    """Feed content deltas; get ``(kind, text)`` pieces in order."""

    def __init__(self) -> None:
        self._state: Literal["start", "inside", "after", "text"] = "start"
        self._held = ""
        self._close = ""
        self._thought = False  # some reasoning went out (leading newlines are dropped before)

    @property
    def passthrough(self) -> bool:
        """Whether the content is known to be plain text: :meth:`feed` now returns each delta
        as it is, so a caller may skip it."""
        return self._state == "text"

    def feed(self, delta: str) -> list[tuple[Kind, str]]:
        """The pieces ``delta`` completes (a possible tag stays held back)."""
        if self._state == "text":
            return [("text", delta)] if delta else []
        self._held += delta
        out: list[tuple[Kind, str]] = []
        while True:
            if self._state == "start" and not self._start():
                break
            if self._state == "inside" and not self._inside(out):
                break
            if self._state == "after":
                stripped = self._held.lstrip()
                if not stripped:
                    self._held = ""
                    break
                self._state, self._held = "text", ""
                out.append(("text", stripped))
            if self._state == "text":
                if self._held:
                    out.append(("text", self._held))
                    self._held = ""
                break
        return out

    def finish(self) -> list[tuple[Kind, str]]:
        """What is still held back when the stream ends."""
        held, self._held = self._held, ""
        if not held:
            return []
        if self._state == "inside":
            return [("reasoning", held)]
        if self._state == "after":
            return [("text", held.lstrip())] if held.strip() else []
        return [("text", held)]

    def _start(self) -> bool:
        """Decide whether the content opens with a think tag; False: wait for more."""
        stripped = self._held.lstrip()
        for tag in _OPEN:
            if stripped.startswith(tag):
                self._state, self._close = "inside", _CLOSE[tag]
                self._held = stripped[len(tag) :]
                return True
        if not stripped or any(tag.startswith(stripped) for tag in _OPEN):
            return False
        self._state = "text"
        return True

    def _inside(self, out: list[tuple[Kind, str]]) -> bool:
        end = self._held.find(self._close)
        if end >= 0:
            self._think(out, self._held[:end].rstrip("\n"))
            self._held = self._held[end + len(self._close) :]
            self._state = "after"
            return True
        keep = _partial_suffix(self._held, self._close)
        ready = self._held[: len(self._held) - keep].rstrip("\n")  # newlines before </think>
        self._held = self._held[len(ready) :]
        self._think(out, ready)
        return False

    def _think(self, out: list[tuple[Kind, str]], text: str) -> None:
        if not self._thought:
            text = text.lstrip("\n")
        if text:
            self._thought = True
            out.append(("reasoning", text))


def _partial_suffix(text: str, tag: str) -> int:
    """How many trailing characters of ``text`` could begin ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0
