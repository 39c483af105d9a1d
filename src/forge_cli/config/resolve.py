"""Resolve the settings of a run: flags > template > environment > profile > defaults.

``KNOWLEDGE_FORGE_URL`` (the older CLI's variable) is honoured in the environment layer: it implies
``api = "knowledge-forge"`` (Knowledge Forge's request fields and the older CLI's defaults) with
that server unless ``FORGE_API``/``FORGE_BASE_URL`` say otherwise. The
older CLI posted to ``{KNOWLEDGE_FORGE_URL}/v1/responses``, so ``/v1`` is added when it is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge_cli.config.file import ConfigFile
from forge_cli.config.settings import KEYS, Settings, parse_value

__all__ = ["PROFILE_ENV", "env_layer", "resolve_settings", "selected_profile"]

PROFILE_ENV = "FORGE_PROFILE"
LEGACY_URL_ENV = "KNOWLEDGE_FORGE_URL"


def env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings the environment sets, checked."""
    layer: dict[str, Any] = {}
    legacy = env.get(LEGACY_URL_ENV)
    if legacy:
        layer["api"] = "knowledge-forge"
        root = legacy.rstrip("/")
        url = root if root.endswith("/v1") else f"{root}/v1"
        layer["base_url"] = parse_value("base_url", url, source=LEGACY_URL_ENV)
    for spec in KEYS.values():
        if spec.env and env.get(spec.env, "") != "":
            layer[spec.name] = parse_value(spec.name, env[spec.env], source=spec.env)
    return layer


def selected_profile(flag: str | None, env: Mapping[str, str], config: ConfigFile) -> str:
    """The profile in use: ``--profile``, ``FORGE_PROFILE``, the file's default, ``default``."""
    return flag or env.get(PROFILE_ENV) or config.default_profile or "default"


def resolve_settings(
    flags: Mapping[str, Any],
    *,
    env: Mapping[str, str],
    config: ConfigFile,
    profile: str | None = None,
    template: Mapping[str, Any] | None = None,
) -> Settings:
    """Merge the layers; ``flags`` holds only options the user actually gave (no ``None``).

    ``template`` is the checked settings layer of ``--template NAME`` (instructions included).
    """
    name = selected_profile(profile, env, config)
    merged: dict[str, Any] = {}
    merged.update(config.profile(name))
    merged.update(env_layer(env))
    merged.update(template or {})
    for key, raw in flags.items():
        if raw is None or (isinstance(raw, tuple | list) and not raw):
            continue
        merged[key] = parse_value(key, raw, source=f"--{key.replace('_', '-')}")
    return Settings(profile=name, **{KEYS[key].attr: value for key, value in merged.items()})
