"""Streaming render cost: our rich renderer versus re-rendering the whole answer per chunk.

Streams a 2,000-token and a 20,000-token Markdown answer (paragraphs, lists, fenced code, a
table) through ``RichRenderer`` into a capture console (terminal forced, 100x40, colour on),
one snapshot per token, as fast as the renderer takes them (the real monotonic clock drives the
15-per-second redraw throttle). Prints CPU seconds (``time.process_time``) and the per-token
ratio, and a naive baseline measured in the same run: one rich ``Live`` whose
``Markdown(whole answer)`` is re-rendered on every chunk (as shell_gpt does), stopped after a
CPU cap and extrapolated quadratically.

It also streams the answer of ``bench_peers.py`` (headings, paragraphs with bold and code, lists,
code blocks, tables; 20,000 tokens) as a fast loopback stream does: a simulated clock so that the
answer takes 3 s, i.e. about 45 redraws at 15 per second. That is the in-process render cost
behind ``bench_peers``' 20k rows (benchmarks/PROFILE.md, "Rich view"); run this script with
``PYTHONPATH=<other tree>/src`` to measure another tree's renderer in the same session.

For information it also prints a *paced* run: a simulated clock at 100 tokens per second, so the
live region is redrawn ~15 times per simulated second for the whole answer (about 2,900 redraws
for 20,000 tokens). That figure is CPU per answer at a realistic pace; divided by the simulated
duration it is the renderer's share of one core while a model streams.

It also prints, for information, what ticks cost (``RichRenderer.tick``, which drivers call so
a stalled stream still shows its latest state): a tool call running for 60 simulated seconds,
ticked whenever the renderer asks (at most 15 redraws per second, for its elapsed time), and one
``tick()`` on an idle, clean answer (which must not redraw).

Snapshots are dropped once drawn, as in a real stream (holding all of them would keep every
snapshot's joined text alive and measure the allocator, not the renderer).

Targets: 20,000 tokens <= 1.0 s CPU; per-token cost at 20,000 <= 1.5x the cost at 2,000.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from forge_cli.protocol import FileSearchCall, Message, OutputText, Response, TextBuffer
from forge_cli.render.rich_renderer import RichRenderer

TOKENS_SMALL = 2_000
TOKENS_LARGE = 20_000
NAIVE_CAP_S = 8.0

PARAGRAPH = (
    "The quarterly report shows **revenue growth** across all regions, with services "
    "leading the gains and hardware holding steady despite `supply` constraints. "
)
LIST = "- first point about margins\n- second point about *costs*\n- third point\n"
CODE = "```python\ndef total(rows):\n    return sum(r.amount for r in rows)\n```\n"
TABLE = "| region | q2 | q3 |\n|---|---|---|\n| north | 10 | 12 |\n| south | 8 | 9 |\n"


def answer_tokens(count: int) -> list[str]:
    """About ``count`` tokens of varied Markdown, as the chunks a model would stream."""
    pieces = itertools.cycle(
        [
            f"## Section\n\n{PARAGRAPH * 3}\n\n",
            f"{LIST}\n",
            f"{PARAGRAPH}\n\n",
            f"{CODE}\n",
            f"{TABLE}\n",
        ]
    )
    tokens: list[str] = []
    while len(tokens) < count:
        text = next(pieces)
        tokens.extend(text[i : i + 4] for i in range(0, len(text), 4))
    return tokens[:count]


def snapshots(tokens: list[str]) -> list[Response]:
    """One snapshot per token, sharing one text buffer (as the SnapshotBuilder does)."""
    buffer = TextBuffer()
    snaps = []
    for token in tokens:
        buffer.append(token)
        part = OutputText(text="").with_view(buffer.view())
        message = Message.model_construct(
            id="m", status="in_progress", content=[part], type="message", role="assistant"
        )
        snaps.append(Response.model_construct(id="r", status="in_progress", output=[message]))
    return snaps


def capture_console() -> Console:
    return Console(
        file=io.StringIO(),
        force_terminal=True,
        width=100,
        height=40,
        color_system="truecolor",
        legacy_windows=False,
    )


def peers_tokens(count: int) -> list[str]:
    """The Markdown answer ``bench_peers.py`` streams (loaded from the script next to this one)."""
    spec = importlib.util.spec_from_file_location(
        "bench_peers", Path(__file__).with_name("bench_peers.py")
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_peers", module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    tokens: list[str] = module.markdown_tokens(count)
    return tokens


def run_ours(
    count: int, *, paced: bool = False, tokens: list[str] | None = None, seconds: float = 0.0
) -> tuple[float, int]:
    """(CPU seconds, redraws) to stream ``count`` tokens through RichRenderer.

    ``seconds``: a simulated clock makes the whole answer last this long (0: the real clock)."""
    tokens = tokens if tokens is not None else answer_tokens(count)
    snaps = snapshots(tokens)
    final_text = "".join(tokens)  # not snaps[-1].text: reading the newest view first would
    # make every older view re-join its fragments (TextBuffer caches forward reads only)
    final = Response(
        id="r",
        status="completed",
        output=[Message(id="m", status="completed", content=[OutputText(text=final_text)])],
    )
    fake_now = itertools.count()
    step = 0.01 if paced else seconds / max(1, len(tokens))
    clock = (lambda: next(fake_now) * step) if paced or seconds else time.monotonic
    renderer = RichRenderer(capture_console(), clock=clock)
    snaps.reverse()
    start = time.process_time()
    while snaps:  # drop each snapshot once drawn, as a real stream does: holding all 20,000
        renderer.on_snapshot(snaps.pop())  # keeps every view's joined text alive (~800 MB)
    renderer.finish(final)
    return time.process_time() - start, renderer.redraws


def run_ticks(seconds: int) -> tuple[float, int, float]:
    """A stalled stream: a tool call running ``seconds`` simulated seconds, ticked whenever the
    renderer asks (``next_tick_in``), then the answer idle and clean. Returns (CPU seconds for
    the running tool, its redraws, CPU microseconds per idle tick)."""
    now = [0.0]
    renderer = RichRenderer(capture_console(), clock=lambda: now[0])
    call = FileSearchCall(id="fs", status="searching", queries=["quarterly revenue"])
    renderer.on_snapshot(Response(id="r", status="in_progress", output=[call]))
    start = time.process_time()
    while now[0] < seconds:
        delay = renderer.next_tick_in()
        if delay is None:
            raise SystemExit("a running tool call stopped asking for ticks")
        now[0] += max(delay, 0.001)
        renderer.tick()
    running = time.process_time() - start
    redraws = renderer.redraws
    done = FileSearchCall(id="fs", status="completed", queries=["quarterly revenue"])
    text = Message(id="m", status="completed", content=[OutputText(text="Done.")])
    renderer.on_snapshot(Response(id="r", status="in_progress", output=[done, text]))
    now[0] += 1.0
    renderer.tick()  # draws what the throttle held back; then all is clean
    drawn = renderer.redraws
    idle_calls = 100_000
    start = time.process_time()
    for _ in range(idle_calls):
        now[0] += 0.1
        renderer.tick()
    idle = (time.process_time() - start) / idle_calls * 1e6
    if renderer.next_tick_in() is not None or renderer.redraws != drawn:
        raise SystemExit("an idle, clean renderer asked for ticks or redrew")
    return running, redraws, idle


def run_naive(count: int, cap: float) -> tuple[float, int, float]:
    """(CPU seconds measured, chunks done, extrapolated total) for whole-answer re-rendering."""
    tokens = answer_tokens(count)
    console = capture_console()
    text = ""
    done = 0
    start = time.process_time()
    with Live(console=console, auto_refresh=False, vertical_overflow="visible") as live:
        for token in tokens:
            text += token
            live.update(Markdown(text), refresh=True)
            done += 1
            if time.process_time() - start > cap:
                break
    spent = time.process_time() - start
    extrapolated = spent * (count / done) ** 2 if done < count else spent
    return spent, done, extrapolated


def main() -> int:
    run_ours(200)  # warm imports and caches
    # Medians: the 2,000-token run takes a few tens of milliseconds, so one sample is noise.
    small, redraws_small = sorted(run_ours(TOKENS_SMALL) for _ in range(5))[2]
    large, redraws_large = sorted(run_ours(TOKENS_LARGE) for _ in range(3))[1]
    per_small = small / TOKENS_SMALL
    per_large = large / TOKENS_LARGE
    ratio = per_large / per_small
    for count, spent, redraws in (
        (TOKENS_SMALL, small, redraws_small),
        (TOKENS_LARGE, large, redraws_large),
    ):
        print(
            f"ours  {count:>6} tokens: {spent:7.3f} s CPU  "
            f"({spent / count * 1e6:6.1f} us/token, {redraws} redraws)"
        )
    print(f"per-token ratio 20k/2k: {ratio:.2f} (target <= 1.5); 20k target <= 1.0 s")
    peers = peers_tokens(TOKENS_LARGE)
    runs = sorted(run_ours(TOKENS_LARGE, tokens=peers, seconds=3.0) for _ in range(3))
    spent, redraws = runs[1]
    print(
        f"peers' answer {TOKENS_LARGE} tokens streamed in 3 s: {spent:7.3f} s CPU "
        f"(median of 3, {redraws} redraws)"
    )
    for count in (TOKENS_SMALL, TOKENS_LARGE):
        spent, redraws = run_ours(count, paced=True)
        simulated = count / 100
        print(
            f"paced {count:>6} tokens at 100 tok/s: {spent:7.3f} s CPU, {redraws} redraws "
            f"({spent / simulated * 100:.1f}% of a core over {simulated:.0f} s)"
        )
    running, redraws, idle = run_ticks(60)
    print(
        f"ticks: a tool running 60 s: {running:.3f} s CPU, {redraws} redraws "
        f"({running / 60 * 100:.1f}% of a core); idle tick() {idle:.2f} us, no redraw"
    )
    for count in (TOKENS_SMALL, TOKENS_LARGE):
        spent, done, total = run_naive(count, NAIVE_CAP_S / 2)
        note = "" if done == count else f" (stopped after {done} chunks; extrapolated)"
        print(f"naive {count:>6} tokens: {total:9.1f} s CPU{note}  [measured {spent:.1f} s]")
    ok = large <= 1.0 and ratio <= 1.5
    print("targets:", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
