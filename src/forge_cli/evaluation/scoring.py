"""Scoring one answer: which tools it called, which files it cited, which checks pass, and a
graded reward in [0, 1] that combines the answer, citation and tool-use scores with the
question's weights.

Tool calls are read from the final Response snapshot (every output item that is a tool call,
dispatched through the protocol's type guards), so hosted tools of a server and client-side
function calls of the agent loop are counted alike. Cited files come from the same citation
numbering the renderers use (:func:`forge_cli.protocol.citations.collect_citations`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

from forge_cli.errors import ForgeError
from forge_cli.evaluation.cases import EvalCase, ExpectedFile, ExpectedTool
from forge_cli.evaluation.results import (
    CaseResult,
    CheckResult,
    CitedFile,
    JudgeVerdict,
    Outcome,
    TokenUsage,
    ToolCallRecord,
)
from forge_cli.protocol import guards
from forge_cli.protocol.citations import collect_citations
from forge_cli.protocol.response import Response

__all__ = [
    "answer_contains",
    "arguments_match",
    "cited_files",
    "describe_error",
    "file_matches",
    "reward",
    "score_case",
    "tool_calls",
    "tool_matches",
    "with_judge",
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
        outcome = _outcome(status, response.status)
        records.append(ToolCallRecord(kind, name, status, _arguments(item), outcome))
    return tuple(records)


def _outcome(status: str | None, response_status: str | None) -> Outcome:
    if status == "failed":
        return "failed"
    if status == "incomplete":
        return "blocked"
    if status == "completed" or (status is None and response_status == "completed"):
        return "completed"
    return "not_finished"


def _normalize_name(name: str) -> str:
    return name.strip().casefold().replace("-", "_")


def tool_matches(expected: ExpectedTool, call: ToolCallRecord) -> bool:
    """Whether ``call`` is a call of ``expected`` (by function name or hosted kind, with the
    expected arguments a subset of the call's), whatever became of it."""
    want = _normalize_name(expected.name)
    named = call.name is not None and _normalize_name(call.name) == want
    kind = _normalize_name(call.kind)
    if not (named or kind in (want, f"{want}_call")):
        return False
    return expected.arguments is None or arguments_match(expected.arguments, call.arguments)


def arguments_match(expected: Any, actual: Any) -> bool:
    """``expected`` is contained in ``actual``: objects by key (recursively), lists by element
    (every expected element matches some actual one), text case- and space-insensitively,
    numbers by value (a numeric string counts as its number)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and arguments_match(value, actual[key]) for key, value in expected.items()
        )
    if isinstance(expected, list):
        items = actual if isinstance(actual, list) else [actual]
        return all(any(arguments_match(want, got) for got in items) for want in expected)
    if isinstance(expected, str):
        return isinstance(actual, str) and _normalize(expected) == _normalize(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float):
        number = _number(actual)
        return number is not None and math.isclose(expected, number)
    return bool(expected == actual)


def _number(value: Any) -> float | None:
    """A number, or a string holding one (models often quote numbers; the executor fixes that
    before the tool runs, so the call did get the number)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _tool_checks(
    case: EvalCase, calls: Sequence[ToolCallRecord]
) -> tuple[list[CheckResult], float | None]:
    """The ``called_tool`` (and ``tools_in_order``) checks, and the tool-use score."""
    if not case.expected_tools:
        return [], None
    done = [call for call in calls if call.outcome == "completed"]
    used: set[int] = set()
    checks: list[CheckResult] = []
    for expected in case.expected_tools:
        index = next(
            (i for i, call in enumerate(done) if i not in used and tool_matches(expected, call)),
            None,
        )
        if index is not None:
            used.add(index)
            checks.append(CheckResult("called_tool", expected.label, True))
            continue
        tried = [c.outcome for c in calls if c.outcome != "completed" and tool_matches(expected, c)]
        label = expected.label + (f" (called, but {tried[0]})" if tried else "")
        checks.append(CheckResult("called_tool", label, False))
    matched = sum(1 for check in checks if check.passed)
    score = matched / len(case.expected_tools)
    if case.tools_in_order:
        in_order = _ordered_matches(case.expected_tools, done)
        order = " → ".join(t.name for t in case.expected_tools)
        checks.append(CheckResult("tools_in_order", order, in_order == len(case.expected_tools)))
        score = in_order / len(case.expected_tools)
    return checks, score


def _ordered_matches(expected: Sequence[ExpectedTool], calls: Sequence[ToolCallRecord]) -> int:
    """How many expected tools match calls in order (greedily, each call used once)."""
    position = 0
    matched = 0
    for want in expected:
        for index in range(position, len(calls)):
            if tool_matches(want, calls[index]):
                matched += 1
                position = index + 1
                break
    return matched


def reward(case: EvalCase, scores: dict[str, float], *, failed: bool) -> float:
    """The weighted mean of the component ``scores`` (1.0 when none applies; 0 on an error)."""
    if failed:
        return 0.0
    weights = case.weights or {}
    total = sum(weights.get(key, 1.0) for key in scores)
    if total == 0:
        return 1.0
    return sum(score * weights.get(key, 1.0) for key, score in scores.items()) / total


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
    contains = [
        CheckResult("answer_contains", text, answer_contains(answer, text))
        for text in case.expected_answer_contains
    ]
    checks.extend(contains)
    calls = tool_calls(response)
    tool_checks, tool_score = _tool_checks(case, calls)
    checks.extend(tool_checks)
    scores: dict[str, float] = {}
    if contains:
        scores["answer"] = sum(1 for c in contains if c.passed) / len(contains)
    if case.expected_files:
        scores["citations"] = len(hits) / len(case.expected_files)
    if tool_score is not None:
        scores["tools"] = tool_score
    message, kind = describe_error(error) if error is not None else (None, None)
    return CaseResult(
        case=case,
        passed=error is None and all(c.passed for c in checks),
        answer=answer,
        checks=tuple(checks),
        tool_calls=calls,
        cited_files=cited,
        files_cited=hits,
        latency=latency,
        usage=_usage(response),
        model=response.model if response is not None else None,
        response_status=response.status if response is not None else None,
        error=message,
        error_type=kind,
        scores=scores,
        reward=reward(case, scores, failed=error is not None),
    )


def with_judge(result: CaseResult, verdict: JudgeVerdict, *, threshold: float) -> CaseResult:
    """``result`` with the judge's grade: a ``judge`` check, and the grade in the answer score
    (averaged with the ``answer_contains`` score when the question has both)."""
    passed = verdict.score is not None and verdict.score >= threshold
    checks = (*result.checks, CheckResult("judge", f"{threshold:g}", passed))
    scores = dict(result.scores)
    if verdict.score is not None:
        contains = scores.get("answer")
        scores["answer"] = verdict.score if contains is None else (contains + verdict.score) / 2
    failed = result.error is not None
    return dataclasses.replace(
        result,
        checks=checks,
        passed=result.passed and passed,
        judge=verdict,
        scores=scores,
        reward=reward(result.case, scores, failed=failed),
    )
