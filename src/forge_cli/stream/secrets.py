"""Keys never cross a live stream: text deltas are redacted before any snapshot is made.

A server may echo a key in the answer text, split over several deltas so that no single delta
contains it. :class:`DeltaRedactor` keeps, per text part, the end of the text that could still
become a registered secret (:func:`forge_cli.redact.held_prefix`) and sends it on with the next
delta, redacted as a whole; full texts (``output_text.done``, the items of ``output_item.done``
and the final response) are redacted as they are. So the live terminal, ``--jsonl`` deltas, the
document and the saved conversation never show a key, whole or split.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from forge_cli.protocol.events import EVENT_ALIASES, StreamEvent
from forge_cli.redact import held_prefix, redact, redact_data, secrets_in_use

__all__ = ["DeltaRedactor", "redact_stream"]

_FULL_TEXT_EVENTS = frozenset(
    {
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
        "response.incomplete",
        "response.failed",
    }
)


class DeltaRedactor:
    """Rewrites text-delta events so no registered secret survives, whole or split."""

    def __init__(self) -> None:
        self._held: dict[tuple[Any, Any], str] = {}
        self._where: dict[tuple[Any, Any], dict[str, Any]] = {}

    def flush(self) -> list[StreamEvent]:
        """The text still held back, as deltas: the stream ended without the full text (a cut
        connection), so what arrived is shown (redacted) rather than lost."""
        events = [
            StreamEvent("response.output_text.delta", {**self._where[key], "delta": held})
            for key, held in self._held.items()
            if held
        ]
        self._held.clear()
        return events

    def __call__(self, event: StreamEvent) -> StreamEvent:
        secrets = secrets_in_use()
        if not secrets:
            return event
        kind = EVENT_ALIASES.get(event.type, event.type)  # older names fold the same way
        if kind == "response.output_text.delta":
            key = (
                event.data.get("item_id", event.data.get("output_index")),
                event.data.get("content_index"),
            )
            delta = event.data.get("delta")
            if not isinstance(delta, str):
                return event
            held = self._held.pop(key, "") if self._held else ""
            text = redact(held + delta)
            # held_prefix is 0 unless the last character occurs in some secret (before its end).
            hold = held_prefix(text) if text and text[-1] in _prefix_chars(secrets) else 0
            if hold:
                self._held[key] = text[-hold:]
                self._where[key] = {k: v for k, v in event.data.items() if k != "delta"}
                text = text[:-hold]
            elif text is delta:
                return event  # nothing held, nothing redacted: the event as it came
            return StreamEvent(event.type, {**event.data, "delta": text})
        if kind in _FULL_TEXT_EVENTS:
            self._held.clear()  # the full text (redacted below) replaces what was held back
            data = redact_data(event.data)
            return StreamEvent(event.type, data if isinstance(data, dict) else event.data)
        return event


_chars: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())


def _prefix_chars(secrets: tuple[str, ...]) -> frozenset[str]:
    """The characters a held-back prefix can end with (cached per set of secrets)."""
    global _chars
    if _chars[0] is not secrets:
        _chars = (secrets, frozenset("".join(secret[:-1] for secret in secrets)))
    return _chars[1]


async def redact_stream(events: AsyncIterable[StreamEvent]) -> AsyncIterator[StreamEvent]:
    """``events`` with text deltas and full texts redacted (see :class:`DeltaRedactor`)."""
    redactor = DeltaRedactor()
    async for event in events:
        yield redactor(event)
