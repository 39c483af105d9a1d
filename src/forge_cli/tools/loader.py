"""Load user tools from a Python file (``--functions PATH`` and the config file).

The file is executed as a module. If it defines tools explicitly (functions decorated with
``@tool``, :class:`BaseTool` instances, or :class:`BaseTool` subclasses, which are instantiated
when they take no arguments), exactly those are used; otherwise every public function defined in
the file becomes a tool, as ``llm --functions`` does. Any problem is a one-line
:class:`UsageError` naming the file (and the class, for a class that cannot be instantiated).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import TypeGuard

from forge_cli.errors import ToolError, UsageError
from forge_cli.tools.base import BaseTool
from forge_cli.tools.decorator import tool

__all__ = ["load_functions"]


_loaded: dict[Path, tuple[bytes, list[BaseTool]]] = {}
"""The tools of each file loaded in this process, by resolved path, with its content's digest."""


def load_functions(path: str | Path) -> list[BaseTool]:
    """The tools defined in the Python file at ``path``.

    A file is executed once per process while its content stays the same: a chat builds its
    tools for every turn, and a tool's state (a ``BaseTool`` instance's attributes, module-level
    values) lasts across turns. A file edited between turns is loaded again.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise UsageError(f"functions file not found: {file}")
    resolved = file.resolve()
    try:
        digest = hashlib.sha256(resolved.read_bytes()).digest()
    except OSError as exc:
        raise UsageError(f"cannot read functions file {file}: {exc.strerror or exc}") from exc
    cached = _loaded.get(resolved)
    if cached is not None and cached[0] == digest:
        return list(cached[1])
    module = _execute(file)
    try:
        tools = _collect(module)
    except ToolError as exc:
        raise UsageError(f"bad tool in {file}: {exc.one_line()}") from exc
    if not tools:
        raise UsageError(
            f"no tools found in {file}: define functions, use @tool or subclass BaseTool"
        )
    _loaded[resolved] = (digest, tools)
    return list(tools)


def _execute(file: Path) -> ModuleType:
    digest = hashlib.sha1(str(file.resolve()).encode(), usedforsecurity=False).hexdigest()[:12]
    name = f"forge_user_functions_{digest}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load functions from {file}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise UsageError(f"syntax error in {file} line {exc.lineno}: {exc.msg}") from exc
    except Exception as exc:  # the user's module raised while loading
        sys.modules.pop(name, None)
        raise UsageError(f"cannot load functions from {file}: {type(exc).__name__}: {exc}") from exc
    return module


def _collect(module: ModuleType) -> list[BaseTool]:
    found: list[BaseTool] = []
    seen: set[int] = set()
    for value in vars(module).values():
        if isinstance(value, BaseTool) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    have = {type(item) for item in found}
    for key, value in vars(module).items():
        if _is_tool_class(key, value, module) and value not in have:
            found.append(_instantiate(value))
    if found:
        return found
    return [
        tool(value)
        for key, value in vars(module).items()
        if not key.startswith("_")
        and inspect.isfunction(value)
        and value.__module__ == module.__name__
    ]


def _is_tool_class(key: str, value: object, module: ModuleType) -> TypeGuard[type[BaseTool]]:
    """A public :class:`BaseTool` subclass defined in the file that names a tool.

    A subclass without a ``name`` of its own is a base for other tools, not a tool.
    """
    return (
        not key.startswith("_")
        and inspect.isclass(value)
        and issubclass(value, BaseTool)
        and value.__module__ == module.__name__
        and not inspect.isabstract(value)
        and bool(getattr(value, "name", None))
    )


def _instantiate(cls: type[BaseTool]) -> BaseTool:
    needed = [
        name
        for name, param in inspect.signature(cls).parameters.items()
        if param.default is inspect.Parameter.empty
        and param.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]
    if needed:
        raise ToolError(
            f"class {cls.__name__} needs arguments ({', '.join(needed)}); "
            f"create it in the file instead, e.g. {cls.__name__.lower()} = {cls.__name__}(...)"
        )
    try:
        return cls()
    except ToolError:
        raise
    except Exception as exc:  # the user's constructor failed
        raise ToolError(f"class {cls.__name__} failed: {type(exc).__name__}: {exc}") from exc
