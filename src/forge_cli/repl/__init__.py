"""forge_cli.repl."""
