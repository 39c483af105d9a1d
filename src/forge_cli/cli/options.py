"""Options shared by ``forge chat`` and ``forge ask``, and turning them into Settings.

Every option defaults to ``None`` (not given), so the precedence flags > env > profile > defaults
is decided in one place: :func:`forge_cli.config.resolve_settings`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from forge_cli.config import (
    API_KINDS,
    DRIVERS,
    EFFORTS,
    TOOL_NAMES,
    ConfigFile,
    Settings,
    resolve_settings,
)

__all__ = [
    "SETTING_OPTIONS",
    "backend_options",
    "complete_conversation_ids",
    "settings_from_options",
    "shared_options",
]

F = TypeVar("F", bound=Callable[..., Any])

SETTING_OPTIONS = (
    "api",
    "base_url",
    "api_key_env",
    "model",
    "effort",
    "tools",
    "vector_stores",
    "instructions",
    "max_iterations",
    "temperature",
    "top_p",
    "max_output_tokens",
    "driver",
    "evaluator_model",
    "output_model",
    "tool_choice",
    "parallel_tools",
    "tools_in_prompt",
    "max_time",
    "token_budget",
    "functions",
    "yes",
    "debug",
    "ascii",
    "store",
)
"""Option names that map one-to-one onto settings keys."""


def _complete_stores(ctx: Any, param: Any, incomplete: str) -> list[Any]:
    from forge_cli.cli.complete import complete_vector_stores

    return complete_vector_stores(ctx, param, incomplete)


def complete_conversation_ids(ctx: Any, param: Any, incomplete: str) -> list[Any]:
    """Shell completion of saved conversation ids (for ``--resume`` and ``--conversation``)."""
    from forge_cli.cli.complete import complete_conversations

    return complete_conversations(ctx, param, incomplete)


def shared_options(func: F) -> F:
    """Add the shared options to a command."""
    decorators = [
        click.option("--profile", metavar="NAME", help="Config profile to use."),
        click.option("--api", type=click.Choice(API_KINDS), help="Backend kind."),
        click.option("--base-url", metavar="URL", help="Server URL (responses/chat)."),
        click.option("--api-key-env", metavar="NAME", help="Env var that holds the API key."),
        click.option("--model", "-m", metavar="NAME", help="Model name."),
        click.option("--effort", type=click.Choice(EFFORTS), help="Reasoning effort."),
        click.option(
            "--tool",
            "-t",
            "tools",
            multiple=True,
            type=click.Choice(TOOL_NAMES),
            help="Enable a tool (repeatable).",
        ),
        click.option(
            "--vs",
            "vector_stores",
            multiple=True,
            metavar="ID",
            help="Vector store (id or name); implies file search.",
            shell_complete=_complete_stores,
        ),
        click.option("--instructions", metavar="TEXT", help="System instructions."),
        click.option(
            "--template",
            metavar="NAME",
            help="Saved instructions (and settings) to use; see `forge templates`.",
        ),
        click.option("--max-iterations", type=click.IntRange(min=1), help="Tool-loop limit."),
        click.option(
            "--temperature",
            type=click.FloatRange(0.0, 2.0),
            help="Sampling temperature (0-2; lower is more focused).",
        ),
        click.option(
            "--top-p", type=click.FloatRange(0.0, 1.0, min_open=True), help="Nucleus sampling."
        ),
        click.option(
            "--max-output-tokens",
            type=click.IntRange(min=1),
            metavar="N",
            help="The longest answer, in tokens.",
        ),
        click.option(
            "--driver",
            type=click.Choice(DRIVERS),
            help="How the agent asks the model: native tool calls, react (a text protocol for "
            "models without tool calling) or evaluator (a second model judges each round).",
        ),
        click.option("--evaluator-model", metavar="NAME", help="Model of the evaluator driver."),
        click.option("--output-model", metavar="NAME", help="Model that writes the final answer."),
        click.option(
            "--tool-choice",
            metavar="auto|required|none|NAME",
            help="Whether the model must, may or must not call a tool (or which one).",
        ),
        click.option(
            "--parallel-tools/--no-parallel-tools",
            "parallel_tools",
            default=None,
            help="Allow several tool calls in one model turn (default: the server's).",
        ),
        click.option(
            "--tools-in-prompt/--no-tools-in-prompt",
            "tools_in_prompt",
            default=None,
            help="Describe tools in the prompt and read <tool_call> tags (for servers that "
            "refuse the tools field; by default Forge switches after such a refusal).",
        ),
        click.option(
            "--max-time",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help="Stop the agent run after this long (exit code 4; the answer so far is kept).",
        ),
        click.option(
            "--token-budget",
            type=click.IntRange(min=1),
            metavar="N",
            help="Stop the agent run once it used N tokens (exit code 5).",
        ),
        click.option(
            "--functions",
            multiple=True,
            type=click.Path(exists=True, dir_okay=False),
            help="Python file defining tools the model may call (repeatable).",
        ),
        click.option(
            "--mcp",
            "mcp",
            multiple=True,
            metavar="CMD|URL|NAME",
            help='MCP server whose tools the model may use: "COMMAND ARGS…" (stdio), a URL '
            "(streamable HTTP) or a configured server's name (repeatable).",
        ),
        click.option("--yes", "-y", is_flag=True, default=None, help="Approve tool calls."),
        click.option("--debug", is_flag=True, default=None, help="Tracebacks and request logs."),
        click.option("--ascii", is_flag=True, default=None, help="ASCII-only output glyphs."),
        click.option(
            "--store/--no-store",
            default=None,
            help="Ask a responses server to store answers; follow-ups then send only "
            "previous_response_id instead of the whole history.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def backend_options(func: F) -> F:
    """The options that choose and reach a backend, for commands that only talk to it
    (``forge models``, ``forge doctor``): no tools, stores, instructions or output flags."""
    decorators = [
        click.option("--profile", metavar="NAME", help="Config profile to use."),
        click.option("--api", type=click.Choice(API_KINDS), help="Backend kind."),
        click.option("--base-url", metavar="URL", help="Server URL (responses/chat)."),
        click.option("--api-key-env", metavar="NAME", help="Env var that holds the API key."),
        click.option("--debug", is_flag=True, default=None, help="Tracebacks and request logs."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def settings_from_options(options: dict[str, Any]) -> Settings:
    """Resolve the run's settings from the given options, the environment and the config file."""
    from forge_cli.logs import configure_logging

    flags = {key: options.get(key) for key in SETTING_OPTIONS}
    template = None
    if options.get("template"):
        from forge_cli.config.templates import load_template

        template = load_template(options["template"]).layer()
    settings = resolve_settings(
        flags,
        env=os.environ,
        config=ConfigFile.load(),
        profile=options.get("profile"),
        template=template,
    )
    configure_logging(debug=settings.debug)
    return settings
