"""This run's :class:`~forge_cli.startup.StartUp`, as click's context object carries it.

Apart from :mod:`forge_cli.cli.main` so that a sub-command never imports the group that imports
it by name (``tests/test_import_cycles.py``).
"""

from __future__ import annotations

import click

from forge_cli.startup import StartUp

__all__ = ["start_up_of"]


def start_up_of(ctx: click.Context | None = None) -> StartUp:
    """This run's :class:`StartUp`: the one ``cli.entry.main`` passed to ``cli.main.main``
    (click's context object), or a fresh one for a run without it (``CliRunner`` in tests, a
    program that calls ``cli.main.cli`` itself). ``ctx``: the current context when not given."""
    return (ctx or click.get_current_context()).ensure_object(StartUp)
