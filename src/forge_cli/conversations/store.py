"""Saved conversations on disk: one JSON file each, written atomically, listed tolerantly.

A corrupt or foreign file in the directory is reported in :attr:`Listing.problems` and skipped;
it never breaks the listing (shell_gpt PR #786: one truncated chat file crashed the CLI).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli import jsonsafe
from forge_cli.config.file import atomic_write_private
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.privacy import private_dir
from forge_cli.redact import redact

if TYPE_CHECKING:
    from forge_cli.conversations.model import Conversation

__all__ = ["ConversationStore", "Listing"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass
class Listing:
    """Conversations found (newest first) and one line per file that could not be read."""

    conversations: list[Conversation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _unreadable() -> tuple[type[Exception], ...]:
    """What reading a conversation file may raise (pydantic is imported on first read)."""
    from pydantic import ValidationError

    return (OSError, ValueError, ValidationError)


class ConversationStore:
    """The conversations directory.

    Opening a store and locking a conversation import no model: ``forge ask`` does both before
    its first request (the pydantic models are built once the request is out).
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, conversation_id: str) -> Path:
        """The file of ``conversation_id`` (which must be a plain id, never a path)."""
        if not _ID.match(conversation_id):
            raise UsageError(f"invalid conversation id {conversation_id!r}")
        return self.root / f"{conversation_id}.json"

    def save(self, conversation: Conversation) -> Path:
        """Write ``conversation`` atomically (temp file + ``os.replace``), keys redacted."""
        path = self.path_for(conversation.id)
        private_dir(self.root)  # conversations are private: 0700, tightened if needed
        atomic_write_private(path, redact(conversation.model_dump_json(indent=2)))
        return path

    def _read(self, path: Path) -> Conversation:
        from forge_cli.conversations.model import FORMAT, Conversation

        raw = jsonsafe.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ValueError(f"not a Forge conversation (format {FORMAT} expected)")
        return Conversation.model_validate(raw)

    def list(self) -> Listing:
        """Every readable conversation, newest first; unreadable files become problems."""
        listing = Listing()
        if not self.root.is_dir():
            return listing
        for path in sorted(self.root.glob("*.json")):
            try:
                listing.conversations.append(self._read(path))
            except _unreadable() as exc:
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                listing.problems.append(f"skipped {path.name}: {reason}")
        listing.conversations.sort(key=lambda conv: conv.updated_at, reverse=True)
        return listing

    def load(self, ref: str) -> Conversation:
        """A conversation by id, by name, or by a unique id prefix."""
        if _ID.match(ref):
            path = self.root / f"{ref}.json"
            if path.is_file():
                try:
                    return self._read(path)
                except _unreadable() as exc:
                    raise UsageError(f"conversation {ref} cannot be read: {exc}") from None
        matches = [
            conv
            for conv in self.list().conversations
            if conv.name == ref or conv.id.startswith(ref)
        ]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UsageError(f"{ref!r} matches {len(matches)} conversations; give the full id")
        raise NotFoundError(
            f"no saved conversation {ref!r}", hint="`forge conversations list` shows them"
        )

    @contextmanager
    def open_for_writing(self, conversation_id: str) -> Iterator[None]:
        """Hold the conversation's lock while a chat may save it: a second ``forge chat
        --resume`` of the same conversation is refused instead of silently overwriting the
        first one's turns (the last writer would win). The lock is an ``flock`` on
        ``.ID.lock``, so a crashed Forge never leaves it held."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock, as before
            yield
            return
        self.path_for(conversation_id)  # validates the id
        private_dir(self.root)
        path = self.root / f".{conversation_id}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip()
                os.close(fd)
                who = f" (process {holder})" if holder.isdigit() else ""
                raise UsageError(
                    f"conversation {conversation_id} is open in another forge chat{who}",
                    hint="finish that chat first; two writers would lose each other's turns",
                ) from None
            try:
                same = os.fstat(fd).st_ino == path.stat().st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the holder removed the file as we opened it: try again
        try:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            yield
        finally:
            path.unlink(missing_ok=True)
            os.close(fd)

    def delete(self, ref: str) -> Conversation:
        """Delete a conversation (found as :meth:`load` does); returns what was deleted."""
        conversation = self.load(ref)
        self.path_for(conversation.id).unlink(missing_ok=True)
        return conversation
