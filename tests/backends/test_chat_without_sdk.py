"""The Chat Completions path never imports the openai SDK (docs/adr/0014-chat-path-http.md).

Importing the SDK cost ~0.8 s of CPU and ~18 MB on every ``--api chat`` run. A fresh interpreter
runs ``forge ask --api chat``, ``forge models --api chat`` and the local engine answering through
an upstream chat model against a loopback server (and another one a ``forge chat`` session), then
reports whether ``openai`` was imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

_SCRIPT = textwrap.dedent(
    """
    import contextlib, io, json, os, sys
    from forge_cli.cli.main import run
    from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

    results = {}
    with FakeChatServer([text_chunks("chat answer"), text_chunks("engine answer")]) as server:
        for name, args in (
            ("ask", ["ask", "--api", "chat", "--base-url", server.base_url, "-m", "m", "--plain",
                     "hi"]),
            ("models", ["models", "--api", "chat", "--base-url", server.base_url]),
        ):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = run(args)
            results[name] = [code, out.getvalue()]
        os.environ["FORGE_UPSTREAM_BASE_URL"] = server.base_url
        os.environ["FORGE_UPSTREAM_MODEL"] = "fake-model"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = run(["ask", "--api", "local", "--plain", "hi"])
        results["engine"] = [code, out.getvalue()]
        results["requests"] = len(server.requests)
    results["openai"] = sorted(name for name in sys.modules if name.split(".")[0] == "openai")
    print(json.dumps(results))
    """
)


def _env(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("FORGE_", "OPENAI_", "XDG_"))
    }
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"))
    env["XDG_DATA_HOME"] = str(home / "data")
    return env


def test_chat_path_does_not_import_the_openai_sdk(tmp_path: Path) -> None:
    env = _env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.splitlines()[-1])
    assert results["ask"] == [0, "chat answer\n"], proc.stderr
    assert results["models"][0] == 0
    assert results["models"][1].split() == ["fake-model"]
    assert results["engine"][0] == 0, proc.stderr
    assert "engine answer" in results["engine"][1]
    assert results["requests"] == 2  # both answers really came over HTTP (POST bodies)
    assert results["openai"] == []


_SESSION = (
    "import sys; from forge_cli.cli.main import run; code = run(sys.argv[1:]); "
    "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openai'), code, file=sys.stderr)"
)


def test_a_chat_session_does_not_import_the_openai_sdk(tmp_path: Path) -> None:
    from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

    with FakeChatServer([text_chunks("session answer")]) as server:
        args = ["chat", "--api", "chat", "--base-url", server.base_url, "-m", "m"]
        proc = subprocess.run(
            [sys.executable, "-c", _SESSION, *args],
            input="hello\n",
            capture_output=True,
            text=True,
            env=_env(tmp_path),
            timeout=120,
            check=False,
        )
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "session answer" in proc.stdout
    assert proc.stderr.splitlines()[-1] == "[] 0"
