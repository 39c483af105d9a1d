"""``forge models``: the models the configured backend offers."""

from __future__ import annotations

import asyncio
from typing import Any

import click

from forge_cli.cli.build import build_backend
from forge_cli.cli.options import backend_options, settings_from_options
from forge_cli.errors import UsageError

__all__ = ["models"]


@click.command()
@backend_options
def models(**options: Any) -> None:
    """List the models the backend offers."""
    settings = settings_from_options(options)

    async def work() -> list[str]:
        backend = build_backend(settings)
        try:
            lister = backend.list_models
            if lister is None:
                raise UsageError(f"the {backend.name} backend cannot list models")
            return list(await lister())
        finally:
            await backend.aclose()

    from forge_cli.sanitize import sanitize_inline

    for name in asyncio.run(work()):
        click.echo(sanitize_inline(name))  # names come from the server: untrusted
