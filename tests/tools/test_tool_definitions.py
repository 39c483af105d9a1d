"""@tool schemas, class-based tools, loading user files, and the lenient type fix."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from forge_cli.errors import ToolError, UsageError
from forge_cli.tools import BaseTool, coerce_arguments, load_functions, parse_docstring, tool


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


class Place(BaseModel):
    city: str
    country: str | None = None


@tool
def forecast(
    place: Place,
    days: Annotated[int, Field(ge=1, le=10, description="Days ahead.")],
    unit: Unit = Unit.C,
    tags: list[str] | None = None,
    mode: Literal["brief", "full"] = "brief",
) -> str:
    """Forecast the weather.

    Args:
        place: Where.
        days: Ignored: Annotated wins.
        unit: Temperature unit.
    """
    return f"{place.city} {days} {unit.value} {tags} {mode}"


def test_schema_from_hints_and_docstring() -> None:
    definition = forecast.definition()
    assert definition.name == "forecast"
    assert definition.description == "Forecast the weather."
    params = definition.parameters
    assert params is not None
    props = params["properties"]
    assert params["required"] == ["place", "days"]
    assert props["days"]["description"] == "Days ahead."
    assert props["days"]["maximum"] == 10
    assert props["unit"]["description"] == "Temperature unit."
    assert props["place"]["description"] == "Where."
    assert props["mode"]["enum"] == ["brief", "full"]
    assert params["$defs"]["Unit"]["enum"] == ["celsius", "fahrenheit"]
    assert "title" not in params
    assert "title" not in props["days"]
    assert params["additionalProperties"] is False
    jsonschema.Draft202012Validator.check_schema(params)


def test_decorated_function_stays_callable() -> None:
    assert forecast(Place(city="Oslo"), 2) == "Oslo 2 celsius None brief"


async def _run(item: BaseTool, args: dict[str, Any]) -> Any:
    return await item.run(item.args_schema.model_validate(args))


@pytest.mark.anyio
async def test_run_gets_nested_models_and_enums() -> None:
    out = await _run(forecast, {"place": {"city": "Rome"}, "days": 3, "unit": "fahrenheit"})
    assert out == "Rome 3 fahrenheit None brief"


@pytest.mark.anyio
async def test_async_tool_with_options() -> None:
    @tool(name="add-numbers", read_only=True, timeout=3)
    async def add(a: int, b: int) -> int:
        """:param a: first
        :param b: second"""
        return a + b

    assert (add.name, add.read_only, add.timeout, add.is_async) == ("add-numbers", True, 3, True)
    assert add.parameters()["properties"]["a"]["description"] == "first"
    assert await _run(add, {"a": 2, "b": 3}) == 5


def test_every_problem_is_reported_once_naming_the_function() -> None:
    def broken(a, *rest: int, b: object = None, **extra: int) -> None:  # type: ignore[no-untyped-def]
        """Broken."""

    with pytest.raises(ToolError) as info:
        tool(broken)
    message = str(info.value)
    assert "broken" in message
    assert "'a' has no type annotation" in message
    assert "'rest'" in message
    assert "'extra'" in message


def test_bad_name_is_rejected() -> None:
    with pytest.raises(ToolError, match="name"):
        tool(name="has space")(lambda: None)


def test_docstring_styles() -> None:
    summary, params = parse_docstring(
        """Do it.

        Args:
            x (int): The x
                continued.
            y: The y.

        Returns:
            nothing
        """
    )
    assert summary == "Do it."
    assert params == {"x": "The x continued.", "y": "The y."}


class SearchArgs(BaseModel):
    query: str
    limit: int = 3


class CountingSearch(BaseTool):
    """A class-based tool with state."""

    name = "search"
    description = "Search things."
    args_schema = SearchArgs
    read_only = True

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def run(self, args: SearchArgs) -> list[str]:
        self.calls += 1
        return [args.query] * args.limit


@pytest.mark.anyio
async def test_class_based_tool() -> None:
    item = CountingSearch()
    assert await _run(item, {"query": "q", "limit": 2}) == ["q", "q"]
    assert item.calls == 1
    assert item.definition().parameters == {
        "properties": {"query": {"type": "string"}, "limit": {"default": 3, "type": "integer"}},
        "required": ["query"],
        "type": "object",
    }


def test_class_based_tool_without_schema_is_a_tool_error() -> None:
    class Bad(BaseTool):
        name = "bad"

    with pytest.raises(ToolError, match="args_schema"):
        Bad()


def test_load_functions_plain_functions(tmp_path: Path) -> None:
    path = tmp_path / "tools.py"
    path.write_text(
        "import json\n"
        "def shout(text: str) -> str:\n    '''Upper-case text.'''\n    return text.upper()\n"
        "def _helper() -> None: ...\n"
    )
    [loaded] = load_functions(path)
    assert loaded.name == "shout"
    assert loaded.description == "Upper-case text."


def test_load_functions_prefers_decorated_tools(tmp_path: Path) -> None:
    path = tmp_path / "tools.py"
    path.write_text(
        "from forge_cli.tools import tool\n"
        "def helper(x: int) -> int: return x\n"
        "@tool\ndef real(x: int) -> int:\n    '''Real.'''\n    return helper(x)\n"
    )
    assert [t.name for t in load_functions(path)] == ["real"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(:\n", "syntax error"),
        ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("X = 1\n", "no tools found"),
        ("def f(x): return x\n", "has no type annotation"),
    ],
)
def test_load_functions_bad_file_is_one_line_usage_error(
    tmp_path: Path, source: str, expected: str
) -> None:
    path = tmp_path / "bad.py"
    path.write_text(source)
    with pytest.raises(UsageError) as info:
        load_functions(path)
    assert expected in info.value.one_line()
    assert "\n" not in info.value.one_line()


def test_load_functions_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not found"):
        load_functions(tmp_path / "nope.py")


def test_coerce_arguments() -> None:
    schema = forecast.parameters()
    fixed = coerce_arguments(
        {"days": "4", "place": {"city": 12}, "tags": [1, "x"], "mode": "brief"}, schema
    )
    assert fixed == {"days": 4, "place": {"city": "12"}, "tags": ["1", "x"], "mode": "brief"}
    flags = {"properties": {"on": {"type": "boolean"}, "n": {"type": "number"}}}
    assert coerce_arguments({"on": "yes", "n": "2.5"}, flags) == {"on": True, "n": 2.5}
    assert coerce_arguments({"on": "maybe", "n": "x"}, flags) == {"on": "maybe", "n": "x"}


def test_a_functions_file_runs_once_while_it_is_unchanged(tmp_path: Path) -> None:
    """A chat builds its tools for every turn: the file's module runs once (a tool's state lasts
    across turns), and again only once the file is edited."""
    runs = tmp_path / "runs.txt"
    path = tmp_path / "stateful_tools.py"
    source = (
        "from pathlib import Path\n"
        f"_runs = Path({str(runs)!r})\n"
        "_runs.write_text(_runs.read_text() + 'x' if _runs.exists() else 'x')\n"
        "def count() -> str:\n"
        "    '''Count.'''\n"
        "    return 'one'\n"
    )
    path.write_text(source)
    first = load_functions(path)
    again = load_functions(path)
    assert runs.read_text() == "x"
    assert [t.name for t in again] == ["count"]
    assert again[0] is first[0]
    path.write_text(source.replace("'one'", "'two'"))
    edited = load_functions(path)
    assert runs.read_text() == "xx"
    assert edited[0] is not first[0]
