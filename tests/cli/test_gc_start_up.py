"""The cyclic garbage collector is off while ``forge`` starts and back on, with start-up's
objects frozen out of its reach, before a command's own work runs (``forge_cli._lazy``,
"no garbage collection while the process starts").

Checked from inside the real command (``python -m forge_cli.cli``, the console script's entry):
a probe run before it wraps a function the command calls while it starts and one it calls for
its work, and reports the collector's state in each.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks

ASK_PROBE = """
import gc, importlib, runpy, sys

def report(where):
    on = gc.isenabled()
    frozen = gc.get_freeze_count() > 10_000
    print(f"PROBE {where} on={on} frozen={frozen}", file=sys.stderr, flush=True)

build = importlib.import_module("forge_cli.cli.build")
view_factory = build.build_view_factory
def build_view_factory(*args, **kwargs):
    report("start-up")
    return view_factory(*args, **kwargs)
build.build_view_factory = build_view_factory

turn = importlib.import_module("forge_cli.agent.turn")
run_turn = turn.run_turn
async def probed_run_turn(*args, **kwargs):
    report("turn")
    return await run_turn(*args, **kwargs)
turn.run_turn = probed_run_turn

sys.argv = ["forge", *sys.argv[1:]]
runpy.run_module("forge_cli.cli", run_name="__main__")
"""


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }


def test_the_collector_is_off_while_ask_starts_and_on_for_its_turn(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Hello there."))
        proc = subprocess.run(
            [sys.executable, "-c", ASK_PROBE, "ask", "--api", "chat", "--base-url",
             server.base_url, "-m", "m", "--plain", "Hi?"],
            capture_output=True, text=True, env=_env(tmp_path), timeout=60, check=False,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Hello there.")
    probes = [line for line in proc.stderr.splitlines() if line.startswith("PROBE")]
    assert probes == [
        "PROBE start-up on=False frozen=False",
        "PROBE turn on=True frozen=True",  # start-up's objects are never scanned again
    ], proc.stderr


def test_a_command_without_a_warm_up_runs_with_the_collector_on(tmp_path: Path) -> None:
    probe = (
        "import gc, importlib, runpy, sys\n"
        "cli_main = importlib.import_module('forge_cli.cli.main')\n"
        "seen = []\n"
        "real = cli_main.LazyGroup.get_command\n"
        "def get_command(self, ctx, name):\n"
        "    command = real(self, ctx, name)\n"
        "    callback = command.callback\n"
        "    def probed(*args, **kwargs):\n"
        "        seen.append((gc.isenabled(), gc.get_freeze_count() > 10_000))\n"
        "        return callback(*args, **kwargs)\n"
        "    command.callback = probed\n"
        "    return command\n"
        "cli_main.LazyGroup.get_command = get_command\n"
        "sys.argv = ['forge', 'conversations', 'list']\n"
        "try:\n"
        "    runpy.run_module('forge_cli.cli', run_name='__main__')\n"
        "finally:\n"
        "    print('PROBE', seen, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True, text=True, env=_env(tmp_path), timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "PROBE [(True, True)]" in proc.stderr.splitlines(), proc.stderr
