"""Scoring one answer: cited files, expected text, tool calls, tokens, errors; the summary."""

from __future__ import annotations

import pytest

from forge_cli.errors import BackendConnectionError
from forge_cli.evaluation import (
    CitedFile,
    EvalCase,
    ExpectedFile,
    answer_contains,
    file_matches,
    percentile,
    score_case,
    summarize,
)
from forge_cli.protocol.parse import parse_response
from forge_cli.protocol.response import Response


def _response(text: str, cites: list[tuple[str, str]], items: list[dict[str, object]]) -> Response:
    annotations = [
        {"type": "file_citation", "file_id": fid, "filename": name, "index": len(text)}
        for fid, name in cites
    ]
    message = {
        "type": "message",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    return parse_response(
        {
            "id": "r",
            "status": "completed",
            "model": "m",
            "output": [*items, message],
            "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        }
    )


def _case(**fields: object) -> EvalCase:
    base: dict[str, object] = {"index": 0, "id": "c", "question": "Q?"}
    base.update(fields)
    return EvalCase(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ref", "cited", "expected"),
    [
        ("file_1", CitedFile("file_1", "a.md"), True),
        ("a.md", CitedFile("file_1", "a.md"), True),
        ("A.MD", CitedFile("file_1", "a.md"), True),
        ("docs/guide/a.md", CitedFile("file_1", "a.md"), True),
        ("a.md", CitedFile(None, "sub\\a.md"), True),
        ("b.md", CitedFile("file_1", "a.md"), False),
        ("FILE_1", CitedFile("file_1", "a.md"), False),  # ids are exact
    ],
)
def test_file_matching(ref: str, cited: CitedFile, expected: bool) -> None:
    assert file_matches(ExpectedFile((ref,)), cited) is expected


def test_answer_contains_ignores_case_and_whitespace_runs() -> None:
    assert answer_contains("Run  `forge vs\ncreate NAME`", "FORGE VS CREATE")
    assert not answer_contains("forge vs list", "forge vs create")


def test_passing_answer_records_tools_citations_and_tokens() -> None:
    items: list[dict[str, object]] = [
        {"type": "file_search_call", "id": "fs", "status": "completed", "queries": ["web"]},
        {
            "type": "function_call",
            "id": "fc",
            "status": "completed",
            "call_id": "c1",
            "name": "lookup",
            "arguments": '{"term": "web"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "found"},
        {
            "type": "web_search_call",
            "id": "ws",
            "status": "completed",
            "action": {"type": "search", "query": "searxng"},
        },
    ]
    response = _response(
        "Use /tool on web-search.", [("f2", "tools.md"), ("f2", "tools.md")], items
    )
    case = _case(
        expected_files=(ExpectedFile(("tools.md",)), ExpectedFile(("other.md",))),
        expected_answer_contains=("/TOOL ON web-search",),
    )
    result = score_case(case, response, latency=0.25)
    assert result.passed
    assert result.status == "passed"
    assert [(c.check, c.passed) for c in result.checks] == [
        ("cited_expected_file", True),
        ("answer_contains", True),
    ]
    assert result.files_cited == ("tools.md",)
    assert result.cited_files == (CitedFile("f2", "tools.md"),)
    kinds = [(t.kind, t.name, t.arguments) for t in result.tool_calls]
    assert kinds == [
        ("file_search_call", None, {"queries": ["web"]}),
        ("function_call", "lookup", {"term": "web"}),
        ("web_search_call", None, {"queries": ["searxng"]}),
    ]
    assert result.tool_counts == {"file_search_call": 1, "function_call": 1, "web_search_call": 1}
    assert result.usage is not None
    assert result.usage.total_tokens == 7
    record = result.to_json()
    assert record["type"] == "result"
    assert record["latency_s"] == 0.25
    assert record["usage"] == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}


def test_failed_checks_explain_why() -> None:
    response = _response("Something else.", [("f9", "z.md")], [])
    case = _case(expected_files=(ExpectedFile(("a.md",)),), expected_answer_contains=("needle",))
    result = score_case(case, response, latency=0.1)
    assert not result.passed
    assert result.status == "failed"
    assert result.reason == "did not cite a.md; answer lacks 'needle'"
    assert result.files_cited == ()


def test_question_without_checks_passes_when_answered() -> None:
    assert score_case(_case(), _response("ok", [], []), latency=0.0).passed


def test_error_fails_the_question_and_keeps_the_partial_answer() -> None:
    partial = _response("partial needle", [], [])
    error = BackendConnectionError("connection dropped")
    result = score_case(
        _case(expected_answer_contains=("needle",)), partial, latency=1.0, error=error
    )
    assert not result.passed
    assert result.status == "error"
    assert result.error == "connection dropped"
    assert result.error_type == "BackendConnectionError"
    assert result.checks[0].passed  # the check itself is still reported
    bare = score_case(_case(), None, latency=0.0, error=RuntimeError("boom"))
    assert bare.error == "RuntimeError: boom"
    assert bare.answer == ""
    assert bare.usage is None


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([4.0], 95) == 4.0
    assert percentile([], 50) is None


def test_summary_figures() -> None:
    hit = score_case(
        _case(index=0, id="a", expected_files=(ExpectedFile(("a.md",)), ExpectedFile(("b.md",)))),
        _response(
            "x",
            [("f", "a.md")],
            [{"type": "file_search_call", "id": "s", "status": "completed", "queries": ["q"]}],
        ),
        latency=1.0,
    )
    miss = score_case(
        _case(index=1, id="b", expected_files=(ExpectedFile(("c.md",)),)),
        _response("y", [], []),
        latency=3.0,
    )
    error = score_case(_case(index=2, id="c"), None, latency=2.0, error=RuntimeError("x"))
    summary = summarize([hit, miss, error], planned=4, skipped=1, min_pass=0.3)
    assert (summary.completed, summary.planned, summary.interrupted) == (3, 4, True)
    assert (summary.passed, summary.failed, summary.errors, summary.skipped) == (1, 2, 1, 1)
    assert summary.pass_rate == pytest.approx(1 / 3)
    assert summary.gate_passed
    assert (summary.expected_files, summary.expected_files_cited) == (3, 1)
    assert summary.file_recall == pytest.approx(1 / 3)
    assert summary.mean_tool_calls == pytest.approx(1 / 3)
    assert summary.tool_calls_by_kind == {"file_search_call": 1}
    assert (summary.latency_p50, summary.latency_p95) == (2.0, 3.0)
    assert summary.total_tokens == 14
    data = summary.to_json()
    assert data["type"] == "summary"
    assert data["interrupted"] is True


def test_summary_gate_needs_at_least_one_question() -> None:
    assert not summarize([], min_pass=0.0).gate_passed
