"""Private files: Forge's data is readable by its user only, whatever the umask.

The knowledge store holds every ingested document and the conversations directory every chat, so
directories are created 0700 and files 0600 (``docs/security.md``, "Local data"). Directories
Forge owns (the data directory, ``conversations/``) are also tightened when they already exist
with group or other access; a store file someone made readable to others is tightened on open.
A directory or file that belongs to another user is left alone.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from forge_cli.errors import ForgeError

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "private_dir", "private_file"]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def _tighten(path: Path, mode: int) -> None:
    try:
        info = path.stat()
    except OSError:
        return
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077 == 0:
        return
    with contextlib.suppress(OSError):  # e.g. a read-only mount: opening will say more
        path.chmod(mode)


def private_dir(path: Path, *, tighten: bool = True) -> Path:
    """Create ``path`` (and missing parents) with mode 0700; with ``tighten``, remove group and
    other access from an existing directory of ours. Errors name the path."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    try:
        for directory in reversed(missing):
            directory.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
            directory.chmod(PRIVATE_DIR_MODE)  # mkdir's mode is filtered by the umask
    except OSError as exc:
        raise ForgeError(f"cannot create the directory {path}: {exc.strerror or exc}") from None
    if tighten and path not in missing:
        _tighten(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 if it does not exist; tighten it if it does."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE)
    except FileExistsError:
        if path.is_file():  # never chmod a directory (or device) that sits at the path
            _tighten(path, PRIVATE_FILE_MODE)
        return path
    except OSError as exc:
        raise ForgeError(f"cannot create {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
    return path
