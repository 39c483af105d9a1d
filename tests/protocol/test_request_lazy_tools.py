"""Tool definitions are validated item by item, on the first request that has any.

A plain question (``forge ask``) builds its Request without loading the tool models or their
union's validator; a request with tools gets the same typed tools as before.
"""

from __future__ import annotations

import json
import subprocess
import sys

from forge_cli.protocol.request import Request
from forge_cli.protocol.tools import FileSearchTool, FunctionTool, UnknownTool


def test_tools_from_json_and_models_are_typed() -> None:
    given = FileSearchTool(vector_store_ids=["vs_1"])
    request = Request.model_validate(
        {
            "model": "m",
            "tools": [given, {"type": "function", "name": "f"}, {"type": "warp", "x": 1}],
        }
    )
    assert request.tools[0] is given
    assert isinstance(request.tools[1], FunctionTool)
    assert isinstance(request.tools[2], UnknownTool)
    assert request.to_wire()["tools"] == [
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "function", "name": "f"},
        {"type": "warp", "x": 1},
    ]


def test_a_request_without_tools_loads_no_tool_model() -> None:
    code = (
        "import json, sys\n"
        "from forge_cli.protocol.request import InputMessage, Request\n"
        "wire = Request(model='m', input=[InputMessage(content='hi')], stream=True).to_wire()\n"
        "print(json.dumps([wire, 'forge_cli.protocol.tools' in sys.modules]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wire, loaded = json.loads(proc.stdout)
    assert wire == {"model": "m", "input": [{"role": "user", "content": "hi"}], "stream": True}
    assert loaded is False
