"""Every Forge error has a stable machine-readable code, documented in docs/json-output.md with
the exit code the CLI uses for it (issue 14 item 4)."""

from __future__ import annotations

import re
from pathlib import Path

from forge_cli import errors
from forge_cli.render.document import error_code

DOCS = Path(__file__).resolve().parents[1] / "docs" / "json-output.md"


def _classes() -> list[type[errors.ForgeError]]:
    found = [errors.ForgeError]
    for cls in found:
        found.extend(cls.__subclasses__())
    return [cls for cls in found if cls.__module__ == "forge_cli.errors"]


def _documented() -> dict[str, int]:
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| (\d+) \|$", DOCS.read_text(), re.MULTILINE)
    return {code: int(exit_code) for code, exit_code in rows}


def test_every_error_class_has_its_own_documented_code_and_exit_code() -> None:
    documented = _documented()
    codes = [cls.error_code for cls in _classes()]
    assert len(codes) == len(set(codes)), "two error classes share a code"
    for cls in _classes():
        assert documented.get(cls.error_code) == cls.exit_code, cls.__name__


def test_non_forge_errors_and_strings_get_documented_codes() -> None:
    documented = _documented()
    assert error_code(ZeroDivisionError()) == "internal_error"
    assert error_code("something happened") == "runtime_error"
    assert {"internal_error", "runtime_error"} <= set(documented)
