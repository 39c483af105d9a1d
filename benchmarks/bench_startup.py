"""Start-up time of the ``forge`` command, against ``python -c pass`` measured in the same run.

Measures the median wall time of ``forge --version``, ``forge --help`` and of ``forge ask`` up to
the moment its first request reaches a loopback socket (a tiny server records the arrival time),
then lists the heaviest imports of the ask path (``-X importtime``). Targets: ``--version``
≤ 100 ms and first request ≤ 250 ms (medians). Prints PASS/FAIL per target; exits 1 on a FAIL.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--runs N]``
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
from typing import Any

FORGE = [sys.executable, "-m", "forge_cli.cli"]
TARGETS_MS = {"forge --version": 100.0, "forge ask → first request": 250.0}


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
"""The same first request with only the chosen stack (click, pydantic, httpx2, asyncio): the
floor under ``forge ask``, measured in the same run, so the figure shows what is ours."""


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


def _heaviest_imports(env: dict[str, str], top: int = 12) -> list[tuple[int, str]]:
    code = (
        "import sys\nfrom forge_cli.cli.main import cli\n"
        "from forge_cli.cli import cmd_ask, build\n"
        "from forge_cli.backends.responses_http import ResponsesBackend\n"
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(tmp)
        results = {
            "python -c pass (baseline)": _wall([sys.executable, "-c", "pass"], env, args.runs),
            "forge --version": _wall([*FORGE, "--version"], env, args.runs),
            "forge --help": _wall([*FORGE, "--help"], env, args.runs),
            "stack floor → first request": _first_request(
                env, args.runs, lambda url: [sys.executable, "-c", STACK_FLOOR, url]
            ),
            "forge ask → first request": _first_request(env, args.runs),
        }
        imports = _heaviest_imports(env)
    baseline = results["python -c pass (baseline)"]
    print(f"median of {args.runs} runs (ms); ratio to the baseline in brackets")
    failed = False
    for name, value in results.items():
        target = TARGETS_MS.get(name)
        verdict = ""
        if target is not None:
            ok = value <= target
            failed |= not ok
            verdict = f"  target ≤ {target:.0f} ms: {'PASS' if ok else 'FAIL'}"
        print(f"  {name:<28} {value:8.1f}  [{value / baseline:4.1f}x]{verdict}")
    ours = results["forge ask → first request"] - results["stack floor → first request"]
    print(f"  forge's own share of the first request: {ours:.1f} ms above the stack floor")
    print("heaviest imports on the ask path (cumulative µs):")
    for micros, name in imports:
        print(f"  {micros:>9}  {name.strip()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
