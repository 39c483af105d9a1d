"""``forge`` for subprocess and pty tests: installs the test backend hook, then runs the CLI.

Run as ``python tests/helpers/forge_main.py ARGS`` (see ``testhook.FORGE_COMMAND``); with
``FORGE_TEST_BACKEND`` unset it behaves exactly like ``python -m forge_cli.cli``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from forge_cli.cli.main import main
from helpers.testhook import install

if __name__ == "__main__":
    install()
    main()
