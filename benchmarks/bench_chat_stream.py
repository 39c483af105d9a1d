"""The Chat Completions path in-process: import cost, RSS and per-chunk CPU, against a baseline.

Each measurement runs in a fresh interpreter that streams a Chat Completions reply through
``ChatCompletionsBackend.stream`` from an in-memory httpx2 transport (no sockets, no server
process: only the client's own work is counted), in 4 KiB reads like a real connection:

- ``cold``: CPU from nothing to the end of a one-chunk reply (imports, client, request, parse);
- ``µs/chunk``: CPU per chunk of a 20,000-chunk reply (one token per chunk), median of runs,
  backend only, and with ``--fold`` also folded into snapshots by the SnapshotBuilder;
- ``translate``: the ChatStreamTranslator alone on pre-parsed chunks;
- max RSS of the interpreter after it all.

``--baseline SRC`` measures the Forge in SRC (a checkout's ``src/``) in the same run, the two
trees alternating, and prints the ratios. The machine's speed drifts between runs: compare only
figures from one run.

Run: ``.venv/bin/python benchmarks/bench_chat_stream.py [--baseline SRC] [--runs N]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

CHUNKS = 20_000

_CHILD = r"""
import asyncio, json, resource, statistics, sys, time
RUNS, CHUNKS, FOLD = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
start = time.process_time()
import httpx2

def chunk(delta, finish=None):
    body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
            "model": "mock", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"

def body(count):
    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"content": f" word{i % 97}"}) for i in range(count)]
    parts += [chunk({}, "stop"), b"data: [DONE]\n\n"]
    return b"".join(parts)

BODIES = {1: body(1), CHUNKS: body(CHUNKS)}
current = [BODIES[1]]

async def pieces():
    data = current[0]
    for i in range(0, len(data), 4096):
        yield data[i:i + 4096]

def handler(request):
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=pieces())

try:
    from forge_cli.backends.http import client as _http
except ImportError:  # a baseline tree from before issue 28's grouping
    from forge_cli.backends import _http
def build_client(**_):
    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
_http.build_client = build_client
prep = time.process_time() - start

try:
    from forge_cli.backends.chat import backend as chat_completions
except ImportError:  # a baseline tree from before issue 28's grouping
    from forge_cli.backends import chat_completions
if hasattr(chat_completions, "build_client"):
    chat_completions.build_client = build_client
from forge_cli.protocol import Request

async def stream(count, fold=False):
    current[0] = BODIES[count]
    backend = chat_completions.ChatCompletionsBackend(base_url="http://mock/v1", max_retries=0)
    events = 0
    try:
        if fold:
            from forge_cli.stream.builder import SnapshotBuilder
            builder = SnapshotBuilder()
            async for event in backend.stream(Request(model="m", input="hi")):
                builder.feed(event)
                events += 1
        else:
            async for event in backend.stream(Request(model="m", input="hi")):
                events += 1
    finally:
        await backend.aclose()
    return events

asyncio.run(stream(1))
cold = time.process_time() - start - prep
out = {"cold": cold}
for label, fold in (("stream", False), ("fold", True)) if FOLD else (("stream", False),):
    times = []
    for _ in range(RUNS + 1):
        t0 = time.process_time()
        asyncio.run(stream(CHUNKS, fold))
        times.append(time.process_time() - t0)
    out[label] = statistics.median(times[1:]) / CHUNKS * 1e6

try:
    from forge_cli.backends.chat.stream import ChatStreamTranslator
except ImportError:  # a baseline tree from before issue 28's grouping
    from forge_cli.backends._chat_stream import ChatStreamTranslator
parsed = [json.loads(line[6:]) for line in BODIES[CHUNKS].split(b"\n\n")[:-2]]
times = []
for _ in range(RUNS + 1):
    t0 = time.process_time()
    translator = ChatStreamTranslator("m")
    for item in parsed:
        translator.feed(item)
    translator.finish()
    times.append(time.process_time() - t0)
out["translate"] = statistics.median(times[1:]) / CHUNKS * 1e6
out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["openai"] = "openai" in sys.modules
print(json.dumps(out))
"""


def measure(src: Path | None, runs: int, fold: bool) -> dict[str, Any]:
    """One fresh interpreter's figures for the tree at ``src`` (None: this checkout)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(runs), str(CHUNKS), str(int(fold))],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the benchmark child failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, metavar="SRC", help="a checkout's src/ folder")
    parser.add_argument("--runs", type=int, default=5, help="timed 20k streams per interpreter")
    parser.add_argument("--rounds", type=int, default=3, help="interpreters per tree")
    parser.add_argument("--fold", action="store_true", help="also fold into snapshots")
    args = parser.parse_args()
    trees: list[tuple[str, Path | None]] = [("forge", None)]
    if args.baseline is not None:
        trees.append(("forge@base", args.baseline.resolve()))
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    for _ in range(args.rounds):
        for name, src in trees:
            samples[name].append(measure(src, args.runs, args.fold))
    keys = ["cold", "stream", *(["fold"] if args.fold else []), "translate", "rss"]
    units = {"cold": "s", "stream": "µs", "fold": "µs", "translate": "µs", "rss": "MB"}
    print(f"{CHUNKS:,} chat chunks, median of {args.rounds} interpreters x {args.runs} runs")
    print(f"{'tree':<11}" + "".join(f"{key + ' (' + units[key] + ')':>16}" for key in keys))
    medians: dict[str, dict[str, float]] = {}
    for name, _ in trees:
        medians[name] = {key: statistics.median(s[key] for s in samples[name]) for key in keys}
        row = "".join(f"{medians[name][key]:>16.3f}" for key in keys)
        sdk = " (imports openai)" if any(s["openai"] for s in samples[name]) else ""
        print(f"{name:<11}{row}{sdk}")
    if args.baseline is not None:
        new, base = medians["forge"], medians["forge@base"]
        print(f"{'base/new':<11}" + "".join(f"{base[key] / new[key]:>15.2f}x" for key in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
