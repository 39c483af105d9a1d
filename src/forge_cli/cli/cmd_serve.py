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
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer to this Host name (repeatable; adds to serve.allowed_hosts).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Let browser pages from this origin write (repeatable; adds to serve.allowed_origins).",
)
@click.option(
    "--mcp/--no-mcp",
    "with_mcp",
    default=True,
    show_default=True,
    help="Serve the knowledge store to MCP clients at /mcp.",
)
def serve(
    host: str,
    port: int,
    token: str | None,
    profile: str | None,
    allow_hosts: tuple[str, ...],
    allow_origins: tuple[str, ...],
    with_mcp: bool,
) -> None:
    """Serve /v1/responses, /v1/files, /v1/vector_stores and /mcp (needs --token off loopback).

    The engine's web search provider and answer model come from the ``engine.*`` settings
    (config file, profile, or FORGE_SEARXNG_URL / FORGE_UPSTREAM_* environment variables).
    Requests must name this server in ``Host`` and browser pages may not write unless their
    origin is allowed (docs/serve.md).
    """
    from forge_cli.cli.build import engine_config
    from forge_cli.cli.options import settings_from_options
    from forge_cli.engine.server import ServeAccess, check_bind, run_server

    check_bind(host, token)
    settings = settings_from_options({"profile": profile})
    config = engine_config(settings)
    access = ServeAccess(
        allowed_hosts=tuple(dict.fromkeys((*settings.serve_allowed_hosts, *allow_hosts))),
        allowed_origins=tuple(dict.fromkeys((*settings.serve_allowed_origins, *allow_origins))),
        max_body_bytes=settings.serve_max_body_bytes,
    )

    extend = None
    if with_mcp:
        from forge_cli.mcp.http_mount import mount_knowledge_mcp

        extend = mount_knowledge_mcp

    def banner() -> None:
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"forge serve: http://{shown}:{port}/v1  (Ctrl+C stops)", err=True)
        if with_mcp:
            click.echo(f"forge serve: MCP at http://{shown}:{port}/mcp", err=True)

    run_server(
        host=host,
        port=port,
        token=token,
        config=config,
        access=access,
        on_ready=banner,
        extend=extend,
    )
