"""``multipart/form-data`` uploads of ``forge serve``, parsed as the body arrives (ADR-0029).

The body is fed to ``python-multipart``'s streaming parser in slices of at most
:data:`SLICE_BYTES`, with a checkpoint between slices, so one upload never holds the event loop
for long and other requests are answered while it is read. Every dimension a client controls is
bounded and a refusal names its limit: the number of parts, the size and number of a part's header
lines, a filename's length in UTF-8 bytes, a text field's size, and the whole body. Once a rule is
broken nothing more is parsed or kept.
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from dataclasses import dataclass

from anyio.lowlevel import checkpoint
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

from forge_cli.errors import UsageError

__all__ = ["SLICE_BYTES", "FormData", "MultipartLimits", "MultipartReader", "read_multipart"]

SLICE_BYTES = 16 * 1024
"""The most body bytes parsed between two chances for the event loop to run something else."""


@dataclass(frozen=True, slots=True)
class FormData:
    """Text fields and uploaded files (name -> (filename, content))."""

    fields: dict[str, str]
    files: dict[str, tuple[str, bytes]]


@dataclass(frozen=True, slots=True)
class MultipartLimits:
    """What one upload may hold; every limit is refused with a 400 that names it."""

    max_body_bytes: int
    """The whole body (the guard refuses more with a 413 first)."""
    max_parts: int = 16
    """Parts in the body (an upload needs ``file`` and ``purpose``)."""
    max_header_bytes: int = 1024
    """One header line of a part."""
    max_headers: int = 8
    """Header lines of one part."""
    max_filename_bytes: int = 255
    """A filename, in UTF-8 bytes (the common file-system limit)."""
    max_field_bytes: int = 64 * 1024
    """One text field's value."""


def _boundary(content_type: str) -> bytes:
    kind, params = parse_options_header(content_type)
    boundary = params.get(b"boundary", b"")
    if kind != b"multipart/form-data" or not boundary:
        raise UsageError("expected a multipart/form-data body with a boundary")
    return boundary


class MultipartReader:
    """One upload's parser: :meth:`feed` it the body's bytes, then :meth:`finish`."""

    def __init__(self, content_type: str, limits: MultipartLimits) -> None:
        self._limits = limits
        self._received = 0
        self._parts = 0
        self._fields: dict[str, str] = {}
        self._files: dict[str, tuple[str, bytes]] = {}
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._disposition = b""
        self._name: str | None = None
        self._filename: str | None = None
        self._data = bytearray()
        self._ended = False
        try:
            self._parser = MultipartParser(
                _boundary(content_type),
                {
                    "on_part_begin": self._part_begin,
                    "on_header_field": self._header_field,
                    "on_header_value": self._header_value_data,
                    "on_header_end": self._header_end,
                    "on_headers_finished": self._headers_finished,
                    "on_part_data": self._part_data,
                    "on_part_end": self._part_end,
                    "on_end": self._end,
                },
                max_header_count=limits.max_headers,
                max_header_size=limits.max_header_bytes,
            )
        except FormParserError as exc:
            raise UsageError(f"the multipart boundary is unusable: {exc}") from None

    def feed(self, data: bytes) -> None:
        """Parse more of the body; raises ``UsageError`` naming the limit a part passes."""
        self._received += len(data)
        if self._received > self._limits.max_body_bytes:
            raise UsageError(
                f"the upload is larger than the limit of {self._limits.max_body_bytes} bytes"
            )
        try:
            self._parser.write(data)
        except FormParserError as exc:
            limits = self._limits
            raise UsageError(
                f"the multipart body could not be parsed: {exc} (limits: "
                f"{limits.max_header_bytes} bytes a header line, "
                f"{limits.max_headers} header lines a part)"
            ) from None

    def finish(self) -> FormData:
        """The parsed form, once the whole body was fed."""
        if not self._ended:
            raise UsageError("the multipart body ends before its closing boundary")
        return FormData(fields=self._fields, files=self._files)

    # -- parser callbacks (a UsageError raised here ends the parse) ----------------------------

    def _part_begin(self) -> None:
        self._parts += 1
        if self._parts > self._limits.max_parts:
            raise UsageError(
                f"the upload has more than the limit of {self._limits.max_parts} parts"
            )
        self._disposition = b""
        self._name = self._filename = None
        self._data.clear()

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def _header_value_data(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def _header_end(self) -> None:
        if bytes(self._header_name).strip().lower() == b"content-disposition":
            self._disposition = bytes(self._header_value)
        self._header_name.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        _kind, params = parse_options_header(self._disposition.decode("latin-1"))
        name, filename = params.get(b"name"), params.get(b"filename")
        if filename is not None and len(filename) > self._limits.max_filename_bytes:
            raise UsageError(
                "the upload's filename is longer than the limit of "
                f"{self._limits.max_filename_bytes} bytes (UTF-8)"
            )
        self._name = None if name is None else name.decode("utf-8", "replace")
        self._filename = None if filename is None else filename.decode("utf-8", "replace")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        self._data += data[start:end]
        if self._filename is None and len(self._data) > self._limits.max_field_bytes:
            raise UsageError(
                f"the form field {(self._name or '')[:40]!r} is larger than the limit of "
                f"{self._limits.max_field_bytes} bytes"
            )

    def _part_end(self) -> None:
        if self._name is None:
            return
        if self._filename is not None:
            self._files[self._name] = (self._filename, bytes(self._data))
        else:
            self._fields[self._name] = self._data.decode("utf-8", "replace")

    def _end(self) -> None:
        self._ended = True


async def read_multipart(
    content_type: str, chunks: AsyncIterable[bytes], limits: MultipartLimits
) -> FormData:
    """Parse an upload as its chunks arrive, letting the event loop run between slices.

    Once the body breaks a rule the rest of it is read but not parsed, and the refusal is raised
    when it ends: the client, still sending, then reads the 400 instead of a reset connection,
    and the request guard's 413 (too large) and 408 (stalled) still apply to what is left.
    """
    refusal: UsageError | None = None
    received = 0
    try:
        reader = MultipartReader(content_type, limits)
    except UsageError as exc:
        refusal = exc
    async for chunk in chunks:
        received += len(chunk)
        if refusal is not None:
            if received > limits.max_body_bytes:
                break
            continue
        try:
            for start in range(0, len(chunk), SLICE_BYTES):
                reader.feed(chunk[start : start + SLICE_BYTES])
                await checkpoint()
        except UsageError as exc:
            refusal = exc
    if refusal is not None:
        raise refusal
    return reader.finish()
