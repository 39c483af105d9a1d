"""The recorded real-server streams in ``tests/fixtures/streams/``, and what each one says.

Each file's first line is ``# source: …`` (where it was recorded); the rest is the SSE body byte
for byte. :func:`load` splits the body into frames (one chunk each when replayed) and reads, from
the wire alone and independently of Forge's own parser, what a faithful client must show: the
answer text (the concatenated text deltas), the reasoning, refusals, how many citations and tool
calls the stream carried, and how it ended.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"

Api = Literal["chat", "responses", "knowledge-forge"]

__all__ = ["STREAMS", "Recording", "load", "recordings"]


@dataclass
class Recording:
    """One recorded stream and the facts read from its bytes."""

    name: str
    source: str
    frames: list[bytes]
    api: Api
    text: str = ""
    reasoning: str = ""
    refusal: str = ""
    citations: int = 0
    tool_calls: list[str] = field(default_factory=list)
    tool_arguments: dict[str, set[str]] = field(default_factory=dict)
    """The argument names each called tool received (to define a matching function)."""
    error: str | None = None
    final_status: str | None = None
    """The status the stream's terminal event gives (``None`` when it has none)."""
    finish_reason: str | None = None


def _frames(body: bytes) -> list[bytes]:
    body = body.replace(b"\r\n", b"\n")
    return [chunk + b"\n\n" for chunk in body.split(b"\n\n") if chunk.strip()]


def _payloads(frames: list[bytes]) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for frame in frames:
        event: str | None = None
        data: list[str] = []
        for line in frame.decode().split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        raw = "\n".join(data)
        if not raw or raw == "[DONE]":
            continue
        out.append((event, json.loads(raw)))
    return out


def _read_chat(rec: Recording, payloads: list[tuple[str | None, Any]]) -> None:
    calls: dict[int, str] = {}
    arguments: dict[int, str] = {}
    for _, chunk in payloads:
        if "error" in chunk and not chunk.get("choices"):
            error = chunk["error"]
            rec.error = error.get("message") if isinstance(error, dict) else str(error)
            continue
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # Forge shows the first choice of an n>1 request
            delta = choice.get("delta") or {}
            rec.text += delta.get("content") or ""
            rec.reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            rec.refusal += delta.get("refusal") or ""
            rec.citations += len(delta.get("annotations") or [])
            for call in delta.get("tool_calls") or []:
                function = call.get("function") or {}
                index = call.get("index", 0)
                if function.get("name"):
                    calls[index] = function["name"]
                arguments[index] = arguments.get(index, "") + (function.get("arguments") or "")
            if choice.get("finish_reason"):
                rec.finish_reason = choice["finish_reason"]
    rec.tool_calls = [calls[i] for i in sorted(calls)]
    for index, name in calls.items():
        _note_arguments(rec, name, arguments.get(index, ""))


def _note_arguments(rec: Recording, name: str, raw: str) -> None:
    try:
        parsed = json.loads(raw or "{}")
    except json.JSONDecodeError:
        parsed = {}
    keys = set(parsed) if isinstance(parsed, dict) else set()
    rec.tool_arguments.setdefault(name, set()).update(keys)


_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _read_responses(rec: Recording, payloads: list[tuple[str | None, Any]]) -> None:
    snapshot_text = ""
    snapshot_citations = 0
    for event, data in payloads:
        kind = data.get("type") or event or ""
        if kind == "response.output_text.delta":
            rec.text += data.get("delta", "")
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            rec.reasoning += data.get("delta", "")
        elif kind == "response.refusal.delta":
            rec.refusal += data.get("delta", "")
        elif kind == "response.output_text.annotation.added":
            rec.citations += 1
        elif kind == "response.output_item.done" and data["item"].get("type") == "function_call":
            rec.tool_calls.append(data["item"]["name"])
            _note_arguments(rec, data["item"]["name"], data["item"].get("arguments", ""))
        elif kind == "error":
            rec.error = data.get("message") or json.dumps(data)
        response = data.get("response") if "response" in data else None
        if kind in _TERMINAL or (event in _TERMINAL and response is None and "output" in data):
            final = response if response is not None else data
            rec.final_status = final.get("status")
        # Knowledge Forge snapshot streams carry the whole Response in every event.
        body = response if isinstance(response, dict) else data if "output" in data else None
        if isinstance(body, dict) and body.get("output"):
            parts = [
                part.get("text", "")
                for item in body["output"]
                if item.get("type") == "message"
                for part in item.get("content") or []
                if part.get("type") == "output_text"
            ]
            snapshot_text = "".join(parts) or snapshot_text
            snapshot_citations = sum(
                len(part.get("annotations") or [])
                for item in body["output"]
                if item.get("type") == "message"
                for part in item.get("content") or []
            )
    if not rec.text:
        rec.text = snapshot_text
    if not rec.citations:
        rec.citations = snapshot_citations


_API: dict[str, Api] = {"C": "chat", "R": "responses", "K": "knowledge-forge"}
"""The file's first letter: Chat Completions, Responses, Knowledge Forge (its own dialect)."""

_THINK = re.compile(r"\A\s*<think>(.*?)(?:</think>\s*|\Z)", re.DOTALL)


def _split_think(rec: Recording) -> None:
    """``<think>…</think>`` opening the content is reasoning, shown as such (not as answer)."""
    found = _THINK.match(rec.text)
    if found:
        rec.reasoning += found.group(1).strip("\n")
        rec.text = rec.text[found.end() :]


def load(path: Path) -> Recording:
    """Read one recording."""
    raw = path.read_bytes()
    first, _, body = raw.partition(b"\n")
    assert first.startswith(b"# source:"), f"{path.name}: the first line must be '# source: …'"
    frames = _frames(body)
    api: Api = _API.get(path.name[0], "responses")
    rec = Recording(path.stem, first.decode()[len("# source:") :].strip(), frames, api)
    payloads = _payloads(frames)
    if api == "chat":
        _read_chat(rec, payloads)
        _split_think(rec)
    else:
        _read_responses(rec, payloads)
    return rec


def recordings() -> list[Recording]:
    """Every recording, sorted by name."""
    return [load(path) for path in sorted(STREAMS.glob("*.sse"))]
