"""Every package of ours has a place in the import contracts, and sibling layers are independent."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import forge_cli

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(forge_cli.__file__).parent
LEAVES = {
    "forge_cli.errors",
    "forge_cli.sanitize",
    "forge_cli._lazy",
    "forge_cli.startup",
    "forge_cli.logs",
    "forge_cli.prompting",
    "forge_cli.wording",
    "forge_cli.api_keys",
    "forge_cli.redact",
    "forge_cli.limits",
    "forge_cli.jsonsafe",
    "forge_cli.privacy",
    "forge_cli.fitting",
}
"""Modules that import nothing of ours (their own forbidden contract)."""


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layers() -> list[str]:
    [contract] = [c for c in _contracts() if c["type"] == "layers"]
    layers = contract["layers"]
    assert isinstance(layers, list)
    return [str(layer) for layer in layers]


def test_every_subpackage_sits_in_a_layer() -> None:
    placed = {name for layer in _layers() for name in re.split(r"\s*[|:]\s*", layer)}
    packages = {f"forge_cli.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    modules = {
        f"forge_cli.{p.stem}"
        for p in PACKAGE.glob("*.py")
        if p.stem not in ("__init__", "__about__", "__main__")  # __main__: `python -m`, above all
    }
    assert packages - placed == set()
    assert modules - LEAVES == set()
    [leaf_contract] = [c for c in _contracts() if str(c["name"]).startswith("errors, sanitize")]
    assert set(leaf_contract["source_modules"]) == LEAVES  # type: ignore[arg-type]


def test_siblings_are_independent_and_testing_is_on_top() -> None:
    layers = _layers()
    assert not [layer for layer in layers if ":" in layer], "use | (independent siblings)"
    assert layers[0] == "forge_cli.testing"
    assert layers.index("forge_cli.config") > layers.index("forge_cli.cli")
