"""ASCII lexers (ADR-0025): on code that is all ASCII they yield exactly the tokens pygments'
own lexers yield, and they are built from short patterns.

The equivalence is checked three ways: every category set of ``pygments.unistring`` against the
table of its ASCII members, every rewritten pattern of the lexers a model's answer commonly uses
against the original on generated ASCII text (match by match, groups included), and whole
token streams on real code (this repository's Python sources and hand-written snippets).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import unistring
from pygments.lexers import find_lexer_class_by_name
from pygments.token import Name

from forge_cli.render import ascii_lexer, direct_code
from forge_cli.render.ascii_lexer import _CATEGORY_ASCII, ascii_pattern, ascii_variant
from forge_cli.render.direct_code import CodeBlock

LANGUAGES = [
    "python",
    "javascript",
    "typescript",
    "jsx",
    "rust",
    "go",
    "java",
    "kotlin",
    "csharp",
    "c",
    "cpp",
    "bash",
    "json",
    "yaml",
    "toml",
    "sql",
    "html",
    "css",
    "ruby",
    "php",
    "swift",
    "scala",
    "haskell",
    "lua",
    "elixir",
    "julia",
    "markdown",
    "diff",
]

SNIPPETS = {
    "python": (
        "import os\n"
        "\n"
        "@cache\n"
        "def f(x: int) -> str:\n"
        '    """Doc."""\n'
        '    return f"{x!r:>4}" + os.sep  # c\n'
    ),
    "javascript": (
        "const $el = document.querySelector('#a');\n"
        "let _x = `t ${1 + 2}`; // c\n"
        "class A extends B { #p = 1; get v() { return this.#p } }\n"
    ),
    "typescript": (
        "interface P<T> { id: number; name?: string }\n"
        "export const f = async <T,>(p: P<T>): Promise<void> => {};\n"
    ),
    "rust": 'fn main() {\n    let v: Vec<u8> = vec![1, 2];\n    println!("{:?}", v); // c\n}\n',
    "kotlin": (
        "fun main(args: Array<String>) {\n"
        "    val `odd name` = 1\n"
        '    println("$args ${args.size}")\n'
        "}\n"
    ),
    "csharp": (
        'public class A<T> : B { private int _x = 0; public string Name { get; set; } = "a"; }\n'
    ),
    "java": "@Override\npublic static <T> void f(List<? extends T> xs) { int a = 0x1F; }\n",
    "go": (
        'package main\n\nfunc f(x int) (string, error) {\n\treturn fmt.Sprintf("%d", x), nil\n}\n'
    ),
    "bash": 'for f in *.txt; do echo "${f%.txt}" | tr a-z A-Z; done\n',
    "sql": "SELECT a.id, COUNT(*) FROM t AS a WHERE a.x > 1 GROUP BY a.id;\n",
    "css": ".a > b:hover::before { content: '\\201C'; color: #fff !important; }\n",
    "html": "<div class=\"a\" data-x='1'><script>let a = 1;</script></div>\n",
    "swift": "let x: [String: Int] = [:]\nfunc f(_ a: Int) -> Int { return a }\n",
    "scala": "object A { def f[T](x: T): T = x; val `type` = 1 }\n",
    "haskell": "f :: Int -> Int\nf x' = x' + 1 where _y = 2\n",
    "julia": "function f(x::Int)\n    return x^2\nend\n",
    "elixir": "defmodule A do\n  def f(%{a: a} = m), do: {:ok, a}\nend\n",
}

ASCII_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), min_size=0, max_size=40
)


def _lexer_classes() -> list[Any]:
    return [find_lexer_class_by_name(name) for name in LANGUAGES]


@cache
def _rewritten() -> list[tuple[str, str, str, int]]:
    """(lexer, original, rewritten, flags) for every pattern the variants change, recorded while
    each variant is built."""
    found: dict[tuple[str, int], tuple[str, str, str, int]] = {}
    current = [""]

    def recording(pattern: str, flags: int = 0) -> str:
        new = ascii_pattern(pattern, flags)
        if new != pattern:
            found[(new, flags)] = (current[0], pattern, new, flags)
        return new

    with mock.patch.object(ascii_lexer, "ascii_pattern", recording):
        for lexer_class in _lexer_classes():
            # A variant of its own: the cached one may have built its rules already (another
            # test in this process highlighted code), and pygments builds them only once.
            variant = ascii_variant.__wrapped__(lexer_class)
            if variant is not None:
                current[0] = lexer_class.__name__
                variant()
    return list(found.values())


def test_category_table_matches_pygments() -> None:
    for name in [*unistring.cats, "xid_start", "xid_continue"]:
        text = getattr(unistring, name)
        members = {chr(c) for c in range(128) if re.match(f"[{text}]", chr(c))}
        table = _CATEGORY_ASCII.get(name)
        if table is None:
            assert not members, name
            continue
        assert {chr(c) for c in range(128) if re.match(f"[{table}]", chr(c))} == members, name


def test_the_identifier_patterns_are_rewritten_short() -> None:
    """The point: Python's identifier rule goes from ~3,500 characters to a few."""
    assert _rewritten(), "no lexer pattern was rewritten"
    python = [new for lexer, old, new, _ in _rewritten() if lexer == "PythonLexer"]
    assert python, "the Python lexer's identifier patterns were not rewritten"
    assert max(len(new) for new in python) < 100
    for _, old, new, flags in _rewritten():
        assert new.isascii() or len(new) < len(old)
        re.compile(new, flags)  # valid


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        ("[a-zé]+", 0, "[a-z]+"),
        ("[é-ü]", 0, "[\\x80]"),  # nothing ASCII left: a set that matches no ASCII character
        ("[^é]", 0, "[^\\x80]"),
        ("[!-é]", 0, "[!-\\x7f]"),  # a range leaving ASCII is cut at its end
        ("[\\u00e9\\x41-\\u0100é]", 0, "[\\x41-\\x7f]"),
        ("[]é]", 0, "[\\]]"),
        ("[-é]", 0, "[\\-]"),
        ("[\\wé]", 0, "[\\w]"),
        ("é|[é]", 0, "é|[\\x80]"),  # outside a set, text stays
        ("\\[é]", 0, "\\[é]"),  # an escaped bracket opens no set
        ("[é]", re.IGNORECASE, "[é]"),  # KELVIN SIGN matches k: not rewritten
        ("(?i)[é]", 0, "(?i)[é]"),
        ("(?x)[é] # [ comment", 0, "(?x)[é] # [ comment"),
        ("[é]", re.VERBOSE, "[é]"),
        ("[\\N{LATIN SMALL LETTER E WITH ACUTE}]", 0, "[\\N{LATIN SMALL LETTER E WITH ACUTE}]"),
        ("[é", 0, "[é"),  # not a pattern: left for re to reject
        ("[a-z]", 0, "[a-z]"),
    ],
)
def test_ascii_pattern(pattern: str, flags: int, expected: str) -> None:
    assert ascii_pattern(pattern, flags) == expected


@settings(max_examples=300, deadline=None)
@given(text=ASCII_TEXT, which=st.integers(min_value=0), start=st.integers(0, 40))
def test_rewritten_patterns_match_the_same_on_ascii(text: str, which: int, start: int) -> None:
    rewritten = _rewritten()
    _, old, new, flags = rewritten[which % len(rewritten)]
    pos = min(start, len(text))
    a = re.compile(old, flags).match(text, pos)
    b = re.compile(new, flags).match(text, pos)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert a.span() == b.span()
        assert a.groups() == b.groups()


def _tokens(lexer_class: type[Any], code: str) -> list[tuple[Any, str]]:
    lexer = lexer_class(stripnl=False, ensurenl=True, tabsize=4)
    return list(lexer.get_tokens(code))


@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_same_tokens_on_snippets(language: str) -> None:
    lexer_class = find_lexer_class_by_name(language)
    variant = ascii_variant(lexer_class)
    assert variant is not None
    code = SNIPPETS[language]
    assert code.isascii()
    assert _tokens(variant, code) == _tokens(lexer_class, code)


def test_same_tokens_on_this_repository() -> None:
    """Every ASCII Python source of Forge, tokenized by both."""
    lexer_class = find_lexer_class_by_name("python")
    variant = ascii_variant(lexer_class)
    assert variant is not None
    sources = sorted((Path(__file__).parents[2] / "src" / "forge_cli").rglob("*.py"))
    checked = 0
    for path in sources[:80]:
        code = path.read_text(encoding="utf-8")
        if not code.isascii():
            continue
        assert _tokens(variant, code) == _tokens(lexer_class, code), path
        checked += 1
    assert checked > 40


def test_code_block_uses_the_variant_for_ascii_only() -> None:
    direct_code._lexer.cache_clear()
    ascii_lexer = direct_code._lexer("python", True)
    other = direct_code._lexer("python", False)
    python = find_lexer_class_by_name("python")
    assert type(ascii_lexer) is ascii_variant(python)
    assert type(other) is python
    # A non-ASCII identifier is one name token, as pygments draws it.
    tokens = list(other.get_tokens("café = 1\n"))
    assert (Name, "café") in tokens


def test_unknown_language_is_plain_text() -> None:
    lexer = direct_code._lexer("no-such-language", True)
    assert [text for _, text in lexer.get_tokens("a = 1\n")] == ["a = 1\n"]


@pytest.mark.parametrize("language", ["python", "javascript", "rust"])
def test_code_block_cells_are_the_same_either_way(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    console = Console(width=60, force_terminal=True, color_system="truecolor")
    block = CodeBlock(SNIPPETS[language], language)
    via_variant = block.lines(console, 60, console.options)
    build = direct_code._lexer
    monkeypatch.setattr(direct_code, "_lexer", lambda name, ascii_only: build(name, False))
    via_pygments = block.lines(console, 60, console.options)
    assert via_variant == via_pygments
