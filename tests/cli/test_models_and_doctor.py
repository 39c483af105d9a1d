"""Issue 14 item 4: `forge models` works on every backend, `forge doctor` contacts every
backend and the engine's upstream model server and says what mode the engine is in, and `/model`
lists the backend's models (and refuses names the built-in engine cannot answer as)."""

from __future__ import annotations

import io
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.conversations import Conversation
from forge_cli.repl import ChatSession
from forge_cli.testing.fake_chat_server import FakeChatServer
from helpers.loopback import LoopbackServer, Reply  # type: ignore[import-not-found]
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

Forge = Callable[..., subprocess.CompletedProcess[str]]


def test_models_on_a_chat_server_and_on_the_local_engine(forge: Forge) -> None:
    with FakeChatServer() as server:
        chat = forge("models", "--api", "chat", "--base-url", server.base_url)
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.split() == ["fake-model"]
    local = forge("models")
    assert local.returncode == 0, local.stderr
    assert "forge-retrieval" in local.stdout.split()


def test_doctor_fails_for_a_dead_chat_server(forge: Forge) -> None:
    proc = forge("doctor", "--api", "chat", "--base-url", "http://127.0.0.1:9/v1")
    assert proc.returncode == 1
    [backend] = [line for line in proc.stdout.splitlines() if line.split()[1] == "backend"]
    assert backend.startswith("FAIL")


def test_doctor_says_the_engine_is_retrieval_only(forge: Forge) -> None:
    proc = forge("doctor")
    assert proc.returncode == 0, proc.stdout
    [engine] = [line for line in proc.stdout.splitlines() if line.split()[1] == "engine"]
    assert engine.startswith("ok")
    assert "retrieval-only" in engine


def test_doctor_checks_the_engines_upstream_model(forge: Forge) -> None:
    with FakeChatServer() as server:
        url = server.base_url
        env = {"FORGE_UPSTREAM_BASE_URL": url, "FORGE_UPSTREAM_MODEL": "fake-model"}
        good = forge("doctor", env=env)
        wrong = forge("doctor", env={**env, "FORGE_UPSTREAM_MODEL": "missing-model"})
    dead = forge(
        "doctor",
        env={"FORGE_UPSTREAM_BASE_URL": "http://127.0.0.1:9/v1", "FORGE_UPSTREAM_MODEL": "m"},
    )
    assert good.returncode == 0, good.stdout
    assert f"answers with fake-model at {url}" in good.stdout
    assert wrong.returncode == 1
    assert "does not offer missing-model (it offers: fake-model)" in wrong.stdout
    assert dead.returncode == 1
    assert "upstream m at http://127.0.0.1:9/v1" in dead.stdout


@pytest.mark.anyio
async def test_model_command_lists_and_checks(tmp_path: Path) -> None:
    async def responder(request: object):  # type: ignore[no-untyped-def]  # never asked
        yield None

    async def models() -> list[str]:
        return ["forge-retrieval"]

    out = io.StringIO()
    session = ChatSession(Conversation(), responder, out=out)
    session.list_models = models
    session.default_model = "forge-retrieval"
    await session.handle_line("/model")
    assert "Models offered (1):" in out.getvalue()
    assert "* forge-retrieval" in out.getvalue()
    session.models_are_fixed = True
    await session.handle_line("/model gpt-foo")
    assert "cannot answer as 'gpt-foo'" in out.getvalue()
    assert session.settings.model is None


@pytest.mark.pty
@pytest.mark.parametrize("columns", [40, 100, 200])
def test_doctor_wraps_its_lines_at_word_boundaries(tmp_path: Path, columns: int) -> None:
    """At a terminal each check's text wraps under the text column, never cut mid-word by the
    terminal (at 40 columns the engine line read "answers a / re passages ... mode / l")."""
    import os
    import sys

    import pexpect
    import pyte

    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    child = TerminalSpawn(
        sys.executable,
        ["-m", "forge_cli.cli", "doctor"],
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(60, columns),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    screen = pyte.Screen(columns, 60)
    pyte.Stream(screen).feed(child.before or "")
    lines = [line.rstrip() for line in screen.display if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.startswith("ok    engine   "))
    end = next(i for i, line in enumerate(lines) if line.startswith("ok    store"))
    engine = lines[start:end]
    for line in engine:
        assert len(line) < columns, line  # a full row is the terminal wrapping the line
    for line in engine[1:]:
        assert line.startswith(" " * 15), line  # continued under the text column
    words = " ".join(" ".join(engine).split())
    assert words.startswith("ok engine retrieval-only: answers are passages from your documents")
    assert words.endswith("`engine.upstream_model NAME`")


def _failures(stdout: str) -> dict[str, list[str]]:
    """Each failed check's lines: its own line, then its advice ("fix: ...")."""
    failed: dict[str, list[str]] = {}
    name = ""
    for line in stdout.splitlines():
        if line.startswith(("ok", "FAIL")):
            name = line.split()[1] if line.startswith("FAIL") else ""
            if name:
                failed[name] = [line]
        elif name:
            failed[name].append(line.strip())
    return failed


def _one_advice(stdout: str, checks: set[str]) -> dict[str, str]:
    """Every failed check gives its advice once: no "(hint: ...)" on its line, one fix line."""
    failed = _failures(stdout)
    assert set(failed) == checks, stdout
    advice: dict[str, str] = {}
    for name, lines in failed.items():
        assert "hint:" not in " ".join(lines), lines
        [fix] = [line for line in lines if line.startswith("fix: ")]
        advice[name] = fix
    return advice


def test_doctor_gives_one_line_of_advice_for_a_dead_server(forge: Forge) -> None:
    """It printed "(hint: is the server running?)" and then "fix: is the server running? check
    --base-url": the same advice twice."""
    proc = forge("doctor", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1")
    assert proc.returncode == 1
    advice = _one_advice(proc.stdout, {"backend", "store"})
    assert advice == dict.fromkeys(
        ("backend", "store"), "fix: is the server running? check --base-url"
    )
    assert proc.stdout.count("is the server running?") == 2  # once per failed check


def test_doctor_gives_one_line_of_advice_for_a_refused_key_a_wrong_path_and_a_timeout(
    forge: Forge,
) -> None:
    never = threading.Event()  # the timeout case's server accepts and never answers
    replies = {
        "401": Reply.json(401, {"error": {"message": "Invalid API key"}}),
        "404": Reply.text(404, "no such route"),
        "timeout": Reply(hold_headers=never),
    }
    advice: dict[str, dict[str, str]] = {}
    for case, reply in replies.items():
        with LoopbackServer() as server:
            server.add(*[reply] * 8)
            proc = forge(
                "doctor",
                "--api",
                "responses",
                "--base-url",
                server.base_url,
                # The timeout case waits out the read timeout: a short one (the advice is the
                # point, not the number); the answered cases never wait.
                env={
                    "FORGE_TIMEOUT": "0.3" if case == "timeout" else "5",
                    "OPENAI_API_KEY": "",
                    "FORGE_API_KEY": "",
                },
            )
            if case == "timeout":  # the last case: the held replies may go now
                never.set()
        assert proc.returncode == 1
        advice[case] = _one_advice(proc.stdout, {"backend", "store"})
    for case, fixes in advice.items():
        for fix in fixes.values():
            assert "is the server running" not in fix, (case, fix)  # it answered (or accepted)
    assert set(advice["401"].values()) == {
        "fix: set the API key in the environment variable OPENAI_API_KEY"
    }
    assert "it usually ends in /v1" in advice["404"]["backend"]
    assert "it usually ends in /v1" in advice["404"]["store"]
    assert "raise the read timeout" in advice["timeout"]["backend"]


@pytest.mark.pty
def test_doctor_folds_a_long_url_under_its_text(tmp_path: Path) -> None:
    """At 40 columns the failed checks' URLs ran past the edge ("http://127.0.0.1:9/v1/mod" /
    "els:" back at column 0, and the config path likewise): they are folded under the text."""
    import os
    import sys

    import pexpect
    import pyte

    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "a-rather-long-directory-name" / "config.toml"),
    }
    child = TerminalSpawn(
        sys.executable,
        [
            "-m",
            "forge_cli.cli",
            "doctor",
            "--api",
            "responses",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 40),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1, child.before
    screen = pyte.Screen(40, 60)
    pyte.Stream(screen).feed(child.before or "")
    lines = [line.rstrip() for line in screen.display if line.strip()]
    for line in lines:
        assert len(line) < 40, line  # a full row is the terminal wrapping the line
        assert line.startswith(("ok    ", "FAIL  ", "      fix: ", " " * 11)), line  # hung under
    text = "".join(line.strip() for line in lines)
    assert "http://127.0.0.1:9/v1/models:" in text  # folded, not cut short
    assert "fix:isthe" in text.replace(" ", "")
