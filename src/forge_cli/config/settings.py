"""The settings of one run and the schema of every key: type, check, environment variable.

:class:`Settings` is a frozen value built by :func:`forge_cli.config.resolve.resolve_settings`
from flags, environment, profile and defaults. It never prints the stored API key: the key is
kept out of ``repr`` and out of :meth:`Settings.public_dict`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from forge_cli.errors import ConfigError

__all__ = [
    "API_KINDS",
    "DRIVERS",
    "EFFORTS",
    "KEYS",
    "SECRET_KEYS",
    "TOOL_NAMES",
    "ApiKind",
    "KeySpec",
    "Settings",
    "parse_value",
]

ApiKind = Literal["local", "responses", "chat"]
API_KINDS: tuple[str, ...] = ("local", "responses", "chat")
DRIVERS: tuple[str, ...] = ("native", "react", "evaluator")
"""Agent drivers: native tool calling, ReAct text protocol, tool calling plus an evaluator."""
EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "dev")
TOOL_NAMES: tuple[str, ...] = (
    "file-search",
    "web-search",
    "list-documents",
    "file-reader",
    "page-reader",
    "code-interpreter",
)
"""The hosted tools a request can enable, by their CLI names."""

SECRET_KEYS = frozenset({"api_key"})
"""Keys whose value is a secret: never echoed, exported, logged or copied into conversations."""


@dataclass(frozen=True)
class Settings:
    """Everything a chat or ask run needs to know before it starts."""

    profile: str = "default"
    api: ApiKind = "local"
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    effort: str | None = None
    tools: tuple[str, ...] = ()
    vector_stores: tuple[str, ...] = ()
    instructions: str | None = None
    max_iterations: int = 5
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    driver: str = "native"
    """How the agent loop asks the model: ``native`` tool calling, ``react`` or ``evaluator``."""
    evaluator_model: str | None = None
    output_model: str | None = None
    tool_choice: str | None = None
    """``auto``, ``required``, ``none`` or a tool name (``None``: the server's default)."""
    parallel_tools: bool | None = None
    tools_in_prompt: bool | None = None
    """Describe tools in the prompt instead of the ``tools`` field (``None``: after a 400)."""
    max_time: float | None = None
    """Seconds an agent run may take (``None``: no limit)."""
    token_budget: int | None = None
    """Tokens an agent run may use (``None``: no limit)."""
    functions: tuple[str, ...] = ()
    """Python files defining user tools, in order."""
    yes: bool = False
    reasoning: bool = True
    debug: bool = False
    ascii: bool = False
    timeout: float = 60.0
    store: bool | None = None
    """Ask a Responses server to store responses (``None``: send no ``store`` field)."""
    engine_searxng_url: str | None = None
    engine_upstream_base_url: str | None = None
    engine_upstream_model: str | None = None
    engine_upstream_api_key_env: str | None = None
    engine_embeddings_base_url: str | None = None
    engine_embeddings_model: str | None = None
    engine_embeddings_api_key_env: str | None = None

    def public_dict(self) -> dict[str, Any]:
        """Every setting by its key name (``engine.searxng_url``) as plain data, with secrets
        replaced by ``"(set)"`` or left out."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            key = _KEY_OF_FIELD.get(f.name, f.name)
            if key in SECRET_KEYS:
                if value:
                    out[key] = "(set)"
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


# --- value checks ------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a non-empty string")
    return value.strip()


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        text = _text(value).lower()
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    return check


def _url(value: Any) -> str:
    text = _text(value)
    if not text.startswith(("http://", "https://")):
        raise ValueError("expected an http:// or https:// URL")
    return text.rstrip("/")


def _env_name(value: Any) -> str:
    text = _text(value)
    if not text.replace("_", "").isalnum() or text[0].isdigit():
        raise ValueError("expected an environment variable name like OPENAI_API_KEY")
    return text


def _positive_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a positive integer")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError("expected a positive integer") from None
    if number < 1 or str(value).strip() not in (str(number), f"+{number}"):
        raise ValueError("expected a positive integer")
    return number


def _positive_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a positive number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError("expected a positive number") from None
    if not number > 0:
        raise ValueError("expected a positive number")
    return number


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("expected true or false")


def _names(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ValueError("expected a list of names")
    return tuple(dict.fromkeys(_text(item) for item in items if str(item).strip()))


def _range(low: float, high: float, *, low_open: bool = False) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError(f"expected a number from {low:g} to {high:g}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"expected a number from {low:g} to {high:g}") from None
        if not (low < number if low_open else low <= number) or not number <= high:
            raise ValueError(f"expected a number from {low:g} to {high:g}")
        return number

    return check


def _tool_choice(value: Any) -> str:
    text = _text(value)
    if text.lower() in ("auto", "required", "none"):
        return text.lower()
    if not re.match(r"^[A-Za-z0-9_-]{1,64}$", text):
        raise ValueError("expected auto, required, none or a tool name")
    return text


def _paths(value: Any) -> tuple[str, ...]:
    items = value.split(os.pathsep) if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ValueError("expected a path or a list of paths")
    return tuple(dict.fromkeys(_text(item) for item in items if str(item).strip()))


def _tools(value: Any) -> tuple[str, ...]:
    names = tuple(name.lower().replace("_", "-") for name in _names(value))
    unknown = [name for name in names if name not in TOOL_NAMES]
    if unknown:
        raise ValueError(f"unknown tool {unknown[0]!r}; known: {', '.join(TOOL_NAMES)}")
    return names


@dataclass(frozen=True)
class KeySpec:
    """One setting: how to check a raw value and which environment variable sets it.

    A dotted name (``engine.searxng_url``) is a key of a sub-table in the config file
    (``[profiles.NAME.engine]``) and the :class:`Settings` field with ``_`` for the dot.
    """

    name: str
    check: Callable[[Any], Any]
    env: str | None
    help: str

    @property
    def attr(self) -> str:
        """The :class:`Settings` field that holds this key."""
        return self.name.replace(".", "_")


KEYS: dict[str, KeySpec] = {
    spec.name: spec
    for spec in (
        KeySpec("api", _choice(API_KINDS), "FORGE_API", "backend kind: local, responses or chat"),
        KeySpec("base_url", _url, "FORGE_BASE_URL", "server URL for responses/chat"),
        KeySpec("api_key_env", _env_name, "FORGE_API_KEY_ENV", "env var holding the API key"),
        KeySpec("api_key", _text, None, "stored API key (set with `forge config set api_key`)"),
        KeySpec("model", _text, "FORGE_MODEL", "model name"),
        KeySpec("effort", _choice(EFFORTS), "FORGE_EFFORT", "reasoning effort"),
        KeySpec("tools", _tools, "FORGE_TOOLS", "tools enabled by default (comma list)"),
        KeySpec("vector_stores", _names, "FORGE_VS", "vector store ids (comma list)"),
        KeySpec("instructions", _text, "FORGE_INSTRUCTIONS", "system instructions"),
        KeySpec("max_iterations", _positive_int, "FORGE_MAX_ITERATIONS", "tool-loop limit"),
        KeySpec("temperature", _range(0.0, 2.0), "FORGE_TEMPERATURE", "sampling temperature (0-2)"),
        KeySpec("top_p", _range(0.0, 1.0, low_open=True), "FORGE_TOP_P", "nucleus sampling (0-1]"),
        KeySpec(
            "max_output_tokens",
            _positive_int,
            "FORGE_MAX_OUTPUT_TOKENS",
            "longest answer in tokens",
        ),
        KeySpec(
            "driver", _choice(DRIVERS), "FORGE_DRIVER", "agent driver: native, react, evaluator"
        ),
        KeySpec("evaluator_model", _text, "FORGE_EVALUATOR_MODEL", "model of the evaluator driver"),
        KeySpec("output_model", _text, "FORGE_OUTPUT_MODEL", "model that writes the final answer"),
        KeySpec(
            "tool_choice", _tool_choice, "FORGE_TOOL_CHOICE", "auto, required, none or a tool name"
        ),
        KeySpec("parallel_tools", _bool, "FORGE_PARALLEL_TOOLS", "allow parallel tool calls"),
        KeySpec(
            "tools_in_prompt",
            _bool,
            "FORGE_TOOLS_IN_PROMPT",
            "describe tools in the prompt (servers that refuse the tools field)",
        ),
        KeySpec("max_time", _positive_float, "FORGE_MAX_TIME", "seconds an agent run may take"),
        KeySpec("token_budget", _positive_int, "FORGE_TOKEN_BUDGET", "tokens an agent run may use"),
        KeySpec(
            "functions",
            _paths,
            "FORGE_FUNCTIONS",
            f"Python files with user tools (a list; in the env var separated by {os.pathsep!r})",
        ),
        KeySpec("yes", _bool, "FORGE_YES", "approve tool calls without asking"),
        KeySpec("reasoning", _bool, "FORGE_REASONING", "show the model's reasoning"),
        KeySpec("debug", _bool, "FORGE_DEBUG", "tracebacks and request logs"),
        KeySpec("ascii", _bool, "FORGE_ASCII", "ASCII-only glyphs"),
        KeySpec("timeout", _positive_float, "FORGE_TIMEOUT", "request timeout in seconds"),
        KeySpec("store", _bool, "FORGE_STORE", "ask a responses server to store answers"),
        KeySpec(
            "engine.searxng_url", _url, "FORGE_SEARXNG_URL", "local engine: SearXNG for web search"
        ),
        KeySpec(
            "engine.upstream_base_url",
            _url,
            "FORGE_UPSTREAM_BASE_URL",
            "local engine: chat completions server that writes answers",
        ),
        KeySpec(
            "engine.upstream_model", _text, "FORGE_UPSTREAM_MODEL", "local engine: upstream model"
        ),
        KeySpec(
            "engine.upstream_api_key_env",
            _env_name,
            "FORGE_UPSTREAM_API_KEY_ENV",
            "local engine: env var holding the upstream key",
        ),
        KeySpec(
            "engine.embeddings_base_url",
            _url,
            "FORGE_EMBEDDINGS_BASE_URL",
            "local store: /v1/embeddings server for dense retrieval",
        ),
        KeySpec(
            "engine.embeddings_model",
            _text,
            "FORGE_EMBEDDINGS_MODEL",
            "local store: embedding model",
        ),
        KeySpec(
            "engine.embeddings_api_key_env",
            _env_name,
            "FORGE_EMBEDDINGS_API_KEY_ENV",
            "local store: env var holding the embeddings key",
        ),
    )
}
"""Every key a profile, the environment or ``forge config set`` may set."""

_KEY_OF_FIELD = {spec.attr: spec.name for spec in KEYS.values()}


def parse_value(key: str, raw: Any, *, source: str) -> Any:
    """``raw`` checked and converted for ``key``; a bad key or value is a one-line ConfigError."""
    spec = KEYS.get(key)
    if spec is None:
        raise ConfigError(
            f"unknown setting {key!r} in {source}",
            hint=f"known settings: {', '.join(sorted(KEYS))}",
        )
    try:
        return spec.check(raw)
    except ValueError as exc:
        raise ConfigError(f"bad value for {key} in {source}: {exc}") from None
