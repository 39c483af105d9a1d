"""The upstream answerer: an OpenAI-compatible chat model answers, the engine runs its tools.

Each round sends the conversation to the model through
:class:`~forge_cli.backends.chat.backend.ChatCompletionsBackend`, offering the request's
hosted tools as functions. Calls of hosted tools run here, server-side (their items stream like
any hosted call), and the results -- numbered passages -- go back to the model. Calls of the
request's own function tools end the response with ``function_call`` items for the client to
run. The final text streams as it arrives; ``[n]`` markers become ``file_citation`` /
``url_citation`` annotations of the passages they cite.

The engine dispatches hosted calls itself rather than through ``forge_cli.tools.ToolExecutor``:
a hosted call must stream its own output item (status, progress, trace) into this response,
which the executor's result-only interface cannot carry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from forge_cli import jsonsafe
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.engine.answerer import AnswerContext
from forge_cli.engine.config import UpstreamConfig
from forge_cli.engine.emitter import MessageWriter, ResponseEmitter
from forge_cli.engine.hosted import (
    Outcome,
    run_file_reader,
    run_file_search,
    run_list_documents,
    run_page_reader,
    run_web_search,
)
from forge_cli.engine.toolset import Toolset
from forge_cli.errors import StreamError
from forge_cli.protocol.citing import CitationFilter, PassageBook
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request
from forge_cli.protocol.tools import FunctionTool

__all__ = ["SYSTEM_PROMPT", "UpstreamAnswerer", "hosted_functions"]

SYSTEM_PROMPT = (
    "You answer questions about the user's documents. Use the tools to find passages before "
    "answering. Tool results are numbered passages like [3]; cite every statement taken from "
    "them with its number in square brackets right after it, e.g. 'Forge is a client [3].' "
    "If the passages do not contain the answer, say so."
)

_QUERY = {"type": "string", "description": "What to look for."}
_FILE_ID = {"type": "string", "description": "The file_id of a document."}


def _fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> FunctionTool:
    schema = {"type": "object", "properties": properties, "required": required}
    return FunctionTool(name=name, description=description, parameters=schema)


def hosted_functions(toolset: Toolset) -> list[FunctionTool]:
    """The hosted tools of a request as function definitions for the chat model."""
    tools: list[FunctionTool] = []
    if toolset.file_search is not None:
        tools.append(
            _fn("file_search", "Search the documents for passages.", {"query": _QUERY}, ["query"])
        )
    if toolset.list_documents is not None:
        tools.append(
            _fn("list_documents", "List documents matching a topic.", {"query": _QUERY}, [])
        )
    if toolset.file_reader:
        tools.append(
            _fn("file_reader", "Read a whole document.", {"file_id": _FILE_ID}, ["file_id"])
        )
    if toolset.page_reader:
        pages = {
            "file_id": _FILE_ID,
            "start_page": {"type": "integer", "description": "First page (1-based)."},
            "end_page": {"type": "integer", "description": "Last page (inclusive)."},
        }
        tools.append(
            _fn("page_reader", "Read pages of a document.", pages, ["file_id", "start_page"])
        )
    if toolset.web_search:
        tools.append(_fn("web_search", "Search the web.", {"query": _QUERY}, ["query"]))
    return tools


class UpstreamAnswerer:
    """Answers with an upstream chat model, running its hosted tool calls server-side."""

    def __init__(self, config: UpstreamConfig, *, max_rounds: int = 6) -> None:
        self.config = config
        self.max_rounds = max_rounds
        self._backend = ChatCompletionsBackend(
            base_url=config.base_url, api_key_env=config.api_key_env, timeout=config.timeout
        )

    @property
    def model(self) -> str:
        """The upstream model's name."""
        return self.config.model

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._backend.aclose()

    async def answer(self, ctx: AnswerContext) -> AsyncIterator[StreamEvent]:
        """Rounds of model turns and hosted tool calls, ending with the answer."""
        hosted = hosted_functions(ctx.tools.toolset)
        names = {tool.name for tool in hosted}
        items = _input_items(ctx)
        for round_number in range(self.max_rounds + 1):
            offer = hosted if round_number < self.max_rounds else []
            turn = _Turn(ctx.tools.emitter, ctx.tools.book)
            request = self._request(ctx.request, items, [*offer, *ctx.tools.toolset.functions])
            async for event in turn.consume(self._backend.stream(request)):
                yield event
            ctx.usage["output_tokens"] += turn.output_tokens
            ctx.usage["input_tokens"] = max(ctx.usage["input_tokens"], turn.input_tokens)
            for event in turn.close():
                yield event
            if turn.text:
                ctx.transcript.append({"role": "assistant", "content": turn.text})
            client_calls = [c for c in turn.calls if c["name"] not in names]
            if client_calls or not turn.calls:
                for event in _client_function_calls(ctx.tools.emitter, client_calls):
                    yield event
                return
            for call in turn.calls:
                outcome = Outcome()
                async for event in _dispatch(ctx, call, outcome):
                    yield event
                result = outcome.text if outcome.error is None else f"Error: {outcome.error}"
                items.append({"type": "function_call", **call})
                items.append(
                    {"type": "function_call_output", "call_id": call["call_id"], "output": result}
                )

    def _request(
        self, original: Request, items: list[dict[str, Any]], tools: list[FunctionTool]
    ) -> Request:
        instructions = SYSTEM_PROMPT + (
            f"\n\n{original.instructions}" if original.instructions else ""
        )
        return Request.model_validate(
            {
                "model": self.config.model,
                "instructions": instructions,
                "input": items,
                "tools": [t.to_wire() for t in tools],
                "temperature": original.temperature,
                "max_output_tokens": original.max_output_tokens,
                # Structured output and reasoning effort go to the model as the client asked.
                **{
                    key: value
                    for key, value in (original.model_extra or {}).items()
                    if key in ("text", "reasoning") and value is not None
                },
            }
        )


def _input_items(ctx: AnswerContext) -> list[dict[str, Any]]:
    items = [dict(m) for m in ctx.history]
    source = ctx.request.input
    if isinstance(source, str):
        items.append({"role": "user", "content": source})
    else:
        items.extend(item.to_wire() for item in source)
    return items


class _Turn:
    """One model turn: streams its text (citations mapped) and collects its function calls."""

    def __init__(self, emitter: ResponseEmitter, book: PassageBook) -> None:
        self._emitter = emitter
        self._book = book
        self._writer: MessageWriter | None = None
        self._filter = CitationFilter({p.number for p in book.passages})
        self.calls: list[dict[str, str]] = []
        self.text = ""
        self.input_tokens = 0
        self.output_tokens = 0

    async def consume(self, events: AsyncIterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
        async for event in events:
            data = event.data
            if event.type == "response.output_text.delta":
                for out in self._write(str(data.get("delta") or "")):
                    yield out
            elif event.type == "response.output_item.done":
                item = data.get("item") or {}
                if item.get("type") == "function_call":
                    self.calls.append(
                        {
                            "call_id": str(item.get("call_id") or ""),
                            "name": str(item.get("name") or ""),
                            "arguments": str(item.get("arguments") or "{}"),
                        }
                    )
            elif event.type == "response.completed":
                usage = (data.get("response") or {}).get("usage") or {}
                self.input_tokens = int(usage.get("input_tokens") or 0)
                self.output_tokens = int(usage.get("output_tokens") or 0)
            elif event.type in ("error", "response.failed"):
                error = (data.get("response") or {}).get("error") or {}
                message = data.get("message") or error.get("message") or "no reason given"
                raise StreamError(f"the upstream model failed: {message}")

    def _write(self, delta: str, *, final: bool = False) -> list[StreamEvent]:
        segments = self._filter.finish() if final else self._filter.feed(delta)
        events: list[StreamEvent] = []
        for segment in segments:
            if segment.text and self._writer is None:
                self._writer = MessageWriter(self._emitter)
                events.extend(self._writer.start())
            if self._writer is None:
                continue
            if segment.text:
                written = self._writer.write(segment.text)
                if written is not None:
                    events.append(written)
            for number in segment.cites:
                passage = self._book.get(number)
                if passage is not None:
                    events.append(self._writer.annotate(passage.annotation(self._writer.position)))
        return events

    def close(self) -> list[StreamEvent]:
        """Flush held-back text and finish the message of this turn."""
        events = self._write("", final=True)
        if self._writer is not None:
            self.text = self._writer.text
            events.extend(self._writer.finish())
        return events


async def _dispatch(
    ctx: AnswerContext, call: dict[str, str], outcome: Outcome
) -> AsyncIterator[StreamEvent]:
    """Run one hosted call; bad arguments become an error result for the model."""
    try:
        args = jsonsafe.loads(call["arguments"] or "{}")
    except ValueError:
        args = None
    if not isinstance(args, dict):
        outcome.error = f"the arguments of {call['name']} are not a JSON object"
        return
    name, tools = call["name"], ctx.tools
    try:
        if name == "file_search":
            runner = run_file_search(tools, str(args.get("query") or ctx.query), outcome)
        elif name == "list_documents":
            runner = run_list_documents(tools, args.get("query") or None, outcome)
        elif name == "file_reader":
            runner = run_file_reader(tools, str(args.get("file_id") or ""), outcome, ctx.query)
        elif name == "page_reader":
            end = args.get("end_page")
            runner = run_page_reader(
                tools,
                str(args.get("file_id") or ""),
                int(args.get("start_page") or 1),
                int(end) if end is not None else None,
                outcome,
            )
        else:
            runner = run_web_search(tools, str(args.get("query") or ctx.query), outcome)
    except (TypeError, ValueError) as exc:
        outcome.error = f"bad arguments for {name}: {exc}"
        return
    async for event in runner:
        yield event


def _client_function_calls(
    emitter: ResponseEmitter, calls: list[dict[str, str]]
) -> list[StreamEvent]:
    """``function_call`` items for the client's own tools (the response ends with them)."""
    events: list[StreamEvent] = []
    for call in calls:
        item = {
            "id": emitter.new_id("fc"),
            "type": "function_call",
            "status": "in_progress",
            **call,
        }
        index, added = emitter.add_item({**item, "arguments": ""})
        events.append(added)
        events.append(
            emitter.event(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=call["arguments"],
            )
        )
        events.append(
            emitter.event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                arguments=call["arguments"],
            )
        )
        events.append(emitter.finish_item(index, {**item, "status": "completed"}))
    return events
