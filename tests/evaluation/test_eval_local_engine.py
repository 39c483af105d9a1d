"""The example dataset against the real built-in engine (offline, temporary knowledge store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge_cli.engine.local import LocalBackend
from forge_cli.evaluation import Evaluator, load_dataset
from forge_cli.repl.turn import backend_responder

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "forge-docs-eval.jsonl"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_example_questions_pass_on_the_local_engine(tmp_path: Path) -> None:
    cases = load_dataset(EXAMPLE).cases[::4]  # a spread over every page of forge-docs
    assert len(cases) >= 5
    backend = LocalBackend(tmp_path / "knowledge.db")
    try:
        responder = backend_responder(backend)
        report = await Evaluator(lambda case: responder, concurrency=2).run(cases)
    finally:
        await backend.aclose()
    failures = {r.case.id: r.reason for r in report.results if not r.passed}
    assert failures == {}
    assert report.summary.file_recall == 1.0
    for result in report.results:
        assert [call.kind for call in result.tool_calls] == ["file_search_call"]
        assert result.tool_calls[0].arguments == {"queries": [result.case.question]}
        assert result.model == "forge-retrieval"
        assert result.usage is not None
        assert result.usage.total_tokens > 0
        assert all(f.file_id and f.file_id.startswith("file_") for f in result.cited_files)


GRADED = EXAMPLE.with_name("forge-docs-tool-use-eval.jsonl")


async def test_the_graded_example_scores_tool_use_on_the_local_engine(tmp_path: Path) -> None:
    cases = load_dataset(GRADED).cases
    assert all(case.expected_tools and case.weights for case in cases)
    backend = LocalBackend(tmp_path / "knowledge.db")
    try:
        responder = backend_responder(backend)
        report = await Evaluator(lambda case: responder).run(cases)
    finally:
        await backend.aclose()
    assert {r.case.id: r.reason for r in report.results if not r.passed} == {}
    assert report.summary.tool_recall == 1.0
    assert report.summary.mean_reward == 1.0
    for result in report.results:
        assert result.scores == {"answer": 1.0, "citations": 1.0, "tools": 1.0}
