"""Every example the project ships runs as its documentation says (issue 30 item 10).

The README's own `forge eval examples/forge-docs-eval.jsonl` failed on a fresh HOME once the
bundled guide changed its wording under it. These tests run each dataset in `examples/` the way
docs/eval.md's table says it runs: the built-in engine offline, or a loopback Chat Completions
server standing in for "any model". A new example file without a test here fails
`test_every_example_is_run`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OFFLINE = ("forge-docs-eval.jsonl", "forge-docs-tool-use-eval.jsonl")
WITH_A_MODEL = ("eval-tool-use.jsonl", "eval-judge.jsonl")


def test_every_example_is_run() -> None:
    shipped = {path.name for path in EXAMPLES.glob("*.jsonl")}
    assert shipped == set(OFFLINE) | set(WITH_A_MODEL)
    assert {path.name for path in EXAMPLES.glob("*.py")} == {"eval_tools.py"}


@pytest.mark.parametrize("name", OFFLINE)
def test_offline_examples_pass_on_the_built_in_engine(forge: Forge, name: str) -> None:
    proc = forge("eval", str(EXAMPLES / name), "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    document = json.loads(proc.stdout)
    failed = [r["id"] for r in document["results"] if not r["passed"]]
    assert failed == []


def _chat(server: FakeChatServer) -> list[str]:
    return ["--api", "chat", "--base-url", server.base_url, "--model", "fake-model"]


def test_the_tool_use_example_with_its_functions(forge: Forge) -> None:
    """As docs/eval.md says: two questions pass, and the cancel (approval needed, no --yes) is
    reported as called but blocked."""
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks("Order 4711 has shipped."))
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(tool_call_chunks([("carrier", {"order_id": 4711})]))
        server.add(text_chunks("Parcel Post ships it, and it has left."))
        server.add(tool_call_chunks([("cancel_order", {"order_id": 4711})]))
        server.add(text_chunks("I could not cancel it."))
        proc = forge(
            "eval",
            str(EXAMPLES / "eval-tool-use.jsonl"),
            *_chat(server),
            "--functions",
            str(EXAMPLES / "eval_tools.py"),
            "--json",
        )
        server.assert_consumed()
    assert proc.returncode == 1, proc.stderr  # the blocked cancel is below --min-pass 1
    results = {r["id"]: r for r in json.loads(proc.stdout)["results"]}
    assert results["lookup"]["passed"] is True
    assert results["lookup-then-carrier"]["passed"] is True
    cancel = results["cancel-needs-approval"]
    assert cancel["passed"] is False
    assert [c["outcome"] for c in cancel["tool_calls"]] == ["blocked"]


def test_the_judge_example_with_a_judge_model(forge: Forge) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Rayleigh scattering: air scatters blue light far more than red."))
        server.add(text_chunks("SCORE: 9\nCorrect and complete."))
        server.add(text_chunks("TCP is a reliable ordered stream; UDP sends datagrams."))
        server.add(text_chunks("SCORE: 8\nRight, if brief."))
        proc = forge(
            "eval",
            str(EXAMPLES / "eval-judge.jsonl"),
            *_chat(server),
            "--judge-model",
            "judge-1",
            "--json",
        )
        server.assert_consumed()
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    scores = [r["judge"]["score"] for r in json.loads(proc.stdout)["results"]]
    assert scores == [0.9, 0.8]
