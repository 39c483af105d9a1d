"""The settings of one run and the schema of every key: type, check, environment variable.

:class:`Settings` is a frozen value built by :func:`forge_cli.config.resolve.resolve_settings`
from flags, environment, profile and defaults. It never prints the stored API key: the key is
kept out of ``repr`` and out of :meth:`Settings.public_dict`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from forge_cli.errors import ConfigError
from forge_cli.limits import DEFAULT_LIMITS, KIB, MIB, Limits

__all__ = [
    "API_KINDS",
    "DRIVERS",
    "EFFORTS",
    "KEYS",
    "LIST_KEYS",
    "SECRET_KEYS",
    "TOOL_NAMES",
    "ApiKind",
    "KeySpec",
    "Settings",
    "parse_value",
]

ApiKind = Literal["local", "responses", "chat", "knowledge-forge"]
API_KINDS: tuple[str, ...] = ("local", "responses", "chat", "knowledge-forge")
"""``knowledge-forge`` is the Responses API spoken the Knowledge Forge way (its own fields and
the older Knowledge Forge CLI's defaults); ``responses`` sends only standard OpenAI fields."""
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
    think_tags: bool = True
    """Show ``<think>…</think>`` opening a chat answer as reasoning (else as answer text)."""
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
    engine_default_vector_stores: tuple[str, ...] = ()
    """Stores the built-in engine searches when a question enables no tools (empty: all)."""
    limits_max_response_mb: int = DEFAULT_LIMITS.max_response_bytes // MIB
    limits_max_event_mb: int = DEFAULT_LIMITS.max_event_bytes // MIB
    limits_max_error_body_kb: int = DEFAULT_LIMITS.max_error_body_bytes // KIB
    limits_max_json_depth: int = DEFAULT_LIMITS.max_json_depth

    def limits(self) -> Limits:
        """The bounds on what a server may send (``limits.*``, ``docs/security.md``)."""
        return Limits(
            max_response_bytes=self.limits_max_response_mb * MIB,
            max_event_bytes=self.limits_max_event_mb * MIB,
            max_error_body_bytes=self.limits_max_error_body_kb * KIB,
            max_json_depth=self.limits_max_json_depth,
        )

    serve_allowed_hosts: tuple[str, ...] = ()
    serve_allowed_origins: tuple[str, ...] = ()
    serve_max_body_bytes: int = 16 * 1024 * 1024
    tools_max_result_chars: int = 100_000

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


def _bounded_int(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        number = _positive_int(value)
        if not low <= number <= high:
            raise ValueError(f"expected an integer from {low} to {high}")
        return number

    return check


def _positive_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a positive number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError("expected a positive number") from None
    if not number > 0 or not math.isfinite(number):
        raise ValueError("expected a positive finite number")
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
        KeySpec(
            "api",
            _choice(API_KINDS),
            "FORGE_API",
            "backend kind: local, responses, chat or knowledge-forge",
        ),
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
        KeySpec(
            "think_tags",
            _bool,
            "FORGE_THINK_TAGS",
            "show <think>…</think> opening a chat answer as reasoning",
        ),
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
            "engine.default_vector_stores",
            _names,
            "FORGE_DEFAULT_VECTOR_STORES",
            "local engine: stores searched when no tool is enabled (comma list; empty: all)",
        ),
        KeySpec(
            "engine.embeddings_api_key_env",
            _env_name,
            "FORGE_EMBEDDINGS_API_KEY_ENV",
            "local store: env var holding the embeddings key",
        ),
        KeySpec(
            "limits.max_response_mb",
            _bounded_int(1, 1024 * 1024),
            "FORGE_MAX_RESPONSE_MB",
            "largest reply a server may send, decompressed, in MiB",
        ),
        KeySpec(
            "limits.max_event_mb",
            _bounded_int(1, 1024),
            "FORGE_MAX_EVENT_MB",
            "largest stream line or event a server may send, in MiB",
        ),
        KeySpec(
            "limits.max_error_body_kb",
            _bounded_int(1, 1024 * 1024),
            "FORGE_MAX_ERROR_BODY_KB",
            "how much of an error reply is read, in KiB",
        ),
        KeySpec(
            "limits.max_json_depth",
            _bounded_int(1, 5000),
            "FORGE_MAX_JSON_DEPTH",
            "deepest JSON nesting accepted from servers, tools and requests",
        ),
        KeySpec(
            "serve.allowed_hosts",
            _names,
            "FORGE_SERVE_ALLOWED_HOSTS",
            "forge serve: Host names it answers to besides its bind address (comma list)",
        ),
        KeySpec(
            "serve.allowed_origins",
            _names,
            "FORGE_SERVE_ALLOWED_ORIGINS",
            "forge serve: browser origins allowed to write (comma list)",
        ),
        KeySpec(
            "serve.max_body_bytes",
            _positive_int,
            "FORGE_SERVE_MAX_BODY_BYTES",
            "forge serve: largest JSON request body in bytes",
        ),
        KeySpec(
            "tools.max_result_chars",
            _positive_int,
            "FORGE_TOOLS_MAX_RESULT_CHARS",
            "longest tool result sent to the model (characters; longer ones are cut)",
        ),
    )
}
"""Every key a profile, the environment or ``forge config set`` may set."""

_KEY_OF_FIELD = {spec.attr: spec.name for spec in KEYS.values()}

LIST_KEYS = frozenset(name for name, spec in KEYS.items() if spec.check in (_names, _tools))
"""Keys holding lists: a config file must write them as TOML arrays (``tools = ["web-search"]``);
the environment and ``forge config set`` take comma lists."""


def parse_value(key: str, raw: Any, *, source: str) -> Any:
    """``raw`` checked and converted for ``key``; a bad key or value is a one-line ConfigError."""
    spec = KEYS.get(key)
    if spec is None:
        raise ConfigError(
            f"unknown setting {key!r} in {source}",
            hint=f"known settings: {', '.join(sorted(KEYS))}",
            source=source,
        )
    try:
        return spec.check(raw)
    except ValueError as exc:
        raise ConfigError(f"bad value for {key} in {source}: {exc}", source=source) from None
