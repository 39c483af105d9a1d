"""``evolve`` (protocol/_base.py) is ``model_copy(update=...)`` for declared fields, built from
pydantic's documented instance attributes (``__dict__``, ``__pydantic_fields_set__``,
``__pydantic_extra__``, ``__pydantic_private__``): these tests fail if a pydantic release adds
per-instance state evolve would not copy, or changes what a copy holds."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from forge_cli.protocol import Message, OutputText, Response
from forge_cli.protocol._base import evolve
from forge_cli.protocol.text import TextBuffer


def test_evolve_sets_every_per_instance_slot_of_base_model() -> None:
    """evolve sets exactly these; a new slot in BaseModel would be left unset on its copies."""
    assert set(BaseModel.__slots__) == {
        "__dict__",
        "__pydantic_fields_set__",
        "__pydantic_extra__",
        "__pydantic_private__",
    }


def _state(model: BaseModel) -> tuple[Any, ...]:
    return (
        type(model),
        model.__dict__,
        model.model_fields_set,
        model.model_extra,
        model.__pydantic_private__,
        model.model_dump(mode="json", by_alias=True),
    )


_PART = OutputText(text="hello", vendor_part="kept")
_MESSAGE = Message(id="m", status="in_progress", content=[_PART], vendor="kept")
_RESPONSE = Response(id="r", status="in_progress", output=[_MESSAGE])
CASES: list[tuple[BaseModel, dict[str, Any]]] = [
    (_PART, {}),
    (_PART, {"text_value": "other"}),
    (_MESSAGE, {"content": [_PART, _PART]}),
    (_MESSAGE, {"status": "completed"}),
    (_RESPONSE, {"output": []}),
    (_RESPONSE, {}),
]


@pytest.mark.parametrize(("model", "update"), CASES)
def test_evolve_is_model_copy_for_declared_fields(model: BaseModel, update: dict[str, Any]) -> None:
    before = _state(model)
    evolved = evolve(model, **update)
    copied = model.model_copy(update=update)
    assert _state(evolved) == _state(copied)
    assert evolved == copied
    assert _state(model) == before  # the original is untouched
    assert evolved.model_fields_set is not model.model_fields_set


def test_with_view_leaves_the_original_part_as_it_was() -> None:
    buffer = TextBuffer()
    buffer.append("streamed")
    part = OutputText(text="")
    viewed = part.with_view(buffer.view())
    assert viewed.text == "streamed"
    assert part.text_view is None
    assert part.text == ""
    again = viewed.with_view(TextBuffer().view())
    assert viewed.text == "streamed"  # the private dict was copied, not shared
    assert again.text == ""
