"""Run ``forge`` for real in a child process with a capped address space, against loopback.

Each run gets its own HOME (so every file Forge writes can be searched for the key afterwards)
and an API key in ``HOSTILE_KEY``. ``RLIMIT_AS`` is set in the child before it starts, so a
client that inflated a bomb or buffered a huge line would die with ``MemoryError`` instead of
passing.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_TESTS_DIR = str(Path(__file__).resolve().parents[1])
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

KEY = "sk-hostile-S3CRET-0123456789abcdef"
"""The API key every run sends; it must never come back out."""

ADDRESS_SPACE = 400 * 1024 * 1024
"""The child's whole address space: a client with its default limits needs far less (it peaks
near 100 MiB of RSS); inflating any of the 1 GiB bombs would need more."""

# Refuses every non-loopback connection in the child, like the suite's guard does here.
GUARD = """
import socket, runpy, sys
real = socket.socket.connect
def connect(self, address):
    host = address[0] if isinstance(address, tuple) else ""
    if isinstance(address, tuple) and host not in ("127.0.0.1", "::1", "localhost"):
        raise ConnectionRefusedError(f"no network in this test: {address!r}")
    return real(self, address)
socket.socket.connect = connect
sys.argv = ["forge", *sys.argv[1:]]
runpy.run_module("forge_cli.cli", run_name="__main__")
"""


@dataclass
class Run:
    """What a child ``forge`` did."""

    code: int
    stdout: str
    stderr: str
    home: Path

    def files_text(self) -> Iterable[tuple[Path, str]]:
        """Every file the run left under its HOME, as text."""
        for path in self.home.rglob("*"):
            if path.is_file():
                yield path, path.read_bytes().decode("utf-8", errors="replace")

    def assert_key_absent(self) -> None:
        """The key is in no output and no file (the bare key, or with its Bearer prefix)."""
        assert KEY not in self.stdout, self.stdout[-2000:]
        assert KEY not in self.stderr, self.stderr[-2000:]
        for path, text in self.files_text():
            assert KEY not in text, path


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_forge(
    args: list[str],
    home: Path,
    *,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> Run:
    """``forge ARGS`` in a child process with the key set and the address space capped."""
    home.mkdir(parents=True, exist_ok=True)
    child_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("FORGE_", "OPENAI_", "XDG_")) and k != "KNOWLEDGE_FORGE_URL"
    }
    child_env.update({"HOME": str(home), "HOSTILE_KEY": KEY, "COLUMNS": "100", **(env or {})})
    child_env = {name: value for name, value in child_env.items() if value}
    proc = subprocess.run(
        [sys.executable, "-c", GUARD, *args],
        env=child_env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=_limit_address_space,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr, home)


def ask_args(api: str, base_url: str, mode: str, *extra: str) -> list[str]:
    """``forge ask`` against a loopback server with the hostile key."""
    return [
        "ask",
        "--api",
        api,
        "--base-url",
        base_url,
        "--api-key-env",
        "HOSTILE_KEY",
        "-m",
        "m",
        mode,
        *extra,
        "What is up?",
    ]
