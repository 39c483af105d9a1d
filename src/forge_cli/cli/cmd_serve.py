"""``forge serve``: the local engine as a Knowledge Forge-compatible HTTP server."""

from __future__ import annotations

import click

__all__ = ["serve"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=9999, show_default=True, type=click.IntRange(1, 65535))
@click.option("--token", envvar="FORGE_SERVE_TOKEN", help="Bearer token clients must send.")
@click.option("--profile", metavar="NAME", help="Config profile whose engine.* settings to use.")
@click.option(
    "--mcp/--no-mcp",
    "with_mcp",
    default=True,
    show_default=True,
    help="Serve the knowledge store to MCP clients at /mcp.",
)
def serve(host: str, port: int, token: str | None, profile: str | None, with_mcp: bool) -> None:
    """Serve /v1/responses, /v1/files, /v1/vector_stores and /mcp (needs --token off loopback).

    The engine's web search provider and answer model come from the ``engine.*`` settings
    (config file, profile, or FORGE_SEARXNG_URL / FORGE_UPSTREAM_* environment variables).
    """
    from forge_cli.cli.build import engine_config
    from forge_cli.cli.options import settings_from_options
    from forge_cli.engine.server import run_server

    config = engine_config(settings_from_options({"profile": profile}))
    click.echo(f"forge serve: http://{host}:{port}/v1  (Ctrl+C stops)", err=True)
    extend = None
    if with_mcp:
        from forge_cli.mcp.http_mount import mount_knowledge_mcp

        extend = mount_knowledge_mcp
        click.echo(f"forge serve: MCP at http://{host}:{port}/mcp", err=True)
    run_server(host=host, port=port, token=token, config=config, extend=extend)
