"""Settle pydantic's plugin scan cheaply when it would find no plugin (ADR-0024).

On the first validator it builds, pydantic looks for plugins: ``importlib.metadata.entry_points(
group="pydantic")``, which makes a distribution object of every installed package and parses
each one's ``entry_points.txt`` (~3-6 ms of every ``forge ask``). It caches what it found in
``pydantic.plugin._loader._plugins``: an empty dict when no package declares a plugin.

:func:`settle_empty_plugin_scan` answers the same question by reading the same files without
parsing them, and only when none of them so much as mentions ``pydantic``, stores the empty
dict pydantic would have stored. In every other case (a plugin or anything that mentions
pydantic, a distribution finder other than the standard one, a zip or egg on ``sys.path``,
pydantic already scanned, the private name gone in a later pydantic) it does nothing and
pydantic scans as usual. Nothing in the environment changes, so child processes and the
``PYDANTIC_DISABLE_PLUGINS`` variable behave as before.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

__all__ = ["settle_empty_plugin_scan"]

_INFO_SUFFIXES = (".dist-info", ".egg-info")


def settle_empty_plugin_scan() -> bool:
    """Record "no pydantic plugin" if that is what pydantic's scan would find; whether it did."""
    from pydantic.plugin import _loader

    if getattr(_loader, "_plugins", ()) is not None:
        return False  # scanned already, or a pydantic that keeps its plugins elsewhere
    if not _nothing_mentions_pydantic():
        return False
    _loader._plugins = {}
    return True


def _nothing_mentions_pydantic() -> bool:
    finders = [f for f in sys.meta_path if getattr(f, "find_distributions", None) is not None]
    if finders != [importlib.machinery.PathFinder]:
        return False  # another finder may know distributions this scan cannot see
    for entry in sys.path:
        folder = entry or "."
        if folder.lower().endswith(".egg") or os.path.isfile(folder):
            return False  # eggs and zip archives: leave them to importlib.metadata
        try:
            names = os.listdir(folder)
        except OSError:
            continue  # importlib.metadata finds nothing there either
        for name in names:
            low = name.lower()
            if not (low.endswith(_INFO_SUFFIXES) or low == "egg-info"):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as handle:
                    text = handle.read()
            except (FileNotFoundError, NotADirectoryError):
                continue  # no entry points (an egg-info may be a file)
            except OSError:
                return False  # unreadable here; let pydantic decide
            if b"pydantic" in text.lower():
                return False
    return True
