"""Scoring one answer: which tools it called, which files it cited, which checks pass.

Tool calls are read from the final Response snapshot (every output item that is a tool call,
dispatched through the protocol's type guards), so hosted tools of a server and client-side
function calls of the agent loop are counted alike. Cited files come from the same citation
numbering the renderers use (:func:`forge_cli.protocol.citations.collect_citations`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forge_cli.errors import ForgeError
from forge_cli.evaluation.cases import EvalCase, ExpectedFile
from forge_cli.evaluation.results import (
    CaseResult,
    CheckResult,
    CitedFile,
    TokenUsage,
    ToolCallRecord,
)
from forge_cli.protocol import guards
from forge_cli.protocol.citations import collect_citations
from forge_cli.protocol.response import Response

__all__ = [
    "answer_contains",
    "cited_files",
    "describe_error",
    "file_matches",
    "score_case",
    "tool_calls",
]

_CITING = frozenset({"file_citation", "container_file_citation"})


def _present(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value not in (None, [], "")}


_ARGUMENTS: list[tuple[Callable[[object], bool], Callable[[Any], dict[str, Any]]]] = [
    (guards.is_file_search_call, lambda i: _present(queries=list(i.queries))),
    (guards.is_web_search_call, lambda i: _present(queries=i.all_queries())),
    (
        guards.is_function_call,
        lambda i: (
            i.parsed_arguments() if i.parsed_arguments() is not None else {"raw": i.arguments}
        ),
    ),
    (guards.is_list_documents_call, lambda i: _present(queries=list(i.queries))),
    (guards.is_file_reader_call, lambda i: _present(doc_ids=list(i.doc_ids), query=i.query)),
    (
        guards.is_page_reader_call,
        lambda i: _present(document_id=i.document_id, start_page=i.start_page, end_page=i.end_page),
    ),
    (guards.is_code_interpreter_call, lambda i: _present(code=i.code)),
    (guards.is_computer_call, lambda i: _present(action=i.action)),
]
"""Per tool-call kind: the arguments worth recording."""


def _arguments(item: object) -> dict[str, Any]:
    for guard, read in _ARGUMENTS:
        if guard(item):
            return read(item)
    return {}


def tool_calls(response: Response | None) -> tuple[ToolCallRecord, ...]:
    """Every tool call in ``response``'s output, in output order."""
    if response is None:
        return ()
    records: list[ToolCallRecord] = []
    for item in response.output:
        if not guards.is_tool_call(item) or guards.is_function_call_output(item):
            continue
        name = item.name if guards.is_function_call(item) else None
        kind = str(getattr(item, "type", "unknown"))
        status = getattr(item, "status", None)
        records.append(ToolCallRecord(kind, name, status, _arguments(item)))
    return tuple(records)


def cited_files(response: Response | None) -> tuple[CitedFile, ...]:
    """The distinct files the answer cites, in order of first citation."""
    if response is None:
        return ()
    found: dict[tuple[str | None, str | None], CitedFile] = {}
    for citation in collect_citations(response):
        if citation.type in _CITING and (citation.file_id or citation.filename):
            key = (citation.file_id, citation.filename)
            found.setdefault(key, CitedFile(citation.file_id, citation.filename))
    return tuple(found.values())


def _basename(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def file_matches(expected: ExpectedFile, cited: CitedFile) -> bool:
    """Whether ``cited`` is ``expected``: same file id, or same file name (case-insensitive;
    a path matches a citation of its base name)."""
    for ref in expected.refs:
        if cited.file_id and ref == cited.file_id:
            return True
        if cited.filename:
            want, got = ref.casefold(), cited.filename.casefold()
            if want == got or _basename(want) == _basename(got):
                return True
    return False


def _normalize(text: str) -> str:
    return " ".join(text.casefold().split())


def answer_contains(answer: str, expected: str) -> bool:
    """Case-insensitive containment, with runs of whitespace counted as one space."""
    return _normalize(expected) in _normalize(answer)


def describe_error(exc: BaseException) -> tuple[str, str]:
    """``(message, type name)`` of a failure, one line."""
    if isinstance(exc, ForgeError):
        return exc.one_line(), type(exc).__name__
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}", type(exc).__name__


def _usage(response: Response | None) -> TokenUsage | None:
    if response is None or response.usage is None:
        return None
    usage = response.usage
    total = usage.total_tokens or usage.input_tokens + usage.output_tokens
    return TokenUsage(usage.input_tokens, usage.output_tokens, total)


def score_case(
    case: EvalCase,
    response: Response | None,
    *,
    latency: float,
    error: BaseException | None = None,
) -> CaseResult:
    """Score ``response`` (the final snapshot, or the last one before ``error``) for ``case``."""
    answer = response.output_text if response is not None else ""
    cited = cited_files(response)
    hits = tuple(
        expected.label
        for expected in case.expected_files
        if any(file_matches(expected, c) for c in cited)
    )
    checks: list[CheckResult] = []
    if case.expected_files:
        labels = ", ".join(f.label for f in case.expected_files)
        checks.append(CheckResult("cited_expected_file", labels, bool(hits)))
    checks.extend(
        CheckResult("answer_contains", text, answer_contains(answer, text))
        for text in case.expected_answer_contains
    )
    message, kind = describe_error(error) if error is not None else (None, None)
    return CaseResult(
        case=case,
        passed=error is None and all(c.passed for c in checks),
        answer=answer,
        checks=tuple(checks),
        tool_calls=tool_calls(response),
        cited_files=cited,
        files_cited=hits,
        latency=latency,
        usage=_usage(response),
        model=response.model if response is not None else None,
        response_status=response.status if response is not None else None,
        error=message,
        error_type=kind,
    )
