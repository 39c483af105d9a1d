"""The tagged unions (output items, content parts, annotations, tools) build a member's validator
on the member's first use (``_base.BUILT_ON_USE``, ADR-0024), and behave exactly as unions that
build every member at once: same values, same errors, same dumps.

The reference here is the same union written the usual way (every member's schema built into
it), compared on fixed and generated hostile input.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Annotated, Any, Union, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError

from forge_cli.protocol.annotations import Annotation
from forge_cli.protocol.content import ContentPart
from forge_cli.protocol.items import OutputItem
from forge_cli.protocol.response import Response
from forge_cli.protocol.tools import Tool


def _eager(union: Any) -> Any:
    """``union`` rebuilt without the on-use marker: pydantic builds every member into it."""
    members, *meta = get_args(union)
    discriminator = next(m for m in meta if isinstance(m, Discriminator))
    plain = []
    for member in get_args(members):
        cls, *marks = get_args(member)
        tag = next(m for m in marks if isinstance(m, Tag))
        plain.append(Annotated[cls, tag])
    return Annotated[Union[tuple(plain)], discriminator]  # noqa: UP007


UNIONS = {
    "item": OutputItem,
    "part": ContentPart,
    "annotation": Annotation,
    "tool": Tool,
}
ADAPTERS = {name: (TypeAdapter(u), TypeAdapter(_eager(u))) for name, u in UNIONS.items()}

KINDS = [
    "message", "reasoning", "file_search_call", "web_search_call", "function_call",
    "function_call_output", "code_interpreter_call", "computer_call", "list_documents_call",
    "file_reader_call", "page_reader_call", "mcp_call", "mcp_list_tools", "mcp_approval_request",
    "output_text", "refusal", "reasoning_text", "summary_text", "file_citation", "url_citation",
    "file_path", "container_file_citation", "file_search", "web_search", "web_search_2025_08_26",
    "web_search_preview", "function", "code_interpreter", "computer_use_preview",
    "list_documents", "file_reader", "page_reader", "brand_new_kind",
]  # fmt: skip
FIELDS = [
    "id", "status", "content", "text", "annotations", "summary", "call_id", "name", "arguments",
    "output", "queries", "results", "action", "sources", "index", "url", "file_id", "progress",
    "tools", "parameters", "vector_store_ids", "role", "start_index", "error", "outputs",
]  # fmt: skip

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=4)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from([*FIELDS, "type"]), inner, max_size=3)
        | st.fixed_dictionaries({"type": st.sampled_from(KINDS)}, optional={"text": inner})
    ),
    max_leaves=12,
)
raw_objects = st.fixed_dictionaries(
    {},
    optional={"type": st.one_of(st.sampled_from(KINDS), scalars)}
    | dict.fromkeys(FIELDS, json_values),
)


def _outcome(adapter: TypeAdapter[Any], raw: Any) -> tuple[str, Any]:
    try:
        value = adapter.validate_python(raw)
    except ValidationError as exc:
        # The first line names the adapter's schema (its members' validators), which differs;
        # no Forge code shows it (parse_* catch the error, a model's error is titled by the model).
        body = str(exc).split("\n", 1)[1]
        return "error", (body, exc.errors(include_url=False, include_context=False))
    return "value", (
        type(value).__name__,
        value.model_dump(),
        value.model_dump_json(),
        value.model_dump(mode="json", by_alias=True, exclude_none=True),
        adapter.dump_json(value, exclude_defaults=True),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(union=st.sampled_from(sorted(UNIONS)), raw=raw_objects)
def test_a_union_validates_and_dumps_like_one_built_at_once(union: str, raw: Any) -> None:
    lazy, eager = ADAPTERS[union]
    assert _outcome(lazy, raw) == _outcome(eager, raw)


HOSTILE: list[Any] = [
    {"type": "message", "content": [{"type": "output_text", "text": 5}]},
    {"type": "message", "content": [{"type": "output_text", "annotations": [{"index": "x"}]}]},
    {"type": "message", "content": [{"type": "output_text", "annotations": [None, 3]}]},
    {"type": "message", "content": "not a list"},
    {"type": "function_call", "call_id": 5, "arguments": {}},
    {"type": "mcp_list_tools", "tools": [{"name": 3}]},
    {"type": "web_search_call", "action": {"sources": [{"url": 1}]}},
    {"type": 7},
    {},
    [],
    "message",
    None,
]


@pytest.mark.parametrize("raw", HOSTILE)
def test_a_response_holding_odd_items_fails_or_passes_as_before(raw: Any) -> None:
    class Eager(Response):
        output: list[_eager(OutputItem)] = Field(default_factory=list)  # type: ignore[valid-type]

    for data in ({"output": [raw]}, {"output": [raw], "tools": [raw]}):
        try:
            expected: Any = Eager.model_validate(data).model_dump_json()
        except ValidationError as exc:
            expected = exc.errors(include_url=False, include_context=False)
        try:
            got: Any = Response.model_validate(data).model_dump_json()
        except ValidationError as exc:
            got = exc.errors(include_url=False, include_context=False)
        assert json.dumps(got, default=repr) == json.dumps(expected, default=repr)


def test_a_model_instance_passes_through_unchanged() -> None:
    lazy, _ = ADAPTERS["item"]
    item = lazy.validate_python({"type": "function_call", "name": "f"})
    assert lazy.validate_python(item) is item
    response = Response.model_validate({"output": [item]})
    assert response.output[0] is item


def test_a_text_answer_builds_only_the_models_it_meets() -> None:
    """In a fresh process, fold the start of a text answer (the warm-up's four events) and list
    every model whose schema went into a built validator: no tool-call, annotation or tool model.
    """
    probe = r"""
import json
from pydantic import BaseModel
from forge_cli.protocol import parse
from forge_cli.stream.warm import warm_up_fold

warm_up_fold()
seen = set()
def walk(node):
    if isinstance(node, dict):
        if node.get("type") == "model":
            seen.add(node["cls"].__name__)
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
def complete(cls):
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("forge_cli.protocol") and sub.__pydantic_complete__:
            walk(sub.__pydantic_core_schema__)
        complete(sub)
complete(BaseModel)
walk(parse._item_adapter().core_schema)
print(json.dumps(sorted(seen)))
"""
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(result.stdout) == [
        "Message",
        "OutputText",
        "Response",
        "ResponseError",
        "Usage",
    ]
