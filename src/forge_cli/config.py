"""Settings, profiles and paths (filled in by the CLI work)."""
