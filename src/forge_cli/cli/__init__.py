"""forge_cli.cli."""
