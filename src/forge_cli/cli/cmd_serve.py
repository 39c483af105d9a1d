"""``forge serve``: the local engine as a Knowledge Forge-compatible HTTP server."""

from __future__ import annotations

import click

__all__ = ["serve"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=9999, show_default=True, type=click.IntRange(1, 65535))
@click.option("--token", envvar="FORGE_SERVE_TOKEN", help="Bearer token clients must send.")
def serve(host: str, port: int, token: str | None) -> None:
    """Serve /v1/responses, /v1/files and /v1/vector_stores (needs --token off loopback)."""
    from forge_cli.engine.server import run_server

    click.echo(f"forge serve: http://{host}:{port}/v1  (Ctrl+C stops)", err=True)
    run_server(host=host, port=port, token=token)
