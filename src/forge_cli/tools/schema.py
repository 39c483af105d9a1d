"""Tool schemas from function signatures: type hints plus docstring descriptions.

``pydantic.create_model`` over the parameters gives validation and a JSON Schema in one go
(Annotated/Field descriptions, enums, optionals, lists and nested models all come for free).
Every problem with a definition is collected and reported once, naming the function, so a user
fixing a tools file sees all of them at the first try.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from forge_cli.errors import ToolError
from forge_cli.tools.context import RunContext

__all__ = ["FunctionSchema", "function_schema", "parse_docstring"]

_GOOGLE_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$", re.IGNORECASE)
_OTHER_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
_GOOGLE_PARAM = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_UNIONS = (typing.Union, types.UnionType)
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


@dataclass(frozen=True)
class FunctionSchema:
    """What :func:`function_schema` found: a name, a description and an arguments model."""

    name: str
    description: str
    model: type[BaseModel]
    context_param: str | None = None
    """The parameter that receives the :class:`RunContext`, if the function asks for it."""


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The description (text before any section) and per-parameter descriptions.

    Understands Google style (``Args:`` then ``name (type): text``) and Sphinx style
    (``:param name: text``); continuation lines are joined.
    """
    if not doc:
        return "", {}
    summary: list[str] = []
    params: dict[str, str] = {}
    section, current, base_indent = "summary", "", -1
    for line in inspect.cleandoc(doc).splitlines():
        stripped = line.strip()
        sphinx = _SPHINX_PARAM.match(line)
        if _GOOGLE_SECTION.match(line):
            section, current, base_indent = "args", "", -1
        elif sphinx:
            section, current = "sphinx", sphinx.group(1)
            params[current] = sphinx.group(2).strip()
        elif _OTHER_SECTION.match(line) or stripped.startswith(":"):
            section, current = "other", ""
        elif section == "summary":
            summary.append(stripped)
        elif section != "other":
            indent = len(line) - len(line.lstrip())
            google = _GOOGLE_PARAM.match(line) if section == "args" else None
            if google and (base_indent < 0 or indent <= base_indent):
                base_indent = indent if base_indent < 0 else base_indent
                current = google.group(1)
                params[current] = google.group(2).strip()
            elif current and stripped:
                params[current] = f"{params[current]} {stripped}".strip()
    return " ".join(" ".join(summary).split()), params


def function_schema(
    func: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> FunctionSchema:
    """Build the arguments model of ``func``; raise :class:`ToolError` listing every problem."""
    label = getattr(func, "__qualname__", repr(func))
    problems: list[str] = []
    tool_name: str = name or str(getattr(func, "__name__", ""))
    if not re.match(r"^[A-Za-z0-9_-]{1,64}$", tool_name):
        problems.append(f"name {tool_name!r} must be 1-64 letters, digits, '_' or '-'")
    summary, param_docs = parse_docstring(inspect.getdoc(func))
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # NameError for unresolved names, TypeError for bad annotations
        problems.append(f"cannot resolve type hints ({exc})")
        hints = {}
    context = context_parameter(hints)
    fields = _fields(func, hints, param_docs, problems, skip=context)
    model: type[BaseModel] | None = None
    if not problems:
        model = _build_model(tool_name, fields, problems)
    if problems or model is None:
        raise ToolError(f"tool {label} is defined wrongly: {'; '.join(problems)}")
    text = description if description is not None else summary
    return FunctionSchema(tool_name, text, model, context)


def context_parameter(hints: dict[str, Any]) -> str | None:
    """The name of the parameter annotated :class:`RunContext` (or ``RunContext | None``)."""
    for name, hint in hints.items():
        if name == "return":
            continue
        options = typing.get_args(hint) if typing.get_origin(hint) in _UNIONS else (hint,)
        if any(option is RunContext for option in options):
            return name
    return None


def _fields(
    func: Callable[..., Any],
    hints: dict[str, Any],
    docs: dict[str, str],
    problems: list[str],
    *,
    skip: str | None = None,
) -> dict[str, Any]:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        problems.append(f"has no inspectable signature ({exc})")
        return {}
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.name == skip:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(f"parameter {param.name!r}: *args/**kwargs cannot be described")
            continue
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(f"parameter {param.name!r}: positional-only parameters are not allowed")
            continue
        if param.name not in hints:
            problems.append(f"parameter {param.name!r} has no type annotation")
            continue
        hint = hints[param.name]
        doc = None if _has_description(hint) else docs.get(param.name)
        fields[param.name] = (hint, _field_info(param, doc))
    return fields


def _has_description(hint: Any) -> bool:
    """Whether an ``Annotated[T, Field(description=...)]`` already describes the parameter."""
    metadata = getattr(hint, "__metadata__", ())
    return any(isinstance(m, FieldInfo) and m.description for m in metadata)


def _field_info(param: inspect.Parameter, doc: str | None) -> FieldInfo:
    default = param.default
    if isinstance(default, FieldInfo):
        if doc and default.description is None:
            default.description = doc
        return default
    value: Any = ... if default is inspect.Parameter.empty else default
    info: FieldInfo = Field(value, description=doc) if doc else Field(value)
    return info


def _build_model(name: str, fields: dict[str, Any], problems: list[str]) -> type[BaseModel] | None:
    try:
        model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        typed: type[BaseModel] = model
        typed.model_json_schema()
    except Exception as exc:  # pydantic raises schema-generation and user errors here
        problems.append(f"cannot build an argument schema ({_first_line(exc)})")
        return None
    return typed


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
