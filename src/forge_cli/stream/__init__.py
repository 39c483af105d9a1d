"""forge_cli.stream."""
