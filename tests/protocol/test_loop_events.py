"""Loop events are protocol values: frozen, one literal `type` each, in one union; the
`agent.<type>` lines docs/json-output.md lists are exactly these types and fields."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest

from forge_cli.protocol import loop_events
from forge_cli.protocol.loop_events import LoopEvent, ToolCallBlocked, event_payload

DOCS = Path(__file__).resolve().parents[2] / "docs" / "json-output.md"
EVENTS: tuple[type, ...] = typing.get_args(LoopEvent)


def _type_of(cls: type) -> str:
    (literal,) = typing.get_args(typing.get_type_hints(cls)["type"])
    return str(literal)


def test_every_event_is_frozen_with_a_distinct_literal_type() -> None:
    types = [_type_of(cls) for cls in EVENTS]
    assert len(set(types)) == len(EVENTS)
    for cls in EVENTS:
        assert dataclasses.is_dataclass(cls)
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        field = next(f for f in dataclasses.fields(cls) if f.name == "type")
        assert field.default == _type_of(cls)
        assert not field.init  # fixed by the class, never passed


def test_events_cannot_be_changed() -> None:
    event = ToolCallBlocked("c1", "rm", "no")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.name = "ls"  # type: ignore[misc]


def test_the_payload_is_every_field_but_type_with_lists_for_tuples() -> None:
    event = loop_events.IterationLimitReached(3, ("a", "b"), requests=3)
    assert event.type == "iteration.limit_reached"
    assert event_payload(event) == {"limit": 3, "pending_calls": ["a", "b"], "requests": 3}


def _documented() -> dict[str, set[str]]:
    rows = re.findall(r"^\| `agent\.([\w.]+)` \| (.*?) \|", DOCS.read_text(), re.MULTILINE)
    return {kind: set(re.findall(r"`(\w+)`", payload)) for kind, payload in rows}


def test_docs_list_exactly_the_events_and_their_fields() -> None:
    documented = _documented()
    actual = {
        _type_of(cls): {f.name for f in dataclasses.fields(cls) if f.name != "type"}
        for cls in EVENTS
    }
    assert set(documented) == set(actual)
    for kind, fields in actual.items():
        assert fields <= documented[kind], kind


BAD_DISPATCH = """
from typing import assert_never

from forge_cli.protocol.loop_events import LoopEvent, Notice, ToolCallBlocked


def describe(event: LoopEvent) -> str:
    match event:
        case Notice():
            return "notice"
        case ToolCallBlocked():
            return "blocked"
        case _:
            assert_never(event)
"""


def test_a_dispatch_that_misses_an_event_fails_mypy(tmp_path: Path) -> None:
    """Why renderers match with assert_never: an unhandled event type is a type error."""
    import subprocess
    import sys

    snippet = tmp_path / "dispatch.py"
    snippet.write_text(BAD_DISPATCH)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", "/dev/null",
         "--config-file", "", str(snippet)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'Argument 1 to "assert_never" has incompatible type' in proc.stdout
    assert "DriverRetry" in proc.stdout
    assert "IterationLimitReached" in proc.stdout
