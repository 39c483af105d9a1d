"""The ``store`` and ``engine.*`` settings: file layout, environment, and what the CLI builds."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.cli.build import engine_config
from forge_cli.config import ConfigFile, Settings, resolve_settings
from forge_cli.errors import ConfigError
from helpers.loopback import LoopbackServer, Reply  # type: ignore[import-not-found]

Run = Callable[..., subprocess.CompletedProcess[str]]


def test_engine_keys_live_in_a_sub_table_and_round_trip(tmp_path: Path) -> None:
    file = ConfigFile(tmp_path / "c.toml")
    file.set("engine.searxng_url", "http://localhost:8080/", profile="default")
    file.set("store", "yes", profile="default")
    file.save()
    raw = tomllib.loads(file.path.read_text())
    assert raw == {
        "profiles": {"default": {"store": True, "engine": {"searxng_url": "http://localhost:8080"}}}
    }
    settings = resolve_settings({}, env={}, config=ConfigFile.load(file.path))
    assert settings.engine_searxng_url == "http://localhost:8080"
    assert settings.store is True
    assert settings.public_dict()["engine.searxng_url"] == "http://localhost:8080"


def test_dotted_keys_written_by_hand_are_read(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[profiles.default]\nengine.upstream_base_url = "http://127.0.0.1:11434/v1"\n'
        'engine.upstream_model = "qwen3:8b"\n'
    )
    settings = resolve_settings({}, env={}, config=ConfigFile.load(path))
    config = engine_config(settings)
    assert config.upstream is not None
    assert (config.upstream.base_url, config.upstream.model) == (
        "http://127.0.0.1:11434/v1",
        "qwen3:8b",
    )
    assert config.upstream.api_key_env == "OPENAI_API_KEY"


def test_unknown_engine_key_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[profiles.default.engine]\nsearx = 'x'\n")
    with pytest.raises(ConfigError, match=r"unknown setting 'engine\.searx'"):
        ConfigFile.load(path)


def test_engine_environment_variables_override_the_profile() -> None:
    file = ConfigFile(Path("unused.toml"))
    file.set("engine.searxng_url", "http://from-profile", profile="default")
    env = {"FORGE_SEARXNG_URL": "http://from-env:8080", "FORGE_STORE": "0"}
    settings = resolve_settings({"store": True}, env=env, config=file)
    assert engine_config(settings).searxng_url == "http://from-env:8080"
    assert settings.store is True  # the flag beats the environment
    assert resolve_settings({}, env=env, config=file).store is False


def test_half_configured_upstream_names_the_missing_key() -> None:
    with pytest.raises(ConfigError, match=r"engine\.upstream_model is not set"):
        engine_config(Settings(engine_upstream_base_url="http://127.0.0.1:1/v1"))
    assert engine_config(Settings()).upstream is None


def test_config_set_engine_key_from_the_command_line(forge: Run, tmp_path: Path) -> None:
    proc = forge("config", "set", "engine.searxng_url", "http://127.0.0.1:8080")
    assert proc.returncode == 0, proc.stderr
    assert "[profiles.default.engine]" in (tmp_path / "config.toml").read_text()
    shown = forge("config", "show")
    assert 'engine.searxng_url = "http://127.0.0.1:8080"  # profile default' in shown.stdout
    bad = forge("config", "set", "engine.searxng_url", "localhost:8080")
    assert bad.returncode == 2
    assert "expected an http:// or https:// URL" in bad.stderr


def test_configured_searxng_url_reaches_the_local_engine(forge: Run) -> None:
    result = {"url": "https://example.org/py313", "title": "Python 3.13", "content": "JIT."}
    with LoopbackServer() as searx:
        searx.add(Reply.json(200, {"results": [result]}))
        assert forge("config", "set", "engine.searxng_url", searx.url).returncode == 0
        proc = forge("ask", "--json", "-t", "web-search", "What changed in Python 3.13?")
        assert proc.returncode == 0, proc.stderr
        searx.assert_consumed()
        assert searx.requests[0].path.startswith("/search?q=")
    assert "example.org/py313" in proc.stdout


def test_serve_refuses_a_public_bind_without_a_token_and_checks_engine_config(
    tmp_path: Path,
) -> None:
    """`forge serve` validates its bind address and the engine.* settings before it starts."""
    env = {**os.environ, "FORGE_DATA_DIR": str(tmp_path), "FORGE_CONFIG": str(tmp_path / "c.toml")}
    public = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "serve", "--host", "0.0.0.0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert public.returncode == 2
    assert "token" in public.stderr
    half = subprocess.run(
        [sys.executable, "-m", "forge_cli.cli", "serve"],
        env={**env, "FORGE_UPSTREAM_BASE_URL": "http://127.0.0.1:1/v1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert half.returncode == 2
    assert "engine.upstream_model" in half.stderr
