"""``forge doctor``: check config, backend reachability, auth and the store, each with a fix."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from forge_cli.cli.options import backend_options, settings_from_options
from forge_cli.config import Settings, config_path
from forge_cli.errors import (
    AuthError,
    BackendConnectionError,
    BackendHTTPError,
    BackendTimeoutError,
    ConfigError,
    ForgeError,
    NotFoundError,
    ProtocolError,
)
from forge_cli.wording import plural

__all__ = ["Check", "doctor"]


@dataclass(frozen=True)
class Check:
    """The outcome of one check."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def _refused(name: str, exc: ForgeError, fix: str) -> Check:
    """A setting that cannot be used: the error, and its hint joined to ``fix`` in one line of
    advice (not the hint on the error's line and the fix under it)."""
    detail = " ".join(exc.message.split())
    return Check(name, False, detail, f"{exc.hint}; {fix}" if exc.hint else fix)


def _config_fix(exc: ForgeError) -> str:
    """Where to mend a setting that was refused: the option or environment variable it came
    from, else the configuration file (an ``ftp://`` given as ``--base-url`` is not fixed by
    editing the file)."""
    source = exc.source if isinstance(exc, ConfigError) else None
    if source and source.startswith("--"):
        return f"pass a valid {source}"
    if source and source.replace("_", "").isalnum() and source.isupper():
        return f"change or unset {source} (environment)"
    return f"edit {config_path()}"


def _failed(name: str, exc: ForgeError, where: str, fallback: str) -> Check:
    """A failed check: what went wrong, and ONE line of advice (the error's own hint was printed
    as well as the check's fix: "(hint: is the server running?)" then "fix: is the server
    running? check --base-url").

    ``where`` is the setting that names the server (``--base-url``); ``fallback`` the advice
    for an error that gives none.
    """
    detail = " ".join(exc.message.split())
    if isinstance(exc, AuthError):
        fix = exc.hint or "set the API key"
    elif isinstance(exc, BackendTimeoutError):
        fix = exc.hint or f"is the server at {where} slow? raise the timeout"
    elif isinstance(exc, BackendConnectionError):
        fix = f"is the server running? check {where}"
    elif isinstance(exc, BackendHTTPError) and exc.status_code >= 500:
        fix = exc.hint or "the server failed: see its log"
    elif not exc.hint and (
        isinstance(exc, NotFoundError | ProtocolError)
        or (isinstance(exc, BackendHTTPError) and exc.status_code == 404)
    ):
        # It answered: a wrong path (HTTP 404) or not an OpenAI-compatible API at that URL.
        fix = f"the server answered, but not as the API: check {where} (it usually ends in /v1)"
    else:
        fix = exc.hint or fallback
    return Check(name, False, detail, fix)


def _auth(settings: Settings) -> Check:
    if settings.api == "local":
        return Check("auth", True, "the local engine needs no key")
    from forge_cli.cli.build import api_key_env

    env = api_key_env(settings)
    if settings.api_key:
        return Check("auth", True, "a stored key is configured (not shown)")
    if os.environ.get(env):
        return Check("auth", True, f"key read from ${env}")
    looked = (
        f"${env}" if settings.api_key_env or env == "FORGE_API_KEY" else f"$FORGE_API_KEY or ${env}"
    )
    return Check(
        "auth",
        True,
        f"no key in {looked} (fine for servers without auth)",
        f"export {env}=... or `forge config set api_key`",
    )


async def _backend(settings: Settings) -> Check:
    from forge_cli.cli.build import build_backend

    try:
        backend = build_backend(settings)
    except ForgeError as exc:
        return _refused("backend", exc, "check --api/--base-url or the profile")
    try:
        lister = backend.list_models
        if lister is None:
            return Check("backend", True, f"{backend.name} backend ready")
        found = await lister()
        return Check("backend", True, f"{backend.name} reachable, {plural(len(found), 'model')}")
    except ForgeError as exc:
        return _failed("backend", exc, "--base-url", "is the server running? check --base-url")
    finally:
        await backend.aclose()


async def _store(settings: Settings) -> Check:
    if settings.api == "chat":
        return Check("store", True, "the chat API has no document store")
    from forge_cli.cli.knowledge import build_knowledge_client

    try:
        client = build_knowledge_client(settings)
        try:
            stores = await client.list_vector_stores()
        finally:
            await client.aclose()
    except ForgeError as exc:
        failed = _failed("store", exc, "--base-url", "see `forge vs list --debug`")
        if isinstance(exc, NotFoundError):  # the list itself: the server said only "not found"
            return Check("store", False, f"listing vector stores: {failed.detail}", failed.fix)
        return failed
    return Check("store", True, plural(len(stores), "vector store"))


async def _engine(settings: Settings) -> Check | None:
    """The built-in engine's mode, and its upstream model server when it has one."""
    if settings.api != "local":
        return None
    from forge_cli.cli.build import engine_config

    try:
        config = engine_config(settings)
    except ForgeError as exc:
        return _refused("engine", exc, "see `forge config show`")
    upstream = config.upstream
    if upstream is None:
        return Check(
            "engine",
            True,
            "retrieval-only: answers are passages from your documents (no model configured); "
            "a model writes answers with `forge config set engine.upstream_base_url URL` and "
            "`engine.upstream_model NAME`",
        )
    from forge_cli.backends.chat.backend import ChatCompletionsBackend

    server = ChatCompletionsBackend(
        base_url=upstream.base_url,
        api_key=upstream.api_key(),
        api_key_env=upstream.api_key_env,
        max_retries=0,
        timeout=min(settings.timeout, 15.0),
    )
    where = f"{upstream.model} at {upstream.base_url}"
    try:
        models = await server.list_models()
    except ForgeError as exc:
        failed = _failed(
            "engine",
            exc,
            "engine.upstream_base_url",
            "is the model server running? check engine.upstream_base_url",
        )
        return Check("engine", False, f"upstream {where}: {failed.detail}", failed.fix)
    finally:
        await server.aclose()
    if upstream.model in models:
        return Check("engine", True, f"answers with {where} (reachable, model listed)")
    listed = ", ".join(models[:5]) + (" ..." if len(models) > 5 else "")
    return Check(
        "engine",
        False,
        f"upstream {upstream.base_url} is reachable but does not offer {upstream.model} "
        f"(it offers: {listed or 'nothing'})",
        "forge config set engine.upstream_model NAME",
    )


async def _mcp(values: tuple[str, ...]) -> list[Check]:
    """Start each configured MCP server (and ``--mcp`` ones), list its tools, stop it."""
    from forge_cli.cli.build import build_mcp

    try:
        manager = build_mcp(values)
    except ForgeError as exc:
        return [_refused("mcp", exc, f"edit [mcp.servers] in {config_path()}")]
    if manager is None:
        return []
    checks: list[Check] = []
    try:
        await manager.prepare()
        for name, conn in manager.connections.items():
            label = f"mcp:{name}"
            if conn.state == "ready":
                detail = (
                    f"{conn.spec.transport}, {len(conn.tools)} tools, approval {conn.spec.approval}"
                )
                checks.append(Check(label, True, detail))
            else:
                where = f"see {conn.log_path}" if conn.log_path else "check the command or URL"
                checks.append(Check(label, False, conn.reason(), where))
    finally:
        await manager.aclose()
    return checks


async def _run_checks(settings: Settings, mcp: tuple[str, ...] = ()) -> list[Check]:
    checks = [_auth(settings), await _backend(settings)]
    engine = await _engine(settings)
    if engine is not None:
        checks.append(engine)
    return [*checks, await _store(settings), *await _mcp(mcp)]


@click.command()
@backend_options
@click.option(
    "--mcp",
    "mcp",
    multiple=True,
    metavar="CMD|URL|NAME",
    help="Also check this MCP server (configured [mcp.servers] are always checked).",
)
def doctor(**options: Any) -> None:
    """Check the configuration, the backend (and the built-in engine's model server),
    authentication, the document store and MCP servers."""
    checks: list[Check]
    try:
        settings = settings_from_options(options)
    except ForgeError as exc:
        checks = [_refused("config", exc, _config_fix(exc))]
    else:
        where = f"profile {settings.profile}, api {settings.api}"
        checks = [Check("config", True, f"{config_path()} ({where})")]
        checks += asyncio.run(_run_checks(settings, tuple(options.get("mcp") or ())))
    from forge_cli.sanitize import sanitize_inline

    fit = _wrapper()
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        lines = fit(f"{mark}  {check.name:<8} {sanitize_inline(check.detail)}", 15)
        if check.fix and not check.ok:
            lines += fit(f"      fix: {sanitize_inline(check.fix)}", 11)
        click.echo("\n".join(lines))
    if not all(check.ok for check in checks):
        raise SystemExit(1)


def _wrapper() -> Callable[[str, int], list[str]]:
    """``fit(line, hang)``: at a terminal, ``line`` wrapped at spaces to its width and continued
    ``hang`` columns in (under the text, not cut mid-word by the terminal); a URL or path longer
    than a line is folded at its own separators, under the text too (it used to run past the
    edge, and the terminal's wrap put the rest at column 0). Elsewhere as is."""
    if not sys.stdout.isatty():
        return lambda line, hang: [line]
    import shutil

    from forge_cli.fitting import wrap

    width = max(shutil.get_terminal_size().columns - 1, 30)
    return lambda line, hang: wrap(line, width, hang=hang)
