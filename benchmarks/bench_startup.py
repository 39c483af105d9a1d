"""Start-up time of the ``forge`` command, against ``python -c pass`` measured in the same run.

Measures the median wall time of ``forge --version``, ``forge --help``, shell completion (bash
runs ``forge`` on every Tab), ``forge ask`` (``--api responses`` and ``--api chat``) up to the
moment its first request reaches a loopback socket (a tiny server records the arrival time),
``forge chat`` until its prompt is drawn in a
pseudo-terminal and ``forge vs search`` on a small local store; then lists the heaviest imports of
the ask path (``-X importtime``). Targets: ``--version`` ≤ 100 ms and first request ≤ 250 ms
(medians), and issue 18's ratios to ``python -c pass`` in the same run: ``--version`` and
completion ≤ 4x, ``--help`` ≤ 6x (issue 28: click's own page), ask ≤ 15x (both APIs), chat ≤ 25x,
vs search ≤ 10x. Prints PASS/FAIL per target; exits 1 on a FAIL. ``forge vs search`` also has
issue 17's absolute target (≤ 150 ms p50).

``--baseline SRC`` measures another tree (a ``src`` directory holding ``forge_cli``, e.g. a
worktree of ``main``) in the same run, measurement by measurement, and prints both columns.
Every tree's modules are byte-compiled first: with ``PYTHONDONTWRITEBYTECODE`` set (as on some
shared machines) each run would otherwise compile all of Forge from source, which no installed
copy does.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--runs N] [--baseline SRC]``
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

FORGE = [sys.executable, "-m", "forge_cli.cli"]
TARGETS_MS = {
    "forge --version": 100.0,
    "forge ask → first request": 250.0,
    "forge vs search (local)": 150.0,
}
TARGETS_X = {
    "forge --version": 4.0,
    "forge --help": 6.0,
    "forge completion (Tab)": 4.0,
    "forge ask → first request": 15.0,
    "forge ask --api chat → first request": 15.0,
    "forge chat → prompt ready": 25.0,
    "forge vs search (local)": 10.0,
}
"""Issue 18: at most this many times ``python -c pass`` measured in the same run."""


def _env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "OPENAI_"))}
    env.update({"FORGE_DATA_DIR": tmp, "FORGE_CONFIG": os.path.join(tmp, "config.toml")})
    env.pop("KNOWLEDGE_FORGE_URL", None)
    return env


def _wall(cmd: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


class FirstByteServer:
    """Accepts connections on 127.0.0.1 and records when each one's first bytes arrive."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.arrivals: list[float] = []
        self.arrived = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                if conn.recv(65536):
                    self.arrivals.append(time.perf_counter())
                    self.arrived.set()
                conn.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                    b"Connection: close\r\n\r\n"
                )


STACK_FLOOR = """\
import asyncio, sys
import click
import httpx2
from pydantic import BaseModel, Field

class Body(BaseModel):
    model: str
    input: str = Field(default="")

async def send(url):
    async with httpx2.AsyncClient() as client:
        try:
            await client.post(url + "/responses", json=Body(model="m", input="hello").model_dump())
        except httpx2.HTTPError:
            pass

asyncio.run(send(sys.argv[1]))
"""
"""The same first request with only the chosen stack used the obvious way (click, pydantic,
httpx2's default transport, asyncio), measured in the same run. It was the floor under ``forge
ask``; since the first request is plain data (ADR-0020) ``forge ask`` gets below it, and the
figure says by how much."""


def _first_request(env: dict[str, str], runs: int, cmd_for: Any = None) -> float:
    server = FirstByteServer()
    url = f"http://127.0.0.1:{server.port}/v1"
    cmd = [*FORGE, "ask", "--api", "responses", "--base-url", url, "hello"]
    if cmd_for is not None:
        cmd = cmd_for(url)
    times = []
    for _ in range(runs):
        server.arrived.clear()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not server.arrived.wait(30):
            proc.kill()
            raise SystemExit("forge ask never sent a request")
        times.append(server.arrivals[-1] - start)
        proc.kill()
        proc.wait()
    return statistics.median(times) * 1000


def _completion_env(env: dict[str, str]) -> dict[str, str]:
    """What bash sets when Tab is pressed after ``forge a`` (click's bash completion)."""
    return {**env, "_FORGE_COMPLETE": "bash_complete", "COMP_WORDS": "forge a", "COMP_CWORD": "1"}


def _chat_prompt_ready(env: dict[str, str], runs: int) -> float:
    """``forge chat`` in a pseudo-terminal until its ``forge>`` prompt is drawn."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    server = FirstByteServer()  # never reached: the prompt comes before any request
    url = f"http://127.0.0.1:{server.port}/v1"
    cmd = [*FORGE, "chat", "--api", "responses", "--base-url", url]
    times = []
    for _ in range(runs):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color"},
            start_new_session=True,
        )
        os.close(slave)
        seen = b""
        ready = None
        while ready is None and time.perf_counter() - start < 30:
            readable, _, _ = select.select([master], [], [], 1.0)
            if readable:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                if b"forge>" in seen:
                    ready = time.perf_counter() - start
        proc.kill()
        proc.wait()
        os.close(master)
        if ready is None:
            raise SystemExit("forge chat never showed its prompt")
        times.append(ready)
    return statistics.median(times) * 1000


def _local_store(env: dict[str, str], tmp: str) -> None:
    """A small local vector store ``bench`` for ``forge vs search``."""
    docs = os.path.join(tmp, "docs")
    os.makedirs(docs, exist_ok=True)
    for i in range(20):
        with open(os.path.join(docs, f"note{i}.md"), "w") as handle:
            handle.write(f"# Note {i}\n\nKettles, streams and forges: paragraph {i}.\n" * 5)
    subprocess.run(
        [*FORGE, "vs", "create", "--api", "local", "bench", docs],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )


def _heaviest_imports(env: dict[str, str], top: int = 12) -> list[tuple[int, str]]:
    code = (
        "import sys\nfrom forge_cli.cli.main import cli\n"
        "from forge_cli.cli import cmd_ask, build\n"
        "from forge_cli.backends import ResponsesBackend\n"
        "from forge_cli.render import make_renderer\n"
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:top]


def _compile(env: dict[str, str]) -> None:
    """Byte-compile the ``forge_cli`` that ``env`` imports (see the module docstring)."""
    where = subprocess.run(
        [sys.executable, "-c", "import forge_cli, os; print(os.path.dirname(forge_cli.__file__))"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], env=env, check=True)


def _plan(env: dict[str, str], tmp: str, runs: int) -> dict[str, Callable[[], float]]:
    """Each measurement of one tree, to be run in this order."""

    def vs_search() -> float:
        _local_store(env, tmp)
        return _wall([*FORGE, "vs", "search", "--api", "local", "bench", "kettles"], env, runs)

    return {
        "python -c pass (baseline)": lambda: _wall([sys.executable, "-c", "pass"], env, runs),
        "forge --version": lambda: _wall([*FORGE, "--version"], env, runs),
        "forge --help": lambda: _wall([*FORGE, "--help"], env, runs),
        "stack floor → first request": lambda: _first_request(
            env, runs, lambda url: [sys.executable, "-c", STACK_FLOOR, url]
        ),
        "forge completion (Tab)": lambda: _wall(FORGE, _completion_env(env), runs),
        "forge ask → first request": lambda: _first_request(env, runs),
        "forge ask --api chat → first request": lambda: _first_request(
            env,
            runs,
            lambda url: [*FORGE, "ask", "--api", "chat", "--base-url", url, "-m", "m", "hello"],
        ),
        "forge chat → prompt ready": lambda: _chat_prompt_ready(env, max(3, runs // 3)),
        "forge vs search (local)": vs_search,
    }


def _verdicts(name: str, value: float, baseline: float) -> tuple[str, bool]:
    verdict, failed = "", False
    target = TARGETS_MS.get(name)
    if target is not None:
        ok = value <= target
        failed |= not ok
        verdict = f"  ≤ {target:.0f} ms: {'PASS' if ok else 'FAIL'}"
    factor = TARGETS_X.get(name)
    if factor is not None:
        ok = value / baseline <= factor
        failed |= not ok
        verdict += f"  ≤ {factor:g}x: {'PASS' if ok else 'FAIL'}"
    return verdict, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", metavar="SRC", help="Also measure this tree (its src dir).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as base_tmp:
        env = _env(tmp)
        _compile(env)
        base_env = None
        if args.baseline:
            base_env = {**_env(base_tmp), "PYTHONPATH": os.path.abspath(args.baseline)}
            _compile(base_env)
        plan = _plan(env, tmp, args.runs)
        base_plan = _plan(base_env, base_tmp, args.runs) if base_env is not None else None
        results: dict[str, float] = {}
        passes: dict[str, float] = {}
        before: dict[str, float] = {}
        python_pass = plan["python -c pass (baseline)"]
        for name, measure in plan.items():  # before and after side by side, in the same minute
            # The machine's speed drifts: each figure is compared with ``python -c pass``
            # measured right before it.
            passes[name] = python_pass()
            if base_plan is not None:
                before[name] = base_plan[name]()
            results[name] = measure()
        imports = _heaviest_imports(env)
    print(
        f"median of {args.runs} runs (ms); in brackets, the ratio to `python -c pass` measured "
        "just before it"
    )
    if before:
        print(f"  {'':<36} {'before':>8}          after")
    failed = False
    for name, value in results.items():
        verdict, bad = _verdicts(name, value, passes[name])
        failed |= bad
        was = f"{before[name]:8.1f}  [{before[name] / passes[name]:4.1f}x]  " if before else ""
        print(f"  {name:<36} {was}{value:8.1f}  [{value / passes[name]:4.1f}x]{verdict}")
    ours = results["forge ask → first request"] - results["stack floor → first request"]
    if ours >= 0:
        print(f"  forge's own share of the first request: {ours:.1f} ms above the stack floor")
    else:  # plain data before pydantic (ADR-0020)
        print(f"  forge's first request goes out {-ours:.1f} ms before the naive stack floor's")
    print("heaviest imports on the ask path (cumulative µs):")
    for micros, name in imports:
        print(f"  {micros:>9}  {name.strip()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
