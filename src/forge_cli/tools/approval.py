"""Approval of tool calls: a policy per tool (auto, ask, deny) and approvers that ask a person.

Defaults: read-only tools (the built-in knowledge tools) are ``auto``; user functions ``ask``.
In a non-interactive run (no approver) ``ask`` means deny unless ``assume_yes`` (``--yes``).
A denial is not an error: the reason goes back to the model as the call's result, and a
:class:`~forge_cli.tools.events.ToolCallBlocked` event (``by="approval"``) tells the user.

The check is a before-hook (:class:`ApprovalHook`), so it sees the arguments after validation and
after any earlier hook rewrote them; the prompt shows exactly what will run.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal, Protocol, runtime_checkable

from forge_cli.errors import UsageError
from forge_cli.fitting import terminal_columns, wrap
from forge_cli.prompting import prompting
from forge_cli.sanitize import sanitize
from forge_cli.tools.hooks import Block, ToolCall
from forge_cli.tools.toolset import ToolSet

__all__ = [
    "POLICIES",
    "ApprovalHook",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "Policy",
    "TerminalApprover",
    "parse_policy",
]

Policy = Literal["auto", "ask", "deny"]
POLICIES: tuple[Policy, ...] = ("auto", "ask", "deny")


def parse_policy(value: str) -> Policy:
    """A policy from user text; anything else is a :class:`UsageError`."""
    text = value.strip().lower()
    for policy in POLICIES:
        if text == policy:
            return policy
    raise UsageError(f"unknown approval policy {value!r}; use one of: auto, ask, deny")


@dataclass(frozen=True)
class ApprovalPolicy:
    """Which tools run without asking. ``per_tool`` overrides the defaults by tool name."""

    per_tool: Mapping[str, Policy] = field(default_factory=dict)
    read_only_default: Policy = "auto"
    default: Policy = "ask"
    assume_yes: bool = False

    def policy_for(self, name: str, *, read_only: bool) -> Policy:
        """The policy that applies to the tool ``name``."""
        if name in self.per_tool:
            return self.per_tool[name]
        return self.read_only_default if read_only else self.default


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What an approver is asked about: the tool and the exact arguments it will get."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any]

    def arguments_text(self) -> str:
        """The arguments as indented JSON, safe to print on a terminal."""
        return sanitize(json.dumps(self.arguments, indent=2, ensure_ascii=False, default=str))


@runtime_checkable
class Approver(Protocol):
    """Something that can ask whether a call may run (a terminal prompt, a GUI, a test)."""

    async def approve(self, request: ApprovalRequest) -> bool:
        """``True`` to allow the call."""
        ...


class TerminalApprover:
    """Ask on plain text streams: print the tool and arguments, read ``y``, ``n`` or ``a``.

    ``a`` ("always") allows the tool for the rest of this approver's life (one chat session or
    one ``forge ask``) without asking again. Reading happens in a worker thread so the event loop
    keeps running (other tools, timers). End of input counts as "no".
    """

    def __init__(self, input_stream: IO[str], output_stream: IO[str]) -> None:
        self.input_stream = input_stream
        self.output_stream = output_stream
        self._lock = asyncio.Lock()
        self._always: set[str] = set()

    async def approve(self, request: ApprovalRequest) -> bool:
        """Prompt and wait for the answer (unless the tool was allowed "always")."""
        async with self._lock:
            if request.tool_name in self._always:
                return True
            with prompting():  # live displays stop drawing until the answer is in
                fd = _terminal_fd(self.input_stream)
                if fd is None:
                    answer = await asyncio.to_thread(self._ask, request)
                else:
                    self._prompt(request)
                    try:
                        line = await _read_line(fd)
                    except asyncio.CancelledError:  # Ctrl+C: what comes next starts a line
                        self._newline()
                        raise
                    if not line:
                        self._newline()
                    answer = _reply(line)
            if answer == "always":
                self._always.add(request.tool_name)
            return answer != "no"

    def _prompt(self, request: ApprovalRequest) -> None:
        name = sanitize(request.tool_name)
        arguments = request.arguments_text().replace("\n", "\n  ")
        question = _fit(
            f"Allow? [y]es, [N]o, [a]lways for {name}:", terminal_columns(self.output_stream)
        )
        prompt = f"Tool call: {name}\n  {arguments}\n{question} "
        self.output_stream.write(prompt)
        self.output_stream.flush()

    def _newline(self) -> None:
        self.output_stream.write("\n")
        self.output_stream.flush()

    def _ask(self, request: ApprovalRequest) -> Literal["yes", "no", "always"]:
        self._prompt(request)
        answer = self.input_stream.readline()
        if not answer:
            self._newline()
        return _reply(answer)


def _fit(question: str, columns: int | None) -> str:
    """``question`` broken between words where it would not fit ``columns`` (with the space
    and the typed answer after it): the terminal would cut it mid-word, a tool's name too."""
    return "\n".join(wrap(question, None if columns is None else max(columns - 2, 10)))


def _reply(answer: str) -> Literal["yes", "no", "always"]:
    reply = answer.strip().lower()
    if reply in ("a", "always"):
        return "always"
    return "yes" if reply in ("y", "yes") else "no"


def _terminal_fd(stream: IO[str]) -> int | None:
    """The file descriptor of ``stream`` when it is a terminal read on this event loop."""
    if sys.platform == "win32":
        return None
    try:
        return stream.fileno() if stream.isatty() else None
    except (AttributeError, OSError, ValueError):
        return None


async def _read_line(fd: int) -> str:
    """One line typed at the terminal ``fd`` with its newline ("" at end of input), read on the
    event loop.

    Not in a worker thread: a thread blocked in ``readline`` cannot be cancelled (Ctrl+C), and it
    went on reading the terminal after the answer was cancelled, taking the keys typed at the
    next prompt.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    data = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        data.extend(chunk)
        if (not chunk or b"\n" in chunk) and not done.done():
            line = data[: data.index(b"\n") + 1] if b"\n" in data else data
            done.set_result(bytes(line).decode("utf-8", "replace"))

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)


class ApprovalHook:
    """A before-hook that applies an :class:`ApprovalPolicy`, asking ``approver`` when needed.

    ``approver=None`` means the run is non-interactive: ``ask`` then denies unless the policy
    has ``assume_yes``.
    """

    def __init__(
        self, policy: ApprovalPolicy, tools: ToolSet, approver: Approver | None = None
    ) -> None:
        self.policy = policy
        self.tools = tools
        self.approver = approver

    async def __call__(self, call: ToolCall) -> Block | None:
        tool = self.tools.get(call.name)
        read_only = bool(tool is not None and tool.read_only)
        policy = self.policy.policy_for(call.name, read_only=read_only)
        if policy == "auto":
            return None
        if policy == "deny":
            return Block(f"The tool {call.name!r} is not allowed (policy: deny).", by="approval")
        if self.policy.assume_yes:
            return None
        if self.approver is None:
            return Block(
                f"The call to {call.name!r} was denied: this run is not interactive and "
                "approval was not given in advance (--yes).",
                by="approval",
            )
        request = ApprovalRequest(call.call_id, call.name, call.parsed() or {})
        if await self.approver.approve(request):
            return None
        return Block(f"The user denied the call to {call.name!r}.", by="approval")
