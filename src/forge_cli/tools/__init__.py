"""forge_cli.tools."""
