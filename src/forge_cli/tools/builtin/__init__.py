"""Built-in client tools (retrieval over the local knowledge store)."""

from __future__ import annotations

from forge_cli.tools.builtin.knowledge import CITE_HINT, KnowledgeToolkit

__all__ = ["CITE_HINT", "KnowledgeToolkit"]
