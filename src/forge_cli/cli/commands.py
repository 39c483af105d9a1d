"""The ``forge`` sub-commands by name, and completing their names without click.

Bash runs ``forge`` on every Tab. Completing the first word (a command name) needs only the list
below, so :func:`complete_command_name` answers it before click (or anything else) is imported;
every other completion goes through click (:mod:`forge_cli.cli.main`). Imports nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not loaded on this path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "COMMANDS",
    "EXIT_CODES_EPILOG",
    "GROUP_HELP",
    "HELP_MIN_WIDTH",
    "complete_command_name",
    "fit_raw_line",
    "group_help_page",
    "help_column_max",
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


# --- ``forge --help`` without click --------------------------------------------------------------
#
# ``forge --help`` is the one page everyone reads first; importing click for it costs more than
# Python's own start. The page is laid out here the way click lays out a group's help (usage,
# help text, options, commands, epilog; click's widths and wrapping), and
# tests/cli/test_commands.py compares it with click's page at every terminal width.

_OPTIONS = (
    ("-V, --version", "Show the version and exit."),
    ("-h, --help", "Show this message and exit."),
)


HELP_MIN_WIDTH = 20
"""The narrowest help page. click's own floor is 50: a 40-column terminal then cut every longer
line of a help page mid-word."""


def help_column_max(width: int) -> int:
    """The widest first column of an options or commands list on a page ``width`` wide: click's
    30, and a third of the page below click's floor of 50 (so the descriptions keep room)."""
    return 30 if width >= 50 else max(width // 3, 10)


def fit_raw_line(line: str, width: int) -> list[str]:
    """A line of a ``\\b`` block (kept as written) as lines of at most ``width``: wrapped at
    spaces when longer, continued under its second column (``  141  output closed ...``), or
    two spaces further in when it has none."""
    if len(line) <= width:
        return [line]
    from textwrap import TextWrapper

    body = line.lstrip(" ")
    hang = len(line) - len(body) + 2
    first_word, gap, rest = body.partition("  ")
    if gap and " " not in first_word and rest.strip():
        hang = len(line) - len(body) + len(first_word) + len(rest) - len(rest.lstrip(" ")) + 2
    hang = min(hang, width // 2)
    wrapper = TextWrapper(width, subsequent_indent=" " * hang, break_on_hyphens=False)
    return wrapper.wrap(line) or [line]


def _width(environ: Mapping[str, str], stdout_fd: int) -> int:
    """The help width: the terminal's columns (as ``shutil.get_terminal_size``), at most 80,
    minus 2, at least :data:`HELP_MIN_WIDTH` (as :mod:`forge_cli.cli.helpformat` for click)."""
    import os

    try:
        columns = int(environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(stdout_fd).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return max(min(columns, 80) - 2, HELP_MIN_WIDTH)


def _paragraphs(text: str, width: int, indent: str) -> str:
    """``text`` wrapped paragraph by paragraph; a paragraph starting with ``\\b`` kept as is
    (its lines wrapped only where longer than the page, by :func:`fit_raw_line`)."""
    from textwrap import TextWrapper

    out = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].strip() == "\b":
            room = width - len(indent)
            out.append(
                "\n".join(indent + part for line in lines[1:] for part in fit_raw_line(line, room))
            )
            continue
        wrapper = TextWrapper(
            width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False
        )
        out.append(wrapper.fill(" ".join([lines[0].lstrip(), *lines[1:]])))
    return "\n\n".join(out)


def _rows(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Two columns, as click's definition lists (first column at most
    :func:`help_column_max` wide; a longer name gets a line of its own)."""
    from textwrap import TextWrapper

    first = min(max(len(name) for name, _ in rows), help_column_max(width)) + 2
    wrapper = TextWrapper(max(width - first - 2, 10), replace_whitespace=False)
    out = []
    for name, text in rows:
        if len(name) > width - 2 or max(map(len, text.split())) > wrapper.width:
            return []  # a name wider than the page, a word cut in two: let click lay it out
        lines = wrapper.wrap(text)
        if len(name) > first - 2:  # as click: the text starts on the next line
            out.append(f"  {name}")
            out.extend(" " * (first + 2) + line for line in lines)
            continue
        out.append(f"  {name.ljust(first)}{lines[0]}")
        out.extend(" " * (first + 2) + line for line in lines[1:])
    return out


def _usage(width: int) -> str:
    """The usage line(s), as click's ``write_usage`` lays them out."""
    from textwrap import TextWrapper

    prefix, args = "Usage: forge ", "[OPTIONS] [COMMAND] [ARGS]..."
    if width >= len(prefix) + 20:
        return TextWrapper(width, initial_indent=prefix, subsequent_indent=" " * len(prefix)).fill(
            args
        )
    indent = " " * (len("Usage: ") + 4)
    return (
        prefix
        + "\n"
        + TextWrapper(width, initial_indent=indent, subsequent_indent=indent).fill(args)
    )


def group_help_page(environ: Mapping[str, str], stdout_fd: int) -> str | None:
    """The text ``forge --help`` prints (with its final newline), or ``None`` to let click."""
    width = _width(environ, stdout_fd)
    options = _rows(_OPTIONS, width)
    commands = _rows([(name, text) for name, (_, text) in COMMANDS.items()], width)
    if not options or not commands:
        return None
    if max(map(len, (GROUP_HELP + EXIT_CODES_EPILOG).split())) > width - 2:
        return None  # a word cut in two (a page under ~30 columns): let click lay it out
    page = [
        _usage(width),
        "",
        _paragraphs(GROUP_HELP, width, "  "),
        "",
        "Options:",
        *options,
        "",
        "Commands:",
        *commands,
        "",
        _paragraphs(EXIT_CODES_EPILOG, width, "  "),
    ]
    return "\n".join(page) + "\n"
