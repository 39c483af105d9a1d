"""The test suite's backend hook: ``FORGE_TEST_BACKEND=script.json`` answers from a script.

The file holds ``{"scripts": [SCRIPT, ...]}``; a SCRIPT is a list of event objects (each with a
``type``) or the path of an ``.sse`` fixture (relative to the JSON file). An event of type
``forge.test.hang`` blocks until the turn is cancelled, so a terminal test can press Ctrl+C in
the middle of an answer. ``{"type": "forge.test.raise", "error": "auth"|"connect"|"limit"}``
raises the matching Forge error. Scripts are consumed in order; each process starts afresh.

Production code knows nothing of this: :func:`install` plugs it in through the CLI's
``set_backend_override`` seam. ``tests/conftest.py`` installs it for in-process runs, and
:data:`FORGE_COMMAND` (``tests/helpers/forge_main.py``) runs the real CLI in a subprocess or on
a pty with it installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from forge_cli.backends.base import Backend
from forge_cli.cli.build import set_backend_override
from forge_cli.config import Settings
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    ToolIterationLimitError,
    UsageError,
)
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.request import Request
from forge_cli.testing.scripted import ScriptedBackend, load_sse_fixture

__all__ = [
    "FORGE_COMMAND",
    "TEST_BACKEND_ENV",
    "HangingScriptedBackend",
    "install",
    "load_test_backend",
]

TEST_BACKEND_ENV = "FORGE_TEST_BACKEND"

FORGE_COMMAND = [sys.executable, str(Path(__file__).with_name("forge_main.py"))]
"""Runs ``forge`` (the real CLI ``main``) with this hook installed: use it instead of
``python -m forge_cli.cli`` for subprocess and pty tests."""

_ERRORS: dict[str, Exception] = {
    "auth": AuthError("the server refused the API key (401)", status_code=401, env_var="TEST_KEY"),
    "connect": BackendConnectionError(
        "could not connect to http://127.0.0.1:9/v1/responses: All connection attempts failed"
    ),
    "limit": ToolIterationLimitError("stopped after 1 tool iteration (limit 1)"),
}


class HangingScriptedBackend(ScriptedBackend):
    """A ScriptedBackend that understands the ``forge.test.*`` control events."""

    name = "scripted"
    stores_responses = False

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(request):
            if event.type == "forge.test.hang":
                await asyncio.Event().wait()
            elif event.type == "forge.test.raise":
                raise _ERRORS[str(event.data.get("error", "connect"))]
            else:
                yield event


def _script(entry: Any, base: Path) -> list[StreamEvent | dict[str, Any]]:
    if isinstance(entry, str):
        return list(load_sse_fixture(base / entry))
    if isinstance(entry, list):
        return [dict(step) for step in entry]
    raise UsageError(f"{TEST_BACKEND_ENV}: a script must be a list of events or an .sse path")


def load_test_backend(path: str) -> HangingScriptedBackend:
    """The scripted backend described by the JSON file at ``path``."""
    file = Path(path)
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{TEST_BACKEND_ENV}: cannot read {file}: {exc}") from None
    scripts = [_script(entry, file.parent) for entry in raw.get("scripts", [])]
    return HangingScriptedBackend(scripts)


def _from_env(settings: Settings) -> Backend | None:
    script = os.environ.get(TEST_BACKEND_ENV)
    return load_test_backend(script) if script else None


def install() -> None:
    """Make the CLI answer from ``$FORGE_TEST_BACKEND`` whenever that variable is set."""
    set_backend_override(_from_env)
