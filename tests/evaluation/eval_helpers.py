"""Helpers for evaluation tests: scripted answers, per-question responders, a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from forge_cli.evaluation import EvalCase, Responder
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response
from forge_cli.repl.turn import backend_responder
from forge_cli.testing.scripted import ScriptedBackend

Script = list[dict[str, Any]]


def answer_script(
    text: str,
    *,
    cites: Sequence[tuple[str, str]] = (),
    tools: Sequence[dict[str, Any]] = (),
    usage: tuple[int, int] | None = (10, 20),
    rid: str = "resp_1",
) -> Script:
    """A Knowledge Forge style stream: created, then the full completed response.

    ``cites`` are (file_id, filename) file citations on the answer; ``tools`` are raw output
    items placed before the message.
    """
    annotations = [
        {"type": "file_citation", "file_id": fid, "filename": name, "index": len(text)}
        for fid, name in cites
    ]
    message = {
        "type": "message",
        "id": f"msg_{rid}",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    response: dict[str, Any] = {
        "id": rid,
        "status": "completed",
        "model": "scripted-model",
        "output": [*tools, message],
    }
    if usage is not None:
        response["usage"] = {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "total_tokens": sum(usage),
        }
    return [
        {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
        {"type": "response.completed", "response": response},
    ]


def file_search_item(query: str, call_id: str = "fs_1") -> dict[str, Any]:
    """A completed file_search_call item."""
    return {"type": "file_search_call", "id": call_id, "status": "completed", "queries": [query]}


def scripted_responders(
    scripts: Mapping[str, Script | BaseException],
    *,
    delays: Mapping[str, int] | None = None,
) -> Callable[[EvalCase], Responder]:
    """A responder factory: each question (by id) is answered by its own ScriptedBackend.

    ``delays`` makes a question yield to the event loop that many times before answering, so
    concurrent runs complete out of dataset order. An exception is raised instead of answering.
    """

    def factory(case: EvalCase) -> Responder:
        script = scripts[case.id]
        respond = backend_responder(
            ScriptedBackend([[script]] if isinstance(script, BaseException) else [script])
        )

        async def delayed(request: Request) -> AsyncIterator[Response | object]:
            for _ in range((delays or {}).get(case.id, 0)):
                await asyncio.sleep(0)
            async for update in respond(request):
                yield update

        return delayed

    return factory


class StepClock:
    """A clock that advances by ``step`` seconds each time it is read."""

    def __init__(self, step: float = 0.5) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value
