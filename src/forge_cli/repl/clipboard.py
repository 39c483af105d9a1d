"""Put text on the system clipboard: a clipboard program when one is installed, else OSC 52.

Programs are tried in order (``pbcopy`` on macOS, ``wl-copy`` under Wayland, ``xclip`` or
``xsel`` under X11, ``clip.exe`` in WSL), each only when its display is there. Without one (an
SSH session, a container), the text is sent to the terminal as an OSC 52 sequence, which most
terminal emulators (and tmux with ``set-clipboard on``) put on the clipboard of the machine the
user sits at. Only the terminal sees that sequence; the text is base64, so nothing in it is
interpreted.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import IO

__all__ = ["OSC52_LIMIT", "copy_text"]

OSC52_LIMIT = 100_000
"""Bytes of text sent by OSC 52 at most (terminals cap the sequence; xterm at about 100 kB)."""

_PROGRAMS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("pbcopy", (), None),
    ("wl-copy", (), "WAYLAND_DISPLAY"),
    ("xclip", ("-selection", "clipboard"), "DISPLAY"),
    ("xsel", ("--clipboard", "--input"), "DISPLAY"),
    ("clip.exe", (), None),
)


def copy_text(text: str, terminal: IO[str], env: Mapping[str, str] | None = None) -> str:
    """Copy ``text``; returns how (``"xclip"``, ``"terminal (OSC 52)"``, ...).

    Raises ``OSError`` when the text is too long for OSC 52 and no program is available.
    """
    environ = os.environ if env is None else env
    for program, args, display in _PROGRAMS:
        if display is not None and not environ.get(display):
            continue
        path = shutil.which(program, path=environ.get("PATH"))
        if path is None:
            continue
        try:
            subprocess.run(
                [path, *args],
                input=text.encode("utf-8"),
                check=True,
                timeout=5,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return program
    data = text.encode("utf-8")
    if len(data) > OSC52_LIMIT:
        raise OSError(
            f"the answer is {len(data)} bytes, too long to copy through the terminal "
            f"(at most {OSC52_LIMIT}); install wl-copy, xclip or xsel"
        )
    sequence = "\x1b]52;c;" + base64.b64encode(data).decode("ascii") + "\x07"
    if environ.get("TMUX"):
        sequence = "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    terminal.write(sequence)
    terminal.flush()
    return "terminal (OSC 52)"
