"""An API key that an HTTP header cannot carry (a pasted line break, a space, a typographic
quote) is refused before any request, as one line that says where the key came from and what is
wrong with it, never the key itself (exit 2, a configuration error)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer
from helpers.connect_probe import isolated_env  # type: ignore[import-not-found]
from helpers.testhook import FORGE_COMMAND as FORGE  # type: ignore[import-not-found]


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("sk-abc123\n", "a line break at its end"),
        ("sk-abc\r\n123", "a line break at character 7 of 11"),
        ("sk-abc 123", "a space at character 7 of 10"),
        ("sk-abc\u2019123", "a non-ASCII character at character 7 of 10"),
        ("sk-abc\x07123", "a control character at character 7 of 10"),
    ],
)
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_key_a_header_cannot_carry_is_refused_before_any_request(
    tmp_path: Path, key: str, problem: str, api: str
) -> None:
    env = {**isolated_env(tmp_path), "OPENAI_API_KEY": key}
    env.pop("FORGE_API_KEY", None)
    with FakeChatServer() as server:
        proc = subprocess.run(
            [*FORGE, "ask", "--api", api, "--base-url", server.base_url, "-m", "m", "hi"],
            capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
            timeout=60, check=False,
        )  # fmt: skip
        assert server.requests == []
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line == (
        f"forge: error: the API key in $OPENAI_API_KEY has {problem}, which an HTTP header "
        "cannot carry (hint: copy the key again)"
    )
    assert "abc" not in proc.stderr
