"""A small ``multipart/form-data`` parser for file uploads, built on the standard library.

Starlette's own form parsing needs the optional ``python-multipart`` package; uploads here are
bounded in size and parsed in memory with :mod:`email`, which handles the MIME framing.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP

from forge_cli.errors import UsageError

__all__ = ["FormData", "parse_multipart"]


@dataclass(frozen=True, slots=True)
class FormData:
    """Text fields and uploaded files (name -> (filename, content))."""

    fields: dict[str, str]
    files: dict[str, tuple[str, bytes]]


def parse_multipart(content_type: str, body: bytes) -> FormData:
    """Parse a ``multipart/form-data`` body; raises ``UsageError`` when it is not one."""
    if (
        not content_type.lower().startswith("multipart/form-data")
        or "boundary=" not in content_type
    ):
        raise UsageError("expected a multipart/form-data body with a boundary")
    header = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    message = BytesParser(policy=HTTP).parsebytes(header + body)
    if not message.is_multipart():
        raise UsageError("the multipart body could not be parsed")
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            files[name] = (filename, data)
        else:
            fields[name] = data.decode("utf-8", "replace")
    return FormData(fields=fields, files=files)
