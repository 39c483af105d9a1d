"""``forge ask --mcp`` end to end: a real MCP server (stdio subprocess), a loopback fake Chat
Completions server, and the MCP call shown as an MCP call in --json, --jsonl and --plain.
Also: named servers from the config file, per-server approval, a server that cannot start, the
lazy import of the SDK, and ``forge doctor``."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from mcp_helpers import server_command

from forge_cli.render.document import load_schema
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

FORGE = [sys.executable, "-m", "forge_cli.cli"]


def _forge(
    tmp_path: Path, *args: str, config: str = "", input: str = ""
) -> subprocess.CompletedProcess[str]:
    config_path = tmp_path / "config.toml"
    config_path.write_text(config)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(config_path),
        "OPENAI_API_KEY": "sk-test-not-real",
    }
    return subprocess.run(
        [*FORGE, *args],
        input=input,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def _chat_args(server: FakeChatServer) -> list[str]:
    return ["--api", "chat", "--base-url", server.base_url, "--model", "m"]


CALC = "calc=" + shlex.join(server_command("tools_server"))


def _mcp_items(document: dict[str, object]) -> list[dict[str, object]]:
    items = document["items"]
    assert isinstance(items, list)
    return [item for item in items if item["type"] == "mcp_call"]


def test_ask_json_shows_the_mcp_call(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__add", {"a": 2, "b": 3})]))
        server.add(text_chunks("The sum is 5."))
        proc = _forge(
            tmp_path, "ask", *_chat_args(server), "--mcp", CALC, "--yes", "--json", "2+3?"
        )
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    jsonschema.validate(document, load_schema())
    assert document["text"] == "The sum is 5."
    (call,) = _mcp_items(document)
    assert call["server"] == "calc"
    assert call["name"] == "add"
    assert call["status"] == "completed"
    assert call["arguments"] == {"a": 2, "b": 3}
    result = call["result"]
    assert isinstance(result, dict)
    assert json.loads(str(result["output"])) == {"total": 5}
    assert isinstance(call["duration_ms"], int)
    assert not [i for i in document["items"] if i["type"].startswith("function_call")]


def test_ask_plain_and_jsonl_show_progress_and_errors(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(
            tool_call_chunks(
                [("calc__steps", {"count": 2}), ("calc__fail", {"message": "disk full"})]
            )
        )
        server.add(text_chunks("Done."))
        proc = _forge(tmp_path, "ask", *_chat_args(server), "--mcp", CALC, "--yes", "--plain", "go")
    assert proc.returncode == 0, proc.stderr
    assert "MCP · completed · calc/steps(count=2)" in proc.stderr
    assert "did 2 steps" in proc.stderr
    assert "MCP · failed · calc/fail" in proc.stderr
    assert "disk full" in proc.stderr
    assert "Done." in proc.stdout

    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__steps", {"count": 3})]))
        server.add(text_chunks("Done."))
        proc = _forge(tmp_path, "ask", *_chat_args(server), "--mcp", CALC, "--yes", "--jsonl", "go")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    (done,) = [
        line["payload"]["item"]
        for line in lines
        if line["type"] == "item.done" and line["payload"]["item"]["type"] == "mcp_call"
    ]
    assert done["server"] == "calc"
    assert done["progress"] == 1.0
    assert done["execution_trace"].endswith("step 3 of 3")
    assert lines[-1]["type"] == "answer"


def test_untrusted_server_is_asked_and_denied_without_a_terminal(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__add", {"a": 1, "b": 1})]))
        server.add(text_chunks("Not allowed."))
        proc = _forge(tmp_path, "ask", *_chat_args(server), "--mcp", CALC, "--json", "1+1?")
    assert proc.returncode == 0, proc.stderr
    (call,) = _mcp_items(json.loads(proc.stdout))
    assert call["status"] == "incomplete"
    result = call["result"]
    assert isinstance(result, dict)
    assert "denied" in str(result["error"])


def test_configured_trusted_server_runs_without_asking(tmp_path: Path) -> None:
    argv = server_command("tools_server")
    config = (
        "[mcp.servers.calc]\n"
        f"command = {json.dumps(argv[0])}\n"
        f"args = {json.dumps(argv[1:])}\n"
        "trust = true\n"
        'env = { GREETING = "${HOME}" }\n'
    )
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__echo", {"text": "hi"})]))
        server.add(text_chunks("ok"))
        proc = _forge(tmp_path, "ask", *_chat_args(server), "--json", "say hi", config=config)
    assert proc.returncode == 0, proc.stderr
    (call,) = _mcp_items(json.loads(proc.stdout))
    assert call["status"] == "completed"
    assert call["result"] == {"output": "echo: hi", "error": None}


def test_a_server_that_cannot_start_is_one_line_and_the_answer_comes(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Answer without tools."))
        proc = _forge(
            tmp_path, "ask", *_chat_args(server), "--mcp", "/nonexistent/mcp-srv", "--plain", "q"
        )
    assert proc.returncode == 0, proc.stderr
    assert "Answer without tools." in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if "could not start" in line]
    assert len(lines) == 1
    assert "Traceback" not in proc.stderr


def test_bad_mcp_config_is_a_usage_error(tmp_path: Path) -> None:
    proc = _forge(tmp_path, "ask", "q", config="[mcp.servers.x]\nurl = 'http://a'\ncommand='b'\n")
    assert proc.returncode == 2
    assert "either command" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [["--version"], ["--help"], ["ask", "--help"], ["chat", "--help"], ["mcp", "--help"]],
)
def test_the_mcp_sdk_is_not_imported_unless_used(args: list[str]) -> None:
    code = (
        "import sys; from forge_cli.cli.main import run; run(sys.argv[1:]); "
        "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')); "
        "sys.stderr.write('LOADED=' + ','.join(loaded))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    assert "LOADED=" in proc.stderr
    assert proc.stderr.rsplit("LOADED=", 1)[1].strip() == ""


def test_a_run_without_mcp_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from forge_cli.cli.build import build_mcp, build_responder\n"
        "from forge_cli.config import Settings\n"
        "assert build_mcp(()) is None\n"
        "from forge_cli.testing.scripted import ScriptedBackend\n"
        "build_responder(Settings(api='chat', model='m'), ScriptedBackend([]), interactive=False)\n"
        "assert 'mcp' not in sys.modules, 'mcp imported'\n"
        "import forge_cli.mcp, forge_cli.mcp.manager, forge_cli.mcp.config\n"
        "assert 'mcp' not in sys.modules, 'mcp imported by forge_cli.mcp'\n"
        "print('clean')\n"
    )
    env = {**os.environ, "FORGE_CONFIG": str(tmp_path / "none.toml")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
    )
    assert proc.stdout.strip() == "clean", proc.stderr


def test_chat_lists_mcp_servers_and_runs_their_tools(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__echo", {"text": "from chat"})]))
        server.add(text_chunks("Echoed."))
        proc = _forge(
            tmp_path,
            "chat",
            *_chat_args(server),
            "--mcp",
            CALC,
            "--yes",
            input="/mcp\necho something\n/mcp off calc\n",
        )
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    both = proc.stdout + proc.stderr
    assert "calc · stdio · ready · 7 tools · approval ask" in both
    assert "+ calc__echo" in both
    assert 'MCP · completed · calc/echo(text="from chat")' in both
    assert "Echoed." in both
    assert "MCP server calc off" in both


def test_a_server_dying_mid_chat_is_one_line_and_the_chat_goes_on(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__crash", {})]))
        server.add(text_chunks("It crashed."))
        server.add(text_chunks("Second answer."))
        proc = _forge(
            tmp_path, "chat", *_chat_args(server), "--mcp", CALC, "--yes", input="crash it\nagain\n"
        )
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "MCP · failed · calc/crash()" in proc.stderr
    assert proc.stderr.count("MCP server 'calc' stopped:") == 1  # the one notice
    assert "It crashed." in proc.stdout
    assert "Second answer." in proc.stdout
    assert "Traceback" not in proc.stderr
    log = tmp_path / "data" / "logs" / "mcp-calc.log"
    assert "crashing on purpose" in log.read_text()


def test_eval_scores_mcp_tool_use_by_server_tool_name(tmp_path: Path) -> None:
    dataset = tmp_path / "cases.jsonl"
    case = {
        "id": "q1",
        "question": "2+3?",
        "expected_tools": [{"name": "calc__add", "arguments": {"a": 2}}],
    }
    dataset.write_text(json.dumps(case) + "\n")
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__add", {"a": 2, "b": 3})]))
        server.add(text_chunks("5"))
        args = [*_chat_args(server), "--mcp", CALC, "--yes", "--json", str(dataset)]
        proc = _forge(tmp_path, "eval", *args)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["expected_tools_called"] == 1
