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


def test_json_escapes_what_the_terminal_sanitiser_neutralises() -> None:
    """``forge ask --json`` and ``forge serve`` escape in JSON exactly the characters
    :func:`sanitize` neutralises (C0 controls json.dumps escapes itself)."""
    from forge_cli.sanitize import _JSON_DANGER

    printable = "".join(map(chr, range(0x20, 0x110000)))
    assert set(_JSON_DANGER.findall(printable)) == {c for c in dangerous_chars() if c >= " "}
