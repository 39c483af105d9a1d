"""The sanitiser's quick test (one regex class written as runs) finds exactly the characters its
table escapes: every code point is checked, so no run boundary is off by one."""

from __future__ import annotations

from forge_cli.sanitize import _DANGER, dangerous_chars, sanitize


def test_danger_class_matches_exactly_the_table() -> None:
    everything = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    assert set(_DANGER.findall(everything)) == dangerous_chars()


def test_every_dangerous_character_is_escaped() -> None:
    for char in sorted(dangerous_chars()):
        shown = sanitize(f"a{char}b")
        assert char not in shown
        assert shown.startswith("a\\")
        assert shown.endswith("b")
