"""Issue 15 item 5 end to end: `forge eval` scores tool use through the real agent loop on a
loopback Chat Completions server (a denied call does not satisfy `expected_tools`, an allowed
one does, arguments are matched as a subset), and a judge model grades free-form answers."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

TOOLS = '''
from forge_cli.tools import tool


@tool
def cancel_order(order_id: int) -> str:
    """Cancel an order (needs approval)."""
    return f"order {order_id} cancelled"


@tool(read_only=True)
def lookup_order(order_id: int) -> str:
    """Look up an order (read-only: runs without asking)."""
    return f"order {order_id}: shipped"
'''


def _dataset(tmp_path: Path, *questions: dict[str, object]) -> Path:
    path = tmp_path / "evals.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions))
    return path


def _chat_args(server: FakeChatServer) -> list[str]:
    return ["--api", "chat", "--base-url", server.base_url, "--model", "fake-model"]


def test_eval_scores_tool_use_and_reports_denied_calls(forge: Forge, tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    dataset = _dataset(
        tmp_path,
        {
            "id": "cancel",
            "question": "Cancel order 7",
            "expected_tools": [{"name": "cancel_order", "arguments": {"order_id": 7}}],
            "expected_answer_contains": "cancelled",
        },
        {
            "id": "lookup",
            "question": "Where is order 9?",
            "expected_tools": [{"name": "lookup_order", "arguments": {"order_id": 9}}],
            "expected_answer_contains": "shipped",
            "weights": {"answer": 1, "tools": 3},
        },
    )
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("cancel_order", {"order_id": 7})]))
        server.add(text_chunks("I could not cancel it."))
        server.add(tool_call_chunks([("lookup_order", {"order_id": "9"})]))
        server.add(text_chunks("Order 9 has shipped."))
        proc = forge("eval", str(dataset), *_chat_args(server), "--functions", str(tools), "--json")
        server.assert_consumed()
    assert proc.returncode == 1, proc.stderr  # one of two questions fails: below --min-pass 1
    document = json.loads(proc.stdout)
    cancel, lookup = document["results"]
    # The denied call is reported as blocked, and does not count as calling the tool.
    [call] = cancel["tool_calls"]
    assert call["name"] == "cancel_order"
    assert call["outcome"] == "blocked"
    assert cancel["passed"] is False
    failed = [c for c in cancel["checks"] if not c["passed"]]
    assert {c["check"] for c in failed} == {"called_tool", "answer_contains"}
    assert (
        "called, but blocked" in next(c for c in failed if c["check"] == "called_tool")["expected"]
    )
    assert cancel["reward"] == 0.0
    # The allowed call ran with the expected arguments (the string "9" was fixed to 9).
    assert lookup["passed"] is True
    assert lookup["tool_calls"][0]["outcome"] == "completed"
    assert lookup["scores"] == {"answer": 1.0, "tools": 1.0}
    assert lookup["reward"] == 1.0
    summary = document["summary"]
    assert summary["expected_tools"] == 2
    assert summary["expected_tools_called"] == 1
    assert summary["tool_calls_by_outcome"] == {"blocked": 1, "completed": 1}
    assert summary["mean_reward"] == 0.5


def test_the_terminal_report_shows_reward_and_tool_use(forge: Forge, tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    dataset = _dataset(
        tmp_path,
        {"id": "cancel", "question": "Cancel order 7", "expected_tools": ["cancel_order"]},
    )
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("cancel_order", {"order_id": 7})]))
        server.add(text_chunks("Not allowed."))
        proc = forge("eval", str(dataset), *_chat_args(server), "--functions", str(tools))
    assert proc.returncode == 1
    assert "did not call cancel_order (called, but blocked)" in proc.stdout
    assert "expected tools called" in proc.stdout
    assert "0.0% (0/1)" in proc.stdout
    assert "calls not completed" in proc.stdout
    assert "blocked 1" in proc.stdout
    assert "reward (mean)" in proc.stdout


def test_a_judge_model_grades_free_form_answers(forge: Forge, tmp_path: Path) -> None:
    dataset = _dataset(
        tmp_path,
        {
            "id": "why",
            "question": "Why is the sky blue?",
            "expected_answer": "Rayleigh scattering of sunlight by air molecules.",
        },
    )
    with FakeChatServer() as server:
        server.add(text_chunks("Because air scatters blue light more than red."))
        server.add(text_chunks("SCORE: 8\nREASON: Right idea, no name for the effect."))
        proc = forge(
            "eval", str(dataset), *_chat_args(server), "--judge-model", "judge-1", "--json"
        )
        server.assert_consumed()
        judge_request = server.requests[1]
    assert proc.returncode == 0, proc.stderr
    assert judge_request["model"] == "judge-1"
    assert "tools" not in judge_request
    prompt = json.dumps(judge_request["messages"])
    assert "Rayleigh scattering" in prompt
    assert "air scatters blue light" in prompt
    [result] = json.loads(proc.stdout)["results"]
    assert result["judge"]["score"] == 0.8
    assert result["judge"]["model"] == "judge-1"
    assert result["scores"] == {"answer": 0.8}
    assert result["reward"] == 0.8
    assert {"check": "judge", "expected": "0.5", "passed": True} in result["checks"]


def test_a_judge_reply_without_a_score_fails_the_question(forge: Forge, tmp_path: Path) -> None:
    dataset = _dataset(tmp_path, {"id": "q", "question": "Hi?"})
    with FakeChatServer() as server:
        server.add(text_chunks("Hello."))
        server.add(text_chunks("Looks fine to me."))
        proc = forge(
            "eval", str(dataset), *_chat_args(server), "--judge-model", "judge-1", "--json"
        )
    assert proc.returncode == 1
    [result] = json.loads(proc.stdout)["results"]
    assert result["passed"] is False
    assert result["judge"]["error"] == "the judge's reply has no SCORE line"
