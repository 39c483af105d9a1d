"""The Request each question is asked with: the run's settings plus the question's overrides.

Each question is a fresh one-turn conversation, built the way ``forge ask`` builds its request.
A question that names vector stores but no tools gets ``file-search`` over them (a Knowledge
Forge dataset names only its vector store); with no tools and no stores the request enables no
tools, and the backend decides (the local engine then searches all of its vector stores).
"""

from __future__ import annotations

from dataclasses import dataclass

from forge_cli.conversations import result_includes, tool_definitions
from forge_cli.evaluation.cases import EvalCase
from forge_cli.protocol.request import InputMessage, Request

__all__ = ["RequestDefaults", "build_case_request"]


@dataclass(frozen=True, slots=True)
class RequestDefaults:
    """The run's settings that shape every request (from the profile, env and flags)."""

    model: str = ""
    instructions: str | None = None
    effort: str | None = None
    tools: tuple[str, ...] = ()
    vector_stores: tuple[str, ...] = ()


def build_case_request(case: EvalCase, defaults: RequestDefaults) -> Request:
    """The request that asks ``case.question``."""
    stores = case.vector_store_ids if case.vector_store_ids is not None else defaults.vector_stores
    tools = case.tools if case.tools is not None else defaults.tools
    if not tools and case.vector_store_ids:
        tools = ("file-search",)
    definitions = tool_definitions(list(tools), list(stores))
    return Request(
        model=defaults.model,
        input=[InputMessage(role="user", content=case.question)],
        instructions=defaults.instructions,
        tools=definitions,
        include=result_includes(definitions),
        effort=defaults.effort,
        stream=True,
    )
