"""Issue 29: Forge's own directories found with mode 0777 are tightened to 0700 (new ones
already were), and a directory that may be shared (the one holding ``$FORGE_CONFIG``) is not."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from forge_cli.config.file import ConfigFile
from forge_cli.mcp.client import McpConnection
from forge_cli.mcp.config import McpServerSpec

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def _loose(path: Path) -> Path:
    path.mkdir(parents=True)
    path.chmod(0o777)
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_existing_world_writable_config_dir_is_tightened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORGE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    folder = _loose(tmp_path / "xdg" / "forge")
    config = ConfigFile.load()
    assert config.path.parent == folder
    config.default_profile = "work"
    config.save()
    assert _mode(folder) == 0o700
    assert _mode(config.path) == 0o600


def test_the_directory_of_a_config_file_named_by_the_user_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = _loose(tmp_path / "home")
    monkeypatch.setenv("FORGE_CONFIG", str(shared / "forge.toml"))
    config = ConfigFile.load()
    config.default_profile = "work"
    config.save()
    assert _mode(shared) == 0o777
    assert _mode(config.path) == 0o600


def test_an_existing_world_writable_logs_dir_is_tightened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    logs = _loose(tmp_path / "data" / "logs")
    connection = McpConnection(McpServerSpec(name="demo", command="true"))
    with connection._open_log():
        pass
    assert _mode(logs) == 0o700
    assert connection.log_path is not None
    assert _mode(connection.log_path) == 0o600
