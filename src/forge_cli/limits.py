"""How much a server may send: the bounds every HTTP reply, SSE stream and JSON parse obey.

A third-party server is not trusted to be small or well formed (``docs/security.md``). Each bound
has a setting (``limits.*`` in a profile, or an environment variable) and every error that
reports one names the setting that raises it. The values here are the defaults.

This module sits at the bottom layer and imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "GIB", "KIB", "MIB", "Limits", "describe_bytes"]

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


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
    """A size as Forge prints every size: binary units named as such (the unit of the
    ``limits.*_mb`` settings), whole when the size is a whole number of them (``16 MiB``,
    ``64 KiB``: a limit as the user set it), else to one decimal (``200.0 MiB``, ``1.5 KiB``);
    under a KiB, ``100 bytes``."""
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size >= unit:
            return f"{size // unit} {name}" if size % unit == 0 else f"{size / unit:.1f} {name}"
    return f"{size} bytes"
