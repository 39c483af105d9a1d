"""``forge ask``: one question, one answer, then exit (pipeline friendly)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

import click

from forge_cli.agent.turn import run_turn
from forge_cli.cli.build import (
    build_backend,
    build_mcp,
    build_responder,
    build_view_factory,
    default_model,
    new_conversation,
)
from forge_cli.cli.main import EXIT_CODES_EPILOG
from forge_cli.cli.options import settings_from_options, shared_options
from forge_cli.config import Settings
from forge_cli.conversations import build_request
from forge_cli.errors import UsageError
from forge_cli.repl.view import TurnView, view_end, view_sink

__all__ = ["ask", "read_question"]


def read_question(question: str | None, stdin: Any, files: Sequence[str] = ()) -> str:
    """The question with piped stdin and attached files (see :mod:`forge_cli.cli.question`)."""
    from forge_cli.cli.question import compose_question

    return compose_question(question, stdin, files)


async def _answer(
    settings: Settings, text: str, view: TurnView, mcp_values: tuple[str, ...] = ()
) -> None:
    backend = build_backend(settings)
    mcp = build_mcp(mcp_values)

    try:
        # A person at a terminal is asked before a tool runs; a script or a pipe is not (denied
        # unless --yes). A question read from a pipe leaves no terminal to answer on.
        interactive = sys.stdin.isatty() and sys.stderr.isatty()
        responder = build_responder(settings, backend, interactive=interactive, mcp=mcp)
        conversation = new_conversation(settings)
        request = build_request(
            conversation, text, stores_responses=False, model=default_model(settings)
        )
        outcome = await run_turn(
            responder, request, on_update=view_sink(view), on_end=view_end(view)
        )
        if outcome.error is not None:
            raise outcome.error
    finally:
        if mcp is not None:
            await mcp.aclose()
        await backend.aclose()


@click.command(epilog=EXIT_CODES_EPILOG)
@shared_options
@click.argument("question", required=False)
@click.option(
    "--file",
    "-f",
    "files",
    multiple=True,
    metavar="PATH",
    help="Attach a file's text to the question (repeatable; text, Markdown, HTML, PDF, code).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON document at the end.")
@click.option("--jsonl", "as_jsonl", is_flag=True, help="One JSON line per event.")
@click.option("--plain", "as_plain", is_flag=True, help="Plain text, no styling.")
@click.option("--no-stream", is_flag=True, help="Print the answer only when it is complete.")
def ask(
    question: str | None,
    files: tuple[str, ...],
    as_json: bool,
    as_jsonl: bool,
    as_plain: bool,
    no_stream: bool,
    **options: Any,
) -> None:
    """Ask QUESTION and print the answer.

    Piped standard input is added to the question as a document (or is the question, with -
    or no QUESTION); -f attaches files.
    """
    chosen = [
        name for name, on in (("json", as_json), ("jsonl", as_jsonl), ("plain", as_plain)) if on
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one output mode: --{' or --'.join(chosen)}")
    mode = chosen[0] if chosen else None
    settings = settings_from_options(options)
    text = read_question(question, sys.stdin, files)
    view = build_view_factory(settings, mode=mode, stream=not no_stream, one_shot=True)()
    asyncio.run(_answer(settings, text, view, tuple(options.get("mcp") or ())))
