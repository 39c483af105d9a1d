"""What each backend kind can run of the CLI's tool names."""

from __future__ import annotations

__all__ = ["LOCAL_UNAVAILABLE_TOOLS"]

LOCAL_UNAVAILABLE_TOOLS: dict[str, str] = {
    "code-interpreter": "the built-in engine has no code sandbox",
}
"""Tools the built-in engine cannot run, and why (named in a warning, never dropped silently)."""
