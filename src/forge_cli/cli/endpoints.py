"""Where a run's server is when the settings name none, and which variable holds its API key.

Both the backend (:mod:`forge_cli.cli.build`) and the knowledge client
(:mod:`forge_cli.cli.knowledge`) of a run are built from these; they live apart from either so
that neither builder imports the other (``tests/test_import_cycles.py``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from forge_cli.config import Settings

__all__ = ["DEFAULT_BASE_URLS", "api_key_env"]

DEFAULT_BASE_URLS = {
    "responses": "http://localhost:9999/v1",
    "knowledge-forge": "http://localhost:9999/v1",
    "chat": "http://localhost:11434/v1",
}
"""Used when a profile names an API kind but no URL (a local Knowledge Forge server, Ollama)."""


def api_key_env(settings: Settings, environ: Mapping[str, str] | None = None) -> str:
    """The environment variable the API key is read from (``forge doctor`` names it).

    ``api_key_env`` (``--api-key-env``) when set. Otherwise ``FORGE_API_KEY`` when it is set, then,
    for OpenAI-compatible servers (``responses`` and ``chat``), ``OPENAI_API_KEY``; Knowledge Forge
    reads only ``FORGE_API_KEY``. With neither set, the variable a user would be told to set.
    """
    if settings.api_key_env:
        return settings.api_key_env
    env = os.environ if environ is None else environ
    if settings.api == "knowledge-forge" or env.get("FORGE_API_KEY"):
        return "FORGE_API_KEY"
    return "OPENAI_API_KEY"
