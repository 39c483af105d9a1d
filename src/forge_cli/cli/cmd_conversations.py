"""``forge conversations``: list, show, export and delete saved conversations."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from forge_cli.cli.build import build_store
from forge_cli.conversations import to_json, to_markdown
from forge_cli.errors import UsageError
from forge_cli.wording import plural

__all__ = ["conversations"]


@click.group()
def conversations() -> None:
    """Saved conversations (in the data directory; FORGE_DATA_DIR overrides it)."""


@conversations.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines.")
def list_cmd(as_json: bool) -> None:
    """List saved conversations, newest first. Unreadable files are reported and skipped."""
    from forge_cli.sanitize import sanitize_inline

    listing = build_store().list()
    if not listing.conversations and not as_json:
        click.echo("no saved conversations", err=True)
    for conv in listing.conversations:
        if as_json:
            click.echo(_summary_json(conv))
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(conv.updated_at))
        title = sanitize_inline(conv.title)
        click.echo(f"{conv.id}  {stamp}  {plural(len(conv.turns), 'turn'):>9}  {title}")
    for problem in listing.problems:
        click.echo(f"forge: warning: {problem}", err=True)


def _summary_json(conv: object) -> str:
    import json

    from forge_cli.conversations import Conversation

    assert isinstance(conv, Conversation)
    return json.dumps(
        {"id": conv.id, "name": conv.name, "updated_at": conv.updated_at, "turns": len(conv.turns)}
    )


@conversations.command("show")
@click.argument("ref")
def show_cmd(ref: str) -> None:
    """Print a conversation as Markdown (control and escape sequences shown escaped)."""
    from forge_cli.sanitize import sanitize

    click.echo(sanitize(to_markdown(build_store().load(ref))), nl=False)


@conversations.command("export")
@click.argument("ref")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="File.")
@click.option("--force", "-f", is_flag=True, help="Replace the output file if it exists.")
def export_cmd(ref: str, fmt: str, output: Path | None, force: bool) -> None:
    """Export a conversation as Markdown (with sources) or JSON."""
    conv = build_store().load(ref)
    text = to_markdown(conv) if fmt == "md" else to_json(conv)
    if output is None:
        if sys.stdout.isatty():  # a terminal gets the sanitised text; a pipe or file the original
            from forge_cli.sanitize import sanitize

            text = sanitize(text)
        sys.stdout.write(text)
    else:
        from forge_cli.conversations.export import write_export

        try:
            write_export(output, text, overwrite=force)
        except FileExistsError:
            raise UsageError(f"{output} exists", hint="add --force to replace it") from None
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
        click.echo(f"Exported {conv.id} to {output}", err=True)


@conversations.command("delete")
@click.argument("ref")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def delete_cmd(ref: str, yes: bool) -> None:
    """Delete a saved conversation."""
    store = build_store()
    conv = store.load(ref)
    from forge_cli.sanitize import sanitize_inline

    question = f"Delete {conv.id} ({sanitize_inline(conv.title)})?"
    if not yes and not _confirmed(question, conv.id):
        click.echo(f"Kept {conv.id} (not deleted).", err=True)
        return
    store.delete(conv.id)
    click.echo(f"Deleted {conv.id}", err=True)


def _confirmed(question: str, conv_id: str) -> bool:
    """The answer to ``question`` [y/N]. No answer at all (standard input at its end, as in a
    script) is a usage error naming ``--yes``; Ctrl+C at a terminal is an interruption."""
    try:
        return click.confirm(question, err=True)
    except click.Abort:
        if sys.stdin is not None and sys.stdin.isatty():
            raise
        click.echo(err=True)  # the error goes on a line of its own, not after the question
        raise UsageError(
            f"{conv_id} was not deleted: no answer to the question",
            hint="add --yes to delete without asking",
        ) from None
