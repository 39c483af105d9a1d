"""``forge mcp``: serve the local knowledge store to MCP clients over stdio."""

from __future__ import annotations

import click

__all__ = ["mcp"]


@click.command("mcp")
@click.option("--profile", metavar="NAME", help="Config profile whose engine.* settings to use.")
def mcp(profile: str | None) -> None:
    """Serve the knowledge store as an MCP server on stdin/stdout.

    Tools: search, list_vector_stores, list_documents, read_document. Add it to an MCP client as
    the command `forge mcp`. Nothing but the protocol is written to stdout; logs go to stderr.
    """
    import anyio

    from forge_cli.cli.build import engine_config
    from forge_cli.cli.options import settings_from_options
    from forge_cli.engine import open_store
    from forge_cli.mcp.knowledge_server import build_knowledge_server
    from forge_cli.mcp.stdio import gate_stdin

    config = engine_config(settings_from_options({"profile": profile}))
    with open_store(None, config) as store:
        server = build_knowledge_server(store)
        gate_stdin()  # messages over 16 MiB or too deep: one line on stderr, not the SDK's
        anyio.run(server.run_stdio_async)
