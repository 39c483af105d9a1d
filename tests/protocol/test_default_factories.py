"""The answer path's models give empty lists with a Python function, not the builtin ``list``.

Pydantic reads every default factory's signature when it builds a model; for a builtin type
that parses its text signature with ``tokenize``, whose first use compiles a large regular
expression (~2 ms of every ``forge ask``, ADR-0024).
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest
from pydantic import BaseModel

import forge_cli.protocol
from forge_cli.conversations.model import Conversation, SessionSettings, Turn
from forge_cli.protocol.items import Message

BUILTIN_FACTORIES = (list, dict, set, tuple, frozenset)


def _models() -> list[type[BaseModel]]:
    for info in pkgutil.iter_modules(forge_cli.protocol.__path__):
        importlib.import_module(f"forge_cli.protocol.{info.name}")
    found: list[type[BaseModel]] = [SessionSettings, Turn, Conversation]
    todo = [BaseModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("forge_cli.protocol"):
                found.append(sub)
    return found


def test_no_model_of_the_answer_path_has_a_builtin_default_factory() -> None:
    offenders = [
        f"{model.__name__}.{name}"
        for model in _models()
        for name, field in model.model_fields.items()
        if field.default_factory in BUILTIN_FACTORIES
    ]
    assert offenders == []


def test_each_instance_gets_its_own_empty_list() -> None:
    first, second = Message(), Message()
    assert first.content == []
    assert first.content is not second.content
    settings = SessionSettings(), SessionSettings()
    assert settings[0].tools == []
    assert settings[0].tools is not settings[1].tools


def test_building_the_answer_path_models_does_not_tokenize() -> None:
    probe = (
        "import tokenize\n"
        "from forge_cli.conversations.model import Conversation, Turn\n"
        "from forge_cli.protocol.request import InputMessage, Request\n"
        "from forge_cli.stream.warm import warm_up_fold\n"
        "warm_up_fold()\n"
        "Request(model='m', input=[InputMessage(content='hi')])\n"
        "Conversation(turns=[Turn(user='q')])\n"
        "compile = getattr(tokenize, '_compile', None)\n"
        "print(compile.cache_info().currsize if hasattr(compile, 'cache_info') else 'n/a')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    if result.stdout.strip() == "n/a":
        pytest.skip("this Python's tokenize compiles no cached regular expression")
    assert result.stdout.strip() == "0"
