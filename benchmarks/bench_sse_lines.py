"""The SSE decoder is linear in line length, whatever the chunking (issue 12).

A server can send one long ``data:`` line in small chunks; a decoder that re-joins its buffer on
every chunk is quadratic (a 20 MB line took 22.7 s in 4 KiB chunks). This feeds the same line in
64 KiB and in 4 KiB chunks, at two sizes, and checks the cost per byte stays flat:

- 4 KiB chunks cost at most 3x the time of 64 KiB chunks for the same line;
- a line 4x as long costs at most 8x the time (linear would be 4x; quadratic 16x).

Best of a few runs in this process, so the noise of a shared machine mostly cancels out.
"""

from __future__ import annotations

import json
import sys
import time

from forge_cli.limits import MIB
from forge_cli.stream.sse import SSEDecoder

RUNS = 3
MAX_CHUNK_RATIO = 3.0
MAX_GROWTH_RATIO = 8.0


def _line(size: int) -> bytes:
    payload = json.dumps({"type": "response.output_text.delta", "delta": "a" * size})
    return f"data: {payload}\n\n".encode()


def _decode_seconds(data: bytes, chunk: int) -> float:
    timings = []
    for _ in range(RUNS):
        decoder = SSEDecoder(max_event=64 * MIB)
        start = time.perf_counter()
        events = []
        for offset in range(0, len(data), chunk):
            events += decoder.feed(data[offset : offset + chunk])
        events += decoder.flush()
        timings.append(time.perf_counter() - start)
        assert len(events) == 1
    return min(timings)


def main() -> int:
    """Print the figures; exit 1 when the decoder looks quadratic."""
    small, large = _line(8 * MIB), _line(32 * MIB)
    big_chunks = _decode_seconds(large, 64 * 1024)
    small_chunks = _decode_seconds(large, 4 * 1024)
    quarter = _decode_seconds(small, 4 * 1024)
    chunk_ratio = small_chunks / big_chunks
    growth_ratio = small_chunks / quarter
    print(f"32 MiB line, 64 KiB chunks: {big_chunks * 1000:.0f} ms")
    print(f"32 MiB line,  4 KiB chunks: {small_chunks * 1000:.0f} ms (x{chunk_ratio:.2f})")
    print(f" 8 MiB line,  4 KiB chunks: {quarter * 1000:.0f} ms (4x the line: x{growth_ratio:.2f})")
    ok = chunk_ratio <= MAX_CHUNK_RATIO and growth_ratio <= MAX_GROWTH_RATIO
    print("ok" if ok else "FAIL: the decoder is not linear in line length")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
