"""``forge templates``: saved instructions (and settings) for ``--template NAME``."""

from __future__ import annotations

import os
import sys

import click

from forge_cli.config.templates import (
    delete_template,
    list_templates,
    load_template,
    parse_template,
    save_template,
    template_path,
    templates_dir,
)
from forge_cli.errors import UsageError
from forge_cli.sanitize import sanitize, sanitize_inline

__all__ = ["templates"]


@click.group()
def templates() -> None:
    """Saved instructions for `forge ask/chat --template NAME`.

    A template is NAME.md in the templates folder next to the config file: its text is the
    system instructions, optionally after a block of settings between +++ lines (TOML, the
    keys of a profile: model, effort, tools, vector_stores, ...).
    """


@templates.command("list")
def list_cmd() -> None:
    """List the saved templates with the first line of each."""
    names = list_templates()
    if not names:
        click.echo(f"No templates yet in {sanitize_inline(str(templates_dir()))}.", err=True)
        click.echo("Create one: forge templates save NAME 'Your instructions ...'", err=True)
        return
    width = max(len(name) for name in names)
    for name in names:
        try:
            first = load_template(name).instructions.strip().splitlines()[:1]
        except Exception as exc:  # a broken file is listed, not fatal
            first = [f"(unreadable: {exc})"]
        summary = first[0] if first else ""
        summary = summary if len(summary) <= 70 else summary[:69] + "…"
        click.echo(f"{name.ljust(width)}  {sanitize_inline(summary)}")


@templates.command("show")
@click.argument("name")
def show_cmd(name: str) -> None:
    """Print template NAME as saved."""
    load_template(name)  # a missing or bad template is a one-line error
    click.echo(sanitize(template_path(name).read_text(encoding="utf-8")), nl=False)


@templates.command("save")
@click.argument("name")
@click.argument("text", nargs=-1)
@click.option("--force", "-f", is_flag=True, help="Replace an existing template.")
def save_cmd(name: str, text: tuple[str, ...], force: bool) -> None:
    """Save TEXT (or standard input) as template NAME."""
    body = " ".join(text)
    if not body and not sys.stdin.isatty():
        body = sys.stdin.read()
    if not body.strip():
        raise UsageError("no template text", hint="give TEXT or pipe it on standard input")
    path = save_template(name, body, overwrite=force)
    click.echo(f"Saved template {name} ({sanitize_inline(str(path))}).")


@templates.command("edit")
@click.argument("name")
def edit_cmd(name: str) -> None:
    """Open template NAME in $EDITOR (a new one starts empty)."""
    path = template_path(name)
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    edited = click.edit(current, editor=os.environ.get("EDITOR"), extension=".md")
    if edited is None or edited == current:
        click.echo("No changes.")
        return
    parse_template(name, edited, source=f"template {name!r}")
    save_template(name, edited, overwrite=True)
    click.echo(f"Saved template {name}.")


@templates.command("delete")
@click.argument("name")
def delete_cmd(name: str) -> None:
    """Delete template NAME."""
    delete_template(name)
    click.echo(f"Deleted template {name}.")


@templates.command("path")
def path_cmd() -> None:
    """Print the templates folder."""
    click.echo(str(templates_dir()))
