"""Benchmark listing saved conversations: the newest 20 of 500, as ``/conversations`` does.

Before: every file was read and parsed, then the newest 20 kept (``ConversationStore.list``).
After: files are read newest-modified first until no file left can be newer
(``ConversationStore.newest``). Both are measured in the same run on the same directory of 500
conversations of 6 turns each (answers with citations, like real ones); each figure is the
median of several runs. The same rule finds the conversation ``forge chat -c`` continues.

Exit status 1 on a FAIL: the newest 20 must be listed at least 5 times faster than by reading
everything, and list the same conversations.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from forge_cli.conversations import Conversation, ConversationStore, Turn

CONVERSATIONS = 500
TURNS = 6
SHOWN = 20
RUNS = 7
TARGET_SPEEDUP = 5.0


def _answer(number: int, turn: int) -> list[dict[str, object]]:
    text = f"Answer {turn} of conversation {number}: " + "the zebra service listens. " * 40
    return [
        {
            "type": "message",
            "id": f"m{turn}",
            "role": "assistant",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "text": text,
                    "annotations": [
                        {
                            "type": "file_citation",
                            "file_id": "file_1",
                            "filename": "a.md",
                            "index": len(text),
                        }
                    ],
                }
            ],
        }
    ]


def _fill(root: Path) -> ConversationStore:
    store = ConversationStore(root)
    now = time.time()
    for number in range(CONVERSATIONS):
        conversation = Conversation(id=f"c20260101-{number:08x}")
        for turn in range(TURNS):
            conversation.add_turn(Turn(user=f"question {turn}", output=_answer(number, turn)))
        conversation.updated_at = now - 60 * number
        path = store.save(conversation)
        os.utime(path, (conversation.updated_at, conversation.updated_at))  # saved back then
    return store


def _median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        store = _fill(Path(tmp))
        before = [c.id for c in store.list().conversations[:SHOWN]]
        after = [c.id for c in store.newest(SHOWN).conversations[:SHOWN]]
        every = _median_ms(lambda: store.list().conversations[:SHOWN])
        newest = _median_ms(lambda: store.newest(SHOWN).conversations[:SHOWN])
        latest = _median_ms(lambda: store.newest(1).conversations[:1])
    speedup = every / newest
    ok = before == after and speedup >= TARGET_SPEEDUP
    print(f"{CONVERSATIONS} conversations x {TURNS} turns, the newest {SHOWN} (median of {RUNS}):")
    print(f"  before: read every file     {every:8.1f} ms")
    print(f"  after:  newest first        {newest:8.1f} ms  ({speedup:.0f}x faster)")
    print(f"  the latest (forge chat -c)  {latest:8.1f} ms")
    print(f"{'PASS' if ok else 'FAIL'}: same list, >= {TARGET_SPEEDUP:.0f}x faster")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
