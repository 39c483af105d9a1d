"""The one redaction every text passes before it leaves Forge: keys and tokens become ``***``.

A server may echo what we send it -- the ``Authorization`` header, the key in a URL -- inside an
error body, an in-stream error event or even the answer text. Whatever it sends may then reach
stderr, ``--json``/``--jsonl`` output, a saved conversation, an export, a log line or a
``--debug`` traceback. Each of those exits calls :func:`redact` (or :func:`redact_data`).

Which values are secret is known at run time only: a backend that reads an API key (from the
environment, a profile or a flag) calls :func:`register_secret` with it. Anything that looks like
an HTTP bearer credential (``Bearer <token>``) is redacted too, whoever's it is.

This module sits at the bottom layer with :mod:`forge_cli.sanitize` and imports nothing of ours.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any

__all__ = [
    "REDACTED",
    "clear_secrets",
    "held_prefix",
    "quoted_forms",
    "redact",
    "redact_data",
    "register_environment_secrets",
    "register_secret",
    "secrets_in_use",
]

REDACTED = "***"
"""What a secret is replaced with."""

_MIN_SECRET = 6
"""Shorter values are not registered: redacting ``"abc"`` everywhere would garble text, and a key
that short protects nothing anyway."""

_BEARER = re.compile(
    r"\b(Bearer)(\s+)(?=[A-Za-z0-9\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{8,}=*", re.IGNORECASE
)
"""A bearer credential as sent in ``Authorization`` (a token has digits; prose does not)."""

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()


def quoted_forms(value: str) -> list[str]:
    """``value`` as an error message may quote it, longest first: as is, and escaped as a
    ``repr`` of it or of its bytes shows it. A key with a control or non-ASCII character in it is
    quoted escaped by the error that refuses it (h11 and httpcore2 show a refused header as
    ``b'Bearer sk-..\\r\\n..'``)."""
    forms = {
        value,
        repr(value)[1:-1],
        repr(value.encode("utf-8", "backslashreplace"))[2:-1],
    }
    return sorted(forms, key=len, reverse=True)


def register_secret(value: str | None) -> None:
    """Remember ``value`` (an API key or token now in use) so every exit redacts it."""
    global _secrets
    if not value or len(value.strip()) < _MIN_SECRET:
        return
    value = value.strip()
    with _lock:
        new = set(quoted_forms(value)).difference(_secrets)
        if new:
            # Longest first: a key that contains another registered key is replaced whole.
            _secrets = tuple(sorted((*_secrets, *new), key=len, reverse=True))


_SECRET_ENV_SUFFIXES = ("_KEY", "APIKEY", "_TOKEN", "_SECRET")


def register_environment_secrets(environ: Mapping[str, str]) -> None:
    """Register the values of environment variables named like secrets (``*_KEY``, ``*_TOKEN`` …).

    Called once at start-up, so text saved by an earlier run (a conversation shown or exported
    now) is redacted too, even when no backend reads the key in this run.
    """
    for name, value in environ.items():
        if name.upper().endswith(_SECRET_ENV_SUFFIXES) and _looks_like_a_key(value):
            register_secret(value)


def _looks_like_a_key(value: str) -> bool:
    """Generated keys are long, have digits and no spaces; ``SOME_KEY=enabled`` is no secret
    worth blanking out of every text."""
    value = value.strip()
    return (
        len(value) >= 8 and not any(c.isspace() for c in value) and any(c.isdigit() for c in value)
    )


def clear_secrets() -> None:
    """Forget every registered secret (tests)."""
    global _secrets
    with _lock:
        _secrets = ()


def redact(text: str) -> str:
    """``text`` with every registered secret and every ``Bearer`` token replaced by ``***``."""
    if not text:
        return text
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return text


def redact_data(value: Any) -> Any:
    """A copy of JSON-like ``value`` with :func:`redact` applied to every string in it.

    Iterative, so a deeply nested value cannot exhaust the stack.
    """
    if isinstance(value, str):
        return redact(value)
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            if isinstance(item, dict | list):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
            else:
                copy = redact(item) if isinstance(item, str) else item
            if isinstance(target, dict):
                target[redact(key) if isinstance(key, str) else key] = copy
            else:
                target.append(copy)
    return root


def secrets_in_use() -> tuple[str, ...]:
    """The registered secrets, longest first (empty when none is known)."""
    return _secrets


def held_prefix(text: str) -> int:
    """How many characters at the end of ``text`` could be the start of a registered secret
    (they are held back from a live stream until the next piece shows whether they are)."""
    best = 0
    for secret in _secrets:
        for size in range(min(len(secret) - 1, len(text)), best, -1):
            if text.endswith(secret[:size]):
                best = size
                break
    return best
