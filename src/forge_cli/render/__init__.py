"""Rendering of answers: rich (streaming, per-kind item renderers), plain, JSON and JSONL.

Renderers only look at Response snapshots and agent-loop events; they do no I/O besides writing
to the streams they were given. Start with :func:`make_renderer` (and :func:`choose_mode`).

Names are loaded lazily so that importing this package does not import rich until a renderer
is used (``forge --version`` stays fast).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports
from forge_cli.sanitize import json_dumps_safe, sanitize, sanitize_inline

if TYPE_CHECKING:
    from forge_cli.render.console import Mode, choose_mode, make_console, wants_plain
    from forge_cli.render.document import SCHEMA_ID, answer_document, load_schema
    from forge_cli.render.factory import Renderer, make_renderer
    from forge_cli.render.glyphs import ASCII, UNICODE, Glyphs
    from forge_cli.render.json_renderer import JsonlRenderer, JsonRenderer
    from forge_cli.render.plain import PlainRenderer
    from forge_cli.render.rich_renderer import RichRenderer

__all__ = [
    "ASCII",
    "SCHEMA_ID",
    "UNICODE",
    "Glyphs",
    "JsonRenderer",
    "JsonlRenderer",
    "Mode",
    "PlainRenderer",
    "Renderer",
    "RichRenderer",
    "answer_document",
    "choose_mode",
    "json_dumps_safe",
    "load_schema",
    "make_console",
    "make_renderer",
    "sanitize",
    "sanitize_inline",
    "wants_plain",
]

_WHERE = {
    "Mode": "console",
    "choose_mode": "console",
    "make_console": "console",
    "wants_plain": "console",
    "SCHEMA_ID": "document",
    "answer_document": "document",
    "load_schema": "document",
    "Renderer": "factory",
    "make_renderer": "factory",
    "ASCII": "glyphs",
    "UNICODE": "glyphs",
    "Glyphs": "glyphs",
    "JsonRenderer": "json_renderer",
    "JsonlRenderer": "json_renderer",
    "PlainRenderer": "plain",
    "RichRenderer": "rich_renderer",
}

__getattr__ = lazy_exports(__name__, _WHERE)
