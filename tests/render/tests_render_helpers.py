"""Shared helpers for render tests: fixture discovery, snapshots, a fake clock, a pyte screen."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Iterable
from pathlib import Path

import pyte
from rich.console import Console, Group, RenderableType

from forge_cli.protocol.loop_events import LoopEvent
from forge_cli.protocol.response import Response
from forge_cli.stream import SnapshotBuilder
from forge_cli.testing.loop_run import LoopRun, newsworthy_run
from forge_cli.testing.scripted import load_sse_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"
WIDTH, HEIGHT = 100, 40


def stream_fixtures() -> list[Path]:
    """Every SSE fixture: the foundation's (tests/fixtures/sse) and render-only ones."""
    return sorted((FIXTURES / "sse").glob("*.sse")) + sorted((FIXTURES / "render").glob("*.sse"))


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def snapshots(path: Path) -> tuple[list[Response], Response]:
    """The snapshot after each event of a fixture, and the finished snapshot."""
    builder = SnapshotBuilder()
    seen: list[Response] = []
    for event in load_sse_fixture(path):
        snap = builder.feed(event)
        if not seen or snap is not seen[-1]:
            seen.append(snap)
    return seen, builder.finish()


class FakeClock:
    """Advances by ``step`` seconds on every reading."""

    def __init__(self, step: float = 0.1) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Screen:
    """A terminal emulator fed with everything written to a capture file."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.file = io.StringIO()
        self._fed = 0
        self.screen = pyte.HistoryScreen(width, height, history=100_000)
        self.screen.set_mode(pyte.modes.LNM)
        self.stream = pyte.Stream(self.screen)

    def console(self, *, terminal: bool = True, height: int = HEIGHT) -> Console:
        return Console(
            file=self.file,
            width=self.screen.columns,
            height=height,
            color_system=None,
            force_terminal=terminal,
            legacy_windows=False,
            markup=False,
            emoji=False,
            highlight=False,
        )

    def text(self) -> str:
        """History plus display, right-stripped, without trailing blank lines."""
        data = self.file.getvalue()
        self.stream.feed(data[self._fed :])
        self._fed = len(data)
        rows = [
            "".join(line[x].data for x in range(self.screen.columns))
            for line in self.screen.history.top
        ] + list(self.screen.display)
        return "\n".join(row.rstrip() for row in rows).rstrip("\n")


def render_plain_text(renderables: Iterable[RenderableType], width: int = WIDTH) -> str:
    """Renderables printed on a colourless non-terminal console, lines right-stripped."""
    file = io.StringIO()
    console = Console(
        file=file,
        width=width,
        height=HEIGHT,
        color_system=None,
        force_terminal=False,
        markup=False,
        emoji=False,
        highlight=False,
    )
    console.print(Group(*renderables))
    return "\n".join(line.rstrip() for line in file.getvalue().splitlines()).rstrip("\n")


def real_loop_run(payload: str = "") -> LoopRun:
    """A real AgentLoop run whose events cover every notice (forge_cli.testing.loop_run)."""
    return _real_loop_run(payload)


@functools.cache
def _real_loop_run(payload: str) -> LoopRun:
    return asyncio.run(newsworthy_run(payload))


def real_loop_events(payload: str = "") -> list[LoopEvent]:
    """The loop events (not the snapshots) of :func:`real_loop_run`."""
    return [u for u in real_loop_run(payload).updates if not isinstance(u, Response)]


def answer_response(text: str) -> Response:
    """A completed response whose one message's text is ``text``."""
    return Response.model_validate(
        {
            "id": "resp_1",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "m1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
        }
    )
