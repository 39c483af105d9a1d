"""The ``forge`` console script: ``forge --version`` and completing a command name answer
without loading click.

Shell scripts and prompts run ``forge --version`` often; everything else goes to
:func:`forge_cli.cli.main.main`.
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

        # The line click's version option prints (forge_cli.cli.main).
        try:
            sys.stdout.write(f"forge, version {__version__}\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader went away: nothing worth a traceback
            sys.stdout = None  # no flush at exit
        sys.exit(0)
    if "_FORGE_COMPLETE" in os.environ:  # Tab on a command name: no click (runs on every Tab)
        from forge_cli.cli.commands import complete_command_name

        names = complete_command_name(os.environ, "_FORGE_COMPLETE")
        if names is not None:
            sys.stdout.write(names + "\n")
            sys.stdout.flush()
            sys.exit(0)
    from forge_cli.cli.main import main as run

    run(args)
