"""Reading datasets: JSONL and JSON, the Knowledge Forge shape, bad entries with line numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_cli.errors import UsageError
from forge_cli.evaluation import ExpectedFile, load_dataset, parse_dataset


def test_jsonl_cases_in_order_with_defaults() -> None:
    text = (
        '{"id": "a", "question": "Q1?", "expected_files": ["x.md"],'
        ' "expected_answer_contains": "needle"}\n'
        "\n"
        '{"question": "Q2?", "vector_store_ids": "vs_1", "tools": ["file_search"]}\n'
    )
    data = parse_dataset(text, "d.jsonl")
    assert data.problems == ()
    first, second = data.cases
    assert (first.index, first.id, first.question, first.line) == (0, "a", "Q1?", 1)
    assert first.expected_files == (ExpectedFile(("x.md",)),)
    assert first.expected_answer_contains == ("needle",)
    assert first.vector_store_ids is None
    assert first.tools is None
    assert (second.index, second.id, second.line) == (1, "q2", 3)
    assert second.vector_store_ids == ("vs_1",)
    assert second.tools == ("file-search",)


def test_bad_lines_are_reported_with_line_numbers_and_skipped() -> None:
    text = "\n".join(
        [
            '{"question": "good one"}',
            "{not json",
            '{"question": ""}',
            '["a list"]',
            '{"question": "typo", "expected_file": "x"}',
            '{"question": "bad tool", "tools": ["telepathy"]}',
            '{"question": "dup", "id": "q1"}',
            '{"question": "good two", "expected_answer_contains": ["a", "b"]}',
        ]
    )
    data = parse_dataset(text, "d.jsonl")
    assert [c.question for c in data.cases] == ["good one", "good two"]
    assert [c.index for c in data.cases] == [0, 1]
    lines = {p.line: p.message for p in data.problems}
    assert sorted(lines) == [2, 3, 4, 5, 6, 7]
    assert "not valid JSON" in lines[2]
    assert "'question' must be a non-empty string" in lines[3]
    assert "expected a JSON object" in lines[4]
    assert "unknown field 'expected_file'" in lines[5]
    assert "unknown tool 'telepathy'" in lines[6]
    assert "duplicate id 'q1' (first on line 1)" in lines[7]
    assert data.problems[0].one_line("d.jsonl").startswith("d.jsonl line 2: ")


def test_json_array_items_keep_their_line_numbers() -> None:
    items = [{"question": "one"}, {"question": 5}, {"question": "three", "id": 7}]
    text = json.dumps(items, indent=2)
    data = parse_dataset(text)
    assert [c.id for c in data.cases] == ["q1", "7"]
    (problem,) = data.problems
    object_lines = [n for n, line in enumerate(text.splitlines(), start=1) if line == "  {"]
    assert problem.line == object_lines[1]
    assert [c.line for c in data.cases] == [object_lines[0], object_lines[2]]


def test_single_json_object_is_one_case() -> None:
    data = parse_dataset('\n\n{"question": "only"}\n')
    assert [(c.question, c.line) for c in data.cases] == [("only", 3)]


def test_knowledge_forge_shape_expects_each_file() -> None:
    doc = {
        "vectorstore_id": "vs_kf",
        "files": [
            {"file_id": "file_1", "path": "docs/a.md", "questions": ["About A?", "More A?"]},
            {"path": "b.md", "questions": [{"question": "About B?", "id": "b1"}]},
        ],
    }
    data = parse_dataset(json.dumps(doc))
    assert [c.question for c in data.cases] == ["About A?", "More A?", "About B?"]
    assert data.cases[0].expected_files == (ExpectedFile(("file_1", "docs/a.md")),)
    assert data.cases[2].expected_files == (ExpectedFile(("b.md",)),)
    assert data.cases[2].id == "b1"
    assert all(c.vector_store_ids == ("vs_kf",) for c in data.cases)


def test_knowledge_forge_shape_in_jsonl_with_a_bad_entry() -> None:
    good = {"vectorstore_id": "vs", "files": [{"path": "a.md", "questions": ["Q?"]}]}
    bad = {"vectorstore_id": "vs", "files": "nope"}
    data = parse_dataset(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    assert len(data.cases) == 1
    assert data.problems[0].line == 2
    assert "'files' must be a list" in data.problems[0].message


def test_generated_ids_avoid_explicit_ones() -> None:
    data = parse_dataset('{"id": "q2", "question": "a"}\n{"question": "b"}\n')
    assert [c.id for c in data.cases] == ["q2", "q2.2"]


@pytest.mark.parametrize("text", ["", "  \n\n"])
def test_empty_dataset_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="is empty"):
        parse_dataset(text, "d.jsonl")


def test_dataset_without_valid_question_names_the_first_problem() -> None:
    with pytest.raises(UsageError, match=r"no valid question \(2 bad; first: line 1: not valid"):
        parse_dataset("nope\n{}\n")


def test_broken_json_array_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_dataset('[{"question": "a"},\n')


def test_unreadable_dataset_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read dataset"):
        load_dataset(tmp_path / "missing.jsonl")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(UsageError, match="cannot read dataset"):
        load_dataset(binary)


def test_example_dataset_is_valid() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "forge-docs-eval.jsonl"
    data = load_dataset(path)
    assert data.problems == ()
    assert len(data.cases) >= 20
    assert all(c.expected_files and c.expected_answer_contains for c in data.cases)
