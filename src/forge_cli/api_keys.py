"""Whether an API key can travel in an HTTP header, checked before anything is sent.

A key pasted with a line break, a space, a typographic quote or a control character would fail
on the wire (httpx2 raises ``UnicodeEncodeError`` for a non-ASCII header value, and a line break
could split the header). Every place that takes a key -- the CLI, and each backend a program
builds itself (``ResponsesBackend``, ``ChatCompletionsBackend``, ``HttpKnowledgeClient``,
``OpenAIEmbedder``) -- refuses such a key with one :class:`~forge_cli.errors.ConfigError` line that
says where the key came from and what is wrong with it, never the key itself.

This module imports nothing of ours but :mod:`forge_cli.errors`, so every layer may use it.
"""

from __future__ import annotations

from forge_cli.errors import ConfigError

__all__ = ["check_api_key", "key_source"]


def key_source(given: str | None, env_var: str | None, owner: str) -> str:
    """Where a backend's key came from, as :func:`check_api_key` names it: the ``api_key``
    argument of ``owner`` when one was given, else the environment variable."""
    if given or not env_var:
        return f"the api_key argument of {owner}"
    return f"${env_var}"


def check_api_key(key: str | None, where: str) -> None:
    """Refuse an API key that an HTTP header cannot carry, naming ``where`` it came from and what
    is wrong with it, never the key itself (:class:`ConfigError`, exit 2). ``None`` or an empty
    key is not checked (no key is sent)."""
    if not key:
        return
    for position, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        if char in "\r\n":
            what = "a line break"
        elif char in " \t":
            what = "a space"
        elif char.isascii() or char.isspace():
            what = "a control character"
        else:
            what = "a non-ASCII character"
        at = "at its end" if position == len(key) else f"at character {position} of {len(key)}"
        raise ConfigError(
            f"the API key in {where} has {what} {at}, which an HTTP header cannot carry",
            hint="copy the key again",
        )
