"""The CLI's one backend seam: ``set_backend_override`` decides, or defers to the settings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forge_cli.backends.base import Backend
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.cli.build import backend_overridden, build_backend, set_backend_override
from forge_cli.config import Settings
from forge_cli.testing.scripted import ScriptedBackend


@pytest.fixture
def restore() -> Iterator[None]:
    yield
    set_backend_override(None)


def test_override_builds_the_backend_or_defers(restore: None) -> None:
    settings = Settings(api="chat", base_url="http://127.0.0.1:9/v1")
    scripted = ScriptedBackend([])
    chosen: list[Backend | None] = [scripted, None]
    set_backend_override(lambda _settings: chosen.pop(0))

    first = build_backend(settings)
    assert first is scripted
    assert backend_overridden(first)
    second = build_backend(settings)
    assert isinstance(second, ChatCompletionsBackend)  # the override said None: settings decide
    assert not backend_overridden(second)

    set_backend_override(None)
    assert isinstance(build_backend(settings), ChatCompletionsBackend)
