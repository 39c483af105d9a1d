"""Version of the forge-cli distribution (read by hatch and by ``forge --version``)."""

__version__ = "0.1.0.dev0"
