"""Suite-wide fixtures: a network guard (loopback only), an isolated HOME, the test backend hook,
no secret registered across tests, the anyio backend."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# A fixed width in the environment (pytest-xdist workers, some CI shells) would override the size
# of the pseudo-terminals the pty tests open: children must size themselves from their terminal.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_loopback(address: Any) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX paths are local
        return True
    host = address[0] if isinstance(address, tuple) and address else ""
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may not reach the network: {address!r}")
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may not reach the network: {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every connection that is not to a loopback address."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test gets its own HOME, data and config dirs, and no Forge/OpenAI env settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    for name in list(os.environ):
        if name.startswith(("FORGE_", "OPENAI_")) or name == "KNOWLEDGE_FORGE_URL":
            monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def _test_backend_hook() -> Iterator[None]:
    """In-process CLI runs answer from ``$FORGE_TEST_BACKEND`` when a test sets it."""
    from forge_cli.cli.build import set_backend_override
    from helpers.testhook import install

    install()
    yield
    set_backend_override(None)


@pytest.fixture(autouse=True)
def _no_secrets_between_tests() -> Iterator[None]:
    """Each test starts with no registered secret and leaves none behind: the registry is
    process-wide (a run registers its keys once), so without this a test's redaction would depend
    on which tests ran before it in the same worker."""
    from forge_cli.redact import clear_secrets

    clear_secrets()
    yield
    clear_secrets()


@pytest.fixture
def anyio_backend() -> str:
    """Run async tests on asyncio."""
    return "asyncio"


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def sse_dir() -> Path:
    """The hand-written SSE stream fixtures."""
    return FIXTURES / "sse"
