"""The public surface of the CLI-side packages is listed once, in ``__all__``, and importable."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "package", ["forge_cli.config", "forge_cli.conversations", "forge_cli.repl", "forge_cli.cli"]
)
def test_all_names_exist(package: str) -> None:
    module = importlib.import_module(package)
    names = list(module.__all__)
    for name in names:
        assert hasattr(module, name), f"{package}.{name}"
