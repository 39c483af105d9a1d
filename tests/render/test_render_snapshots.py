"""Golden screens for every stream fixture, at several points of the stream and at the end.

A new ``*.sse`` file under ``tests/fixtures/sse`` or ``tests/fixtures/render`` is picked up
automatically; its golden file is written by running the tests with ``FORGE_UPDATE_GOLDEN=1``
(review the diff before committing it). Width 100, colour off, a real terminal emulator (pyte)
reads the screen back, so live-region redraws are checked as the user would see them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests_render_helpers import (  # type: ignore[import-not-found]
    GOLDEN,
    FakeClock,
    Screen,
    fixture_id,
    render_plain_text,
    snapshots,
    stream_fixtures,
)

from forge_cli.render.rich_renderer import RichRenderer

UPDATE = os.environ.get("FORGE_UPDATE_GOLDEN") == "1"


def _screens(path: Path) -> tuple[str, str, str]:
    """(golden text, final screen, one-shot render of the final snapshot)."""
    seen, final = snapshots(path)
    screen = Screen()
    renderer = RichRenderer(screen.console(), clock=FakeClock(0.1))
    points = sorted({max(0, len(seen) // 3 - 1), max(0, 2 * len(seen) // 3 - 1)})
    parts: list[str] = []
    for index, snap in enumerate(seen):
        renderer.on_snapshot(snap)
        if index in points:
            parts.append(f"--- after snapshot {index + 1} of {len(seen)} ---\n{screen.text()}")
    renderer.finish(final)
    end = screen.text()
    parts.append(f"--- final ---\n{end}")
    static = render_plain_text(renderer.render_static(final))
    return "\n".join(parts) + "\n", end, static


@pytest.mark.parametrize("path", stream_fixtures(), ids=fixture_id)
def test_screen_matches_golden(path: Path) -> None:
    text, _end, _static = _screens(path)
    golden = GOLDEN / f"{path.parent.name}__{path.stem}.txt"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden screen for {path.name}: run with FORGE_UPDATE_GOLDEN=1"
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", stream_fixtures(), ids=fixture_id)
def test_final_screen_equals_one_shot_render(path: Path) -> None:
    _text, end, static = _screens(path)
    assert end == static
    assert end.strip(), "the final screen is empty"
