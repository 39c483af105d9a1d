"""``python -m forge_cli.cli`` runs the ``forge`` command."""

from __future__ import annotations

from forge_cli.cli.entry import main

main()
