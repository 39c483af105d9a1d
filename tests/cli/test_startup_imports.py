"""What each start-up path has imported at the moment it is ready (ADR 0017).

``forge ask``: when its request is about to be sent (the probe stops the process at the socket's
``connect``), no renderer, terminal UI, SDK or numpy is loaded: they are imported after the
request went out (``forge_cli._lazy``). The probe can fail: it reports the modules that are
loaded by then (``test_the_probe_sees_what_loads_before_the_request``). The ``--version``,
``--help``, completion and ``forge vs search`` paths are checked in test_commands.py and
test_knowledge_light.py.
"""

from __future__ import annotations

from pathlib import Path

from helpers.connect_probe import loaded_at_connect

NOT_BEFORE_THE_REQUEST = (
    "rich",
    "prompt_toolkit",
    "openai",
    "numpy",
    "markdown_it",
    "forge_cli.render.rich_renderer",
    "forge_cli.stream.builder",
)

_ASK = ["ask", "--api", "responses", "--base-url", "http://127.0.0.1:9/v1", "--plain", "hi"]


def test_ask_sends_its_request_before_the_heavy_modules_load(tmp_path: Path) -> None:
    assert loaded_at_connect(tmp_path, NOT_BEFORE_THE_REQUEST, _ASK) == []


def test_the_probe_sees_what_loads_before_the_request(tmp_path: Path) -> None:
    """The probe reports modules that are loaded before the request (so the test above can
    fail)."""
    assert loaded_at_connect(tmp_path, ["click", "httpx2"], _ASK) == ["click", "httpx2"]
