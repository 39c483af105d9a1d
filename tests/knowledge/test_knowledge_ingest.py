"""Ingestion per format, rejections with reasons, duplicates, batches and progress."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from knowledge_helpers import make_pdf

from forge_cli.errors import UsageError
from forge_cli.knowledge import FileRejected, KnowledgeStore, extract_text


def _table_counts(path: str) -> dict[str, int]:
    tables = ["files", "file_contents", "file_texts", "pages", "chunks", "membership",
              "vector_stores", "embeddings"]  # fmt: skip
    with sqlite3.connect(path) as raw:
        return {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


@pytest.mark.parametrize(
    ("filename", "content", "expected_text", "mime"),
    [
        ("a.txt", b"plain words here", "plain words here", "text/plain"),
        ("a.md", b"# T\n\nmarkdown body", "markdown body", "text/markdown"),
        ("a.rst", b"Title\n=====\n\nrst body", "rst body", "text/x-rst"),
        ("a.py", b"def spam():\n    return 'eggs'\n", "return 'eggs'", "text/x-source"),
        ("a.json", b'{"key": "json value"}', "json value", "application/json"),
        ("a.csv", b"name,city\nAda,London\n", "Ada,London", "text/csv"),
        ("Makefile", b"all:\n\techo build\n", "echo build", "text/x-source"),
        ("bom.txt", b"\xef\xbb\xbfwith bom\r\nline two", "with bom\nline two", "text/plain"),
    ],
)
def test_text_formats(
    store: KnowledgeStore, filename: str, content: bytes, expected_text: str, mime: str
) -> None:
    result = store.add_file(content, filename)
    assert result.file is not None
    assert result.file.mime_type == mime
    text = store.read_file(result.file.id).text
    assert expected_text in text
    assert not text.startswith("\ufeff")


def test_html_drops_scripts_and_keeps_headings() -> None:
    html = (
        b"<html><head><title>T</title><style>p{color:red}</style></head><body>"
        b"<h2>Section &amp; more</h2><p>First <b>bold</b> para.</p>"
        b"<script>alert('x')</script><ul><li>one</li><li>two</li></ul></body></html>"
    )
    text = extract_text("page.html", html).text
    assert "## Section & more" in text
    assert "First bold para." in text
    assert "- one" in text
    assert "- two" in text
    assert "alert" not in text
    assert "color:red" not in text


def test_html_drops_sphinx_heading_anchors() -> None:
    """Sphinx (the Python docs, most project docs) ends every heading and API entry with
    ``<a class="headerlink">¶</a>``: the pilcrow landed in every passage, snippet and quote
    ("### Parsing arguments¶", "service_actions()¶")."""
    html = (
        b'<h2>Parsing arguments<a class="headerlink" href="#parsing" title="Link">\xc2\xb6</a>'
        b'</h2><dl><dt id="f"><code>service_actions</code>()<a class="headerlink" href="#f">'
        b"\xc2\xb6</a></dt><dd><p>Called in the loop. A pilcrow \xc2\xb6 in prose stays.</p>"
        b'</dd></dl><p>See <a href="#parsing">Parsing arguments</a>.</p>'
    )
    text = extract_text("argparse.html", html).text
    assert "## Parsing arguments\n" in text + "\n"
    assert "service_actions()" in text
    assert "()\u00b6" not in text
    assert "A pilcrow \u00b6 in prose stays." in text
    assert "See Parsing arguments." in text  # an ordinary link keeps its text
    assert text.count("\u00b6") == 1


def test_pdf_pages_are_tracked(store: KnowledgeStore, pdf_bytes: bytes) -> None:
    result = store.add_file(pdf_bytes, "book.pdf")
    assert result.file is not None
    assert result.file.page_count == 3
    doc = store.read_file(result.file.id)
    assert doc.paged
    assert doc.page_count == 3
    assert "great storm" in doc.pages[1].text
    assert doc.text[doc.pages[1].char_start : doc.pages[1].char_end] == doc.pages[1].text
    assert [p.number for p in store.read_pages(result.file.id, 2, 3)] == [2, 3]
    vs = store.create_vector_store("pdf", file_ids=[result.file.id])
    hit = store.search([vs.id], "storm")[0]
    assert hit.page == 2
    assert "storm" in hit.text
    with pytest.raises(UsageError, match="3 pages"):
        store.read_pages(result.file.id, 2, 4)


@pytest.mark.parametrize(
    ("filename", "content", "reason"),
    [
        ("bin.txt", b"abc\x00def", "binary"),
        ("latin.txt", b"caf\xe9 au lait", "not UTF-8"),
        ("empty.md", b"", "empty file"),
        ("blank.md", b"  \n\t\n  ", "whitespace"),
        ("image.png", b"\x89PNG\r\n", "unsupported file type .png"),
        ("noext", b"hello", r"unsupported file type \(none\)"),
        ("bad.pdf", b"%PDF-1.4\n1 0 obj garbage\n%%EOF", "corrupt PDF"),
        ("fake.pdf", b"not a pdf at all", "corrupt PDF"),
        ("blank.pdf", make_pdf([""]), "no extractable text"),
    ],
)
def test_rejections_leave_store_unchanged(
    store: KnowledgeStore, filename: str, content: bytes, reason: str
) -> None:
    vs = store.create_vector_store("target")
    before = _table_counts(store.path)
    with pytest.raises(FileRejected, match=reason) as info:
        store.add_file(content, filename, vector_store_id=vs.id)
    assert info.value.exit_code == 2
    assert filename in info.value.one_line()
    assert _table_counts(store.path) == before


def test_truncated_pdf_is_rejected(store: KnowledgeStore, pdf_bytes: bytes) -> None:
    with pytest.raises(FileRejected, match="corrupt PDF"):
        store.add_file(pdf_bytes[: len(pdf_bytes) // 3], "cut.pdf")
    assert store.list_files() == []


def test_oversized_file_rejected_without_reading(
    tmp_path: Path, store: KnowledgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "huge.md"
    with big.open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)

    def no_read(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the oversized file was read")

    monkeypatch.setattr(Path, "read_bytes", no_read)
    monkeypatch.setattr(Path, "open", no_read)
    with pytest.raises(FileRejected, match=r"too large \(100 MiB; the limit is 50 MiB\)"):
        store.add_path(big)
    assert store.list_files() == []


def test_size_limit_is_configurable(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db", max_file_bytes=10) as st:
        with pytest.raises(FileRejected, match="too large"):
            st.add_file(b"more than ten bytes", "a.txt")
        assert st.add_file(b"tiny", "b.txt").status == "ok"


def test_duplicates_return_the_existing_file(store: KnowledgeStore) -> None:
    first = store.add_file(b"same content", "one.txt")
    vs = store.create_vector_store("v")
    second = store.add_file(b"same content", "two.txt", vector_store_id=vs.id)
    assert second.status == "duplicate"
    assert first.file is not None
    assert second.file is not None
    assert second.file.id == first.file.id
    assert second.reason is not None
    assert "one.txt" in second.reason
    assert len(store.list_files()) == 1
    assert [m.file_id for m in store.list_vector_store_files(vs.id)] == [first.file.id]


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"k": [1, 2]}, "string, number or boolean"),
        ({"": "v"}, "attribute key"),
        ({f"k{i}": i for i in range(17)}, "at most 16"),
        ({"k": "x" * 513}, "longer than 512"),
    ],
)
def test_bad_attributes(store: KnowledgeStore, attributes: dict[str, object], message: str) -> None:
    vs = store.create_vector_store("v")
    with pytest.raises(UsageError, match=message):
        store.add_file(b"text", "a.txt", vector_store_id=vs.id, attributes=attributes)
    assert store.list_files() == []


def test_batch_reports_each_file_and_continues(tmp_path: Path, store: KnowledgeStore) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# A\n\nalpha text")
    (docs / "sub" / "b.txt").write_text("beta text")
    (docs / "sub" / "empty.txt").write_text("")
    (docs / "skip.bin").write_bytes(b"\x00\x01")  # unsupported: not picked from a directory
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "c.md").write_text("hidden")
    (tmp_path / "x.exe").write_bytes(b"MZ")
    dup = tmp_path / "dup.md"
    dup.write_text("# A\n\nalpha text")
    calls: list[tuple[int, int, str]] = []
    vs = store.create_vector_store("batch")
    report = store.ingest_paths(
        [docs, tmp_path / "missing.md", dup, tmp_path / "x.exe"],
        vector_store_id=vs.id,
        progress=lambda done, total, name: calls.append((done, total, name)),
    )
    summary = [(r.filename, r.status, r.reason) for r in report.results]
    assert summary[0][:2] == ("a.md", "ok")
    assert summary[1][:2] == ("b.txt", "ok")
    assert summary[2][:2] == ("empty.txt", "rejected")
    assert summary[2][2] == "empty file"
    assert summary[3][1:] == ("rejected", "no such file")
    assert summary[4][:2] == ("dup.md", "duplicate")
    assert summary[5][1] == "rejected"
    assert "unsupported" in str(summary[5][2])
    assert len(report.added) == 2
    assert len(report.duplicates) == 1
    assert len(report.rejected) == 3
    assert calls == [(i, 6, r.filename) for i, r in enumerate(report.results, start=1)]
    assert store.get_vector_store(vs.id).file_counts.total == 2
