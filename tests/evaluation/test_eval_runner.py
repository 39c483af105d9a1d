"""Running a dataset: requests, concurrency, failures, latency, interruption, JSONL output."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import (  # type: ignore[import-not-found]
    StepClock,
    answer_script,
    file_search_item,
    scripted_responders,
)

from forge_cli.errors import AuthError, UsageError
from forge_cli.evaluation import (
    CaseResult,
    EvalCase,
    Evaluator,
    JsonlResultWriter,
    RequestDefaults,
    build_case_request,
    parse_dataset,
    report_document,
)
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response

pytestmark = pytest.mark.anyio

DATASET = "\n".join(
    json.dumps(entry)
    for entry in [
        {"id": "a", "question": "QA", "expected_files": ["a.md"], "expected_answer_contains": "A"},
        {"id": "b", "question": "QB", "expected_files": ["file_b"]},
        {"id": "c", "question": "QC", "expected_answer_contains": ["missing"]},
        {"id": "d", "question": "QD", "expected_files": ["d.md"]},
        {"id": "e", "question": "QE"},
        {"id": "f", "question": "QF", "expected_answer_contains": "not there"},
    ]
)
SCRIPTS: dict[str, Any] = {
    "a": answer_script("Answer A", cites=[("file_a", "a.md")], tools=[file_search_item("QA")]),
    "b": answer_script("Answer B", cites=[("file_b", "b.md")], tools=[file_search_item("QB")]),
    "c": answer_script("Answer C", usage=None),
    "d": AuthError("the server refused the API key (401)", status_code=401, env_var="K"),
    "e": answer_script(
        "E", tools=[file_search_item("QE", "fs_1"), file_search_item("QE2", "fs_2")]
    ),
    "f": answer_script("F"),
}
DELAYS = {"a": 9, "b": 1, "c": 6, "d": 0, "e": 4, "f": 2}
"""Yields before answering, so that with concurrency the completion order is not dataset order."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _stable(result: CaseResult) -> dict[str, Any]:
    """A result without its latency (the one figure that depends on scheduling)."""
    record = result.to_json()
    del record["latency_s"]
    return record


async def test_results_identical_at_concurrency_1_and_4() -> None:
    data = parse_dataset(DATASET)
    runs = {}
    for concurrency in (1, 4):
        completed: list[str] = []
        evaluator = Evaluator(
            scripted_responders(SCRIPTS, delays=DELAYS),
            concurrency=concurrency,
            on_result=lambda r, seen=completed: seen.append(r.case.id),
        )
        report = await evaluator.run(data.cases, min_pass=0.5)
        runs[concurrency] = (report, completed)
    (one, order_one), (four, order_four) = runs[1], runs[4]
    assert order_one == ["a", "b", "c", "d", "e", "f"]
    assert order_four != order_one  # answers really arrived out of order...
    assert [r.case.id for r in four.results] == order_one  # ...yet the report is in dataset order
    assert [_stable(r) for r in four.results] == [_stable(r) for r in one.results]
    s1, s4 = one.summary.to_json(), four.summary.to_json()
    del s1["latency_s"], s4["latency_s"]
    assert s1 == s4
    assert [r.status for r in one.results] == [
        "passed",
        "passed",
        "failed",
        "error",
        "passed",
        "failed",
    ]
    assert one.summary.pass_rate == pytest.approx(3 / 6)
    assert one.summary.gate_passed
    assert one.summary.file_recall == pytest.approx(2 / 3)
    assert one.summary.mean_tool_calls == pytest.approx(4 / 6)
    assert one.results[3].error is not None
    assert "401" in one.results[3].error


async def test_concurrency_is_bounded() -> None:
    active = peak = 0
    gate = asyncio.Event()

    def factory(case: EvalCase) -> Any:
        async def respond(request: Request) -> AsyncIterator[Response | object]:
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            if peak == 3:
                gate.set()
            await gate.wait()
            active -= 1
            yield Response(id=case.id, status="completed")

        return respond

    cases = parse_dataset("\n".join(json.dumps({"question": f"q{i}"}) for i in range(8))).cases
    report = await Evaluator(factory, concurrency=3).run(cases)
    assert peak == 3
    assert report.summary.passed == 8


async def test_latency_comes_from_the_injected_clock() -> None:
    cases = parse_dataset('{"id": "f", "question": "QF"}').cases
    evaluator = Evaluator(scripted_responders(SCRIPTS), clock=StepClock(0.5))
    report = await evaluator.run(cases)
    assert report.results[0].latency == 0.5
    assert report.summary.latency_p50 == 0.5


async def test_request_carries_settings_and_question_overrides() -> None:
    seen: list[Request] = []

    def factory(case: EvalCase) -> Any:
        async def respond(request: Request) -> AsyncIterator[Response | object]:
            seen.append(request)
            yield Response(status="completed")

        return respond

    text = (
        '{"question": "plain"}\n'
        '{"question": "kf", "vector_store_ids": ["vs_x"]}\n'
        '{"question": "none", "tools": []}\n'
    )
    defaults = RequestDefaults(model="m1", instructions="be brief", tools=("web-search",))
    await Evaluator(factory, defaults=defaults).run(parse_dataset(text).cases)
    plain, kf, none = (r.to_wire() for r in seen)
    assert plain["model"] == "m1"
    assert plain["instructions"] == "be brief"
    assert plain["input"] == [{"role": "user", "content": "plain"}]
    assert [t["type"] for t in plain["tools"]] == ["web_search"]
    assert [t["type"] for t in kf["tools"]] == ["web_search"]  # run tools win over the default
    assert "tools" not in none
    only_store = build_case_request(parse_dataset(text).cases[1], RequestDefaults())
    assert only_store.to_wire()["tools"] == [{"type": "file_search", "vector_store_ids": ["vs_x"]}]


def test_concurrency_out_of_range_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        Evaluator(scripted_responders({}), concurrency=0)


async def test_interrupted_run_keeps_valid_partial_jsonl(tmp_path: Path) -> None:
    data = parse_dataset(DATASET)
    out = tmp_path / "results.jsonl"
    with JsonlResultWriter(out) as writer:

        def on_result(result: CaseResult) -> None:
            writer.write_result(result)
            if len(evaluator.results) == 2:
                task.cancel()  # what Ctrl+C does to the running evaluation

        evaluator = Evaluator(
            scripted_responders(SCRIPTS, delays=dict.fromkeys(SCRIPTS, 1)), on_result=on_result
        )
        task = asyncio.ensure_future(evaluator.run(data.cases))
        with pytest.raises(asyncio.CancelledError):
            await task
        # the writer is still open, as in the CLI: every finished line is already on disk
        lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["type"], r["id"]) for r in lines] == [("result", "a"), ("result", "b")]
    partial = evaluator.report(planned=len(data.cases))
    assert partial.summary.interrupted
    assert partial.summary.completed == 2


async def test_complete_jsonl_ends_with_summary_and_json_document(tmp_path: Path) -> None:
    data = parse_dataset(DATASET + "\nbroken line\n")
    out = tmp_path / "results.jsonl"
    with JsonlResultWriter(out) as writer:
        evaluator = Evaluator(
            scripted_responders(SCRIPTS, delays=DELAYS),
            concurrency=4,
            on_result=writer.write_result,
        )
        report = await evaluator.run(data.cases, skipped=len(data.problems))
        writer.write_summary(report.summary)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["type"] for r in lines] == ["result"] * 6 + ["summary"]
    assert sorted(r["index"] for r in lines[:-1]) == list(range(6))
    assert lines[-1]["skipped"] == 1
    assert lines[-1]["completed"] == 6
    document = json.loads(json.dumps(report_document(report, dataset="d", problems=data.problems)))
    assert document["schema"] == "forge.eval/v1"
    assert [r["id"] for r in document["results"]] == ["a", "b", "c", "d", "e", "f"]
    assert document["skipped"] == [{"line": 7, "message": document["skipped"][0]["message"]}]
    assert document["summary"]["pass_rate"] == 0.5


def test_unwritable_output_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"):
        JsonlResultWriter(tmp_path / "missing-dir" / "out.jsonl")
