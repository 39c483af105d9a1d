"""Saved conversations on disk: one JSON file each, written atomically, listed tolerantly.

A corrupt or foreign file in the directory is reported in :attr:`Listing.problems` and skipped;
it never breaks the listing (shell_gpt PR #786: one truncated chat file crashed the CLI).
"""

from __future__ import annotations

import builtins
import heapq
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli import jsonsafe
from forge_cli.config.file import atomic_write_private
from forge_cli.errors import ForgeError, NotFoundError, UsageError
from forge_cli.privacy import private_dir
from forge_cli.redact import redact

if TYPE_CHECKING:
    from forge_cli.conversations.model import Conversation

__all__ = ["MTIME_SLACK", "ConversationNotSaved", "ConversationStore", "Listing"]


class ConversationNotSaved(ForgeError):
    """Writing a conversation failed (a full disk, a read-only directory); exit 1.

    The conversation itself is intact in memory: the caller says so in one line and keeps it,
    so a later save (``/save`` in the chat) can retry once there is room.
    """


_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


def _why_not_saved(path: Path, exc: OSError, size: int) -> str:
    """One line: where the write failed and, for a full disk, how much room it needs."""
    import errno
    import shutil

    from forge_cli.limits import describe_bytes

    if exc.errno != errno.ENOSPC:
        return f"cannot save the conversation to {path}: {exc.strerror or exc}"
    try:
        free = f", {describe_bytes(shutil.disk_usage(path.parent).free)} free"
    except OSError:
        free = ""
    return (
        f"cannot save the conversation to {path}: no space left on the device "
        f"({describe_bytes(size)} needed{free})"
    )


@dataclass
class Listing:
    """Conversations found (newest first) and one line per file that could not be read.

    ``unread`` counts the files :meth:`ConversationStore.newest` did not need to read (older
    conversations, or unreadable files it did not look at).
    """

    conversations: list[Conversation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unread: int = 0


MTIME_SLACK = 2.0
"""Seconds a file's modification time may trail its ``updated_at`` (coarse file system clocks)."""


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
        text = redact(conversation.model_dump_json(indent=2))
        try:
            atomic_write_private(path, text)
        except OSError as exc:
            raise ConversationNotSaved(_why_not_saved(path, exc, len(text.encode()))) from None
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
            self._read_into(listing, path)
        listing.conversations.sort(key=lambda conv: conv.updated_at, reverse=True)
        return listing

    def newest(self, count: int | None) -> Listing:
        """At least the ``count`` newest readable conversations (by ``updated_at``), newest
        first, reading as few files as it can; ``None``: :meth:`list`.

        Every save rewrites the file, after the conversation's ``updated_at`` was set, so a
        file's modification time is never earlier than its ``updated_at``. Files are read
        newest-modified first, and reading stops once ``count`` conversations were found whose
        ``updated_at`` is later than the modification time of every file left (give or take
        :data:`MTIME_SLACK`): none of those can be newer. A file whose modification time is
        later than its content (copied, touched) only costs a read; one whose modification time
        was set back before its ``updated_at`` (``touch -d``, a restore that keeps old times)
        may be listed late -- ``list()`` reads everything. Unread files are counted in
        :attr:`Listing.unread`.
        """
        if count is None:
            return self.list()
        listing = Listing()
        if not self.root.is_dir():
            return listing
        files: list[tuple[float, str, Path]] = []
        for path in self.root.glob("*.json"):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                mtime = float("inf")  # read it first: the read reports the problem
            files.append((-mtime, path.name, path))
        files.sort()
        newest: list[float] = []  # the ``count`` latest updated_at values so far (a min-heap)
        for done, (negative_mtime, _, path) in enumerate(files):
            if len(newest) >= count and newest[0] > -negative_mtime + MTIME_SLACK:
                listing.unread = len(files) - done
                break
            conversation = self._read_into(listing, path)
            if conversation is not None:
                heapq.heappush(newest, conversation.updated_at)
                if len(newest) > count:
                    heapq.heappop(newest)
        listing.conversations.sort(key=lambda conv: conv.updated_at, reverse=True)
        return listing

    def _read_into(self, listing: Listing, path: Path) -> Conversation | None:
        """Read ``path`` into ``listing`` (or its problem); the conversation, if readable."""
        try:
            conversation = self._read(path)
        except _unreadable() as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            listing.problems.append(f"skipped {path.name}: {reason}")
            return None
        listing.conversations.append(conversation)
        return conversation

    def ids(self) -> builtins.list[str]:
        """The ids of the saved conversations, from their file names (no file is read)."""
        if not self.root.is_dir():
            return []
        return sorted(path.stem for path in self.root.glob("*.json") if _ID.match(path.stem))

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
