"""Run one tool call through the approval hook with a TerminalApprover on the real terminal."""

from __future__ import annotations

import asyncio
import sys

from forge_cli.tools import (
    ApprovalHook,
    ApprovalPolicy,
    TerminalApprover,
    ToolCall,
    ToolExecutor,
    ToolSet,
    tool,
)


@tool
def delete_file(path: str) -> str:
    """Pretend to delete a file."""
    return f"deleted {path}"


async def main() -> None:
    tools = ToolSet([delete_file])
    approver = TerminalApprover(sys.stdin, sys.stdout)
    hook = ApprovalHook(ApprovalPolicy(), tools, approver)
    executor = ToolExecutor(tools, before_hooks=[hook])
    call = ToolCall("call_1", "delete_file", '{"path": "/tmp/x\\u001b[2J.txt"}')
    report = await executor.execute([call])
    print(f"RESULT: {report.results[0].status}: {report.results[0].output}")


asyncio.run(main())
