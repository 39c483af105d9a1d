"""Fixtures for backend tests: a real loopback HTTP server.

``helpers.*`` is importable because pytest puts ``tests/`` on ``sys.path`` when it loads
``tests/conftest.py`` (tests/ is not a package); that file also provides ``anyio_backend`` and the
network guard.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.loopback import LoopbackServer


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started loopback server; fails the test if a reply was unused or a request unexpected."""
    with LoopbackServer() as server:
        yield server
    server.assert_consumed()
