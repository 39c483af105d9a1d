"""Saved conversations on disk: one JSON file each, written atomically, listed tolerantly.

A corrupt or foreign file in the directory is reported in :attr:`Listing.problems` and skipped;
it never breaks the listing (shell_gpt PR #786: one truncated chat file crashed the CLI).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from forge_cli.config.file import atomic_write_private
from forge_cli.conversations.model import FORMAT, Conversation
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.privacy import private_dir

__all__ = ["ConversationStore", "Listing"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass
class Listing:
    """Conversations found (newest first) and one line per file that could not be read."""

    conversations: list[Conversation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ConversationStore:
    """The conversations directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, conversation_id: str) -> Path:
        """The file of ``conversation_id`` (which must be a plain id, never a path)."""
        if not _ID.match(conversation_id):
            raise UsageError(f"invalid conversation id {conversation_id!r}")
        return self.root / f"{conversation_id}.json"

    def save(self, conversation: Conversation) -> Path:
        """Write ``conversation`` atomically (temp file + ``os.replace``)."""
        path = self.path_for(conversation.id)
        private_dir(self.root)  # conversations are private: 0700, tightened if needed
        atomic_write_private(path, conversation.model_dump_json(indent=2))
        return path

    def _read(self, path: Path) -> Conversation:
        raw = json.loads(path.read_text(encoding="utf-8"))
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
            except (OSError, ValueError, ValidationError) as exc:
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
                except (OSError, ValueError, ValidationError) as exc:
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

    def delete(self, ref: str) -> Conversation:
        """Delete a conversation (found as :meth:`load` does); returns what was deleted."""
        conversation = self.load(ref)
        self.path_for(conversation.id).unlink(missing_ok=True)
        return conversation
