"""``@tool``: turn a plain (sync or async) Python function into a client-side tool."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, overload

from pydantic import BaseModel

from forge_cli.tools.base import BaseTool
from forge_cli.tools.containment import run_in_daemon_thread
from forge_cli.tools.context import RunContext
from forge_cli.tools.schema import function_schema

__all__ = ["CallableTool", "tool"]


class CallableTool(BaseTool):
    """A tool backed by a function; the schema comes from its signature and docstring.

    Calling the object calls the function unchanged, so decorated functions stay usable as
    ordinary Python. Sync functions run in a daemon thread so a slow one neither blocks the event
    loop, nor escapes the executor's timeout, nor holds the process at exit once abandoned.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        timeout: float | None = None,
        strict: bool = False,
    ) -> None:
        schema = function_schema(func, name=name, description=description)
        self.func = func
        self.name = schema.name
        self.description = schema.description
        self.args_schema = schema.model
        self.read_only = read_only
        self.timeout = timeout
        self.strict = strict
        self.context_param = schema.context_param
        self.is_async = inspect.iscoroutinefunction(func)
        functools.update_wrapper(self, func)
        super().__init__()

    async def run(self, args: Any, context: RunContext | None = None) -> Any:
        """Call the function with the validated arguments (and the run's context if it asks)."""
        kwargs = _as_kwargs(args)
        if self.context_param is not None:
            kwargs[self.context_param] = context if context is not None else RunContext()
        if self.is_async:
            return await self.func(**kwargs)
        return await run_in_daemon_thread(self.func, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)


def _as_kwargs(args: Any) -> dict[str, Any]:
    """Field values as given: nested models stay models, as the function's hints say."""
    if isinstance(args, BaseModel):
        return {name: getattr(args, name) for name in type(args).model_fields}
    return dict(args)


@overload
def tool(func: Callable[..., Any], /) -> CallableTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    timeout: float | None = None,
    strict: bool = False,
) -> Callable[[Callable[..., Any]], CallableTool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    timeout: float | None = None,
    strict: bool = False,
) -> CallableTool | Callable[[Callable[..., Any]], CallableTool]:
    """Make a tool of a function: ``@tool`` or ``@tool(name=..., read_only=True, timeout=5)``.

    ``strict=True`` asks for strict function calling (see :attr:`BaseTool.strict`).

    Raises :class:`~forge_cli.errors.ToolError` naming the function and every problem found
    (missing annotations, ``*args``, types pydantic cannot describe, a bad name).
    """

    def wrap(target: Callable[..., Any]) -> CallableTool:
        return CallableTool(
            target,
            name=name,
            description=description,
            read_only=read_only,
            timeout=timeout,
            strict=strict,
        )

    return wrap(func) if func is not None else wrap
