"""N sequential POSTs over one kept-alive plain-http connection: the client's CPU per request,
against a minimal keep-alive server in another process. Compare trees in the same run with
PYTHONPATH:

    PYTHONPATH=/tmp/base/src .venv/bin/python benchmarks/bench_keepalive.py
    PYTHONPATH=src .venv/bin/python benchmarks/bench_keepalive.py
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

SERVER = r"""
import socket, sys
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
print(listener.getsockname()[1], flush=True)
conn, _ = listener.accept()
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
buffered = b""
while True:
    while b"\r\n\r\n" not in buffered or len(buffered.split(b"\r\n\r\n", 1)[1]) < 7:
        data = conn.recv(65536)
        if not data:
            sys.exit(0)
        buffered += data
    head, rest = buffered.split(b"\r\n\r\n", 1)
    buffered = rest[7:]
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
"""


async def main(n: int = 3000) -> None:
    from forge_cli.backends.http.client import build_client

    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = f"http://127.0.0.1:{server.stdout.readline().strip()}/x"
    try:
        async with build_client(connect_timeout=5, read_timeout=5, trust_env=False) as client:
            for _ in range(200):
                await client.post(url, json={"q": 1})
            start = time.process_time()
            for _ in range(n):
                await client.post(url, json={"q": 1})
            spent = time.process_time() - start
    finally:
        server.wait(5)
    print(f"{spent / n * 1e6:.1f} us/request (client CPU)")


if __name__ == "__main__":
    asyncio.run(main())
