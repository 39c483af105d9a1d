"""Helpers for CLI tests: run ``forge`` in a subprocess and write test-hook scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

_TESTS_DIR = str(Path(__file__).resolve().parents[1])
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

from helpers.testhook import FORGE_COMMAND  # type: ignore[import-not-found]  # noqa: E402

FORGE = FORGE_COMMAND

ANSWER_SCRIPT: list[dict[str, Any]] = [
    {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
    {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {
            "type": "file_search_call",
            "id": "fs_1",
            "status": "searching",
            "queries": ["install forge"],
        },
    },
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {
            "type": "file_search_call",
            "id": "fs_1",
            "status": "completed",
            "queries": ["install forge"],
            "results": [{"file_id": "f1", "filename": "install.md", "text": "pip"}],
        },
    },
    {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": {
            "type": "message",
            "id": "m1",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        },
    },
    {
        "type": "response.content_part.added",
        "output_index": 1,
        "content_index": 0,
        "item_id": "m1",
        "part": {"type": "output_text", "text": "", "annotations": []},
    },
    {
        "type": "response.output_text.delta",
        "output_index": 1,
        "content_index": 0,
        "item_id": "m1",
        "delta": "Run pip install forge.",
    },
    {
        "type": "response.output_text.annotation.added",
        "output_index": 1,
        "content_index": 0,
        "item_id": "m1",
        "annotation_index": 0,
        "annotation": {
            "type": "file_citation",
            "file_id": "f1",
            "filename": "install.md",
            "index": 21,
        },
    },
    {
        "type": "response.completed",
        "response": {
            "id": "resp_1",
            "status": "completed",
            "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12},
        },
    },
]
"""A file search, then a cited answer."""


def partial_then_hang(text: str) -> list[dict[str, Any]]:
    """A script that streams ``text`` and then blocks until cancelled."""
    return [
        *ANSWER_SCRIPT[:1],
        {**ANSWER_SCRIPT[3], "output_index": 0},
        {**ANSWER_SCRIPT[4], "output_index": 0},
        {**ANSWER_SCRIPT[5], "output_index": 0, "delta": text},
        {"type": "forge.test.hang"},
    ]


@pytest.fixture
def script_file(tmp_path: Path) -> Callable[..., Path]:
    """Write a FORGE_TEST_BACKEND file holding the given scripts."""

    def write(*scripts: list[dict[str, Any]]) -> Path:
        path = tmp_path / f"script{len(list(tmp_path.glob('script*')))}.json"
        path.write_text(json.dumps({"scripts": list(scripts)}))
        return path

    return write


@pytest.fixture
def forge(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run forge with an isolated data dir and config; returns the completed process."""

    def run(
        *args: str, input: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        full_env = {
            **os.environ,
            "FORGE_DATA_DIR": str(tmp_path / "data"),
            "FORGE_CONFIG": str(tmp_path / "config.toml"),
            **(env or {}),
        }
        return subprocess.run(
            [*FORGE, *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env=full_env,
            timeout=30,
            check=False,
        )

    return run
