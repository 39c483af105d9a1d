"""Each package lists its public surface once, in ``__all__``, and every name resolves."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "forge_cli.protocol",
    "forge_cli.stream",
    "forge_cli.backends",
    "forge_cli.agent",
    "forge_cli.tools",
    "forge_cli.knowledge",
    "forge_cli.engine",
    "forge_cli.render",
    "forge_cli.repl",
    "forge_cli.conversations",
    "forge_cli.config",
    "forge_cli.evaluation",
    "forge_cli.errors",
    "forge_cli.sanitize",
    "forge_cli.cli",
    "forge_cli.mcp",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_resolve(package: str) -> None:
    module = importlib.import_module(package)
    names = list(module.__all__)
    assert names, f"{package} exports nothing"
    assert len(names) == len(set(names)), f"{package}.__all__ has duplicates"
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"{package} lists names it does not have: {missing}"
