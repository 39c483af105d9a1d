"""MCP both ways: MCP servers as tool sources, and the knowledge store as an MCP server.

Importing this package is cheap: the ``mcp`` SDK (and its HTTP stack) is imported only inside the
functions that talk MCP, so ``forge --version``, ``--help`` and runs without MCP never load it.
"""

from __future__ import annotations
