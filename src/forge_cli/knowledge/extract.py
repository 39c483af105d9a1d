"""Turn a file's bytes into plain text (with page boundaries for PDFs).

Each format has one small extractor. Problems raise :class:`FileRejected` with a reason a user
can act on; the ingest pipeline turns that into a per-file result.
"""

from __future__ import annotations

import io
import posixpath
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from forge_cli.errors import UsageError

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "ExtractedText",
    "FileRejected",
    "extract_text",
    "file_kind",
    "mime_type_for",
]


class FileRejected(UsageError):
    """A file cannot be ingested; ``reason`` says why in a few words."""

    def __init__(self, filename: str, reason: str) -> None:
        super().__init__(f"{filename}: {reason}")
        self.filename = filename
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ExtractedText:
    """Extracted text; ``pages`` holds (start, end) offsets per page for paged formats."""

    text: str
    mime_type: str
    pages: list[tuple[int, int]] | None = None


_TEXT_TYPES = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".log": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rst": "text/x-rst",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
_CODE_EXTENSIONS = [
    ".py",
    ".pyi",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".tsx",
    ".jsx",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".go",
    ".rs",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".cxx",
    ".hpp",
    ".hh",
    ".cs",
    ".rb",
    ".php",
    ".pl",
    ".pm",
    ".lua",
    ".r",
    ".jl",
    ".swift",
    ".m",
    ".mm",
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".ps1",
    ".sql",
    ".css",
    ".scss",
    ".less",
    ".vue",
    ".svelte",
    ".yaml",
    ".yml",
    ".toml",
    ".ini",
    ".cfg",
    ".conf",
    ".xml",
    ".tex",
    ".el",
    ".clj",
    ".ex",
    ".exs",
    ".erl",
    ".hs",
    ".ml",
    ".dart",
    ".zig",
    ".nim",
    ".proto",
    ".graphql",
    ".gradle",
    ".cmake",
    ".mk",
    ".dockerfile",
    ".tf",
]
_CODE_NAMES = {"makefile", "dockerfile", "rakefile", "gemfile", "justfile", "cmakelists.txt"}

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset([*_TEXT_TYPES, *_CODE_EXTENSIONS])
"""File name extensions the store can ingest (lower case, with the dot)."""


def file_kind(filename: str) -> str | None:
    """``"pdf"``, ``"html"``, ``"text"``, or None when the file type is not supported."""
    base = posixpath.basename(filename.replace("\\", "/")).lower()
    ext = posixpath.splitext(base)[1]
    if ext == ".pdf":
        return "pdf"
    if ext in (".html", ".htm"):
        return "html"
    if ext in SUPPORTED_EXTENSIONS or base in _CODE_NAMES:
        return "text"
    return None


def mime_type_for(filename: str) -> str:
    """The MIME type recorded for a supported file (source code is ``text/x-source``)."""
    ext = posixpath.splitext(filename.lower())[1]
    return _TEXT_TYPES.get(ext, "text/x-source")


def extract_text(filename: str, data: bytes) -> ExtractedText:
    """Extract the text of a supported file, or raise :class:`FileRejected`."""
    kind = file_kind(filename)
    if kind is None:
        ext = posixpath.splitext(filename)[1] or "(none)"
        raise FileRejected(filename, f"unsupported file type {ext}")
    if not data:
        raise FileRejected(filename, "empty file")
    if kind == "pdf":
        result = _extract_pdf(filename, data)
    else:
        text = _decode(filename, data)
        if kind == "html":
            text = html_to_text(text)
        result = ExtractedText(text=text, mime_type=mime_type_for(filename))
    if not result.text.strip():
        raise FileRejected(filename, "no text content (empty or whitespace only)")
    return result


def _decode(filename: str, data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _normalise(data.decode("utf-16"))
        except UnicodeDecodeError as exc:
            raise FileRejected(filename, "undecodable UTF-16 text") from exc
    if b"\x00" in data:
        raise FileRejected(filename, "binary content (NUL bytes), not a text file")
    try:
        return _normalise(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise FileRejected(
            filename, f"not UTF-8 text (undecodable byte at offset {exc.start})"
        ) from exc


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _quiet_pypdf() -> None:
    """Keep pypdf's complaints about damaged files ("incorrect startxref pointer") off stderr:
    a file that cannot be read is rejected with its reason; one that can is fine. They stay
    visible in ``--debug`` logs (the root logger's handlers still receive them)."""
    import logging
    import warnings

    from pypdf.errors import PdfReadWarning

    pypdf_logger = logging.getLogger("pypdf")
    if not any(isinstance(h, logging.NullHandler) for h in pypdf_logger.handlers):
        pypdf_logger.addHandler(logging.NullHandler())  # no "last resort" print to stderr
    warnings.filterwarnings("ignore", category=PdfReadWarning)


def _extract_pdf(filename: str, data: bytes) -> ExtractedText:
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise FileRejected(filename, "corrupt PDF (no %PDF header)")
    # pypdf is imported lazily: it is only needed for PDFs and slows start-up.
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    _quiet_pypdf()

    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    offset = 0
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileRejected(filename, "encrypted PDF (a password is needed)")
        for page in reader.pages:
            text = _normalise(page.extract_text() or "").strip()
            if parts:
                offset += 2  # the "\n\n" joining pages
            pages.append((offset, offset + len(text)))
            parts.append(text)
            offset += len(text)
    except FileRejected:
        raise
    except PyPdfError as exc:
        raise FileRejected(filename, f"corrupt PDF ({exc})") from exc
    except Exception as exc:
        # pypdf reports damaged files with many exception types (IndexError, KeyError,
        # RecursionError…); any failure while parsing means the PDF cannot be used.
        raise FileRejected(filename, f"corrupt PDF ({type(exc).__name__}: {exc})") from exc
    if not pages:
        raise FileRejected(filename, "corrupt PDF (no pages)")
    text = "\n\n".join(parts)
    if not text.strip():
        raise FileRejected(filename, "PDF has no extractable text (scanned images?)")
    return ExtractedText(text=text, mime_type="application/pdf", pages=pages)


_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "nav",
        "aside",
        "li",
        "ul",
        "ol",
        "table",
        "tr",
        "blockquote",
        "pre",
        "br",
        "hr",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "form",
        "fieldset",
        "address",
        "details",
        "summary",
    ]
)
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg"})
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_SPACES = re.compile(r"\s+")


def _is_headerlink(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an ``<a>`` is a heading's permalink (Sphinx's ``headerlink``: a lone ``¶``)."""
    return any(name == "class" and "headerlink" in (value or "").split() for name, value in attrs)


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._pre = 0
        self._anchor = False  # inside Sphinx's <a class="headerlink">¶</a>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip += 1
        elif tag == "a" and not self._anchor and _is_headerlink(attrs):
            self._anchor = True
            self._skip += 1
        elif tag in _HEADINGS:
            self.parts.append("\n\n" + "#" * _HEADINGS[tag] + " ")
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n" if tag != "br" else "\n")
            if tag == "pre":
                self._pre += 1
            if tag == "li":
                self.parts[-1] = "\n- "
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS or (tag == "a" and self._anchor):
            self._anchor = self._anchor and tag != "a"
            self._skip = max(0, self._skip - 1)
        elif tag in _HEADINGS or tag in _BLOCK_TAGS:
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
            if tag != "li":
                self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.parts.append(data if self._pre else _SPACES.sub(" ", data))


def html_to_text(html: str) -> str:
    """HTML to readable text: scripts and styles dropped, headings kept as ``#`` lines."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    out: list[str] = []
    blank = True
    for raw_line in "".join(parser.parts).split("\n"):
        line = " ".join(raw_line.split())
        if not line.strip():
            if not blank:
                out.append("")
            blank = True
        else:
            out.append(line)
            blank = False
    return "\n".join(out).strip()
