"""The text of a one-shot question: the argument, piped standard input and attached files.

``cat notes.md | forge ask "Summarize this"`` sends the question followed by the piped text;
``forge ask -f a.py -f b.py "What differs?"`` attaches files (text, Markdown, HTML, PDF, code)
without a vector store. Each attachment is a block the model can tell apart from the question:

    Summarize this

    <document name="notes.md">
    ...
    </document>

Attached text is bounded (:data:`MAX_ATTACHED_CHARS` in all), so a stray ``cat`` of a huge file
gets one clear line instead of a request the server refuses or the memory it would cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forge_cli.errors import UsageError
from forge_cli.limits import describe_bytes

__all__ = ["MAX_ATTACHED_CHARS", "compose_question", "read_attachment"]

MAX_ATTACHED_CHARS = 400_000
"""Characters of attached text (stdin and files together) one question may carry."""


def compose_question(question: str | None, stdin: Any, files: Sequence[str] = ()) -> str:
    """The full question text (raises :class:`UsageError` when there is none or too much).

    - ``question`` ``-`` or absent with a piped stdin: stdin *is* the question (as before);
    - a question and a piped stdin: the question, then stdin as a ``<document name="stdin">``;
    - ``files``: each attached as a document, in order.
    """
    piped = not _isatty(stdin)
    attachments: list[tuple[str, str]] = []
    if question == "-" or (question is None and piped):
        text = _read_bounded(stdin, "standard input").strip()
    else:
        text = (question or "").strip()
        if piped:
            extra = _read_bounded(stdin, "standard input")
            if extra.strip():
                attachments.append(("stdin", extra))
    budget = MAX_ATTACHED_CHARS - sum(len(body) for _, body in attachments)
    for name in files:
        body = read_attachment(name)
        budget -= len(body)
        if budget < 0:
            raise UsageError(
                f"the attached text is over {MAX_ATTACHED_CHARS:,} characters (at {name})",
                hint="put large documents in a vector store: forge vs create NAME FILES",
            )
        attachments.append((Path(name).name, body))
    if not text and not attachments:
        raise UsageError("no question given", hint='forge ask "QUESTION" or pipe it on stdin')
    if not text:
        text = "Here is a document."
    blocks = [text, *(_document(name, body) for name, body in attachments)]
    return "\n\n".join(blocks)


def _document(name: str, body: str) -> str:
    safe = name.replace('"', "'").replace("\n", " ")
    return f'<document name="{safe}">\n{body.strip()}\n</document>'


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _read_bounded(stream: Any, what: str) -> str:
    text = str(stream.read(MAX_ATTACHED_CHARS + 1))
    if len(text) > MAX_ATTACHED_CHARS:
        raise UsageError(
            f"{what} is over {MAX_ATTACHED_CHARS:,} characters",
            hint="put large documents in a vector store: forge vs create NAME FILES",
        )
    return text


def read_attachment(name: str) -> str:
    """The text of an attached file (extracted from PDF and HTML); one-line errors."""
    from forge_cli.knowledge.extract import FileRejected, extract_text, file_kind

    path = Path(name).expanduser()
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise UsageError(f"cannot attach {name}: not a file")
        if size > MAX_ATTACHED_CHARS * 8:  # a PDF holds far less text than its size
            raise UsageError(
                f"cannot attach {name}: {describe_bytes(size)} is too large to send with a "
                "question",
                hint="put large documents in a vector store: forge vs create NAME FILES",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot attach {name}: {exc.strerror or exc}") from None
    label = path.name if file_kind(path.name) is not None else f"{path.name}.txt"
    try:
        return extract_text(label, data).text
    except FileRejected as exc:
        raise UsageError(f"cannot attach {name}: {exc.reason}") from None
