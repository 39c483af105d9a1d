"""Issue 14 item 6: saved instruction templates (`forge templates`, `--template NAME`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

Forge = Callable[..., subprocess.CompletedProcess[str]]

PIRATE = '+++\nmodel = "pirate-model"\neffort = "low"\n+++\nAnswer like a pirate.\n'


def _ask(forge: Forge, server: FakeChatServer, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ["ask", "--api", "chat", "--base-url", server.base_url, *extra, "--plain", "Hello?"]
    return forge(*args)


def test_a_template_sets_instructions_and_settings(forge: Forge, tmp_path: Path) -> None:
    saved = forge("templates", "save", "pirate", input=PIRATE)
    assert saved.returncode == 0, saved.stderr
    path = tmp_path / "templates" / "pirate.md"
    assert path.read_text() == PIRATE
    assert path.stat().st_mode & 0o777 == 0o600
    with FakeChatServer() as server:
        server.add(text_chunks("Arr."))
        proc = _ask(forge, server, "--template", "pirate")
    assert proc.returncode == 0, proc.stderr
    body = server.requests[0]
    assert body["model"] == "pirate-model"
    assert body["messages"][0] == {"role": "system", "content": "Answer like a pirate."}


def test_flags_beat_the_template_and_the_template_beats_env(forge: Forge) -> None:
    forge("templates", "save", "pirate", input=PIRATE)
    with FakeChatServer() as server:
        server.add(text_chunks("Arr."))
        server.add(text_chunks("Arr."))
        env_run = forge(
            "ask", "--api", "chat", "--base-url", server.base_url, "--template", "pirate",
            "--plain", "Hello?", env={"FORGE_MODEL": "env-model"},
        )  # fmt: skip
        flag_run = _ask(forge, server, "--template", "pirate", "--model", "flag-model")
    assert env_run.returncode == 0, env_run.stderr
    assert flag_run.returncode == 0, flag_run.stderr
    assert server.requests[0]["model"] == "pirate-model"
    assert server.requests[1]["model"] == "flag-model"


def test_an_unknown_template_is_a_usage_error_naming_the_known_ones(forge: Forge) -> None:
    forge("templates", "save", "terse", "One", "sentence.")
    proc = forge("ask", "--template", "nope", "hi")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "forge: error: no template 'nope' (templates: terse) "
        "(hint: create it with `forge templates save nope TEXT`)"
    ]


def test_bad_templates_are_refused_when_saved(forge: Forge) -> None:
    secret = forge("templates", "save", "bad", input='+++\napi_key = "sk-1"\n+++\nhi\n')
    assert secret.returncode == 2
    assert "secret" in secret.stderr
    unknown = forge("templates", "save", "bad", input="+++\nmodle = 'x'\n+++\nhi\n")
    assert unknown.returncode == 2
    assert "unknown setting 'modle'" in unknown.stderr
    unclosed = forge("templates", "save", "bad", input="+++\nmodel = 'x'\nhi\n")
    assert unclosed.returncode == 2
    assert "never closed" in unclosed.stderr
    name = forge("templates", "save", "../escape", "x")
    assert name.returncode == 2
    assert "bad template name" in name.stderr


def test_list_show_overwrite_and_delete(forge: Forge) -> None:
    assert forge("templates", "save", "terse", "Answer", "briefly.").returncode == 0
    again = forge("templates", "save", "terse", "Other.")
    assert again.returncode == 2
    assert "--force" in again.stderr
    assert forge("templates", "save", "terse", "--force", "Be brief.").returncode == 0
    listing = forge("templates", "list")
    assert listing.stdout == "terse  Be brief.\n"
    assert forge("templates", "show", "terse").stdout == "Be brief.\n"
    assert forge("templates", "delete", "terse").returncode == 0
    assert forge("templates", "show", "terse").returncode == 2
