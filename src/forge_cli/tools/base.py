"""What a client-side tool is: a name, a description, an argument schema, and code that runs.

Function tools (made by :func:`forge_cli.tools.tool`) and class-based tools (subclasses of
:class:`BaseTool` with an explicit ``args_schema`` and their own state) share this one shape, so
the executor, the approval policy and the request builder never care which kind they hold.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from forge_cli.errors import ToolError
from forge_cli.protocol.citing import Passage
from forge_cli.protocol.tools import FunctionTool
from forge_cli.tools._schema_json import clean_schema, strict_schema
from forge_cli.tools.context import RunContext

__all__ = ["TOOL_NAME_PATTERN", "BaseTool", "ToolOutput", "render_output"]

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Names the OpenAI function-calling APIs accept."""


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool result with extras: the text the model reads and the passages it may cite."""

    text: str
    citations: tuple[Passage, ...] = ()
    """The numbered passages the text showed, so ``[n]`` in the answer can be cited."""


class BaseTool:
    """A client-side tool.

    Subclass it for tools that need state or an explicit schema: set ``name``, ``description``
    and ``args_schema`` (a pydantic model) and implement :meth:`run`. ``read_only`` tools are
    approved automatically by the default policy; ``timeout`` (seconds) overrides the executor's.
    ``strict`` asks the server for strict function calling: the schema is sent in its strict form
    (every property required, optional ones nullable) and a ``null`` argument means "use the
    default".
    """

    name: str = ""
    description: str = ""
    args_schema: type[BaseModel]
    read_only: bool = False
    timeout: float | None = None
    strict: bool = False

    def __init__(self) -> None:
        problems = _definition_problems(self)
        if problems:
            raise ToolError(f"tool {type(self).__name__} is defined wrongly: {'; '.join(problems)}")

    async def run(self, args: Any) -> Any:
        """Run with validated arguments (an instance of ``args_schema``); return the result.

        Declare ``run(self, args, context: RunContext)`` to receive the run's context.
        """
        raise NotImplementedError

    async def invoke(self, args: Any, context: RunContext | None = None) -> Any:
        """Run, passing ``context`` when :meth:`run` takes it (as ``context``)."""
        if _takes_context(self.run):
            return await self.run(args, context=context if context is not None else RunContext())  # type: ignore[call-arg]
        return await self.run(args)

    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, as sent to the model."""
        return clean_schema(self.args_schema.model_json_schema())

    def definition(self) -> FunctionTool:
        """The tool definition a request carries."""
        parameters = self.parameters()
        return FunctionTool(
            name=self.name,
            description=self.description or None,
            parameters=strict_schema(parameters) if self.strict else parameters,
            strict=True if self.strict else None,
        )

    def validate_arguments(self, arguments: dict[str, Any]) -> BaseModel:
        """The arguments checked against ``args_schema`` (raises pydantic's ``ValidationError``).

        For a strict tool, ``null`` for an optional field means the field was left out.
        """
        if self.strict:
            fields = self.args_schema.model_fields
            arguments = {
                key: value
                for key, value in arguments.items()
                if not (value is None and key in fields and not fields[key].is_required())
            }
        return self.args_schema.model_validate(arguments)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _takes_context(method: Any) -> bool:
    try:
        return "context" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def _definition_problems(tool: BaseTool) -> list[str]:
    problems: list[str] = []
    if not TOOL_NAME_PATTERN.match(tool.name or ""):
        problems.append(f"name {tool.name!r} must be 1-64 letters, digits, '_' or '-'")
    schema = getattr(tool, "args_schema", None)
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        problems.append("args_schema must be a pydantic model class")
    else:
        try:
            schema.model_json_schema()
        except Exception as exc:  # pydantic raises several kinds here
            problems.append(f"args_schema has no JSON schema: {exc}")
    return problems


def render_output(value: Any) -> ToolOutput:
    """Turn whatever a tool returned into the text the model reads."""
    if isinstance(value, ToolOutput):
        return value
    if isinstance(value, str):
        return ToolOutput(value)
    if isinstance(value, BaseModel):
        return ToolOutput(value.model_dump_json())
    if value is None:
        return ToolOutput("")
    try:
        return ToolOutput(json.dumps(value, ensure_ascii=False, default=_default))
    except (TypeError, ValueError):
        return ToolOutput(str(value))


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return str(value)
