"""SSE parse + fold throughput: ours versus the openai SDK's stream accumulator, same bytes.

Builds a Responses stream with 20,000 text deltas, then measures events per second for
(a) our SSEDecoder + SnapshotBuilder and (b) ``openai`` ``client.responses.stream(...)`` reading the
same bytes through an in-memory transport. Target: ours >= 4x the SDK's events per second.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

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


def main() -> int:
    body = build_stream()
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
