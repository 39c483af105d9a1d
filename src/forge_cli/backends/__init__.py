"""forge_cli.backends."""
