"""forge_cli.agent."""
