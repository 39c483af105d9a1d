"""Issue 15 item 5: expected tools in the dataset, argument subsets, order, graded reward."""

from __future__ import annotations

import json
from typing import Any

import pytest

from forge_cli.evaluation import ExpectedTool, parse_dataset, parse_verdict, score_case
from forge_cli.evaluation.results import ToolCallRecord
from forge_cli.evaluation.scoring import arguments_match, tool_matches
from forge_cli.protocol.response import Response


def _case(**fields: Any) -> Any:
    data = parse_dataset(json.dumps({"question": "Q", **fields}))
    assert not data.problems, data.problems
    return data.cases[0]


def _response(*items: dict[str, Any], text: str = "answer") -> Response:
    message = {
        "type": "message",
        "id": "m1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return Response.model_validate(
        {"id": "r", "status": "completed", "model": "m", "output": [*items, message]}
    )


def _call(name: str, args: dict[str, Any], status: str = "completed", n: int = 1) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": name,
        "arguments": json.dumps(args),
        "status": status,
    }


def test_expected_tools_accept_names_and_argument_subsets() -> None:
    case = _case(
        expected_tools=["file-search", {"name": "lookup", "arguments": {"id": 1}}],
        tools_in_order=True,
        weights={"tools": 2},
    )
    assert case.expected_tools == (ExpectedTool("file-search"), ExpectedTool("lookup", {"id": 1}))
    assert case.tools_in_order is True
    assert case.weights == {"tools": 2.0}


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ({"expected_tools": [{"name": "x", "args": {}}]}, "unknown field 'args'"),
        ({"expected_tools": [{"name": "x", "arguments": [1]}]}, "must be an object"),
        ({"weights": {"speed": 1}}, "unknown weight 'speed'"),
        ({"weights": {"tools": -1}}, "must be a number >= 0"),
        ({"weights": {"tools": 0, "answer": 0}}, "must not all be 0"),
        ({"tools_in_order": "yes"}, "true or false"),
    ],
)
def test_bad_tool_fields_are_reported_and_skipped(field: dict[str, Any], message: str) -> None:
    text = json.dumps({"question": "Q", **field}) + "\n" + json.dumps({"question": "ok"}) + "\n"
    data = parse_dataset(text)
    assert len(data.cases) == 1
    [problem] = data.problems
    assert message in problem.message


def test_argument_subsets() -> None:
    assert arguments_match({"city": "paris"}, {"city": "Paris", "days": 3})
    assert arguments_match({"queries": ["pause"]}, {"queries": ["sleep", "Pause"]})
    assert arguments_match({"n": 3}, {"n": "3"})
    assert not arguments_match({"n": 3}, {"n": "three"})
    assert not arguments_match({"flag": True}, {"flag": 1})
    assert not arguments_match({"nested": {"a": 1}}, {"nested": {"b": 1}})


def test_hosted_kinds_match_by_cli_or_item_name() -> None:
    record = ToolCallRecord("file_search_call", None, "completed", {"queries": ["x"]})
    for name in ("file-search", "file_search", "file_search_call", "FILE-SEARCH"):
        assert tool_matches(ExpectedTool(name), record)
    assert not tool_matches(ExpectedTool("web-search"), record)


def test_order_matters_only_when_asked() -> None:
    response = _response(_call("b", {}, n=1), _call("a", {}, n=2))
    unordered = score_case(_case(expected_tools=["a", "b"]), response, latency=0.0)
    assert unordered.passed
    assert unordered.scores == {"tools": 1.0}
    ordered = score_case(_case(expected_tools=["a", "b"], tools_in_order=True), response, latency=0)
    assert not ordered.passed
    assert ordered.scores == {"tools": 0.5}
    assert "tools not called in order (a → b)" in ordered.reason


def test_failed_calls_do_not_count_and_are_reported() -> None:
    response = _response(_call("a", {}, status="failed"))
    result = score_case(_case(expected_tools=["a"]), response, latency=0.0)
    assert [c.outcome for c in result.tool_calls] == ["failed"]
    assert not result.passed
    assert result.reason == "did not call a (called, but failed)"


def test_reward_is_the_weighted_mean_of_the_components() -> None:
    case = _case(
        expected_tools=["a"],
        expected_answer_contains=["answer", "missing"],
        weights={"answer": 1, "tools": 3},
    )
    result = score_case(case, _response(_call("a", {})), latency=0.0)
    assert result.scores == {"answer": 0.5, "tools": 1.0}
    assert result.reward == pytest.approx((0.5 * 1 + 1.0 * 3) / 4)
    error = score_case(case, None, latency=0.0, error=RuntimeError("down"))
    assert error.reward == 0.0
    no_checks = score_case(_case(), _response(), latency=0.0)
    assert no_checks.reward == 1.0


@pytest.mark.parametrize(
    ("reply", "score"),
    [("SCORE: 7\nREASON: ok", 0.7), ("score = 10/10", 1.0), ("Score: 3 / 5", 0.6)],
)
def test_judge_replies(reply: str, score: float) -> None:
    verdict = parse_verdict("j", reply)
    assert verdict.score == pytest.approx(score)
    assert verdict.error is None


def test_judge_reply_out_of_range_is_an_error() -> None:
    assert parse_verdict("j", "SCORE: 12").error is not None


def test_the_example_tools_file_loads() -> None:
    from pathlib import Path

    from forge_cli.tools import load_functions

    examples = Path(__file__).resolve().parents[2] / "examples"
    names = {t.name for t in load_functions(examples / "eval_tools.py")}
    assert names == {"lookup_order", "carrier", "cancel_order"}
    wanted = {
        t.name
        for c in parse_dataset((examples / "eval-tool-use.jsonl").read_text()).cases
        for t in c.expected_tools
    }
    assert wanted <= names
