"""forge_cli.conversations."""
