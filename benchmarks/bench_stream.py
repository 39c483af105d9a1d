"""SSE parse + fold throughput: ours versus the openai SDK's stream accumulator, same bytes;
and the whole path from SSE bytes to plain / JSONL output, per event, against its floor.

Builds a Responses stream with 20,000 text deltas, then measures events per second for
(a) our SSEDecoder + SnapshotBuilder and (b) ``openai`` ``client.responses.stream(...)`` reading the
same bytes through an in-memory transport. Target: ours >= 4x the SDK's events per second.

Then the turn path as ``forge ask --plain`` / ``--jsonl`` runs it, in-process (CPU µs per event,
best of 5): the ResponsesBackend reading the bytes in 4 KB network reads from a mock transport,
the fold (with the live key redactor), the turn runner and the renderer writing to a buffer --
once folding each network read's events into one snapshot (``stream_batches``, the Responses
path) and once one snapshot per event (the path of backends without batches); and the same
answer as Chat Completions chunks through the chat backend (``plain, chat chunks``). The floor
is what any client must do: split the SSE frames, ``json.loads`` each, append the text.
``--baseline SRC`` measures the tree in SRC (a checkout's ``src/``) in the same run, for
before/after figures.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

DELTAS = 20_000
TARGET_RATIO = 4.0


def build_stream(deltas: int = DELTAS) -> bytes:
    """A well-formed OpenAI-style stream whose message text arrives in ``deltas`` pieces."""
    seq = 0
    frames: list[str] = []

    def emit(event_type: str, **data: object) -> None:
        nonlocal seq
        payload = {"type": event_type, "sequence_number": seq, **data}
        seq += 1
        frames.append(f"event: {event_type}\ndata: {json.dumps(payload)}\n\n")

    response = {
        "id": "resp_bench",
        "object": "response",
        "created_at": 0,
        "status": "in_progress",
        "model": "bench",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    emit("response.created", response=response)
    message = {
        "id": "msg_1",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    emit("response.output_item.added", output_index=0, item=message)
    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    emit("response.content_part.added", item_id="msg_1", output_index=0, content_index=0, part=part)
    words = []
    for i in range(deltas):
        word = f" word{i % 97}"
        words.append(word)
        emit(
            "response.output_text.delta",
            item_id="msg_1",
            output_index=0,
            content_index=0,
            delta=word,
            logprobs=[],
        )
    text = "".join(words)
    emit(
        "response.output_text.done",
        item_id="msg_1",
        output_index=0,
        content_index=0,
        text=text,
        logprobs=[],
    )
    done_part = {**part, "text": text}
    emit(
        "response.content_part.done",
        item_id="msg_1",
        output_index=0,
        content_index=0,
        part=done_part,
    )
    done_message = {**message, "status": "completed", "content": [done_part]}
    emit("response.output_item.done", output_index=0, item=done_message)
    emit(
        "response.completed", response={**response, "status": "completed", "output": [done_message]}
    )
    return "".join(frames).encode()


def build_chat_stream(deltas: int = DELTAS) -> bytes:
    """The same answer as Chat Completions chunks (one token per chunk, as servers send them)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "bench",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(body)}\n\n"

    frames = [chunk({"role": "assistant", "content": ""})]
    frames.extend(chunk({"content": f" word{i % 97}"}) for i in range(deltas))
    frames.append(chunk({}, "stop"))
    frames.append("data: [DONE]\n\n")
    return "".join(frames).encode()


def chunks(body: bytes, size: int = 4096) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def run_ours(body: bytes) -> tuple[float, int, str]:
    from forge_cli.stream import SnapshotBuilder, iter_sse_events

    parts = chunks(body)
    start = time.perf_counter()
    builder = SnapshotBuilder()
    count = 0
    for event in iter_sse_events(parts):
        builder.feed(event)
        count += 1
    text = builder.finish().output_text
    return time.perf_counter() - start, count, text


def run_sdk(body: bytes) -> tuple[float, int, str]:
    import httpx2
    import openai

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, stream=httpx2.ByteStream(body)
        )

    http_client = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(
        api_key="bench", base_url="http://bench.invalid/v1", http_client=http_client
    )
    start = time.perf_counter()
    count = 0
    with client.responses.stream(model="bench", input="hi") as stream:
        for _ in stream:
            count += 1
        text = stream.get_final_response().output_text
    elapsed = time.perf_counter() - start
    client.close()
    return elapsed, count, text


def run_floor(body: bytes) -> float:
    """CPU seconds of the least a client must do: frames split, JSON decoded, text appended."""
    parts = chunks(body)
    start = time.process_time()
    pending = b""
    text: list[str] = []
    for chunk in parts:
        frames = (pending + chunk).split(b"\n\n")
        pending = frames.pop()
        for frame in frames:
            data = json.loads(frame[frame.index(b"data: ") + 6 :])
            if data["type"] == "response.output_text.delta":
                text.append(data["delta"])
    "".join(text)
    return time.process_time() - start


def run_turn_path(body: bytes, mode: str, *, batched: bool, chat: bool = False) -> float:
    """CPU seconds for one answer through backend, fold, turn runner and renderer."""
    import httpx2

    from forge_cli.agent.turn import backend_responder, run_turn
    from forge_cli.backends import ChatCompletionsBackend, ResponsesBackend
    from forge_cli.protocol.request import Request
    from forge_cli.render.json_renderer import JsonlRenderer
    from forge_cli.render.plain import PlainRenderer
    from forge_cli.repl.view import RendererView

    parts = chunks(body)

    class Body(httpx2.AsyncByteStream):
        async def __aiter__(self) -> Any:
            for part in parts:
                yield part

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    backend: Any
    if chat:
        backend = ChatCompletionsBackend(
            base_url="http://bench.invalid/v1", api_key="sk-bench-0123456789"
        )
        backend._client = client  # the mock transport instead of a connection
    else:
        backend = ResponsesBackend(
            "http://bench.invalid/v1", api_key="sk-bench-0123456789", client=client
        )
    if not batched:
        backend = _PerEvent(backend)
    out = io.StringIO()
    renderer: Any = PlainRenderer(out, io.StringIO()) if mode == "plain" else JsonlRenderer(out)
    view = RendererView(renderer)

    async def turn() -> float:
        start = time.process_time()
        outcome = await run_turn(
            backend_responder(backend), Request(model="bench", input="hi"), on_update=view.update
        )
        view.finish(outcome.response, status=outcome.status, error=outcome.error)
        return time.process_time() - start

    return asyncio.run(turn())


class _PerEvent:
    """A backend whose batches hold one event each (as the local and scripted backends')."""

    name = "responses"
    runs_hosted_tools = True

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def stream(self, request: Any) -> Any:
        return self._backend.stream(request)

    def stream_batches(self, request: Any) -> Any:
        from forge_cli.backends.base import one_event_per_batch

        return one_event_per_batch(self.stream(request))

    async def aclose(self) -> None:
        await self._backend.aclose()


def measure_turns(body: bytes) -> dict[str, float]:
    """Best-of-5 CPU µs per event for the floor and each turn path."""
    events = body.count(b"\n\n")
    deltas = body.count(b"event: response.output_text.delta\n")
    chat_body = build_chat_stream(deltas)  # the same answer; per event = per text delta here
    figures: dict[str, float] = {}
    jobs: dict[str, Any] = {"floor": lambda: run_floor(body)}
    for mode in ("plain", "jsonl"):
        for batched in (True, False):
            label = f"{mode}, {'batched' if batched else 'per event'}"
            jobs[label] = lambda m=mode, b=batched: run_turn_path(body, m, batched=b)
    jobs["plain, chat chunks"] = lambda: run_turn_path(chat_body, "plain", batched=True, chat=True)
    for label, job in jobs.items():
        job()  # warm imports and caches
        figures[label] = min(job() for _ in range(5)) * 1e6 / events
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="SRC", help="also measure the tree in SRC")
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="only the turn path, for 2k, 20k and 100k deltas (is the cost per event flat?)",
    )
    parser.add_argument("--turns-only", type=int, metavar="DELTAS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.turns_only:
        print(json.dumps(measure_turns(build_stream(args.turns_only))))
        return 0
    if args.scaling:
        for deltas in (2_000, 20_000, 100_000):
            print_turns(build_stream(deltas), args.baseline, deltas)
        return 0
    body = build_stream()
    status = compare_with_sdk(body)
    print_turns(body, args.baseline)
    return status


def print_turns(body: bytes, baseline: str | None, deltas: int = DELTAS) -> None:
    ours = measure_turns(body)
    base: dict[str, float] = {}
    if baseline:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(baseline)}
        done = subprocess.run(
            [sys.executable, __file__, "--turns-only", str(deltas)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        base = json.loads(done.stdout)
    events = body.count(b"\n\n")
    print(f"turn path, CPU µs per event (best of 5, {events} events; before -> after):")
    floor = ours["floor"]
    for label, value in ours.items():
        before = f"{base[label]:6.1f} -> " if label in base else ""
        print(f"  {label:<20} {before}{value:6.1f}  ({value / floor:4.1f}x the floor)")


def compare_with_sdk(body: bytes) -> int:
    run_ours(body)  # warm imports and caches
    run_sdk(body)
    ours_runs = [run_ours(body) for _ in range(3)]
    sdk_runs = [run_sdk(body) for _ in range(3)]
    events = ours_runs[0][1]
    assert ours_runs[0][2] == sdk_runs[0][2], "ours and the SDK disagree on the final text"
    ours_s = statistics.median(run[0] for run in ours_runs)
    sdk_s = statistics.median(run[0] for run in sdk_runs)
    ours_eps, sdk_eps = events / ours_s, events / sdk_s
    ratio = ours_eps / sdk_eps
    print(f"stream: {events} events, {len(body) / 1e6:.1f} MB, {DELTAS} text deltas")
    print(f"  ours (SSE + SnapshotBuilder): {ours_s * 1000:8.1f} ms  {ours_eps:10,.0f} events/s")
    print(f"  openai SDK responses.stream(): {sdk_s * 1000:8.1f} ms  {sdk_eps:10,.0f} events/s")
    verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
    print(f"  ratio: {ratio:.1f}x (target >= {TARGET_RATIO:.0f}x) {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
