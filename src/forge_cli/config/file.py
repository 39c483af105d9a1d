"""The TOML config file: read with :mod:`tomllib`, written atomically with mode 0600.

Layout::

    default_profile = "default"      # optional: the profile used without --profile

    [profiles.default]               # the local engine unless told otherwise
    api = "local"

    [profiles.kf]
    api = "responses"
    base_url = "http://localhost:9999"

    [profiles.default.engine]        # dotted keys (engine.searxng_url) live in sub-tables
    searxng_url = "http://localhost:8080"

Unknown top-level keys, unknown settings and bad values are reported as one-line
:class:`~forge_cli.errors.ConfigError` naming the file and the profile.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge_cli.config.paths import config_path, is_own_config_dir
from forge_cli.config.settings import KEYS, LIST_KEYS, SECRET_KEYS, parse_value
from forge_cli.errors import ConfigError
from forge_cli.privacy import private_dir

__all__ = ["ConfigFile", "atomic_write_private"]

_TOP_LEVEL = ("default_profile", "profiles", "mcp")


def atomic_write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file + ``os.replace``), mode 0600 (a missing
    directory is created 0700)."""
    private_dir(path.parent, tighten=is_own_config_dir(path.parent))
    import tempfile  # only when writing (reading the config is on every command's path)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class ConfigFile:
    """The parsed config file. ``profiles`` maps profile names to checked settings."""

    path: Path
    default_profile: str | None = None
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``[mcp.servers.NAME]`` tables as written; :mod:`forge_cli.mcp.config` checks them."""

    @classmethod
    def load(cls, path: Path | None = None) -> ConfigFile:
        """Read and check the file; a missing file is an empty config."""
        path = path or config_path()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls(path=path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}") from None
        import tomllib  # only with a file to parse (on ``forge ask``'s way to its request)

        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
        except RecursionError:
            raise _too_deep(path) from None
        try:
            return cls._from_raw(path, raw)
        except RecursionError:
            raise _too_deep(path) from None

    @classmethod
    def _from_raw(cls, path: Path, raw: dict[str, Any]) -> ConfigFile:
        for key in raw:
            if key not in _TOP_LEVEL:
                raise ConfigError(
                    f"unknown key {key!r} in config file {path}",
                    hint="settings go under [profiles.NAME]",
                )
        default = raw.get("default_profile")
        if default is not None and not isinstance(default, str):
            raise ConfigError(f"default_profile in {path} must be a string")
        profiles_raw = raw.get("profiles", {})
        if not isinstance(profiles_raw, dict):
            raise ConfigError(f"'profiles' in {path} must be a table")
        profiles: dict[str, dict[str, Any]] = {}
        for name, table in profiles_raw.items():
            if not isinstance(table, dict):
                raise ConfigError(f"profile {name!r} in {path} must be a table")
            source = f"profile {name!r} of {path}"
            _check_lists(_flatten(table), source)
            profiles[name] = {
                k: parse_value(k, v, source=source) for k, v in _flatten(table).items()
            }
        return cls(
            path=path,
            default_profile=default,
            profiles=profiles,
            mcp_servers=_mcp_servers(path, raw.get("mcp", {})),
        )

    def profile(self, name: str) -> dict[str, Any]:
        """The settings of profile ``name``; ``default`` may be absent, others may not."""
        if name in self.profiles:
            return dict(self.profiles[name])
        if name == "default":
            return {}
        known = ", ".join(sorted(self.profiles)) or "none defined"
        raise ConfigError(f"unknown profile {name!r}", hint=f"profiles: {known}")

    def set(self, key: str, raw: Any, *, profile: str) -> Any:
        """Check and set ``key`` in ``profile`` (created if needed); returns the stored value."""
        if key == "default_profile":
            self.default_profile = str(raw)
            return self.default_profile
        value = parse_value(key, raw, source=f"profile {profile!r}")
        self.profiles.setdefault(profile, {})[key] = value
        return value

    def unset(self, key: str, *, profile: str) -> bool:
        """Remove ``key`` from ``profile``; returns whether it was set."""
        if key == "default_profile":
            was = self.default_profile is not None
            self.default_profile = None
            return was
        if key not in KEYS:
            raise ConfigError(f"unknown setting {key!r}")
        return self.profiles.get(profile, {}).pop(key, None) is not None

    def to_document(self, *, include_secrets: bool) -> dict[str, Any]:
        """The file's content as a TOML-ready dict (secrets dropped unless asked for)."""
        doc: dict[str, Any] = {}
        if self.default_profile:
            doc["default_profile"] = self.default_profile
        profiles: dict[str, Any] = {}
        for name, table in self.profiles.items():
            profiles[name] = _nest(
                {
                    key: list(value) if isinstance(value, tuple) else value
                    for key, value in table.items()
                    if include_secrets or key not in SECRET_KEYS
                }
            )
        if profiles:
            doc["profiles"] = profiles
        if self.mcp_servers:
            doc["mcp"] = {"servers": self.mcp_servers}
        return doc

    def save(self) -> None:
        """Write the file atomically with mode 0600 (it may hold an API key)."""
        from forge_cli.config.toml_write import dumps

        atomic_write_private(self.path, dumps(self.to_document(include_secrets=True)))


def _too_deep(path: Path) -> ConfigError:
    return ConfigError(
        f"config file {path} nests arrays or tables too deeply",
        hint="a Forge config needs at most [profiles.NAME.SECTION]",
    )


def _check_lists(table: dict[str, Any], source: str) -> None:
    """A list setting written as a string (``tools = "file-search"``) is refused: the file's
    types are exact, and a string here is almost always a forgotten pair of brackets."""
    for key, value in table.items():
        if key in LIST_KEYS and not isinstance(value, list):
            example = f'{key.rpartition(".")[2]} = ["{value}"]' if isinstance(value, str) else ""
            raise ConfigError(
                f"bad value for {key} in {source}: expected a list of strings",
                hint=f"write {example}" if example else None,
            )


def _mcp_servers(path: Path, raw: object) -> dict[str, dict[str, Any]]:
    """The ``[mcp.servers.NAME]`` tables (shape only; their keys are checked when used)."""
    if not isinstance(raw, dict) or set(raw) - {"servers"}:
        raise ConfigError(f"[mcp] in {path} may only hold [mcp.servers.NAME] tables")
    servers = raw.get("servers", {})
    if not isinstance(servers, dict) or not all(isinstance(t, dict) for t in servers.values()):
        raise ConfigError(f"[mcp.servers] in {path} must hold one table per server")
    return {str(name): dict(table) for name, table in servers.items()}


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"engine": {"searxng_url": u}}`` -> ``{"engine.searxng_url": u}`` (TOML sub-tables and
    dotted keys both read as nested tables)."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix=f"{name}."))
        else:
            flat[name] = value
    return flat


def _nest(table: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`_flatten`: dotted keys become sub-tables when written."""
    nested: dict[str, Any] = {}
    for key, value in table.items():
        head, _, rest = key.partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            nested[key] = value
    return nested
