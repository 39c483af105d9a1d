"""The ``forge`` entry point: a lazy click group and the one place errors become exit codes.

Kept minimal on purpose: ``forge --version`` and ``forge --help`` import only click and this
module. Each sub-command lives in its own module, imported when it is invoked (``LazyGroup``);
its one-line help is listed here so ``--help`` needs no import.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from forge_cli.__about__ import __version__
from forge_cli.cli.commands import COMMANDS, EXIT_CODES_EPILOG, GROUP_HELP
from forge_cli.cli.context import start_up_of
from forge_cli.cli.ending import end_without_teardown, leaving_at_once
from forge_cli.cli.helpformat import ForgeContext, use_forge_help
from forge_cli.errors import (
    EXIT_INTERRUPTED,
    EXIT_OUTPUT_CLOSED,
    EXIT_RUNTIME,
    EXIT_USAGE,
    ForgeError,
    OutputClosed,
)
from forge_cli.startup import StartUp

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

__all__ = [
    "COMMANDS",
    "EXIT_CODES_EPILOG",
    "LazyGroup",
    "cli",
    "end_without_teardown",
    "main",
    "start_up_of",
]

_WARMING_UP = frozenset({"ask", "chat"})
"""Commands that load what they need on the warm-up thread after their start: the collector
comes back on when that is done (``StartUp.done``), not when they are loaded."""


class LazyGroup(click.Group):
    """A group whose sub-commands are imported only when used."""

    context_class = ForgeContext  # help pages fitted to the terminal, also a narrow one

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target[0].split(":")
        command = getattr(importlib.import_module(module_name), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target[0]} is not a click command")
        if cmd_name not in _WARMING_UP:
            start_up_of(
                ctx
            ).done()  # the command is loaded: its own work runs with the collector on
        return use_forge_help(command)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """Parse ``args``; eager options write here (``--version``, ``--help``), so a closed
        output is :class:`OutputClosed` here too (click itself would exit 1)."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError as exc:
            if not _stdout_gone():
                raise
            raise OutputClosed() from exc

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a write to a standard output nobody reads any more ends it as
        :class:`OutputClosed` (``forge conversations list | head -1``), not as a crash."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            if not _stdout_gone():  # another pipe (a tool's, a server's): not ours to hide
                raise
            raise OutputClosed() from exc

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Sub-command names from :data:`COMMANDS`, without importing them (runs on every Tab)."""
        from click.shell_completion import CompletionItem

        results = [
            CompletionItem(name, help=help_text)
            for name, (_, help_text) in COMMANDS.items()
            if name.startswith(incomplete)
        ]
        results.extend(click.Command.shell_complete(self, ctx, incomplete))  # the group's options
        return results

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text) for name, (_, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    help=GROUP_HELP,
    epilog=EXIT_CODES_EPILOG,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "-V", "--version", prog_name="forge")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """The ``forge`` group (its help: :data:`forge_cli.cli.commands.GROUP_HELP`)."""
    if ctx.invoked_subcommand is None:
        chat = LazyGroup.get_command(cli, ctx, "chat")
        assert chat is not None
        ctx.invoke(chat)


def _debug_requested(args: Sequence[str]) -> bool:
    return "--debug" in args or os.environ.get("FORGE_DEBUG", "").lower() in ("1", "true", "yes")


def _fail(message: str, code: int) -> int:
    # Messages may quote file names, ids the user typed or server text: never raw to a terminal.
    from forge_cli.redact import redact
    from forge_cli.sanitize import sanitize_inline

    text = " ".join(sanitize_inline(redact(str(message))).split())
    sys.stderr.write(f"forge: error: {text}\n")
    return code


def _print_traceback() -> None:
    """The current exception's traceback on stderr, keys redacted and control characters shown.

    Exception messages in the chain may quote a server's reply (an echoed ``Authorization``).
    """
    import traceback

    from forge_cli.redact import redact
    from forge_cli.sanitize import sanitize

    sys.stderr.write(sanitize(redact(traceback.format_exc())))


def run(args: Sequence[str], start_up: StartUp | None = None) -> int:
    """Run the CLI on ``args``; returns the exit code (every error printed as one line).
    ``start_up``: the process's start-up (:func:`start_up_of`), when the entry point made it."""
    debug = _debug_requested(args)
    from forge_cli.redact import register_environment_secrets

    register_environment_secrets(os.environ)
    try:
        result: Any = cli.main(
            args=list(args), prog_name="forge", standalone_mode=False, obj=start_up
        )
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.Abort:
        return _fail("interrupted", EXIT_INTERRUPTED)
    except click.exceptions.NoArgsIsHelpError as exc:
        # ``forge vs`` alone: the group's help page, as click shows it (its message is the whole
        # page; as one error line every newline became a literal ``\n``).
        sys.stderr.write(exc.format_message().rstrip("\n") + "\n")
        return exc.exit_code or EXIT_USAGE
    except click.ClickException as exc:
        return _fail(exc.format_message(), exc.exit_code or EXIT_USAGE)
    except OutputClosed as exc:
        # ``forge … | head``: the reader has what it wanted. Quiet, as SIGPIPE would end us;
        # what arrived is saved (the turn ended as interrupted).
        _discard_stdout()
        if debug:
            _print_traceback()
        return exc.exit_code
    except ForgeError as exc:
        if debug:
            _print_traceback()
        return _fail(exc.one_line(), exc.exit_code)
    except KeyboardInterrupt:
        return _fail("interrupted", EXIT_INTERRUPTED)
    except Exception as exc:
        if debug:
            _print_traceback()
        hint = "" if debug else " (run with --debug for a traceback)"
        return _fail(f"internal error: {type(exc).__name__}: {exc}{hint}", EXIT_RUNTIME)
    return result if isinstance(result, int) else 0


def _stdout_gone() -> bool:
    """Whether standard output is a pipe or socket whose reader has gone away."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's captured stream)
        return False


def _discard_stdout() -> None:
    """Point standard output at the null device: its reader went away, and what is still
    buffered must not fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test's captured stream)
        pass


def main(argv: Sequence[str] | None = None, *, start_up: StartUp | None = None) -> None:
    """Console-script entry point (``cli.entry.main`` passes the process's ``start_up``)."""
    code = run(sys.argv[1:] if argv is None else argv, start_up)
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        # The reader went away (``forge ask ... | head``): not an error worth a traceback.
        _discard_stdout()
        code = code or EXIT_OUTPUT_CLOSED
    except OSError as exc:  # a full disk, an I/O error: the last of the output is lost
        _discard_stdout()
        reason = exc.strerror or type(exc).__name__
        code = code or _fail(f"could not write to standard output: {reason}", EXIT_RUNTIME)
    if leaving_at_once():
        _leave(code)
    sys.exit(code)


def _leave(code: int) -> None:
    """End the process now with ``code``, as :func:`sys.exit` would but without the teardown.

    Returns (for the usual exit) when another non-daemon thread is alive: the interpreter joins
    those before it exits, and so must we.
    """
    threading = sys.modules.get("threading")
    if threading is not None:
        main_thread = threading.main_thread()
        if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
            return
    import atexit

    atexit._run_exitfuncs()  # what the interpreter runs at exit, in the same order
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    main()
