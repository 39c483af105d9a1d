"""The public surface of forge_cli.agent and forge_cli.tools is listed once and importable."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "name",
    ["forge_cli.agent", "forge_cli.agent.drivers", "forge_cli.tools", "forge_cli.tools.builtin"],
)
def test_all_is_sorted_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported, key=lambda n: (not n.isupper(), n))
    for item in exported:
        assert hasattr(module, item), item


def test_importing_the_agent_and_chat_backend_loads_no_sdk() -> None:
    code = (
        "import sys, forge_cli.agent, forge_cli.tools, forge_cli.backends.chat.backend; "
        "print(sorted(m for m in ('openai', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
