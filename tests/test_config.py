"""Configuration: TOML round trip, precedence, profiles, errors, file mode, secrets."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from forge_cli.config import ConfigFile, Settings, config_path, resolve_settings
from forge_cli.config.toml_write import dumps
from forge_cli.errors import ConfigError


def test_toml_writer_round_trips_tricky_strings() -> None:
    doc = {
        "default_profile": "kf",
        "profiles": {
            "kf": {"base_url": 'http://x/"q"\\', "tools": ["file-search"], "yes": True},
            "odd name": {"max_iterations": 3, "timeout": 1.5, "instructions": "a\nb\tc\x01"},
        },
    }
    assert tomllib.loads(dumps(doc)) == doc


def test_precedence_flags_over_env_over_profile(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.toml")
    file.set("model", "from-profile", profile="default")
    file.set("effort", "low", profile="default")
    file.set("max_iterations", "7", profile="default")
    env = {"FORGE_MODEL": "from-env", "FORGE_EFFORT": "high"}
    settings = resolve_settings({"model": "from-flag", "tools": ()}, env=env, config=file)
    assert settings.model == "from-flag"
    assert settings.effort == "high"
    assert settings.max_iterations == 7
    assert settings.api == "local"  # the built-in default


def test_knowledge_forge_url_implies_the_knowledge_forge_api() -> None:
    settings = resolve_settings(
        {}, env={"KNOWLEDGE_FORGE_URL": "http://kf:9999/v1/"}, config=ConfigFile(Path("x"))
    )
    assert (settings.api, settings.base_url) == ("knowledge-forge", "http://kf:9999/v1")
    openai_style = resolve_settings(
        {"api": "responses"}, env={"KNOWLEDGE_FORGE_URL": "http://kf"}, config=ConfigFile(Path("x"))
    )
    assert openai_style.api == "responses"
    forced = resolve_settings(
        {"api": "chat"}, env={"KNOWLEDGE_FORGE_URL": "http://kf"}, config=ConfigFile(Path("x"))
    )
    assert forced.api == "chat"


def test_knowledge_forge_url_is_the_server_root_as_in_the_older_cli() -> None:
    """The older CLI posted to ``{KNOWLEDGE_FORGE_URL}/v1/responses``."""
    settings = resolve_settings(
        {}, env={"KNOWLEDGE_FORGE_URL": "http://localhost:9999"}, config=ConfigFile(Path("x"))
    )
    assert settings.base_url == "http://localhost:9999/v1"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("colour = 1\n", "unknown key 'colour'"),
        ("[profiles.default]\nmodle = 'x'\n", "unknown setting 'modle'"),
        ("[profiles.default]\nmax_iterations = 0\n", "bad value for max_iterations"),
        ("[profiles.default]\ntools = ['telepathy']\n", "unknown tool 'telepathy'"),
        ("[profiles.default]\napi = 'soap'\n", "expected one of local"),
        ("[profiles\n", "not valid TOML"),
    ],
)
def test_bad_config_is_one_line_config_error(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        ConfigFile.load(path)
    assert fragment in info.value.one_line()
    assert "\n" not in info.value.one_line()
    assert info.value.exit_code == 2


def test_unknown_profile_lists_known_ones(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.toml", profiles={"kf": {}})
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        resolve_settings({}, env={}, config=file, profile="nope")


def test_saved_file_is_private_and_reloads(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "sub" / "config.toml")
    file.set("api", "responses", profile="kf")
    file.set("api_key", "sk-secret-123", profile="kf")
    file.set("default_profile", "kf", profile="kf")
    file.save()
    mode = stat.S_IMODE(file.path.stat().st_mode)
    assert mode == 0o600
    again = ConfigFile.load(file.path)
    settings = resolve_settings({}, env={}, config=again)
    assert settings.profile == "kf"
    assert settings.api_key == "sk-secret-123"
    assert "sk-secret" not in repr(settings)
    assert settings.public_dict()["api_key"] == "(set)"
    assert "sk-secret" not in dumps(again.to_document(include_secrets=False))


def test_config_path_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "f.toml"))
    assert config_path() == tmp_path / "f.toml"


def test_env_bad_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="FORGE_MAX_ITERATIONS"):
        resolve_settings({}, env={"FORGE_MAX_ITERATIONS": "many"}, config=ConfigFile(Path("x")))


def test_settings_defaults() -> None:
    assert Settings().max_iterations == 5


def test_plural() -> None:
    from forge_cli.wording import plural

    assert [plural(n, "turn") for n in (0, 1, 2)] == ["0 turns", "1 turn", "2 turns"]
    assert plural(1, "match", "matches") == "1 match"
    assert plural(3, "match", "matches") == "3 matches"


def test_shorten_cuts_at_a_word_boundary() -> None:
    from forge_cli.wording import shorten

    assert shorten("the quick brown fox jumps over the lazy dog", 20) == "the quick brown fox…"
    assert shorten("abcdefghijklmnopqrstuvwxyz", 10) == "abcdefghi…"  # no space: cut anyway
    assert shorten("short", 10) == "short"
    assert len(shorten("word " * 100, 160)) <= 160
