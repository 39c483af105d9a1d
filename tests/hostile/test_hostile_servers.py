"""``forge ask`` against a hostile server, on both APIs and in every scripted output mode.

Every run is a real child process with a capped address space (see ``conftest.py``). For each
fault the test states the exit code, the one line on stderr, that no traceback is shown, that
``--json``/``--jsonl`` stay parseable, and that the key is in no output and no file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import hostile
from helpers.loopback import LoopbackServer, ReplySource
from hostile.conftest import KEY, Run, ask_args, run_forge

APIS = ("responses", "chat")
MODES = ("--plain", "--json", "--jsonl")
GIB = 1 << 30


@dataclass(frozen=True)
class Fault:
    """One attack: the replies to serve, the expected exit code and a phrase of stderr."""

    name: str
    replies: Callable[[str], list[ReplySource]]
    code: int
    stderr: str | None
    shown: str | None = None
    env: tuple[tuple[str, str], ...] = ()


FAULTS = [
    Fault(
        "echoed key in an error body",
        lambda api: [hostile.echo_key_error_body(api)],
        1,
        "HTTP 400",
    ),
    Fault(
        "echoed key in an in-stream error",
        lambda api: [hostile.echo_key_in_stream(api)],
        1,
        "upstream refused Bearer ***",
        shown="partial",
    ),
    Fault(
        "gzip bomb as the stream",
        lambda api: [hostile.gzip_bomb_stream(api, GIB)],
        1,
        "limits.max_event_mb",
    ),
    Fault(
        "gzip bomb as an error body",
        lambda api: [hostile.gzip_bomb_error(api, GIB)],
        1,
        "HTTP 400",
    ),
    Fault(
        "a line over the limit",
        lambda api: [hostile.huge_line(api, 4 << 20)],
        1,
        "larger than 1 MiB",
        env=(("FORGE_MAX_EVENT_MB", "1"),),
    ),
    Fault(
        "an event nested 100 000 deep, then a good answer",
        lambda api: [hostile.deep_event(api, 100_000)],
        0,
        None,
        shown=hostile.ANSWER,
    ),
    Fault(
        "a clean close without the terminal event",
        lambda api: [hostile.truncated(api)],
        1,
        "ended before",
        shown="half an ans",
    ),
    Fault(
        "echoed key in the answer text",
        lambda api: [hostile.echo_key_in_answer(api)],
        0,
        None,
        shown="You sent Bearer ***, key ***.",
    ),
    Fault(
        "nothing but garbage",
        lambda api: [hostile.garbage(api)],
        1,
        "no valid",
    ),
]


def _check_output(run: Run, mode: str) -> None:
    if mode == "--json":
        document = json.loads(run.stdout)
        assert isinstance(document, dict)
    elif mode == "--jsonl":
        for line in run.stdout.splitlines():
            assert isinstance(json.loads(line), dict)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("fault", FAULTS, ids=[fault.name for fault in FAULTS])
def test_hostile_server(fault: Fault, api: str, mode: str, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add(*fault.replies(api))
        run = run_forge(
            ask_args(api, server.base_url, mode), tmp_path / "home", env=dict(fault.env)
        )
        sent = server.requests[0].headers.get("authorization", "")
    assert sent == f"Bearer {KEY}"  # the key really was sent, so an echo would carry it
    assert run.code == fault.code, run.stderr
    assert "Traceback" not in run.stderr
    assert "MemoryError" not in run.stderr
    if fault.stderr is not None:
        errors = [line for line in run.stderr.splitlines() if line.startswith("forge: error:")]
        assert len(errors) == 1, run.stderr
        assert fault.stderr in errors[0]
    if fault.shown is not None:
        assert fault.shown in run.stdout
    _check_output(run, mode)
    run.assert_key_absent()
    if mode == "--json" and fault.code == 1:
        assert json.loads(run.stdout)["status"] != "completed"


@pytest.mark.parametrize("api", APIS)
def test_debug_traceback_of_an_auth_error_is_redacted(api: str, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add(hostile.echo_key_error_body(api, status=401))
        run = run_forge(ask_args(api, server.base_url, "--plain", "--debug"), tmp_path / "home")
    assert run.code == 1
    assert "Traceback" in run.stderr  # --debug shows it ...
    assert "***" in run.stderr  # ... with the echoed key redacted
    run.assert_key_absent()


@pytest.mark.parametrize("api", APIS)
def test_debug_logs_of_tolerated_garbage_are_redacted(api: str, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add(hostile.garbage(api))
        run = run_forge(ask_args(api, server.base_url, "--jsonl", "--debug"), tmp_path / "home")
    assert run.code == 1
    assert "not json Bearer ***" in run.stderr  # the debug log shows the frame, redacted
    run.assert_key_absent()


def test_html_error_page_is_not_shown_on_chat(tmp_path: Path) -> None:
    from helpers.loopback import Reply

    page = "<html><body><h1>502 Bad Gateway</h1>" + "<p>nginx</p>" * 50 + "</body></html>"
    with LoopbackServer() as server:
        server.add(Reply(status=400, headers={"Content-Type": "text/html"}, body=page.encode()))
        run = run_forge(ask_args("chat", server.base_url, "--plain"), tmp_path / "home")
    assert run.code == 1
    assert "HTTP 400" in run.stderr
    assert "<html>" not in run.stderr
    assert "nginx" not in run.stderr


@pytest.mark.parametrize("api", APIS)
def test_redirects_are_followed_on_both_apis(api: str, tmp_path: Path) -> None:
    from helpers.loopback import Reply

    with LoopbackServer() as server:
        path = "/v1/chat/completions" if api == "chat" else "/v1/responses"
        target = f"{server.url}/moved{path}"
        server.add(Reply(status=307, headers={"Location": target}), hostile.answer_reply(api))
        run = run_forge(ask_args(api, server.base_url, "--plain"), tmp_path / "home")
        assert [request.path for request in server.requests] == [path, f"/moved{path}"]
    assert run.code == 0, run.stderr
    assert hostile.ANSWER in run.stdout


@pytest.mark.parametrize("api", APIS)
def test_chat_repl_survives_and_saves_failed_turns_without_the_key(
    api: str, tmp_path: Path
) -> None:
    """Every bad turn is saved, marked failed, and the next prompt still works."""
    home = tmp_path / "home"
    with LoopbackServer() as server:
        server.add(
            hostile.echo_key_in_stream(api),
            hostile.deep_event(api, 100_000),
            hostile.truncated(api),
            hostile.garbage(api),
            hostile.answer_reply(api, "the last answer"),
        )
        args = ["chat", "--api", api, "--base-url", server.base_url, "--api-key-env"]
        args += ["HOSTILE_KEY", "-m", "m"]
        lines = "".join(f"question {n}\n" for n in range(5))
        run = run_forge(args, home, stdin=lines)
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "the last answer" in run.stdout
    saved = [path for path, _ in run.files_text() if path.suffix == ".json"]
    conversations = [json.loads(path.read_text()) for path in saved if "conversations" in str(path)]
    assert len(conversations) == 1
    statuses = [turn["status"] for turn in conversations[0]["turns"]]
    assert statuses == ["failed", "completed", "failed", "failed", "completed"]
    run.assert_key_absent()
    conv_id = conversations[0]["id"]
    for args in (["conversations", "show", conv_id], ["conversations", "export", conv_id]):
        shown = run_forge(args, home)
        assert shown.code == 0, shown.stderr
        assert "question 0" in shown.stdout
        shown.assert_key_absent()
    exported = run_forge(["conversations", "export", "--format", "json", conv_id], home)
    assert exported.code == 0
    assert "Bearer ***" in exported.stdout
    exported.assert_key_absent()


def test_deeply_nested_config_exits_2(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "forge" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[profiles.default]\nmodel = " + "[" * 50_000 + "]" * 50_000 + "\n")
    run = run_forge(["ask", "--plain", "hi"], home, env={"FORGE_CONFIG": str(config)})
    assert run.code == 2, run.stderr
    assert "too deeply" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("api", APIS)
def test_response_size_limit_names_its_setting(api: str, tmp_path: Path) -> None:
    env = {"FORGE_MAX_RESPONSE_MB": "1", "FORGE_MAX_EVENT_MB": "8"}
    with LoopbackServer() as server:
        server.add(hostile.huge_line(api, 4 << 20))
        run = run_forge(ask_args(api, server.base_url, "--json"), tmp_path / "home", env=env)
    assert run.code == 1
    errors = [line for line in run.stderr.splitlines() if line.startswith("forge: error:")]
    assert len(errors) == 1, run.stderr
    assert "larger than 1 MiB once decompressed" in errors[0]
    assert "limits.max_response_mb" in errors[0]
    assert json.loads(run.stdout)["status"] == "failed"


def test_limits_settings_are_checked_and_become_limits() -> None:
    from forge_cli.config.settings import Settings, parse_value
    from forge_cli.errors import ConfigError

    assert parse_value("limits.max_event_mb", "32", source="test") == 32
    for bad in ("0", "-1", "1.5", "lots", "2000"):
        with pytest.raises(ConfigError, match=r"limits\.max_event_mb"):
            parse_value("limits.max_event_mb", bad, source="test")
    limits = Settings(limits_max_event_mb=2, limits_max_error_body_kb=3).limits()
    assert limits.max_event_bytes == 2 << 20
    assert limits.max_error_body_bytes == 3 << 10


def test_a_key_stored_in_the_profile_is_redacted_too(tmp_path: Path) -> None:
    """No environment variable holds it: the backend registers the key it reads."""
    home = tmp_path / "home"
    config = home / ".config" / "forge" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[profiles.default]\napi = "chat"\napi_key = "{KEY}"\n')
    config.chmod(0o600)
    with LoopbackServer() as server:
        server.add(hostile.echo_key_error_body("chat"))
        args = ["ask", "--base-url", server.base_url, "-m", "m", "--json", "hi"]
        env = {"FORGE_CONFIG": str(config), "HOSTILE_KEY": ""}
        run = run_forge(args, home, env=env)
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert run.code == 1, run.stderr
    assert "***" in run.stderr
    assert KEY not in run.stdout
    assert KEY not in run.stderr


def test_conversations_saved_before_redaction_are_shown_redacted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with LoopbackServer() as server:
        server.add(hostile.answer_reply("responses", "the answer"))
        args = ["chat", "--api", "responses", "--base-url", server.base_url, "-m", "m"]
        assert run_forge(args, home, stdin="hello\n").code == 0
    (saved,) = (home / ".local").rglob("conversations/*.json")
    saved.write_text(saved.read_text().replace("the answer", f"the key is {KEY}"))
    conv_id = saved.stem
    for args in (["conversations", "show", conv_id], ["conversations", "export", conv_id]):
        shown = run_forge(args, home)
        assert shown.code == 0, shown.stderr
        assert "the key is ***" in shown.stdout
        assert KEY not in shown.stdout


@pytest.mark.parametrize("api", APIS)
def test_an_event_just_under_the_default_limit_fits_in_the_memory_cap(
    api: str, tmp_path: Path
) -> None:
    """The defaults and the address-space cap agree: a 12 MiB answer in one event is served."""
    text = "word " * ((12 << 20) // 5)
    with LoopbackServer() as server:
        server.add(hostile.answer_reply(api, text))
        run = run_forge(ask_args(api, server.base_url, "--json"), tmp_path / "home")
    assert run.code == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["text"] == text


@pytest.mark.parametrize("api", APIS)
def test_error_bomb_through_an_environment_proxy_stays_bounded(api: str, tmp_path: Path) -> None:
    """An HTTP proxy from the environment bypasses Forge's transport; the bound still holds."""
    with LoopbackServer() as proxy:
        proxy.add(hostile.gzip_bomb_error(api, GIB))
        env = {"HTTP_PROXY": proxy.url, "http_proxy": proxy.url, "NO_PROXY": "", "no_proxy": ""}
        run = run_forge(
            ask_args(api, "http://forge.invalid/v1", "--plain"), tmp_path / "home", env=env
        )
        assert proxy.requests[0].path.startswith("http://forge.invalid/v1/")  # it was proxied
    assert run.code == 1, run.stderr
    assert "HTTP 400" in run.stderr
    assert "MemoryError" not in run.stderr


@pytest.mark.parametrize("size", [0, 5, 1 << 20, (3 << 20) + 7])
def test_the_gzip_bomb_inflates_to_exactly_its_text(size: int) -> None:
    """The bomb is assembled from repeated deflate blocks, not by deflating every byte: it must
    still be one valid gzip member (CRC-32 and length checked) of ``prefix`` + ``size`` × ``a``."""
    import gzip

    assert gzip.decompress(hostile.gzip_bomb(size, b"data: ")) == b"data: " + b"a" * size
