"""The ``forge`` command end to end: exit codes, one-line errors, pipelines, config, storage."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.conftest import ANSWER_SCRIPT, partial_then_hang  # type: ignore[import-not-found]
from helpers.loopback import LoopbackServer, Reply  # type: ignore[import-not-found]
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]
from helpers.testhook import FORGE_COMMAND  # type: ignore[import-not-found]

Run = Callable[..., subprocess.CompletedProcess[str]]


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("forge: error: ")
    assert "Traceback" not in proc.stderr
    return lines[0]


def test_version_and_help_list_exit_codes(forge: Run) -> None:
    version = forge("--version")
    assert version.returncode == 0
    assert "forge, version" in version.stdout
    helped = forge("--help")
    assert helped.returncode == 0
    for code in ("0 ", "1 ", "2 ", "3 ", "130"):
        assert code in helped.stdout
    assert "_FORGE_COMPLETE" in helped.stdout


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys\nfrom forge_cli.cli.main import run\nrun(['--help'])\n"
        "heavy = ['rich', 'openai', 'httpx2', 'prompt_toolkit', 'pydantic',\n"
        "         'forge_cli.engine.local']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_version_fast_path_prints_clicks_line_without_click() -> None:
    code = (
        "import io, json, sys\nfrom contextlib import redirect_stdout\n"
        "from forge_cli.cli import entry\n"
        "out = io.StringIO()\n"
        "with redirect_stdout(out):\n"
        "    try:\n        entry.main(['--version'])\n"
        "    except SystemExit as exc:\n        code = exc.code\n"
        "fast, loaded = out.getvalue(), 'click' in sys.modules\n"
        "from forge_cli.cli.main import run\n"
        "out = io.StringIO()\n"
        "with redirect_stdout(out):\n    slow_code = run(['--version', '-V'])\n"
        "print(json.dumps([fast, code, loaded, out.getvalue(), slow_code]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    fast, code, loaded, slow, slow_code = json.loads(proc.stdout)
    assert (fast, code) == (slow, slow_code) == (fast, 0)  # the line click's option prints
    assert fast.startswith("forge, version ")
    assert loaded is False


def test_completing_a_command_name_imports_no_command() -> None:
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('loaded', 'forge_cli.cli.cmd_ask' in sys.modules))\n"
        "from forge_cli.cli.entry import main\nmain()\n"
    )
    env = {**os.environ, "_FORGE_COMPLETE": "bash_complete", "COMP_WORDS": "forge a"}
    env["COMP_CWORD"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert proc.stdout.splitlines() == ["plain,ask", "loaded False"], proc.stderr


def test_bad_flag_is_usage_error(forge: Run) -> None:
    proc = forge("ask", "--tool", "telepathy", "hi")
    assert proc.returncode == 2
    assert "telepathy" in _one_error_line(proc)


def test_bad_config_is_usage_error(forge: Run, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[profiles.default]\nmodle = 'x'\n")
    proc = forge("ask", "hi")
    assert proc.returncode == 2
    assert "unknown setting 'modle'" in _one_error_line(proc)


def test_unreachable_backend_exits_1(forge: Run) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = forge("ask", "--api", "responses", "--base-url", f"http://127.0.0.1:{port}/v1", "hi")
    assert proc.returncode == 1
    _one_error_line(proc)


def test_401_names_the_key_variable(forge: Run) -> None:
    with LoopbackServer() as server:
        server.add(Reply.json(401, {"error": {"message": "bad key"}}))
        proc = forge(
            "ask",
            "--api",
            "responses",
            "--base-url",
            server.base_url,
            "--api-key-env",
            "MY_KEY",
            "hi",
            env={"MY_KEY": "sk-test-not-real"},
        )
    assert proc.returncode == 1
    line = _one_error_line(proc)
    assert "MY_KEY" in line
    assert "sk-test-not-real" not in proc.stderr + proc.stdout


def test_iteration_limit_exits_3(forge: Run, script_file: Callable[..., Path]) -> None:
    script = script_file([{"type": "forge.test.raise", "error": "limit"}])
    proc = forge("ask", "hi", env={"FORGE_TEST_BACKEND": str(script)})
    assert proc.returncode == 3
    assert "limit" in _one_error_line(proc)


def test_stdin_question_json_pipeline(forge: Run, script_file: Callable[..., Path]) -> None:
    script = script_file(ANSWER_SCRIPT)
    proc = forge(
        "ask", "-", "--json", input="how do I install?\n", env={"FORGE_TEST_BACKEND": str(script)}
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["text"] == "Run pip install forge."
    assert document["citations"][0]["filename"] == "install.md"
    piped = subprocess.run(
        [sys.executable, "-c", "import json,sys; json.load(sys.stdin)"],
        input=proc.stdout,
        text=True,
        check=False,
    )
    assert piped.returncode == 0


def test_ask_plain_shows_tool_line_answer_and_sources(
    forge: Run, script_file: Callable[..., Path]
) -> None:
    proc = forge("ask", "how?", env={"FORGE_TEST_BACKEND": str(script_file(ANSWER_SCRIPT))})
    assert proc.returncode == 0, proc.stderr
    assert 'File search · completed · "install forge" · 1 result' in proc.stderr
    assert "Run pip install forge." in proc.stdout
    assert "[1] install.md" in proc.stdout


def test_jsonl_ends_with_the_answer(forge: Run, script_file: Callable[..., Path]) -> None:
    proc = forge("ask", "x", "--jsonl", env={"FORGE_TEST_BACKEND": str(script_file(ANSWER_SCRIPT))})
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[-1]["type"] == "answer"
    assert lines[-1]["payload"]["status"] == "completed"


def test_no_question_is_usage_error(forge: Run) -> None:
    proc = forge("ask")
    assert proc.returncode == 2
    assert "no question" in _one_error_line(proc)


def test_config_set_show_unset_and_secret_refused(forge: Run, tmp_path: Path) -> None:
    assert forge("config", "set", "model", "m1", "--profile", "kf").returncode == 0
    assert forge("config", "set", "default_profile", "kf").returncode == 0
    shown = forge("config", "show")
    assert 'model = "m1"  # profile kf' in shown.stdout
    assert "None" not in shown.stdout  # TOML, not Python reprs
    assert "tools = []  # default" in shown.stdout
    refused = forge("config", "set", "api_key", "sk-on-command-line")
    assert refused.returncode == 2
    assert "sk-on-command-line" not in refused.stderr
    assert forge("config", "unset", "model", "--profile", "kf").returncode == 0
    assert "# model is not set" in forge("config", "show").stdout
    assert forge("config", "path").stdout.strip() == str(tmp_path / "config.toml")


def test_conversations_list_skips_corrupt_files(
    forge: Run, script_file: Callable[..., Path], tmp_path: Path
) -> None:
    script = script_file(ANSWER_SCRIPT)
    chat = forge("chat", input="hello\n", env={"FORGE_TEST_BACKEND": str(script)})
    assert chat.returncode == 0, chat.stderr
    conv_dir = tmp_path / "data" / "conversations"
    (conv_dir / "junk.json").write_text("{not json")
    listed = forge("conversations", "list")
    assert listed.returncode == 0
    assert "1 turn " in listed.stdout
    assert "1 turns" not in listed.stdout
    assert "skipped junk.json" in listed.stderr
    conv_id = listed.stdout.split()[0]
    exported = forge("conversations", "export", conv_id, "--format", "md")
    assert "1. install.md" in exported.stdout
    deleted = forge("conversations", "delete", conv_id, "--yes")
    assert deleted.returncode == 0
    missing = forge("conversations", "show", conv_id)
    assert missing.returncode == 2  # an unknown id is a bad argument
    _one_error_line(missing)


@pytest.mark.parametrize("args", [["chat", "--resume", "nope"], ["conversations", "show", "x"]])
def test_unknown_conversation_is_one_line(forge: Run, args: list[str]) -> None:
    proc = forge(*args)
    assert proc.returncode == 2  # an unknown id is a bad argument
    assert "no saved conversation" in _one_error_line(proc)


def test_doctor_reports_each_failure_with_a_fix(forge: Run) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = forge("doctor", "--api", "responses", "--base-url", f"http://127.0.0.1:{port}/v1")
    assert proc.returncode == 1
    assert "ok    config" in proc.stdout
    assert "FAIL  backend" in proc.stdout
    assert "fix: is the server running?" in proc.stdout


def test_doctor_reports_a_bad_config(forge: Run, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[profiles.default]\napi = 'soap'\n")
    proc = forge("doctor")
    assert proc.returncode == 1
    assert "FAIL  config" in proc.stdout
    assert "fix: edit" in proc.stdout


@pytest.mark.parametrize(
    ("args", "env", "fix"),
    [
        (
            ["--api", "chat", "--base-url", "ftp://example.com/v1"],
            {},
            "fix: pass a valid --base-url",
        ),
        (
            ["--api", "chat"],
            {"FORGE_BASE_URL": "ftp://example.com/v1"},
            "fix: change or unset FORGE_BASE_URL (environment)",
        ),
    ],
)
def test_doctor_says_where_a_refused_setting_came_from(
    forge: Run, args: list[str], env: dict[str, str], fix: str
) -> None:
    """A bad value from an option or an environment variable is not mended by editing the
    configuration file, which doctor used to advise for every refused setting."""
    proc = forge("doctor", *args, env=env)
    assert proc.returncode == 1
    assert "FAIL  config   bad value for base_url" in proc.stdout
    assert fix in proc.stdout
    assert "fix: edit" not in proc.stdout


def test_conversation_commands_never_print_raw_escape_sequences(forge: Run, tmp_path: Path) -> None:
    """Saved model output is untrusted: show/list neutralise it; a piped export keeps it."""
    from forge_cli.conversations import Conversation, ConversationStore, Turn

    hostile = "evil \x1b]52;c;Y2xpcA==\x07 \x1b[2J title\u202e"
    output = [{"type": "message", "content": [{"type": "output_text", "text": hostile}]}]
    conv = Conversation(name=None, turns=[Turn(user=hostile, output=output)])
    ConversationStore(tmp_path / "data" / "conversations").save(conv)
    for args in (["conversations", "list"], ["conversations", "show", conv.id]):
        proc = forge(*args)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout
        assert "\u202e" not in proc.stdout
        assert "evil" in proc.stdout
    exported = forge("conversations", "export", conv.id, "--format", "json")
    assert (
        "\\u001b]52" in exported.stdout or "\x1b]52" in exported.stdout
    )  # data keeps the original


def test_error_lines_neutralise_escape_sequences_the_user_typed(forge: Run, tmp_path: Path) -> None:
    """A directory name the user typed is quoted in the error verbatim: the CLI's one error line
    is what keeps its escape sequences from driving the terminal."""
    hostile = tmp_path / "notes\x1b]0;pwned\x07\x1b[2J"
    hostile.mkdir()
    proc = forge("files", "upload", str(hostile))
    assert proc.returncode == 2
    line = _one_error_line(proc)
    assert "no supported files" in line
    assert "\x1b" not in line
    assert "\x07" not in line
    assert "\\x1b[2J" in line  # shown escaped, not dropped


@pytest.mark.pty
def test_ctrl_c_during_ask_keeps_the_partial_answer_and_exits_130(
    script_file: Callable[..., Path], tmp_path: Path
) -> None:
    import pexpect

    script = script_file(partial_then_hang("The first half of the answer"))
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "FORGE_TEST_BACKEND": str(script),
        "NO_COLOR": "1",
    }
    child = TerminalSpawn(
        FORGE_COMMAND[0], [*FORGE_COMMAND[1:], "ask", "question"], env=env, encoding="utf-8",
        timeout=30, dimensions=(30, 100),
    )  # fmt: skip
    try:
        child.expect_exact("The first half of the answer")
        child.kill(signal.SIGINT)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130
    shown = (child.before or "").lower()
    assert "interrupted" in shown
    # The view marks the kept answer interrupted; the CLI does not say it a second time.
    assert shown.count("interrupted") == 1, shown
    assert "forge: error" not in shown


def test_debug_shows_tolerated_stream_events(forge: Run, script_file: Callable[..., Path]) -> None:
    """Events the builder had to tolerate are counted and visible with --debug, silent without."""
    odd = [*ANSWER_SCRIPT[:2], {"type": "response.vendor.metrics", "tps": 40}, *ANSWER_SCRIPT[2:]]
    script = script_file(odd, odd)
    env = {"FORGE_TEST_BACKEND": str(script)}
    quiet = forge("ask", "--plain", "question", env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert "tolerated" not in quiet.stderr
    loud = forge("ask", "--plain", "--debug", "question", env=env)
    assert loud.returncode == 0, loud.stderr
    assert "forge: debug: forge_cli.stream" in loud.stderr
    assert "unknown_event: response.vendor.metrics" in loud.stderr


@pytest.mark.parametrize("mode", ["--plain", "--json"])
def test_a_failure_the_server_reports_is_one_error_line(
    forge: Run, script_file: Callable[..., Path], mode: str
) -> None:
    failed = [
        *ANSWER_SCRIPT[:1],
        {
            "type": "response.failed",
            "response": {
                "id": "resp_1",
                "status": "failed",
                "error": {"code": "server_error", "message": "the vector store is unavailable"},
            },
        },
    ]
    proc = forge("ask", mode, "question", env={"FORGE_TEST_BACKEND": str(script_file(failed))})
    assert proc.returncode == 1
    assert _one_error_line(proc) == "forge: error: the vector store is unavailable"
    if mode == "--json":
        assert json.loads(proc.stdout)["error"]["message"] == "the vector store is unavailable"


def test_the_installed_forge_ignores_the_test_backend_variable(
    tmp_path: Path, script_file: Callable[..., Path]
) -> None:
    """Only the test launcher installs the scripted backend; `forge` itself asks the server."""
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "FORGE_API": "responses",
        "FORGE_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        "FORGE_TEST_BACKEND": str(script_file(ANSWER_SCRIPT)),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "ask", "how?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pip install forge" not in proc.stdout
    assert "127.0.0.1" in proc.stderr


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("shell", ["bash_complete", "zsh_complete"])
@pytest.mark.parametrize("words", ["forge a", "forge ", "forge", "forge c", "forge x", "forge -"])
def test_completing_a_command_name_answers_as_click_does_without_click(
    shell: str, words: str
) -> None:
    """The click-free answer (``cli.commands``) prints what click's own completion prints."""
    env = {**os.environ, "_FORGE_COMPLETE": shell, "COMP_WORDS": words, "COMP_CWORD": "1"}
    fast_code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write(f'CLICK {\"click\" in sys.modules}'))\n"
        "from forge_cli.cli.entry import main\nmain()\n"
    )
    click_code = "from forge_cli.cli.main import main\nmain()\n"
    fast = subprocess.run(
        [sys.executable, "-c", fast_code], capture_output=True, text=True, env=env, check=False
    )
    slow = subprocess.run(
        [sys.executable, "-c", click_code], capture_output=True, text=True, env=env, check=False
    )
    assert (fast.stdout, fast.returncode) == (slow.stdout, slow.returncode)
    assert slow.stdout.strip() or words == "forge x"
    assert fast.stderr.endswith(f"CLICK {words == 'forge -'}")  # options still go to click


@pytest.mark.parametrize("group", ["config", "conversations", "files", "templates", "vs"])
def test_a_group_without_its_command_shows_its_help(forge: Run, group: str) -> None:
    """``forge vs`` alone: the group's help page, line by line (it was one error line with
    every newline shown as a literal ``\\n``), and the usage-error exit code."""
    proc = forge(group)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == f"Usage: forge {group} [OPTIONS] COMMAND [ARGS]..."
    assert "\\n" not in proc.stderr
    assert "forge: error" not in proc.stderr
    assert "Commands:" in lines
    commands = lines[lines.index("Commands:") + 1 :]
    assert len(commands) >= 4
    assert all(line.startswith("  ") for line in commands)


def test_conversations_delete_asks_and_a_no_or_no_answer_keeps_it(
    forge: Run, script_file: Callable[..., Path]
) -> None:
    """Answering "n" said `forge: error: interrupted` (exit 130), as did a script with no
    answer to give; "n" now keeps the conversation quietly (exit 0), and no answer at all is a
    usage error naming --yes, on a line of its own."""
    script = script_file(ANSWER_SCRIPT)
    chat = forge("chat", input="hello\n", env={"FORGE_TEST_BACKEND": str(script)})
    assert chat.returncode == 0, chat.stderr
    conv_id = forge("conversations", "list").stdout.split()[0]

    declined = forge("conversations", "delete", conv_id, input="n\n")
    assert declined.returncode == 0, declined.stderr
    assert declined.stderr.endswith(f"[y/N]: Kept {conv_id} (not deleted).\n")
    assert "error" not in declined.stderr

    unanswered = forge("conversations", "delete", conv_id, input="")
    assert unanswered.returncode == 2
    lines = unanswered.stderr.splitlines()
    assert lines[0].endswith("[y/N]: ")
    assert lines[1:] == [
        f"forge: error: {conv_id} was not deleted: no answer to the question "
        "(hint: add --yes to delete without asking)"
    ]
    assert forge("conversations", "show", conv_id).returncode == 0  # kept both times

    deleted = forge("conversations", "delete", conv_id, input="y\n")
    assert deleted.returncode == 0
    assert deleted.stderr.endswith(f"Deleted {conv_id}\n")
    assert forge("conversations", "show", conv_id).returncode == 2


def test_config_set_api_key_reads_a_piped_key_without_warnings(forge: Run) -> None:
    """`pass show key | forge config set api_key`: the key was read through getpass, which
    printed Python's `GetPassWarning: Can not control echo on the terminal` and `Password input
    may be echoed`; an empty stdin ended as `forge: error: interrupted` (exit 130)."""
    secret = "sk-piped-0123456789"
    stored = forge("config", "set", "api_key", input=secret + "\n")
    assert stored.returncode == 0, stored.stderr
    assert "Warning" not in stored.stderr
    assert secret not in stored.stderr + stored.stdout
    assert stored.stderr.startswith("api_key = (hidden)  [profile default,")
    assert 'api_key = "(set)"' in forge("config", "show").stdout

    empty = forge("config", "set", "api_key", input="")
    assert empty.returncode == 2
    assert "no api_key on standard input" in _one_error_line(empty)


@pytest.mark.parametrize("command", ["ask", "chat"])
def test_no_model_for_the_chat_api_says_how_to_list_them(forge: Run, command: str) -> None:
    """The fix for "no model set for the chat API" needs a model name the server knows: the
    hint names the command that lists them, for this server."""
    url = "http://127.0.0.1:9/v1"
    args = [command, "--api", "chat", "--base-url", url, *(["hi"] if command == "ask" else [])]
    proc = forge(*args)
    assert proc.returncode == 2
    line = _one_error_line(proc)
    assert "no model set for the chat API" in line
    assert f"forge models --api chat --base-url {url}" in line


def test_the_model_hint_never_shows_url_credentials(forge: Run) -> None:
    proc = forge("ask", "--api", "chat", "--base-url", "http://me:s3cret@127.0.0.1:9/v1?k=v", "hi")
    line = _one_error_line(proc)
    assert "s3cret" not in line
    assert "k=v" not in line
    assert "--base-url http://127.0.0.1:9/v1`" in line
