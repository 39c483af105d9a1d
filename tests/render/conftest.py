"""Render tests: make the helper module importable and share the fake clock fixture."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests_render_helpers import FakeClock  # type: ignore[import-not-found]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
