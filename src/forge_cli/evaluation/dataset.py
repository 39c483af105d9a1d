"""Reading an evaluation dataset: JSONL or JSON, flat questions or the Knowledge Forge shape.

Two shapes are accepted, in a JSON array, a single JSON object, or one object per JSONL line:

- flat: ``{id?, question, expected_files?, expected_answer_contains?, vector_store_ids?, tools?}``
- Knowledge Forge: ``{vectorstore_id, files: [{file_id, path, questions: [...]}]}``; each
  question expects its file (matched by id or path).

A bad entry is a :class:`DatasetProblem` with its line number and is skipped, so one typo does
not cost a whole run. A file that cannot be read, is empty, or yields no question at all is a
:class:`~forge_cli.errors.UsageError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forge_cli import jsonsafe
from forge_cli.config import TOOL_NAMES
from forge_cli.errors import UsageError
from forge_cli.evaluation.cases import COMPONENTS, EvalCase, ExpectedFile, ExpectedTool

__all__ = ["Dataset", "DatasetProblem", "load_dataset", "parse_dataset"]

_FLAT_KEYS = frozenset(
    {
        "id",
        "question",
        "expected_files",
        "expected_answer_contains",
        "expected_answer",
        "expected_tools",
        "tools_in_order",
        "weights",
        "vector_store_ids",
        "tools",
    }
)
_FREE_KEYS = frozenset({"metadata", "notes", "tags", "category"})
"""Keys kept for the user's own bookkeeping; ignored by the harness."""


class _Bad(ValueError):
    """An entry that cannot become a case (the message names the field)."""


@dataclass(frozen=True, slots=True)
class DatasetProblem:
    """An entry that was skipped, and why."""

    line: int | None
    message: str

    def one_line(self, source: str = "") -> str:
        """``SOURCE line N: message`` (the form printed on stderr)."""
        where = " ".join(
            part for part in (source, f"line {self.line}" if self.line else "") if part
        )
        return f"{where}: {self.message}" if where else self.message


@dataclass(frozen=True, slots=True)
class Dataset:
    """The cases of a dataset file, in file order, and the entries that were skipped."""

    source: str
    cases: tuple[EvalCase, ...]
    problems: tuple[DatasetProblem, ...] = ()


def load_dataset(path: str | Path) -> Dataset:
    """Read and parse the dataset at ``path``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot read dataset {str(file)!r}: {reason}") from None
    return parse_dataset(text, str(file))


def parse_dataset(text: str, source: str = "dataset") -> Dataset:
    """Parse dataset ``text`` (JSON or JSONL); ``source`` names it in messages."""
    if not text.strip():
        raise UsageError(f"dataset {source!r} is empty")
    problems: list[DatasetProblem] = []
    cases: list[EvalCase] = []
    seen: dict[str, int | None] = {}
    for value, line in _entries(text, source, problems):
        try:
            drafts = _drafts(value)
        except _Bad as exc:
            problems.append(DatasetProblem(line, str(exc)))
            continue
        for draft in drafts:
            explicit = draft.get("id")
            if explicit is not None and explicit in seen:
                first = seen[explicit]
                where = f" (first on line {first})" if first is not None else ""
                problems.append(DatasetProblem(line, f"duplicate id {explicit!r}{where}"))
                continue
            case = _case(draft, len(cases), line, seen)
            seen[case.id] = line
            cases.append(case)
    if not cases:
        why = f" ({len(problems)} bad; first: {problems[0].one_line()})" if problems else ""
        raise UsageError(
            f"dataset {source!r} has no valid question{why}",
            hint='one JSON object per line: {"question": "...", "expected_files": [...]}',
        )
    return Dataset(source=source, cases=tuple(cases), problems=tuple(problems))


# --- splitting into entries ---------------------------------------------------------------------


def _entries(text: str, source: str, problems: list[DatasetProblem]) -> Iterator[tuple[Any, int]]:
    """``(value, line)`` for each top-level entry: array items, one object, or JSONL lines."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            jsonsafe.loads(text)
        except ValueError as exc:
            raise UsageError(f"dataset {source!r} is not valid JSON: {exc}") from None
        yield from _array_items(text)
        return
    try:
        whole = jsonsafe.loads(text)
    except ValueError:
        yield from _jsonl(text, problems)
        return
    start = len(text) - len(stripped)
    yield whole, text.count("\n", 0, start) + 1


def _jsonl(text: str, problems: list[DatasetProblem]) -> Iterator[tuple[Any, int]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            yield jsonsafe.loads(raw), number
        except ValueError as exc:
            problems.append(DatasetProblem(number, f"not valid JSON ({_json_reason(exc)})"))


def _json_reason(exc: ValueError) -> str:
    msg = getattr(exc, "msg", None)
    col = getattr(exc, "colno", None)
    return f"{msg} at column {col}" if msg and col else str(exc)


def _array_items(text: str) -> Iterator[tuple[Any, int]]:
    """The items of a (valid) top-level JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    line, counted = 1, 0
    while True:
        pos = _skip(text, pos)
        if text[pos] == "]":
            return
        value, end = decoder.raw_decode(text, pos)
        line += text.count("\n", counted, pos)
        counted = pos
        yield value, line
        pos = _skip(text, end)
        if text[pos] == ",":
            pos += 1


def _skip(text: str, pos: int) -> int:
    while text[pos] in " \t\r\n":
        pos += 1
    return pos


# --- entries to cases ---------------------------------------------------------------------------


def _drafts(value: Any) -> list[dict[str, Any]]:
    """The validated fields of the case(s) an entry describes."""
    if not isinstance(value, dict):
        raise _Bad(f"expected a JSON object, got {type(value).__name__}")
    if "files" in value and "question" not in value:
        return _forge_shape(value)
    unknown = sorted(k for k in value if k not in _FLAT_KEYS | _FREE_KEYS and not k.startswith("_"))
    if unknown:
        raise _Bad(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(_FLAT_KEYS))})")
    return [_flat(value)]


def _flat(value: dict[str, Any]) -> dict[str, Any]:
    draft: dict[str, Any] = {"question": _text(value.get("question"), "question")}
    if value.get("id") is not None:
        draft["id"] = _id(value["id"])
    draft["expected_files"] = tuple(
        _expected_file(item) for item in _listed(value.get("expected_files"), "expected_files")
    )
    draft["expected_answer_contains"] = tuple(
        _text(item, "expected_answer_contains")
        for item in _listed(value.get("expected_answer_contains"), "expected_answer_contains")
    )
    draft["expected_tools"] = tuple(
        _expected_tool(item) for item in _listed(value.get("expected_tools"), "expected_tools")
    )
    if value.get("tools_in_order") is not None:
        if not isinstance(value["tools_in_order"], bool):
            raise _Bad("'tools_in_order' must be true or false")
        draft["tools_in_order"] = value["tools_in_order"]
    if value.get("expected_answer") is not None:
        draft["expected_answer"] = _text(value["expected_answer"], "expected_answer")
    if value.get("weights") is not None:
        draft["weights"] = _weights(value["weights"])
    if value.get("vector_store_ids") is not None:
        ids = _listed(value["vector_store_ids"], "vector_store_ids")
        draft["vector_store_ids"] = tuple(_text(item, "vector_store_ids") for item in ids)
    if value.get("tools") is not None:
        draft["tools"] = tuple(_tool(item) for item in _listed(value["tools"], "tools"))
    return draft


def _forge_shape(value: dict[str, Any]) -> list[dict[str, Any]]:
    """Cases from ``{vectorstore_id, files: [{file_id, path, questions}]}``."""
    store = value.get("vectorstore_id", value.get("vector_store_id"))
    stores = (_text(store, "vectorstore_id"),) if store is not None else None
    files = value.get("files")
    if not isinstance(files, list):
        raise _Bad("'files' must be a list of {file_id, path, questions}")
    drafts: list[dict[str, Any]] = []
    for number, entry in enumerate(files, start=1):
        if not isinstance(entry, dict):
            raise _Bad(f"files[{number}] must be an object")
        refs = tuple(
            _text(entry[key], f"files[{number}].{key}")
            for key in ("file_id", "path", "filename")
            if entry.get(key) is not None
        )
        for question in _listed(entry.get("questions"), f"files[{number}].questions"):
            draft = _flat(question) if isinstance(question, dict) else {"question": question}
            draft["question"] = _text(draft["question"], f"files[{number}].questions")
            if refs and not draft.get("expected_files"):
                draft["expected_files"] = (ExpectedFile(refs),)
            if stores is not None and "vector_store_ids" not in draft:
                draft["vector_store_ids"] = stores
            drafts.append(draft)
    if not drafts:
        raise _Bad("no questions in 'files'")
    return drafts


def _case(draft: dict[str, Any], index: int, line: int, taken: dict[str, int | None]) -> EvalCase:
    case_id = draft.get("id")
    if case_id is None:
        base = case_id = f"q{index + 1}"
        suffix = 1
        while case_id in taken:
            suffix += 1
            case_id = f"{base}.{suffix}"
    return EvalCase(
        index=index,
        id=case_id,
        question=draft["question"],
        expected_files=draft.get("expected_files", ()),
        expected_answer_contains=draft.get("expected_answer_contains", ()),
        expected_tools=draft.get("expected_tools", ()),
        tools_in_order=draft.get("tools_in_order", False),
        expected_answer=draft.get("expected_answer"),
        weights=draft.get("weights"),
        vector_store_ids=draft.get("vector_store_ids"),
        tools=draft.get("tools"),
        line=line,
    )


# --- field checks -------------------------------------------------------------------------------


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"{name!r} must be a non-empty string")
    return value.strip()


def _id(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Bad("'id' must be a string or an integer")
    return _text(str(value), "id")


def _listed(value: Any, name: str) -> list[Any]:
    """A list field, where a single value stands for a list of one."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str | dict):
        return [value]
    raise _Bad(f"{name!r} must be a list")


def _expected_file(value: Any) -> ExpectedFile:
    if isinstance(value, dict):
        refs = tuple(
            _text(value[key], f"expected_files.{key}")
            for key in ("file_id", "filename", "path")
            if value.get(key) is not None
        )
        if not refs:
            raise _Bad("an expected file object needs file_id, filename or path")
        return ExpectedFile(refs)
    return ExpectedFile((_text(value, "expected_files"),))


def _tool(value: Any) -> str:
    name = _text(value, "tools").lower().replace("_", "-")
    if name not in TOOL_NAMES:
        raise _Bad(f"unknown tool {name!r} (known: {', '.join(TOOL_NAMES)})")
    return name


def _expected_tool(value: Any) -> ExpectedTool:
    if isinstance(value, dict):
        unknown = sorted(k for k in value if k not in ("name", "arguments"))
        if unknown:
            raise _Bad(f"unknown field {unknown[0]!r} in expected_tools (known: arguments, name)")
        name = _text(value.get("name"), "expected_tools.name")
        arguments = value.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise _Bad("'expected_tools.arguments' must be an object")
        return ExpectedTool(name, arguments)
    return ExpectedTool(_text(value, "expected_tools"))


def _weights(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise _Bad(f"'weights' must be an object with {', '.join(COMPONENTS)}")
    weights: dict[str, float] = {}
    for key, weight in value.items():
        if key not in COMPONENTS:
            raise _Bad(f"unknown weight {key!r} (known: {', '.join(COMPONENTS)})")
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not (math.isfinite(weight) and weight >= 0)
        ):
            raise _Bad(f"weight {key!r} must be a number >= 0")
        weights[key] = float(weight)
    if weights and not any(weights.values()):
        raise _Bad("'weights' must not all be 0")
    return weights
