"""forge_cli.testing."""
