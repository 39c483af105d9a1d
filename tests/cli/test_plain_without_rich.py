"""``forge ask --plain`` (and ``--json``, ``--jsonl``) with an answer that is only text imports no
rich module (issue 18, ADR-0023); a client-side function call, whose status line is drawn
by a colourless rich console, does load it (so the probe can fail).

The probe runs the real CLI in a subprocess against a loopback chat server and reports, from an
``atexit`` hook (the CLI runs those even when it leaves with ``os._exit``), which ``rich``
modules are in ``sys.modules`` at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from helpers.connect_probe import isolated_env

_PROBE = """
import atexit, json, sys
def report():
    loaded = sorted(m for m in sys.modules if m == "rich" or m.startswith("rich."))
    sys.stderr.write("RICH-AT-EXIT " + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
atexit.register(report)
from forge_cli.cli.entry import main
main(sys.argv[1:])
"""

TOOLS = '''
from forge_cli.tools import tool


@tool
def lookup_order(order_id: int) -> str:
    """Look up an order.

    Args:
        order_id: The order number.
    """
    return f"order {order_id}: shipped"
'''


def _ask(
    tmp_path: Path, server: FakeChatServer, *extra: str, mode: str = "--plain"
) -> tuple[list[str], str, str]:
    """``forge ask --api chat MODE EXTRA`` against ``server``: the rich modules loaded at exit,
    stdout and the rest of stderr."""
    args = ["ask", "--api", "chat", "--base-url", server.base_url, "--model", "fake-model"]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args, mode, *extra, "Where is order 4711?"],
        capture_output=True,
        text=True,
        env=isolated_env(tmp_path),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    [report] = [line for line in lines if line.startswith("RICH-AT-EXIT ")]
    loaded: list[str] = json.loads(report.removeprefix("RICH-AT-EXIT "))
    rest = "\n".join(line for line in lines if line != report)
    return loaded, proc.stdout, rest


def test_a_plain_text_answer_loads_no_rich_module(tmp_path: Path) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Order 4711 shipped on 20 November."))
        loaded, out, err = _ask(tmp_path, server)
        server.assert_consumed()
    assert out == "Order 4711 shipped on 20 November.\n"
    assert "tokens" in err  # the footer was written, without rich
    assert loaded == []


@pytest.mark.parametrize("mode", ["--json", "--jsonl"])
def test_a_json_answer_loads_no_rich_module(tmp_path: Path, mode: str) -> None:
    with FakeChatServer() as server:
        server.add(text_chunks("Order 4711 shipped on 20 November."))
        loaded, out, _ = _ask(tmp_path, server, mode=mode)
        server.assert_consumed()
    assert "Order 4711 shipped on 20 November." in out
    assert loaded == []


def test_a_drawn_tool_call_line_loads_rich(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        server.add(text_chunks("Order 4711 shipped."))
        loaded, out, err = _ask(tmp_path, server, "--functions", str(tools), "--yes")
        server.assert_consumed()
    assert out.endswith("Order 4711 shipped.\n")
    assert "lookup_order" in err  # the status line, drawn by rich
    assert "rich.console" in loaded
