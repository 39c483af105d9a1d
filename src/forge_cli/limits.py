"""How much a server may send: the bounds every HTTP reply, SSE stream and JSON parse obey.

A third-party server is not trusted to be small or well formed (``docs/security.md``). Each bound
has a setting (``limits.*`` in a profile, or an environment variable) and every error that
reports one names the setting that raises it. The values here are the defaults.

This module sits at the bottom layer and imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "KIB", "MIB", "Limits", "describe_bytes"]

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one reply may make us hold or read.

    - ``max_response_bytes``: decoded (decompressed) bytes of one successful reply, a whole
      stream included (``limits.max_response_mb``);
    - ``max_event_bytes``: one SSE line and one SSE event's data (``limits.max_event_mb``);
    - ``max_error_body_bytes``: what is read of an error reply; the rest is dropped
      (``limits.max_error_body_kb``);
    - ``max_json_depth``: nesting of any JSON value parsed from a server, a tool call's
      arguments or a request to ``forge serve`` (``limits.max_json_depth``).
    """

    max_response_bytes: int = 256 * MIB
    max_event_bytes: int = 16 * MIB
    max_error_body_bytes: int = 64 * KIB
    max_json_depth: int = 128


DEFAULT_LIMITS = Limits()


def describe_bytes(size: int) -> str:
    """``16 MiB``, ``64 KiB`` or ``100 bytes``: a limit as the user set it."""
    if size >= MIB and size % MIB == 0:
        return f"{size // MIB} MiB"
    if size >= KIB and size % KIB == 0:
        return f"{size // KIB} KiB"
    return f"{size} bytes"
