"""``forge eval`` end to end in-process: exit codes, bad lines, --json, --output, Ctrl+C.

The command is registered into the CLI's lazy command table for the test (the CLI owns that
table); the backend is the test suite's hook (``FORGE_TEST_BACKEND``) or a stub.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import answer_script, file_search_item  # type: ignore[import-not-found]

from forge_cli.cli.main import COMMANDS
from forge_cli.cli.main import run as forge_run

Run = Callable[..., int]
INTERRUPT_SCRIPT = Path(__file__).with_name("interrupt_script.py")

QUESTIONS = [
    {
        "id": "one",
        "question": "Q1",
        "expected_files": ["a.md"],
        "expected_answer_contains": "alpha",
    },
    {"id": "two", "question": "Q2", "expected_answer_contains": "beta"},
]
SCRIPTS = [
    answer_script("alpha answer", cites=[("file_a", "a.md")], tools=[file_search_item("Q1")]),
    answer_script("wrong answer"),
]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Run:
    """Run ``forge ARGS`` in-process with ``eval`` registered; returns the exit code."""
    monkeypatch.setitem(
        COMMANDS, "eval", ("forge_cli.cli.eval_cmd:eval_command", "Evaluate a dataset.")
    )
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "config.toml"))

    def invoke(*args: str, scripts: list[Any] | None = None) -> int:
        if scripts is not None:
            hook = tmp_path / "scripts.json"
            hook.write_text(json.dumps({"scripts": scripts}))
            monkeypatch.setenv("FORGE_TEST_BACKEND", str(hook))
        return forge_run(list(args))

    return invoke


def _dataset(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_summary_table_and_gate(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _dataset(tmp_path, [json.dumps(q) for q in QUESTIONS])
    assert run("eval", dataset, scripts=SCRIPTS) == 1  # default --min-pass 1.0: one failed
    out, err = capsys.readouterr()
    assert "pass rate" in out
    assert "50.0%" in out
    assert "NOT met" in out
    assert "two" in out
    assert "answer lacks 'beta'" in out
    assert "file recall" in out
    assert "100.0% (1/1)" in out
    assert "below --min-pass" in err
    assert run("eval", dataset, "--min-pass", "0.5", scripts=SCRIPTS) == 0


def test_json_document_and_bad_lines(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        json.dumps(QUESTIONS[0]),
        "{oops",
        json.dumps({"question": 3}),
        json.dumps(QUESTIONS[1]),
    ]
    dataset = _dataset(tmp_path, lines)
    code = run("eval", dataset, "--json", "--min-pass", "0", scripts=SCRIPTS)
    out, err = capsys.readouterr()
    assert code == 0
    document = json.loads(out)
    assert [r["id"] for r in document["results"]] == ["one", "two"]
    assert document["results"][0]["tool_calls"][0]["kind"] == "file_search_call"
    assert document["summary"]["skipped"] == 2
    warnings = err.strip().splitlines()
    assert warnings == [
        f"forge: warning: skipped {dataset} line 2: not valid JSON "
        "(Expecting property name enclosed in double quotes at column 2)",
        f"forge: warning: skipped {dataset} line 3: 'question' must be a non-empty string",
    ]


def test_output_file_gets_results_and_summary(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _dataset(tmp_path, [json.dumps(q) for q in QUESTIONS])
    out_file = tmp_path / "out.jsonl"
    assert run("eval", dataset, "-o", str(out_file), "--min-pass", "0.5", scripts=SCRIPTS) == 0
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [r["type"] for r in records] == ["result", "result", "summary"]
    assert records[-1]["pass_rate"] == 0.5


@pytest.mark.parametrize("content", [None, "", "not json\n"])
def test_unusable_dataset_is_usage_error(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "d.jsonl"
    if content is not None:
        path.write_text(content)
    assert run("eval", str(path)) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("forge: error: ")
    assert "Traceback" not in err


def test_ctrl_c_exits_130_and_keeps_finished_results(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path, [json.dumps({"question": f"Q{i}"}) for i in range(5)])
    out_file = tmp_path / "partial.jsonl"
    env = {**os.environ, "FORGE_DATA_DIR": str(tmp_path), "FORGE_CONFIG": str(tmp_path / "c")}
    proc = subprocess.run(
        [sys.executable, str(INTERRUPT_SCRIPT), dataset, "-o", str(out_file), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 130, proc.stderr
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(r["type"], r["id"]) for r in records] == [("result", "q1"), ("result", "q2")]
    document = json.loads(proc.stdout)
    assert document["summary"]["interrupted"] is True
    assert document["summary"]["completed"] == 2
    assert proc.stderr.strip().splitlines() == [
        f"forge: error: interrupted after 2 of 5 questions; finished results are in {out_file}"
    ]


def test_output_may_not_overwrite_the_dataset(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _dataset(tmp_path, [json.dumps(QUESTIONS[0])])
    before = Path(dataset).read_text()
    assert run("eval", dataset, "--output", dataset) == 2
    assert Path(dataset).read_text() == before
    assert "must not be the dataset" in capsys.readouterr().err
