"""The ReAct driver, for models without native tool calling.

The model is told the tools and answers with one JSON decision per turn:
``{"type": "call_tool", "tool": NAME, "args": {...}, "thought": "..."}`` or
``{"type": "final_answer", "answer": "...", "thought": "..."}``. The decision is validated
(pydantic; the tool must exist); a malformed reply is sent back with the error and retried up to
``max_retries`` times. Thoughts are shown as ``reasoning`` items; a call becomes an ordinary
``function_call`` item, so the loop, the executor and the renderer treat it like a native one.
Earlier steps are replayed as plain messages (the server may not accept tool messages).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from forge_cli import jsonsafe
from forge_cli.agent.drivers.base import TurnResult, TurnUpdate, stream_turn
from forge_cli.agent.events import DriverRetry, Notice
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.protocol.content import OutputText, SummaryText
from forge_cli.protocol.guards import is_message
from forge_cli.protocol.items import (
    FunctionCall,
    FunctionCallOutput,
    Message,
    OutputItem,
    Reasoning,
)
from forge_cli.protocol.request import InputItem, InputMessage
from forge_cli.protocol.response import Usage

__all__ = ["ReActDecision", "ReActDriver", "parse_decision"]

REACT_INSTRUCTIONS = """You can use tools. Answer with exactly one JSON object and nothing else.
To call a tool: {{"type": "call_tool", "tool": "<name>", "args": {{...}}, "thought": "<why>"}}
To answer: {{"type": "final_answer", "answer": "<your answer>", "thought": "<why>"}}
Call one tool at a time; you will get its result as an observation.

Tools:
{tools}"""

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class ReActDecision(BaseModel):
    """One ReAct step."""

    type: Literal["call_tool", "final_answer"]
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    thought: str = ""
    answer: str | None = None

    @model_validator(mode="after")
    def _check(self) -> ReActDecision:
        if self.type == "call_tool" and not self.tool:
            raise ValueError("call_tool needs a 'tool' name")
        if self.type == "final_answer" and self.answer is None:
            raise ValueError("final_answer needs an 'answer'")
        return self


def parse_decision(text: str, tool_names: set[str]) -> ReActDecision:
    """The decision in ``text``; raise ``ValueError`` with a message the model can act on."""
    candidate = _json_text(text)
    try:
        data = jsonsafe.loads(candidate)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not valid JSON ({exc.msg})") from exc
    if isinstance(data, dict) and "answer" not in data and data.get("type") == "final_answer":
        for key in ("final_answer", "content", "text"):
            if isinstance(data.get(key), str):
                data["answer"] = data[key]
    try:
        decision = ReActDecision.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "decision"
        raise ValueError(f"invalid decision: {where}: {first.get('msg')}") from exc
    if decision.type == "call_tool" and decision.tool not in tool_names:
        known = ", ".join(sorted(tool_names)) or "none"
        raise ValueError(f"unknown tool {decision.tool!r}; the tools are: {known}")
    return decision


def _json_text(text: str) -> str:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text.strip()


class ReActDriver:
    """Structured JSON decisions instead of native tool calls."""

    def __init__(self, *, max_retries: int = 2, model: str | None = None) -> None:
        self.max_retries = max_retries
        self.model = model

    async def turn(self, backend: Backend, state: AgentState) -> AsyncGenerator[TurnUpdate, None]:
        """Ask for a decision, retrying malformed ones; end with the call or the answer."""
        names = {tool.name for tool in state.tools}
        transcript = _transcript(state)
        usage = Usage()
        text = ""
        for attempt in range(self.max_retries + 1):
            request = state.next_request(
                input=transcript,
                tools=[],
                tool_choice=None,
                parallel_tool_calls=None,
                instructions=self._instructions(state),
                **({"model": self.model} if self.model else {}),
            )
            result: TurnResult | None = None
            async for update in stream_turn(backend, request):
                match update:
                    case TurnResult():
                        result = update
                    case _:
                        pass  # the deltas of a structured decision are not shown
            if result is None:  # pragma: no cover - stream_turn always ends with a result
                return
            usage = _add(usage, result.usage)
            text = "".join(i.text for i in result.items if is_message(i))
            try:
                decision = parse_decision(text, names)
            except ValueError as exc:
                if attempt == self.max_retries:
                    break
                yield DriverRetry(attempt + 1, str(exc))
                transcript += [
                    InputMessage(role="assistant", content=text),
                    InputMessage(
                        role="user",
                        content=f"Your reply was not valid: {exc}. Reply with one JSON object.",
                    ),
                ]
                continue
            yield _decided(decision, usage)
            return
        yield Notice("the model did not produce a valid ReAct decision; showing its reply as is")
        yield TurnResult((_message(text),), (), usage)

    def _instructions(self, state: AgentState) -> str:
        lines = [
            f"- {tool.name}: {tool.description or ''} "
            f"arguments schema: {json.dumps(tool.parameters or {}, separators=(',', ':'))}"
            for tool in state.tools
        ]
        react = REACT_INSTRUCTIONS.format(tools="\n".join(lines) or "(none)")
        base = state.request.instructions
        return f"{base}\n\n{react}" if base else react


def _transcript(state: AgentState) -> list[InputItem]:
    """The original input, then earlier steps as plain assistant/user messages."""
    out: list[InputItem] = list(state.original_input())
    thoughts: dict[str, str] = {}
    pending_thought = ""
    for item in state.items:
        match item:
            case Reasoning():
                pending_thought = item.text
            case FunctionCall():
                thoughts[item.call_id] = pending_thought
                decision = {
                    "type": "call_tool",
                    "tool": item.name,
                    "args": item.parsed_arguments() or {},
                    "thought": pending_thought,
                }
                out.append(InputMessage(role="assistant", content=json.dumps(decision)))
                pending_thought = ""
            case FunctionCallOutput():
                out.append(InputMessage(role="user", content=f"Observation: {item.output_text}"))
            case Message():
                out.append(InputMessage(role="assistant", content=item.text))
            case _:
                pass  # hosted-tool items are the server's business
    return out


def _decided(decision: ReActDecision, usage: Usage) -> TurnResult:
    items: list[OutputItem] = []
    if decision.thought:
        items.append(
            Reasoning(
                id=f"rs_{uuid.uuid4().hex[:24]}",
                status="completed",
                summary=[SummaryText(text=decision.thought)],
            )
        )
    if decision.type == "final_answer":
        items.append(_message(decision.answer or ""))
        return TurnResult(tuple(items), (), usage)
    call = FunctionCall(
        id=f"fc_{uuid.uuid4().hex[:24]}",
        call_id=f"call_{uuid.uuid4().hex[:24]}",
        name=decision.tool or "",
        arguments=json.dumps(decision.args, ensure_ascii=False),
        status="completed",
    )
    items.append(call)
    return TurnResult(tuple(items), (call,), usage)


def _message(text: str) -> Message:
    return Message(
        id=f"msg_{uuid.uuid4().hex[:24]}",
        status="completed",
        content=[OutputText(text=text)],
    )


def _add(total: Usage, more: Usage | None) -> Usage:
    if more is None:
        return total
    return Usage(
        input_tokens=total.input_tokens + more.input_tokens,
        output_tokens=total.output_tokens + more.output_tokens,
        total_tokens=total.total_tokens + more.total_tokens,
    )
