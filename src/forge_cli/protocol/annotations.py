"""Annotations on output text: citations of files and URLs, file paths, and an Unknown fallback."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Discriminator, Tag

from forge_cli.protocol._base import BUILT_ON_USE, WireModel, type_tag

__all__ = [
    "ANNOTATION_TYPES",
    "Annotation",
    "ContainerFileCitation",
    "FileCitation",
    "FilePath",
    "UnknownAnnotation",
    "UrlCitation",
]


class FileCitation(WireModel):
    """A citation of a file.

    ``index`` is a character position in the text (OpenAI) or a marker number (some Knowledge
    Forge servers); ``page`` and ``snippet`` are Knowledge Forge additions.
    """

    type: Literal["file_citation"] = "file_citation"
    file_id: str = ""
    filename: str | None = None
    index: int | None = None
    page: int | None = None
    snippet: str | None = None


class UrlCitation(WireModel):
    """A citation of a web page, covering ``text[start_index:end_index]``."""

    type: Literal["url_citation"] = "url_citation"
    url: str = ""
    title: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    snippet: str | None = None


class FilePath(WireModel):
    """A path to a file produced by a tool (e.g. the code interpreter)."""

    type: Literal["file_path"] = "file_path"
    file_id: str = ""
    index: int | None = None


class ContainerFileCitation(WireModel):
    """A citation of a file inside a code-interpreter container."""

    type: Literal["container_file_citation"] = "container_file_citation"
    container_id: str = ""
    file_id: str = ""
    filename: str | None = None
    start_index: int | None = None
    end_index: int | None = None


class UnknownAnnotation(WireModel):
    """An annotation kind we do not know; its fields are kept as extras."""

    is_unknown_kind: ClassVar[bool] = True

    type: str = "unknown"


ANNOTATION_TYPES = frozenset(
    {"file_citation", "url_citation", "file_path", "container_file_citation"}
)

Annotation = Annotated[
    Annotated[FileCitation, BUILT_ON_USE, Tag("file_citation")]
    | Annotated[UrlCitation, BUILT_ON_USE, Tag("url_citation")]
    | Annotated[FilePath, BUILT_ON_USE, Tag("file_path")]
    | Annotated[ContainerFileCitation, BUILT_ON_USE, Tag("container_file_citation")]
    | Annotated[UnknownAnnotation, BUILT_ON_USE, Tag("__unknown__")],
    Discriminator(type_tag(ANNOTATION_TYPES, "__unknown__")),
]
"""Any annotation; an unknown ``type`` becomes :class:`UnknownAnnotation`."""
