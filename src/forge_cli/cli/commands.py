"""The ``forge`` sub-commands by name, and completing their names without click.

Bash runs ``forge`` on every Tab. Completing the first word (a command name) needs only the list
below, so :func:`complete_command_name` answers it before click (or anything else) is imported;
every other completion goes through click (:mod:`forge_cli.cli.main`). Imports nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not loaded on this path
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "COMMANDS",
    "EXIT_CODES_EPILOG",
    "GROUP_HELP",
    "complete_command_name",
]

GROUP_HELP = """Forge: chat with your documents from the terminal.

Without a command, starts `forge chat`.
"""
"""The ``forge`` group's help text (``forge --help``)."""

EXIT_CODES_EPILOG = """\b
Exit codes:
  0    success
  1    backend or runtime error
  2    usage error (bad flag, argument or config)
  3    tool-iteration limit reached
  4    time budget (--max-time) ran out
  5    token budget (--token-budget) used up
  130  interrupted (Ctrl+C)
  141  output closed by its reader (| head); the answer so far is saved

Shell completion: eval "$(_FORGE_COMPLETE=bash_source forge)"  (zsh_source, fish_source)
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "chat": ("forge_cli.cli.cmd_chat:chat", "Chat in the terminal (the default command)."),
    "ask": ("forge_cli.cli.cmd_ask:ask", "Ask one question and print the answer."),
    "conversations": (
        "forge_cli.cli.cmd_conversations:conversations",
        "List, show, export or delete saved conversations.",
    ),
    "config": ("forge_cli.cli.cmd_config:config", "Show or change the configuration."),
    "templates": (
        "forge_cli.cli.cmd_templates:templates",
        "Saved instructions for --template NAME.",
    ),
    "models": ("forge_cli.cli.cmd_models:models", "List the models the backend offers."),
    "doctor": ("forge_cli.cli.cmd_doctor:doctor", "Check config, backend, auth and store."),
    "serve": ("forge_cli.cli.cmd_serve:serve", "Run the local engine as an HTTP server."),
    "mcp": ("forge_cli.cli.cmd_mcp:mcp", "Serve the knowledge store to MCP clients (stdio)."),
    "vs": ("forge_cli.cli.cmd_knowledge:vs", "Manage vector stores."),
    "files": ("forge_cli.cli.cmd_knowledge:files", "Manage uploaded files."),
    "eval": ("forge_cli.cli.eval_cmd:eval_command", "Score answers over a dataset of questions."),
}
"""Sub-command name → (``module:attribute``, one-line help)."""

_PLAIN_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ ")


def _zsh(value: str) -> str:
    return value.replace(":", "\\:")  # as click does for a value shown with its help


def complete_command_name(environ: Mapping[str, str], complete_var: str) -> str | None:
    """What click's shell completion prints for a command name at the first word, or ``None``
    when this is not that case (then click completes as usual).

    The same lines as click's ``bash_complete`` and ``zsh_complete`` (tests/cli/test_commands.py
    compares them): ``plain,NAME`` for bash; ``plain``, ``NAME``, its help for zsh.
    """
    shell = environ.get(complete_var, "")
    words = environ.get("COMP_WORDS", "")
    if shell not in ("bash_complete", "zsh_complete") or environ.get("COMP_CWORD") != "1":
        return None
    if not set(words) <= _PLAIN_WORD:  # quotes or escapes: click's own word splitting decides
        return None
    split = words.split()
    incomplete = split[1] if len(split) > 1 else ""
    if incomplete.startswith("-"):
        return None  # options: click lists them
    names = [(name, text) for name, (_, text) in COMMANDS.items() if name.startswith(incomplete)]
    if shell == "bash_complete":
        return "\n".join(f"plain,{name}" for name, _ in names)
    return "\n".join(f"plain\n{_zsh(name)}\n{text}" for name, text in names)
