"""Over-deep JSON everywhere untrusted JSON is parsed: tool arguments, ``forge serve`` requests."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore
from helpers import hostile
from helpers.loopback import LoopbackServer, Reply, Send
from hostile.conftest import ask_args, run_forge

DEEP = "[" * 100_000 + "]" * 100_000


def test_forge_serve_answers_400_in_the_openai_shape(tmp_path: Path) -> None:
    with (
        KnowledgeStore(tmp_path / "knowledge.db") as store,
        BackgroundServer(Engine(store, EngineConfig(seed=False)), token="t0ken-123456") as server,
        httpx2.Client(
            base_url=server.base_url + "/",
            headers={"Authorization": "Bearer t0ken-123456"},
            timeout=30,
        ) as client,
    ):
        body = '{"model": "m", "input": ' + DEEP + "}"
        reply = client.post(
            "responses", content=body.encode(), headers={"Content-Type": "application/json"}
        )
        assert reply.status_code == 400
        error = reply.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert "limits.max_json_depth" in error["message"]
        assert client.get("models").status_code == 200  # the server lives on


def _function_call(arguments: str) -> Reply:
    events = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "type": "function_call",
                "id": "fc1",
                "call_id": "call_1",
                "name": "echo",
                "arguments": arguments,
                "status": "completed",
            },
        },
        {"type": "response.completed", "response": {"id": "r1", "status": "completed"}},
    ]
    return Reply.sse([Send(f"data: {json.dumps(event)}\n\n".encode()) for event in events])


def test_over_deep_tool_arguments_become_an_error_result_for_the_model(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from forge_cli.tools import tool\n\n"
        "@tool\n"
        "def echo(value: object = None) -> str:\n"
        '    """Echo the value."""\n'
        "    return 'ran'\n"
    )
    with LoopbackServer() as server:
        server.add(_function_call('{"value": ' + DEEP + "}"), hostile.answer_reply("responses"))
        args = ask_args("responses", server.base_url, "--json", "--functions", str(tools), "-y")
        run = run_forge(args, tmp_path / "home")
        follow_up = server.requests[1].json()
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    outputs = [item for item in follow_up["input"] if item.get("type") == "function_call_output"]
    assert len(outputs) == 1
    assert "ran" not in outputs[0]["output"]
    assert "Error" in outputs[0]["output"]
    assert json.loads(run.stdout)["status"] == "completed"
