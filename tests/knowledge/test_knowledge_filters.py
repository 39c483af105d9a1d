"""Attribute filters: every operator, and/or nesting, and malformed filters."""

from __future__ import annotations

import pytest

from forge_cli.errors import UsageError
from forge_cli.knowledge import KnowledgeStore


@pytest.fixture
def tagged(store: KnowledgeStore) -> tuple[KnowledgeStore, str]:
    vs = store.create_vector_store("tagged")
    docs = [
        ("a.md", {"year": 2021, "lang": "en", "draft": False}),
        ("b.md", {"year": 2023, "lang": "de", "draft": True}),
        ("c.md", {"year": 2025, "lang": "en", "score": 4.5}),
        ("d.md", {"lang": "fr", "year": "2023"}),
    ]
    for name, attrs in docs:
        store.add_file(
            f"# {name}\n\nshared topic words {name}".encode(),
            name,
            vector_store_id=vs.id,
            attributes=attrs,
        )
    return store, vs.id


def _names(tagged: tuple[KnowledgeStore, str], flt: dict[str, object]) -> list[str]:
    store, vs_id = tagged
    return sorted(h.filename for h in store.search([vs_id], "shared topic", filters=flt))


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"type": "eq", "key": "lang", "value": "en"}, ["a.md", "c.md"]),
        ({"type": "ne", "key": "lang", "value": "en"}, ["b.md", "d.md"]),
        ({"type": "gt", "key": "year", "value": 2021}, ["b.md", "c.md"]),
        ({"type": "gte", "key": "year", "value": 2023}, ["b.md", "c.md"]),
        ({"type": "lt", "key": "year", "value": 2023}, ["a.md"]),
        ({"type": "lte", "key": "year", "value": 2023}, ["a.md", "b.md"]),
        ({"type": "in", "key": "lang", "value": ["de", "fr"]}, ["b.md", "d.md"]),
        ({"type": "nin", "key": "lang", "value": ["de", "fr"]}, ["a.md", "c.md"]),
        ({"type": "eq", "key": "draft", "value": True}, ["b.md"]),
        ({"type": "eq", "key": "year", "value": "2023"}, ["d.md"]),
        ({"type": "gte", "key": "score", "value": 4}, ["c.md"]),
        ({"type": "ne", "key": "score", "value": 4.5}, ["a.md", "b.md", "d.md"]),
        ({"type": "eq", "key": "missing", "value": 1}, []),
        (
            {"type": "and", "filters": [
                {"type": "eq", "key": "lang", "value": "en"},
                {"type": "gte", "key": "year", "value": 2022},
            ]},
            ["c.md"],
        ),
        (
            {"type": "or", "filters": [
                {"type": "eq", "key": "lang", "value": "fr"},
                {"type": "and", "filters": [
                    {"type": "eq", "key": "draft", "value": True},
                    {"type": "lt", "key": "year", "value": 2024},
                ]},
            ]},
            ["b.md", "d.md"],
        ),
    ],
)  # fmt: skip
def test_filter_operators(
    tagged: tuple[KnowledgeStore, str], flt: dict[str, object], expected: list[str]
) -> None:
    assert _names(tagged, flt) == expected


def test_filters_apply_to_list_documents(tagged: tuple[KnowledgeStore, str]) -> None:
    store, vs_id = tagged
    docs = store.list_documents([vs_id], filters={"type": "eq", "key": "lang", "value": "de"})
    assert [d.filename for d in docs] == ["b.md"]


@pytest.mark.parametrize(
    ("flt", "message"),
    [
        ("lang = en", "must be an object"),
        ({"type": "like", "key": "k", "value": 1}, "unknown filter type 'like'"),
        ({"key": "k", "value": 1}, "unknown filter type None"),
        ({"type": "eq", "value": 1}, "non-empty string 'key'"),
        ({"type": "eq", "key": "k"}, "has no 'value'"),
        ({"type": "eq", "key": "k", "value": {"a": 1}}, "string, number or boolean"),
        ({"type": "in", "key": "k", "value": "x"}, "non-empty list"),
        ({"type": "in", "key": "k", "value": []}, "non-empty list"),
        ({"type": "gt", "key": "k", "value": True}, "not a boolean"),
        ({"type": "and", "filters": []}, "non-empty list 'filters'"),
        ({"type": "or", "filters": [{"type": "eq"}]}, r"filters\.filters\[0\]"),
        ({"type": "eq", "key": 'a"b', "value": 1}, "quotes"),
        ({"type": "eq", "key": "k", "value": 1, "extra": 2}, "unexpected field"),
    ],
)
def test_malformed_filters(tagged: tuple[KnowledgeStore, str], flt: object, message: str) -> None:
    store, vs_id = tagged
    with pytest.raises(UsageError, match=message):
        store.search([vs_id], "shared", filters=flt)  # type: ignore[arg-type]
