"""forge_cli.engine."""
