"""Run ``forge eval ARGS`` with a backend that presses Ctrl+C (a real SIGINT) on its 3rd question.

Used by ``test_eval_cli.py`` in a subprocess, so the signal goes through ``asyncio.run``'s own
SIGINT handling exactly as a user's Ctrl+C does.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_helpers import answer_script  # type: ignore[import-not-found]

from forge_cli.backends.base import one_event_per_batch
from forge_cli.cli import eval_cmd
from forge_cli.cli.main import COMMANDS, main
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request


class InterruptingBackend:
    """Answers twice, then sends SIGINT to its own process and waits to be cancelled."""

    name = "interrupting"
    runs_hosted_tools = True

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        if self.calls > 2:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.Event().wait()
        for event in answer_script(f"answer {self.calls}", rid=f"r{self.calls}"):
            yield StreamEvent(event["type"], event)

    def stream_batches(self, request: Request) -> AsyncIterator[list[StreamEvent]]:
        return one_event_per_batch(self.stream(request))

    async def aclose(self) -> None:
        return None


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    COMMANDS["eval"] = ("forge_cli.cli.eval_cmd:eval_command", "Evaluate a dataset.")
    eval_cmd.build_backend = lambda settings: InterruptingBackend()  # type: ignore[assignment]
    main(["eval", *sys.argv[1:]])
