"""``forge vs reembed``: give every chunk of the local store a vector of the current model.

Needed once after changing ``engine.embeddings_*`` (or for a store made without embeddings):
searches compare only vectors of the model they run with, so chunks embedded by another model
(or by none) are found by keyword alone until they are re-embedded.
"""

from __future__ import annotations

import sys
from typing import Any

import click

__all__ = ["reembed"]


@click.command("reembed")
@click.option("--profile", metavar="NAME", help="Config profile to use.")
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Re-embed every chunk, not only those without a vector of the current model.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def reembed(everything: bool, as_json: bool, **options: Any) -> None:
    """Embed the local store's chunks with the current embedding model."""
    from forge_cli.cli.build import engine_config
    from forge_cli.cli.options import settings_from_options
    from forge_cli.engine import open_store
    from forge_cli.errors import UsageError
    from forge_cli.repl.knowledge import ProgressLine
    from forge_cli.sanitize import json_dumps_safe, sanitize_inline

    settings = settings_from_options(options)
    if settings.api != "local":
        raise UsageError(
            "forge vs reembed works on the local store only",
            hint="a Responses server embeds its own store; run it there (or use --api local)",
        )
    with open_store(None, engine_config(settings)) as store:
        if store.embedder is None:
            raise UsageError(
                "no embedding model is available (package wordllama is not installed)",
                hint="pip install wordllama, or set engine.embeddings_base_url and "
                "engine.embeddings_model",
            )
        with ProgressLine(sys.stderr) as bar:
            result = store.reembed(
                everything=everything,
                progress=lambda done, total: bar(done, total, "chunks"),
            )
    if as_json:
        click.echo(
            json_dumps_safe(
                {
                    "model": result.model,
                    "embedded": result.embedded,
                    "total_chunks": result.total_chunks,
                    "seconds": round(result.seconds, 3),
                },
                indent=2,
            )
        )
        return
    model = sanitize_inline(result.model)
    if result.embedded == 0:
        click.echo(f"All {result.total_chunks} chunks already have {model} vectors.")
    else:
        click.echo(
            f"Embedded {result.embedded} of {result.total_chunks} chunks with {model} "
            f"in {result.seconds:.1f} s."
        )
