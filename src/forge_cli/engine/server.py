"""Running ``forge serve``: uvicorn in the foreground, or in a background thread (tests, embedding).

Binding anything but a loopback address requires a bearer token: the API reads and writes the
user's documents.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp

from forge_cli.engine.app import create_app
from forge_cli.engine.config import EngineConfig
from forge_cli.engine.engine import Engine
from forge_cli.engine.guard import DEFAULT_MAX_BODY_BYTES, MULTIPART_SLACK, GuardPolicy
from forge_cli.engine.store import open_store
from forge_cli.errors import UsageError
from forge_cli.knowledge import KnowledgeStore

__all__ = [
    "BackgroundServer",
    "ServeAccess",
    "check_bind",
    "is_loopback",
    "listen",
    "run_server",
]


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token (``UsageError``, exit 2)."""
    if not is_loopback(host) and not token:
        raise UsageError(
            f"refusing to serve on {host} without a token",
            hint="pass --token T (clients send 'Authorization: Bearer T'), or bind 127.0.0.1",
        )


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``, or a ``UsageError`` (exit 2) naming the address.

    ``forge serve`` binds before it opens the store or prints its banner, so a port another
    program holds is one line, not a banner followed by uvicorn's log and its own exit code.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        shown = f"[{host.strip('[]')}]" if ":" in host else host
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"cannot listen on {shown}:{port}: the port is in use",
                hint="stop the program using it, or pass --port N",
            ) from None
        raise UsageError(
            f"cannot listen on {shown}:{port}: {exc.strerror or exc}",
            hint="pass another --host or --port",
        ) from None
    return sock


@dataclass(frozen=True, slots=True)
class ServeAccess:
    """Who may reach ``forge serve`` besides loopback clients (``serve.*`` settings)."""

    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES

    def policy(self, engine: Engine, host: str, port: int | None) -> GuardPolicy:
        """The request guard for ``engine`` bound to ``host:port``."""
        return GuardPolicy(
            host=host,
            port=port,
            allowed_hosts=self.allowed_hosts,
            allowed_origins=self.allowed_origins,
            max_body_bytes=self.max_body_bytes,
            max_upload_bytes=engine.store.max_file_bytes + MULTIPART_SLACK,
        )


def _uvicorn_config(app: ASGIApp, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="off"
    )


def run_server(
    host: str = "127.0.0.1",
    port: int = 9999,
    token: str | None = None,
    store_path: str | os.PathLike[str] | None = None,
    config: EngineConfig | None = None,
    access: ServeAccess | None = None,
    on_ready: Callable[[], None] | None = None,
    extend: Callable[[Starlette, KnowledgeStore], None] | None = None,
) -> None:
    """Serve the local engine until interrupted (blocks; Ctrl+C stops it cleanly).

    The port is bound first: a busy one is a ``UsageError`` before anything else happens.
    ``on_ready`` runs once the bind was accepted and the store opened (the CLI prints its banner
    there, so a refused bind never shows one). ``extend`` may add routes to the app (``/mcp``);
    they sit behind the app's middleware (token, Host and Origin checks).
    """
    check_bind(host, token)
    sock = listen(host, port)
    config = config or EngineConfig.from_env()
    access = access or ServeAccess()
    with sock, open_store(store_path, config) as store:
        engine = Engine(store, config)
        engine.ensure_seeded()
        app = create_app(engine, token=token, guard=access.policy(engine, host, port))
        if extend is not None:
            extend(app, store)
        if on_ready is not None:
            on_ready()
        uvicorn.Server(_uvicorn_config(app, host, port)).run(sockets=[sock])


class BackgroundServer:
    """An ASGI app (by default ``forge serve`` of ``engine``) in a daemon thread, as a context
    manager.

    The listening socket is bound before the thread starts, so clients may connect at once (the
    kernel queues connections until uvicorn accepts them) -- nothing needs to wait for start-up.
    """

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        app: ASGIApp | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        access: ServeAccess | None = None,
    ) -> None:
        check_bind(host, token)
        if app is None and engine is None:
            raise UsageError("BackgroundServer needs an engine or an app")
        self._socket = listen(host, port)
        self.host, self.port = self._socket.getsockname()[:2]
        if app is None:
            assert engine is not None
            policy = (access or ServeAccess()).policy(engine, self.host, self.port)
            app = create_app(engine, token=token, guard=policy)
        self._server = uvicorn.Server(_uvicorn_config(app, self.host, self.port))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"{self.url}/v1"

    def start(self) -> BackgroundServer:
        """Start serving."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask uvicorn to exit and wait for its thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        self._socket.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
