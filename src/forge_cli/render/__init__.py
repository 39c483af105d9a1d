"""forge_cli.render."""
