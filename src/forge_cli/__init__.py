"""Forge: a terminal chat client for knowledge bases.

Kept deliberately empty of imports so that ``forge --version`` stays fast.
"""

from forge_cli.__about__ import __version__

__all__ = ["__version__"]
