"""Issue 15 items 3 and 4: class-based tools found in functions files, `strict` on `@tool`, and
calls to tools that were not offered refused with an error result naming those that were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_cli.errors import UsageError
from forge_cli.tools import BaseTool, ToolCall, ToolExecutor, load_functions, tool

pytestmark = pytest.mark.anyio

CLASS_ONLY = """
from pydantic import BaseModel
from forge_cli.tools import BaseTool


class Args(BaseModel):
    city: str


class Weather(BaseTool):
    name = "weather"
    description = "The weather in a city."
    args_schema = Args

    async def run(self, args):
        return f"sunny in {args.city}"
"""

MIXED = '''
from pydantic import BaseModel
from forge_cli.tools import BaseTool, tool


class Args(BaseModel):
    text: str


class Shout(BaseTool):
    name = "shout"
    args_schema = Args

    async def run(self, args):
        return args.text.upper()


class _Base(BaseTool):
    """A private helper base: not a tool."""


class NamelessBase(BaseTool):
    """A public base without a name: a base for tools, not a tool."""


@tool
def whisper(text: str) -> str:
    """Whisper text."""
    return text.lower()


def helper(x: int) -> int:
    return x
'''

NEEDS_ARGS = """
from pydantic import BaseModel
from forge_cli.tools import BaseTool


class Args(BaseModel):
    q: str


class Lookup(BaseTool):
    name = "lookup"
    args_schema = Args

    def __init__(self, index_path):
        super().__init__()
        self.index_path = index_path
"""

INSTANCE = """
from pydantic import BaseModel
from forge_cli.tools import BaseTool


class Args(BaseModel):
    q: str


class Lookup(BaseTool):
    name = "lookup"
    args_schema = Args

    def __init__(self, index_path):
        super().__init__()
        self.index_path = index_path

    async def run(self, args):
        return self.index_path


lookup = Lookup("/srv/index")
"""


def _file(tmp_path: Path, text: str, name: str = "tools.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


async def test_a_class_only_file_gives_its_class_as_a_tool(tmp_path: Path) -> None:
    [weather] = load_functions(_file(tmp_path, CLASS_ONLY))
    assert weather.name == "weather"
    result = await weather.run(weather.validate_arguments({"city": "Oslo"}))
    assert result == "sunny in Oslo"


def test_a_mixed_file_keeps_decorated_functions_and_classes_not_helpers(tmp_path: Path) -> None:
    names = [item.name for item in load_functions(_file(tmp_path, MIXED))]
    assert sorted(names) == ["shout", "whisper"]


def test_a_class_that_needs_arguments_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load_functions(_file(tmp_path, NEEDS_ARGS))
    message = caught.value.one_line()
    assert "Lookup" in message
    assert "index_path" in message
    assert "\n" not in message


def test_an_instance_in_the_file_is_used_and_its_class_not_instantiated_again(
    tmp_path: Path,
) -> None:
    [lookup] = load_functions(_file(tmp_path, INSTANCE))
    assert lookup.name == "lookup"


@tool(strict=True)
def search_notes(query: str, limit: int = 5, tag: str | None = None) -> str:
    """Search the notes.

    Args:
        query: What to look for.
        limit: How many notes.
        tag: Only notes with this tag.
    """
    return f"{query}|{limit}|{tag}"


def test_a_strict_tool_sends_the_strict_schema() -> None:
    definition = search_notes.definition()
    assert definition.strict is True
    params = definition.parameters
    assert params is not None
    assert params["additionalProperties"] is False
    assert params["required"] == ["query", "limit", "tag"]
    assert params["properties"]["limit"]["type"] == ["integer", "null"]
    assert "default" not in json.dumps(params)
    # Not strict: the ordinary schema, no strict flag sent.
    plain = tool(lambda_free_function).definition()
    assert plain.strict is None
    assert plain.parameters is not None
    assert plain.parameters["required"] == ["query"]
    assert plain.parameters["properties"]["limit"] == {"default": 5, "type": "integer"}


def lambda_free_function(query: str, limit: int = 5) -> str:
    """A plain tool."""
    return query * limit


async def test_a_strict_tool_takes_null_as_the_default() -> None:
    executor = ToolExecutor([search_notes])
    call = ToolCall("c1", "search_notes", json.dumps({"query": "q", "limit": None, "tag": None}))
    report = await executor.execute([call])
    [result] = report.results
    assert result.status == "completed", result.output
    assert result.output == "q|5|None"


def _echo_tool(index: int) -> BaseTool:
    def echo() -> str:
        return f"tool {index}"

    echo.__doc__ = f"Tool number {index}."
    return tool(name=f"t{index}")(echo)


async def test_a_tool_left_out_by_the_cap_is_refused_naming_the_offered_tools() -> None:
    tools = [_echo_tool(index) for index in range(4)]
    executor = ToolExecutor(tools, max_tools=2)
    definitions, dropped = executor.definitions()
    assert [d.name for d in definitions] == ["t0", "t1"]
    assert dropped == ("t2", "t3")
    report = await executor.execute([ToolCall("c1", "t3", "{}"), ToolCall("c2", "t1", "{}")])
    refused, ran = report.results
    assert refused.status != "completed"
    assert "not offered" in refused.output
    assert "t0, t1" in refused.output
    assert "tool 3" not in refused.output
    assert ran.status == "completed"
    assert ran.output == "tool 1"
    # An unknown name keeps its own message.
    [unknown] = (await executor.execute([ToolCall("c3", "nope", "{}")])).results
    assert "unknown tool 'nope'" in unknown.output
