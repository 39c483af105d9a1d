"""Default factories for the protocol and conversation models (no import of pydantic)."""

from __future__ import annotations

from typing import Any

__all__ = ["empty_list"]


def empty_list() -> list[Any]:
    """``Field(default_factory=empty_list)``: a new empty list, as ``default_factory=list`` gives.

    Pydantic asks every default factory whether it takes the validated data, with
    ``inspect.signature``; for the builtin ``list`` that parses its text signature with
    ``tokenize``, whose first use compiles a large regular expression (~2 ms of every
    ``forge ask``, ADR-0024). A Python function's signature is read without it.
    """
    return []
