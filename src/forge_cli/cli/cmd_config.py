"""``forge config``: where the config file is, what it says, and changing it safely."""

from __future__ import annotations

import os
import sys

import click

from forge_cli.config import (
    KEYS,
    SECRET_KEYS,
    ConfigFile,
    config_path,
    resolve_settings,
    selected_profile,
)
from forge_cli.config.toml_write import dumps
from forge_cli.errors import ConfigError

__all__ = ["config"]


@click.group()
def config() -> None:
    """Show or change the configuration (TOML, mode 0600; FORGE_CONFIG overrides the path)."""


@config.command("path")
def path_cmd() -> None:
    """Print the config file path."""
    click.echo(str(config_path()))


@config.command("show")
@click.option("--profile", metavar="NAME", help="Profile to resolve.")
@click.option("--file", "raw", is_flag=True, help="Show the file's profiles, not the result.")
def show_cmd(profile: str | None, raw: bool) -> None:
    """Show the effective settings (flags aside) or the file. Secrets are never shown."""
    file = ConfigFile.load()
    if raw:
        click.echo(dumps(file.to_document(include_secrets=False)), nl=False)
        return
    settings = resolve_settings({}, env=os.environ, config=file, profile=profile)
    click.echo(f"# profile {settings.profile}  ({file.path})")
    click.echo("# each value with where it comes from; flags given on a command line win over all")
    from forge_cli.config import KEYS, env_layer
    from forge_cli.config.toml_write import toml_value
    from forge_cli.sanitize import sanitize_inline

    in_profile = file.profile(settings.profile)
    from_env = env_layer(os.environ)
    for key, value in settings.public_dict().items():
        if key == "profile":
            continue
        spec = KEYS.get(key)
        if key in from_env:
            source = f"env {spec.env}" if spec is not None and spec.env else "env"
        elif key in in_profile:
            source = f"profile {settings.profile}"
        else:
            source = "default"
        if value is None:
            click.echo(f"# {key} is not set")
            continue
        shown = sanitize_inline(toml_value(value))
        click.echo(f"{key} = {shown}  # {source}")


def _profile(file: ConfigFile, profile: str | None) -> str:
    return profile or selected_profile(None, os.environ, file)


@config.command("set")
@click.argument("key")
@click.argument("value", required=False)
@click.option("--profile", metavar="NAME", help="Profile to change (default: the active one).")
def set_cmd(key: str, value: str | None, profile: str | None) -> None:
    """Set KEY to VALUE in a profile. For api_key the value is asked for, never echoed."""
    file = ConfigFile.load()
    name = _profile(file, profile)
    if key in SECRET_KEYS:
        if value is not None:
            raise ConfigError(
                f"do not put {key} on the command line (it lands in shell history)",
                hint=f"run `forge config set {key}` and type it at the hidden prompt",
            )
        value = _secret(key, name)
    elif value is None:
        raise ConfigError(f"missing value for {key}")
    if key not in KEYS and key != "default_profile":
        raise ConfigError(f"unknown setting {key!r}", hint=f"known: {', '.join(sorted(KEYS))}")
    file.set(key, value, profile=name)
    file.save()
    shown = "(hidden)" if key in SECRET_KEYS else value
    click.echo(f"{key} = {shown}  [profile {name}, {file.path}]", err=True)


@config.command("unset")
@click.argument("key")
@click.option("--profile", metavar="NAME", help="Profile to change (default: the active one).")
def unset_cmd(key: str, profile: str | None) -> None:
    """Remove KEY from a profile."""
    file = ConfigFile.load()
    name = _profile(file, profile)
    removed = file.unset(key, profile=name)
    file.save()
    click.echo(f"{key} {'removed' if removed else 'was not set'} [profile {name}]", err=True)


def _secret(key: str, profile: str) -> str:
    """The value of secret ``key``: typed at a hidden prompt, or the first line of a piped
    standard input (``pass show openai | forge config set api_key``), read without getpass's
    warnings about echo."""
    if sys.stdin is not None and sys.stdin.isatty():
        return str(click.prompt(f"{key} for profile {profile}", hide_input=True, err=True))
    value = sys.stdin.readline(65536).strip() if sys.stdin is not None else ""
    if not value:
        raise ConfigError(
            f"no {key} on standard input",
            hint=f"run `forge config set {key}` at a terminal to type it at a hidden prompt",
        )
    return value
