"""A program that builds a backend itself with an API key an HTTP header cannot carry gets one
:class:`ConfigError` line at construction -- where the key came from and what is wrong with it,
never the key -- instead of httpx2's ``UnicodeEncodeError`` (or a split header) at the first
request. The CLI's own wording, naming the config or the variable, is tested in
``tests/cli/test_api_key_check.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.backends.embeddings import OpenAIEmbedder
from forge_cli.backends.knowledge_http import HttpKnowledgeClient
from forge_cli.backends.responses.backend import ResponsesBackend
from forge_cli.errors import ConfigError

URL = "http://127.0.0.1:9/v1"
ENV = "FORGE_TEST_KEY"

BAD_KEYS = [
    ("sk-abc123\n", "a line break at its end"),
    ("sk-abc\r\n123", "a line break at character 7 of 11"),
    ("sk-abc\x00123", "a control character at character 7 of 10"),
    ("sk-abc\u00e9123", "a non-ASCII character at character 7 of 10"),
    ("sk-abc 123", "a space at character 7 of 10"),
]

ENV_KEYS = [(key, problem) for key, problem in BAD_KEYS if "\x00" not in key] + [
    ("sk-abc\x07123", "a control character at character 7 of 10")  # an environment has no NUL
]

Build = Callable[..., Any]

BY_ARGUMENT: dict[str, Build] = {
    "ResponsesBackend": lambda key: ResponsesBackend(URL, api_key=key, api_key_env=None),
    "ChatCompletionsBackend": lambda key: ChatCompletionsBackend(
        base_url=URL, api_key=key, api_key_env=None
    ),
    "HttpKnowledgeClient": lambda key: HttpKnowledgeClient(URL, api_key=key),
}

FROM_ENV: dict[str, Build] = {
    "ResponsesBackend": lambda: ResponsesBackend(URL, api_key_env=ENV),
    "ChatCompletionsBackend": lambda: ChatCompletionsBackend(base_url=URL, api_key_env=ENV),
    "HttpKnowledgeClient": lambda: HttpKnowledgeClient(URL, api_key_env=ENV),
    "OpenAIEmbedder": lambda: OpenAIEmbedder(URL, "emb", api_key_env=ENV),
}


def _line(error: ConfigError) -> str:
    return error.one_line()


@pytest.mark.parametrize(("key", "problem"), BAD_KEYS)
@pytest.mark.parametrize("owner", sorted(BY_ARGUMENT))
def test_a_bad_key_argument_is_refused_at_construction(owner: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        BY_ARGUMENT[owner](key)
    assert _line(caught.value) == (
        f"the API key in the api_key argument of {owner} has {problem}, which an HTTP header "
        "cannot carry (hint: copy the key again)"
    )
    assert "abc" not in str(caught.value)
    assert "abc" not in repr(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(("key", "problem"), ENV_KEYS)
@pytest.mark.parametrize("owner", sorted(FROM_ENV))
def test_a_bad_key_in_the_environment_is_refused_at_construction(
    owner: str, key: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, key)
    with pytest.raises(ConfigError) as caught:
        FROM_ENV[owner]()
    assert _line(caught.value) == (
        f"the API key in ${ENV} has {problem}, which an HTTP header cannot carry "
        "(hint: copy the key again)"
    )
    assert "abc" not in str(caught.value)


@pytest.mark.parametrize("owner", sorted(FROM_ENV))
def test_a_good_key_or_none_is_accepted(owner: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "sk-good_key.0123-~!")
    FROM_ENV[owner]()
    monkeypatch.delenv(ENV)
    FROM_ENV[owner]()
