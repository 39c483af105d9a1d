"""Local safety through the real CLI: serve refuses before its banner, bad config values exit 2."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Forge = Callable[..., subprocess.CompletedProcess[str]]


def test_serve_on_all_interfaces_without_token_refuses_before_the_banner(forge: Forge) -> None:
    proc = forge("serve", "--host", "0.0.0.0", env={"FORGE_SERVE_TOKEN": ""})
    assert proc.returncode == 2
    assert "refusing to serve on 0.0.0.0" in proc.stderr
    assert "forge serve: http" not in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("timeout = inf", "timeout"),
        ("timeout = nan", "timeout"),
        ('tools = "file-search"', 'tools = ["file-search"]'),
        ('vector_stores = "vs_1"', "expected a list"),
    ],
)
def test_bad_config_values_exit_2_with_one_line(
    forge: Forge, tmp_path: Path, line: str, expected: str
) -> None:
    (tmp_path / "config.toml").write_text(f"[profiles.default]\n{line}\n", encoding="utf-8")
    proc = forge("config", "show")
    assert proc.returncode == 2, proc.stderr
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr


def test_env_and_config_set_still_take_comma_lists(forge: Forge, tmp_path: Path) -> None:
    assert forge("config", "set", "tools", "file-search,web-search").returncode == 0
    text = (tmp_path / "config.toml").read_text(encoding="utf-8")
    assert 'tools = ["file-search", "web-search"]' in text
    assert forge("config", "show").returncode == 0
