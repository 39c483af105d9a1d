"""Load user tools from a Python file (``--functions PATH`` and the config file).

The file is executed as a module. If it defines tools with ``@tool`` (or :class:`BaseTool`
instances), exactly those are used; otherwise every public function defined in the file becomes
a tool, as ``llm --functions`` does. Any problem is a one-line :class:`UsageError`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from forge_cli.errors import ToolError, UsageError
from forge_cli.tools.base import BaseTool
from forge_cli.tools.decorator import tool

__all__ = ["load_functions"]


def load_functions(path: str | Path) -> list[BaseTool]:
    """The tools defined in the Python file at ``path``."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise UsageError(f"functions file not found: {file}")
    module = _execute(file)
    try:
        tools = _collect(module)
    except ToolError as exc:
        raise UsageError(f"bad tool in {file}: {exc.one_line()}") from exc
    if not tools:
        raise UsageError(f"no tools found in {file}: define functions or use @tool")
    return tools


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
    if found:
        return found
    return [
        tool(value)
        for key, value in vars(module).items()
        if not key.startswith("_")
        and inspect.isfunction(value)
        and value.__module__ == module.__name__
    ]
