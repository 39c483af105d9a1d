"""The evaluator strategy (the OPACA seed): generate calls, judge, then write the answer.

After each round of tool calls a second, cheap request (``evaluator_model``) gets the question and
the calls with their results and answers ``{"decision": "FINISHED" | "CONTINUE", "reason": ...}``.
On ``CONTINUE`` the inner driver generates the next calls; on ``FINISHED`` an output step
(``output_model``, tools present but ``tool_choice="none"``) writes the final answer from the
question and the tool results. The verdict is shown as a ``reasoning`` item and emitted as an
:class:`EvaluatorDecision` event. A turn with no calls at all is taken as the answer (the seed
would re-ask an output model; that doubles the cost of every plain question).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Literal

from forge_cli import jsonsafe
from forge_cli.agent.drivers.base import Driver, TurnResult, TurnUpdate, stream_turn
from forge_cli.agent.drivers.tool_calling import ToolCallingDriver
from forge_cli.agent.events import EvaluatorDecision
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.protocol.content import SummaryText
from forge_cli.protocol.guards import is_function_call, is_function_call_output, is_message
from forge_cli.protocol.items import Reasoning
from forge_cli.protocol.request import InputMessage

__all__ = ["EvaluatorDriver", "parse_verdict"]

EVALUATOR_INSTRUCTIONS = (
    "You judge whether the tool calls made so far are enough to answer the user's question. "
    'Reply with one JSON object: {"decision": "FINISHED" or "CONTINUE", "reason": "<short>"}.'
)

OUTPUT_INSTRUCTIONS = (
    "Answer the user's question using the tool results in the conversation. Do not call tools."
)

_WORD = re.compile(r"\b(FINISHED|CONTINUE)\b", re.IGNORECASE)


def parse_verdict(text: str) -> EvaluatorDecision:
    """The verdict in ``text``; anything unreadable counts as FINISHED (fail closed on cost)."""
    start, end = text.find("{"), text.rfind("}")
    reason = ""
    decision: Literal["FINISHED", "CONTINUE"] = "FINISHED"
    if 0 <= start < end:
        try:
            data = jsonsafe.loads(text[start : end + 1])
        except ValueError:
            data = None
        if isinstance(data, dict):
            reason = str(data.get("reason") or "")
            if str(data.get("decision", "")).strip().upper() == "CONTINUE":
                decision = "CONTINUE"
            return EvaluatorDecision(decision, reason)
    match = _WORD.search(text)
    if match and match.group(1).upper() == "CONTINUE":
        decision = "CONTINUE"
    return EvaluatorDecision(decision, text.strip()[:500])


class EvaluatorDriver:
    """Wrap a tool-generating driver with an evaluator and an output step."""

    def __init__(
        self,
        inner: Driver | None = None,
        *,
        evaluator_model: str | None = None,
        output_model: str | None = None,
    ) -> None:
        self.inner: Driver = inner if inner is not None else ToolCallingDriver()
        self.evaluator_model = evaluator_model
        self.output_model = output_model

    async def turn(self, backend: Backend, state: AgentState) -> AsyncGenerator[TurnUpdate, None]:
        """Evaluate the last round if there is one; then continue or write the answer."""
        if state.rounds > state.evaluated_rounds:
            state.evaluated_rounds = state.rounds
            verdict = await self._evaluate(backend, state)
            yield verdict
            note = Reasoning(
                id=f"rs_{uuid.uuid4().hex[:24]}",
                status="completed",
                summary=[SummaryText(text=f"Evaluator: {verdict.decision}. {verdict.reason}")],
            )
            if verdict.decision == "FINISHED":
                async for update in self._output(backend, state):
                    if isinstance(update, TurnResult):
                        update = TurnResult((note, *update.items), (), update.usage, update.status)
                    yield update
                return
            state.items.append(note)
        async for update in self.inner.turn(backend, state):
            yield update

    async def _evaluate(self, backend: Backend, state: AgentState) -> EvaluatorDecision:
        lines = [f"Question: {state.question}", "", "Tool calls so far:"]
        outputs = {i.call_id: i.output_text for i in state.items if is_function_call_output(i)}
        for item in state.items:
            if is_function_call(item):
                result = outputs.get(item.call_id, "(no result)")
                lines.append(f"- {item.name}({item.arguments}) -> {result[:2000]}")
        request = state.request.model_copy(
            update={
                "model": self.evaluator_model or state.request.model,
                "instructions": EVALUATOR_INSTRUCTIONS,
                "input": [InputMessage(role="user", content="\n".join(lines))],
                "tools": [],
                "tool_choice": None,
                "parallel_tool_calls": None,
            }
        )
        text = ""
        async for update in stream_turn(backend, request):
            if isinstance(update, TurnResult):
                state.add_usage(update.usage)
                text = "".join(i.text for i in update.items if is_message(i))
        return parse_verdict(text)

    async def _output(self, backend: Backend, state: AgentState) -> AsyncIterator[TurnUpdate]:
        base = state.request.instructions
        instructions = f"{base}\n\n{OUTPUT_INSTRUCTIONS}" if base else OUTPUT_INSTRUCTIONS
        update_fields: dict[str, object] = {"instructions": instructions, "tool_choice": "none"}
        if self.output_model:
            update_fields["model"] = self.output_model
        request = state.next_request(**update_fields)
        async for update in stream_turn(backend, request):
            if isinstance(update, TurnResult):
                update = TurnResult(update.items, (), update.usage, update.status, update.response)
            yield update
