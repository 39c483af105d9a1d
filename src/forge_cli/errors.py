"""The one exception tree of Forge.

Every error the user can see is a :class:`ForgeError`. Third-party errors (httpx2, openai,
sqlite) are mapped into this tree in exactly one place per backend, ``raise ... from exc``.
The CLI catches :class:`ForgeError`, prints one line and exits with :attr:`ForgeError.exit_code`.

::

    ForgeError                         exit 1  (backend or runtime error)
    ├── UsageError                     exit 2  (bad flag, bad argument, bad file given by the user)
    │   └── ConfigError                exit 2  (bad config file, unknown profile, bad setting)
    ├── BackendError                   exit 1  (anything that went wrong talking to a backend)
    │   ├── BackendConnectionError             (could not connect / connection dropped)
    │   │   └── BackendTimeoutError            (connect or idle-read timeout)
    │   ├── BackendHTTPError                   (non-2xx status; carries status and server message)
    │   │   └── AuthError                      (401/403; names the env var holding the key)
    │   └── ProtocolError                      (a reply we cannot understand, or a stream cut short)
    │       └── StreamError                    (the server reported an error inside the stream)
    ├── KnowledgeError                 exit 1  (the local knowledge store)
    │   └── NotFoundError              exit 1  (unknown file or vector store id)
    ├── ToolError                      exit 1  (a tool is defined wrongly)
    ├── ToolIterationLimitError        exit 3  (the agent loop reached its iteration limit)
    └── Interrupted                    exit 130 (the user pressed Ctrl+C)

Each class has a stable machine-readable :attr:`ForgeError.error_code` (``usage_error``,
``timeout``, ``server_error``, ``tool_iteration_limit`` ...): ``--json``/``--jsonl`` write it as
``error.code`` (docs/json-output.md lists them), so scripts can branch on it.

This module imports nothing of ours so every layer may import it.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_ITERATION_LIMIT",
    "EXIT_OK",
    "EXIT_OUTPUT_CLOSED",
    "EXIT_RUNTIME",
    "EXIT_TIME_BUDGET",
    "EXIT_TOKEN_BUDGET",
    "EXIT_USAGE",
    "AuthError",
    "BackendConnectionError",
    "BackendError",
    "BackendHTTPError",
    "BackendTimeoutError",
    "BudgetExceededError",
    "ConfigError",
    "ForgeError",
    "Interrupted",
    "KnowledgeError",
    "NotFoundError",
    "OutputClosed",
    "OutputError",
    "ProtocolError",
    "StreamError",
    "TimeBudgetError",
    "TokenBudgetError",
    "ToolError",
    "ToolIterationLimitError",
    "UsageError",
]

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2
EXIT_ITERATION_LIMIT = 3
EXIT_TIME_BUDGET = 4
EXIT_TOKEN_BUDGET = 5
EXIT_INTERRUPTED = 130
EXIT_OUTPUT_CLOSED = 141
"""128 + SIGPIPE: what a shell reports for a program whose reader went away (``| head``)."""


class ForgeError(Exception):
    """Root of every error Forge reports to the user."""

    error_code: ClassVar[str] = "runtime_error"

    exit_code: int = EXIT_RUNTIME

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint on one line, as the CLI prints it."""
        text = " ".join(self.message.split())
        if self.hint:
            text += f" (hint: {' '.join(self.hint.split())})"
        return text


class UsageError(ForgeError):
    """The user asked for something invalid: a flag, an argument, a file."""

    error_code: ClassVar[str] = "usage_error"

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """The configuration file or a setting is invalid."""

    error_code: ClassVar[str] = "config_error"

    def __init__(self, message: str, *, hint: str | None = None, source: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.source = source
        """Where the bad setting came from, when known: an option (``--base-url``), an
        environment variable (``FORGE_BASE_URL``), a profile or file."""


class BackendError(ForgeError):
    """Talking to a backend failed."""

    error_code: ClassVar[str] = "backend_error"


class BackendConnectionError(BackendError):
    """The connection could not be made or was lost."""

    error_code: ClassVar[str] = "connection_error"


class BackendTimeoutError(BackendConnectionError):
    """A connect or idle-read timeout fired."""

    error_code: ClassVar[str] = "timeout"


class BackendHTTPError(BackendError):
    """The server answered with a non-success HTTP status."""

    error_code: ClassVar[str] = "http_error"

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        server_message: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status_code = status_code
        self.server_message = server_message


class AuthError(BackendHTTPError):
    """The server refused our credentials (or we had none)."""

    error_code: ClassVar[str] = "auth_error"

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        env_var: str | None,
        server_message: str | None = None,
    ) -> None:
        hint = f"set the API key in the environment variable {env_var}" if env_var else None
        super().__init__(message, status_code=status_code, server_message=server_message, hint=hint)
        self.env_var = env_var


class ProtocolError(BackendError):
    """The backend sent something we cannot understand, or the stream ended early."""

    error_code: ClassVar[str] = "protocol_error"


class StreamError(ProtocolError):
    """The server reported an error inside the stream (``error`` or ``response.failed``)."""

    error_code: ClassVar[str] = "server_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class KnowledgeError(ForgeError):
    """The local knowledge store could not do what was asked."""

    error_code: ClassVar[str] = "knowledge_error"


class NotFoundError(KnowledgeError):
    """An unknown file, vector store or response id."""

    error_code: ClassVar[str] = "not_found"

    exit_code = EXIT_USAGE  # a name or id the user gave that does not exist: a bad argument


class ToolError(ForgeError):
    """A tool is defined wrongly (raised once, naming every problem)."""

    error_code: ClassVar[str] = "tool_error"


class ToolIterationLimitError(ForgeError):
    """The agent loop stopped at its iteration limit."""

    error_code: ClassVar[str] = "tool_iteration_limit"

    exit_code = EXIT_ITERATION_LIMIT


class BudgetExceededError(ForgeError):
    """A run used up the time or token budget it was given (``--max-time``, ``--token-budget``)."""

    error_code: ClassVar[str] = "budget_exceeded"


class TimeBudgetError(BudgetExceededError):
    """The run's time budget (``--max-time``) ran out before the answer was complete."""

    error_code: ClassVar[str] = "time_budget"
    exit_code = EXIT_TIME_BUDGET


class TokenBudgetError(BudgetExceededError):
    """The run's token budget (``--token-budget``) was used up before the answer was complete."""

    error_code: ClassVar[str] = "token_budget"
    exit_code = EXIT_TOKEN_BUDGET


class Interrupted(ForgeError):
    """The user interrupted the run."""

    error_code: ClassVar[str] = "interrupted"

    exit_code = EXIT_INTERRUPTED


class OutputError(ForgeError):
    """Standard output could not be written (a full disk, an I/O error).

    The answer so far is kept and saved, as for an interruption; the error is one line.
    """

    error_code: ClassVar[str] = "output_error"


class OutputClosed(OutputError):
    """Whoever read our standard output went away (``forge ask … | head``).

    Like an interruption, the answer so far is kept and saved; the process then ends quietly
    with :data:`EXIT_OUTPUT_CLOSED`, as a program stopped by ``SIGPIPE`` would.
    """

    error_code: ClassVar[str] = "output_closed"

    exit_code = EXIT_OUTPUT_CLOSED

    def __init__(self, message: str = "the output was closed before all of it was written") -> None:
        super().__init__(message)
