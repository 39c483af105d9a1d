"""The ``forge`` console script: ``forge --version`` and completing a command name answer
without loading click.

Shell scripts and prompts run ``forge --version`` often and bash runs ``forge`` on every Tab;
everything else (``forge --help`` too: click's own page) goes to :func:`forge_cli.cli.main.main`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing and collections are not loaded for ``forge --version``
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args in (["--version"], ["-V"]):
        from forge_cli.__about__ import __version__

        _write(f"forge, version {__version__}\n")  # the line click's version option prints
        sys.exit(0)
    if "_FORGE_COMPLETE" in os.environ:  # Tab on a command name: no click (runs on every Tab)
        from forge_cli.cli.commands import complete_command_name

        names = complete_command_name(os.environ, "_FORGE_COMPLETE")
        if names is not None:
            _write(names + "\n")
            sys.exit(0)
    from forge_cli.startup import StartUp

    start_up = StartUp()  # handed down to the command (click's context object)
    start_up.pause_gc()  # until the command is loaded (StartUp.done)
    try:
        from forge_cli.cli.main import main as run

        run(args, start_up=start_up)
    finally:
        start_up.done()  # a command that never got that far (a bad option)


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: nothing worth a traceback
        sys.stdout = None  # no flush at exit
