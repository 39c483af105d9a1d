"""Forge against the peers users would pick instead, side by side, in one run.

Installs the peers (simonw/llm and shell-gpt from PyPI; aichat when a binary of it is on PATH,
since no registry reachable here ships one) into their own virtual environments under a cache
directory, then drives each client and Forge against the same loopback mock server in a real
pseudo-terminal (100x40):

- a 2,000-token and a 20,000-token Markdown answer (headings, paragraphs, lists, code, a table),
  streamed one token per event over Chat Completions (and, for Forge, over the Responses API
  too);
- a tool-call round trip (the model calls a function, the client runs it, the model answers),
  for the clients that can run a user's Python function from the command line;
- Forge's piped output (``--plain``), for the cost without a live view.

Per client and scenario it prints CPU seconds (user + system of the client process and its
children), wall seconds, max RSS, the time from the server sending the first token to that token
being painted on the terminal, and CPU(20k)/CPU(2k); then Forge's ratios to each peer from the
same run. Medians of ``--runs`` runs. The machine's speed drifts between runs: compare figures
only within one run.

Targets (issue 18), printed PASS/FAIL against the same-run figures: 20k-token CPU at least 4x less
than llm on both APIs, ``--plain`` at least 10x less, 2k-token at least 3x less on both APIs,
CPU(20k)/CPU(2k) <= 11, max RSS <= 60 MB, first token painted within 50 ms. Exit status 1 when a
target is missed, 2 when Forge itself could not run.

Run: ``.venv/bin/python benchmarks/bench_peers.py [--runs N] [--cache DIR] [--only NAME ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

COLUMNS, ROWS = 100, 40
FIRST_WORD = "Zephyrine"
"""The answer's first token: its appearance on the terminal is the first paint."""

PEERS = {
    "llm": {"package": "llm==0.36", "binary": "llm"},
    # shell-gpt 1.5 imports click without declaring it (typer no longer brings it).
    "shell-gpt": {"package": "shell-gpt click", "binary": "sgpt"},
}

TOOL_SOURCE = '''
def lookup_order(order_id: int) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"
'''


# --- the answer -------------------------------------------------------------------------------


_PROSE = (
    "the stream carries every token of a long answer through the client so that "
    "rendering speed shows rather than network speed while text keeps arriving"
)


def markdown_tokens(count: int) -> list[str]:
    """``count`` tokens of Markdown (about four characters each), starting with FIRST_WORD."""
    words = _PROSE.split()
    blocks: list[str] = [FIRST_WORD, " opens", " the", " answer.", "\n\n"]
    section = 0
    while len(blocks) < count:
        section += 1
        blocks.extend([f"## Section {section}", "\n\n"])
        for index in range(40):
            blocks.append(f" {words[(section + index) % len(words)]}")
            if index % 13 == 12:
                blocks.append(" **bold** and `code`.")
        blocks.append("\n\n")
        for item in range(4):
            blocks.extend(["- item", f" {item}", " with", " *emphasis*", "\n"])
        blocks.extend(["\n```python\n", "def f(x):\n", "    return x * 2\n", "```\n\n"])
        blocks.extend(["| a | b |\n", "|---|---|\n", f"| {section} | {section * 2} |\n\n"])
    return blocks[:count]


def _chat_chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "mock",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def chat_stream(tokens: list[str]) -> list[bytes]:
    """Chat Completions SSE events: role, one token per chunk, finish, usage, [DONE]."""
    events = [_chat_chunk({"role": "assistant", "content": ""})]
    events.extend(_chat_chunk({"content": token}) for token in tokens)
    events.append(_chat_chunk({}, "stop"))
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": len(tokens),
        "total_tokens": 10 + len(tokens),
    }
    tail = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "mock",
        "choices": [],
        "usage": usage,
    }
    events.append(b"data: " + json.dumps(tail).encode() + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    return events


def tool_call_stream() -> list[bytes]:
    """A Chat Completions stream that calls ``lookup_order(order_id=4711)``."""
    call = {
        "index": 0,
        "id": "call_bench",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": '{"order_id": 4711}'},
    }
    return [
        _chat_chunk({"role": "assistant", "content": None, "tool_calls": [call]}),
        _chat_chunk({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    data = {"type": kind, **data}
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def responses_stream(tokens: list[str]) -> list[bytes]:
    """A Responses API stream of one message, one ``output_text.delta`` per token."""
    text = "".join(tokens)
    base = {"id": "resp_bench", "object": "response", "model": "mock", "output": []}
    item = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    part = {"type": "output_text", "text": "", "annotations": []}
    done_part = {**part, "text": text}
    done_item = {**item, "status": "completed", "content": [done_part]}
    events = [
        _sse("response.created", {"response": {**base, "status": "in_progress"}}),
        _sse("response.output_item.added", {"output_index": 0, "item": item}),
        _sse(
            "response.content_part.added",
            {"item_id": "msg_bench", "output_index": 0, "content_index": 0, "part": part},
        ),
    ]
    events.extend(
        _sse(
            "response.output_text.delta",
            {"item_id": "msg_bench", "output_index": 0, "content_index": 0, "delta": token},
        )
        for token in tokens
    )
    usage = {"input_tokens": 10, "output_tokens": len(tokens), "total_tokens": 10 + len(tokens)}
    events.extend(
        [
            _sse(
                "response.output_text.done",
                {"item_id": "msg_bench", "output_index": 0, "content_index": 0, "text": text},
            ),
            _sse(
                "response.content_part.done",
                {"item_id": "msg_bench", "output_index": 0, "content_index": 0, "part": done_part},
            ),
            _sse("response.output_item.done", {"output_index": 0, "item": done_item}),
            _sse(
                "response.completed",
                {
                    "response": {
                        **base,
                        "status": "completed",
                        "output": [done_item],
                        "usage": usage,
                    }
                },
            ),
        ]
    )
    return events


# --- the mock server --------------------------------------------------------------------------


class MockServer:
    """Loopback server for both APIs; records when it sent each answer's first token."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.think = 0.0
        """Seconds between the reply's headers and its first token (a real model's latency)."""
        self.first_token_sent: list[float] = []
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "mock", "object": "model"}]})
                self._send(200, body.encode(), "application/json")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                server.requests += 1
                if self.path.rstrip("/").endswith("/responses"):
                    events = responses_stream(server.tokens)
                elif server.tokens == ["<tool>"]:
                    answered = any(m.get("role") == "tool" for m in request.get("messages", []))
                    events = chat_stream(markdown_tokens(200)) if answered else tool_call_stream()
                else:
                    events = chat_stream(server.tokens)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                if server.think:
                    self.wfile.flush()
                    time.sleep(server.think)
                sent_first = False
                batch: list[bytes] = []
                for event in events:
                    batch.append(event)
                    if not sent_first and FIRST_WORD.encode() in event:
                        self.wfile.write(b"".join(batch))
                        self.wfile.flush()
                        server.first_token_sent.append(time.perf_counter())
                        sent_first, batch = True, []
                    elif sum(map(len, batch)) >= 16384:
                        self.wfile.write(b"".join(batch))
                        batch = []
                self.wfile.write(b"".join(batch))
                self.wfile.flush()
                self.close_connection = True

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- running a client in a pty ------------------------------------------------------------------


@dataclass
class Run:
    cpu: float
    wall: float
    rss_mb: float
    first_paint: float | None
    ok: bool
    note: str = ""


def run_in_pty(cmd: list[str], env: dict[str, str], server: MockServer, *, piped: bool) -> Run:
    """Run ``cmd`` with a pty as its terminal (stdout piped when ``piped``); measure it."""
    import pty

    server.first_token_sent.clear()
    master, slave = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    stdout_r: int | None = None
    stdout_w: int | None = None
    if piped:
        stdout_r, stdout_w = os.pipe()
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdin=slave,
        stdout=stdout_w if piped else slave,
        stderr=slave,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    if stdout_w is not None:
        os.close(stdout_w)
    painted: float | None = None
    seen = b""
    fds = [master] + ([stdout_r] if stdout_r is not None else [])
    open_fds = set(fds)
    deadline = start + 300
    reaped: tuple[int, Any] | None = None
    while open_fds and time.perf_counter() < deadline:
        ready, _, _ = select.select(list(open_fds), [], [], 1.0)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                open_fds.discard(fd)
                continue
            if painted is None:
                seen = (seen + data)[-4096:]
                if FIRST_WORD.encode() in _strip_ansi(seen):
                    painted = time.perf_counter()
        if not ready:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                reaped = (status, usage)
                break
    if reaped is None:
        _, status, usage = os.wait4(proc.pid, 0)
    else:
        status, usage = reaped
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    cpu = usage.ru_utime + usage.ru_stime
    first = None
    if painted is not None and server.first_token_sent:
        first = max(0.0, painted - server.first_token_sent[0])
    code = os.waitstatus_to_exitcode(status)
    return Run(cpu, wall, usage.ru_maxrss / 1024, first, code == 0, f"exit {code}")


_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\r")


def _strip_ansi(data: bytes) -> bytes:
    return _ANSI.sub(b"", data)


# --- the clients --------------------------------------------------------------------------------


@dataclass
class Client:
    name: str
    argv: dict[str, list[str] | None]
    """Per scenario (``chat``, ``responses``, ``plain``, ``tool``): the command, or None."""
    env: dict[str, str] = field(default_factory=dict)


def _base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "OPENAI_", "LLM_"))}
    env.update(
        {
            "HOME": str(home),
            "TERM": "xterm-256color",
            "COLUMNS": str(COLUMNS),
            "LINES": str(ROWS),
            "OPENAI_API_KEY": "sk-bench",
        }
    )
    env.pop("NO_COLOR", None)
    return env


def forge_client(url: str, home: Path) -> Client:
    forge = [sys.executable, "-m", "forge_cli.cli", "ask"]
    tools = home / "forge_tools.py"
    tools.write_text(TOOL_SOURCE)
    env = _base_env(home)
    env.update(
        {"FORGE_DATA_DIR": str(home / "forge-data"), "FORGE_CONFIG": str(home / "forge.toml")}
    )
    chat = [*forge, "--api", "chat", "--base-url", url, "--model", "mock"]
    return Client(
        "forge",
        {
            "chat": [*chat, "Write it."],
            "responses": [
                *forge,
                "--api",
                "responses",
                "--base-url",
                url,
                "--model",
                "mock",
                "Write it.",
            ],
            "plain": [*chat, "--plain", "Write it."],
            "tool": [*chat, "--functions", str(tools), "--yes", "Where is order 4711?"],
        },
        env,
    )


def install_peer(name: str, cache: Path) -> Path | None:
    """The peer's executable in its own venv under ``cache`` (installed once), or None."""
    spec = PEERS[name]
    venv = cache / name
    binary = venv / "bin" / spec["binary"]
    if binary.exists():
        return binary
    print(f"  installing {name} into {venv} ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *spec["package"].split()],
            check=True,
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"  skipped {name}: cannot install ({detail.strip().splitlines()[-1:]})")
        shutil.rmtree(venv, ignore_errors=True)
        return None
    return binary if binary.exists() else None


def llm_client(binary: Path, url: str, home: Path) -> Client:
    user = home / "llm"
    user.mkdir(parents=True, exist_ok=True)
    (user / "extra-openai-models.yaml").write_text(
        f'- model_id: mock\n  model_name: mock\n  api_base: "{url}"\n  api_key_name: bench\n'
        "  supports_tools: true\n"
    )
    (user / "keys.json").write_text(json.dumps({"bench": "sk-bench"}))
    (user / "logs-off").write_text("")
    env = _base_env(home)
    env["LLM_USER_PATH"] = str(user)
    base = [str(binary), "-m", "mock", "--no-log"]
    return Client(
        "llm",
        {
            "chat": [*base, "Write it."],
            "responses": None,
            "plain": None,
            "tool": [*base, "--functions", TOOL_SOURCE, "Where is order 4711?"],
        },
        env,
    )


def sgpt_client(binary: Path, url: str, home: Path) -> Client:
    config = home / ".config" / "shell_gpt"
    config.mkdir(parents=True, exist_ok=True)
    (config / ".sgptrc").write_text(
        "\n".join(
            [
                "OPENAI_API_KEY=sk-bench",
                f"API_BASE_URL={url}",
                "DEFAULT_MODEL=mock",
                "OPENAI_USE_FUNCTIONS=false",
                "PRETTIFY_MARKDOWN=true",
                "DISABLE_STREAMING=false",
                "REQUEST_TIMEOUT=60",
                "CACHE_PATH=" + str(home / "sgpt-cache"),
                "CHAT_CACHE_PATH=" + str(home / "sgpt-chat"),
            ]
        )
        + "\n"
    )
    env = _base_env(home)
    env["API_BASE_URL"] = url
    return Client(
        "shell-gpt",
        {
            "chat": [str(binary), "--no-cache", "Write it."],
            "responses": None,
            "plain": None,
            "tool": None,
        },
        env,
    )


def aichat_client(url: str, home: Path) -> Client | None:
    binary = shutil.which("aichat")
    if binary is None:
        print("  skipped aichat: no aichat binary on PATH (no registry reachable here ships one)")
        return None
    config = home / ".config" / "aichat"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text(
        "model: mock:mock\nclients:\n- type: openai-compatible\n  name: mock\n"
        f"  api_base: {url}\n  api_key: sk-bench\n  models:\n  - name: mock\n"
    )
    return Client(
        "aichat",
        {"chat": [binary, "Write it."], "responses": None, "plain": None, "tool": None},
        _base_env(home),
    )


# --- the run ------------------------------------------------------------------------------------

SCENARIOS = [
    ("2k", "chat", 2000),
    ("20k", "chat", 20000),
    ("2k", "responses", 2000),
    ("20k", "responses", 20000),
    ("2k", "plain", 2000),
    ("20k", "plain", 20000),
    ("tool", "tool", 0),
]


def measure(
    clients: list[Client], server: MockServer, runs: int
) -> dict[str, dict[tuple[str, str], Run]]:
    """Per client and scenario, the median of ``runs`` runs. The clients take turns run by run,
    and the scenarios round by round (round 1: every scenario once for every client, then
    round 2, ...), so a drift or a burst in the machine's load weighs on all clients and all
    scenarios alike instead of on whichever was measured then (a burst of a few seconds used to
    fall on every run of one scenario and move its median)."""
    samples: dict[str, dict[tuple[str, str], list[Run]]] = {c.name: {} for c in clients}
    answers = {
        count: ["<tool>"] if mode == "tool" else markdown_tokens(count)
        for _, mode, count in SCENARIOS
    }
    for _ in range(runs):
        for size, mode, count in SCENARIOS:
            server.tokens = answers[count]
            for client in clients:
                argv = client.argv.get(mode)
                if argv is None:
                    continue
                run = run_in_pty(argv, client.env, server, piped=mode == "plain")
                samples[client.name].setdefault((size, mode), []).append(run)
    table: dict[str, dict[tuple[str, str], Run]] = {}
    for name, scenarios in samples.items():
        results = table[name] = {}
        for key, runs_of_key in scenarios.items():
            good = [s for s in runs_of_key if s.ok]
            if not good:
                results[key] = Run(0, 0, 0, None, False, runs_of_key[-1].note)
                continue
            paints = [s.first_paint for s in good if s.first_paint is not None]
            results[key] = Run(
                statistics.median(s.cpu for s in good),
                statistics.median(s.wall for s in good),
                max(s.rss_mb for s in good),
                statistics.median(paints) if paints else None,
                True,
            )
    return table


def _fmt(run: Run | None) -> str:
    if run is None:
        return f"{'-':>34}"
    if not run.ok:
        return f"{'failed (' + run.note + ')':>34}"
    paint = "-" if run.first_paint is None else f"{run.first_paint * 1000:.0f}ms"
    return f"{run.cpu:6.2f}s {run.wall:6.2f}s {run.rss_mb:5.0f}MB {paint:>7}"


def report(table: dict[str, dict[tuple[str, str], Run]]) -> bool:
    print(f"\n{'client':<10} {'scenario':<14} {'cpu':>7} {'wall':>7} {'rss':>7} {'1st paint':>9}")
    for name, results in table.items():
        for (size, mode), run in results.items():
            label = f"{size} {mode}" if mode != "tool" else "tool round trip"
            print(f"{name:<10} {label:<14} {_fmt(run)}")
        for mode in ("chat", "responses", "plain"):
            small, large = results.get(("2k", mode)), results.get(("20k", mode))
            if small and large and small.ok and large.ok and small.cpu > 0:
                print(f"{name:<10} {'cpu 20k/2k':<14} {large.cpu / small.cpu:7.1f}  ({mode})")
    forge = table.get("forge", {})
    ok = True
    llm = table.get("llm", {})

    def check(label: str, passed: bool, detail: str) -> None:
        nonlocal ok
        ok &= passed
        print(f"  {'PASS' if passed else 'FAIL'}  {label}: {detail}")

    print("\nForge against each peer (same run; peer CPU / Forge CPU):")
    for peer, results in table.items():
        if peer == "forge":
            continue
        if peer.startswith("forge@"):  # the same Forge scenarios, like for like
            for key, before in results.items():
                now = forge.get(key)
                if now and now.ok and before.ok and now.cpu > 0:
                    scenario = "tool round trip" if key[0] == "tool" else f"{key[0]} forge {key[1]}"
                    print(f"  vs {peer:<10} {scenario:<24} {before.cpu / now.cpu:5.1f}x less CPU")
            continue
        for key, run in results.items():
            for mode in ("chat", "responses", "plain"):
                ours = forge.get((key[0], mode))
                if key[1] != "chat" and key != ("tool", "tool"):
                    continue
                if key == ("tool", "tool"):
                    ours = forge.get(key)
                    if mode != "chat":
                        continue
                if ours and ours.ok and run.ok and ours.cpu > 0:
                    what = "tool round trip" if key[0] == "tool" else f"{key[0]} forge {mode}"
                    print(f"  vs {peer:<10} {what:<24} {run.cpu / ours.cpu:5.1f}x less CPU")
    print("\nTargets (issue 18):")
    if llm:
        for size, factor in (("20k", 4.0), ("2k", 3.0)):
            theirs = llm.get((size, "chat"))
            for mode in ("chat", "responses"):
                ours = forge.get((size, mode))
                if theirs and ours and theirs.ok and ours.ok:
                    ratio = theirs.cpu / ours.cpu
                    check(
                        f"{size} {mode} CPU ≥ {factor:g}x less than llm",
                        ratio >= factor,
                        f"{ratio:.1f}x",
                    )
        theirs, ours = llm.get(("20k", "chat")), forge.get(("20k", "plain"))
        if theirs and ours and theirs.ok and ours.ok:
            ratio = theirs.cpu / ours.cpu
            check("20k --plain CPU ≥ 10x less than llm", ratio >= 10, f"{ratio:.1f}x")
    else:
        print("  (llm was not measured: the ratio targets are not checked)")
    for mode in ("chat", "responses", "plain"):
        small, large = forge.get(("2k", mode)), forge.get(("20k", mode))
        if small and large and small.ok and large.ok:
            scale = large.cpu / small.cpu
            check(f"forge {mode} CPU(20k)/CPU(2k) ≤ 11", scale <= 11, f"{scale:.1f}")
    rss = max((r.rss_mb for r in forge.values() if r.ok), default=0.0)
    check("forge max RSS ≤ 60 MB", rss <= 60, f"{rss:.0f} MB")
    paints = [
        r.first_paint
        for (s, m), r in forge.items()
        if r.ok and r.first_paint is not None and m in ("chat", "responses")
    ]
    if paints:
        worst = max(paints) * 1000
        check("forge first token painted ≤ 50 ms after it was sent", worst <= 50, f"{worst:.0f} ms")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    default_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "forge-bench"
    parser.add_argument("--cache", type=Path, default=default_cache / "peers")
    parser.add_argument("--only", nargs="*", help="clients to run (forge, llm, shell-gpt, aichat)")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help="also measure the Forge in SRC (a checkout's src/ folder) as 'forge@base', for "
        "before/after figures from the same run",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the mock server waits this long before the first token, like a model thinking "
        "(default 0: the first token follows the headers at once)",
    )
    args = parser.parse_args()
    wanted = set(args.only or ["forge", "llm", "shell-gpt", "aichat"])
    args.cache.mkdir(parents=True, exist_ok=True)
    server = MockServer()
    server.think = args.think
    table: dict[str, dict[tuple[str, str], Run]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            clients: list[Client] = []
            if "forge" in wanted:
                clients.append(forge_client(server.url, home))
            if args.baseline is not None:
                base = forge_client(server.url, home)
                base.name = "forge@base"
                base.env["PYTHONPATH"] = str(args.baseline.resolve())
                clients.append(base)
            if "llm" in wanted and (binary := install_peer("llm", args.cache)):
                clients.append(llm_client(binary, server.url, home))
            if "shell-gpt" in wanted and (binary := install_peer("shell-gpt", args.cache)):
                clients.append(sgpt_client(binary, server.url, home))
            if "aichat" in wanted and (aichat := aichat_client(server.url, home)):
                clients.append(aichat)
            print(
                f"pty {COLUMNS}x{ROWS}, median of {args.runs} runs; python {sys.version.split()[0]}"
                f"; server think time {args.think:g} s"
            )
            names = ", ".join(c.name for c in clients)
            print(f"  measuring {names} (taking turns, every scenario each round) ...", flush=True)
            table.update(measure(clients, server, args.runs))
    finally:
        server.close()
    forge = table.get("forge")
    if forge is not None and not any(run.ok for run in forge.values()):
        report(table)
        print("forge itself failed to run")
        return 2
    return 0 if report(table) else 1


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    sys.exit(main())
