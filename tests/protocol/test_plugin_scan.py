"""Pydantic's plugin scan is settled without parsing every package's entry points when no
package declares a pydantic plugin; a plugin that is installed is still found and used
(``protocol._plugins``, ADR-0024)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from forge_cli.protocol import _plugins

FOLD_AND_REPORT = """
import importlib.metadata, json
calls = []
_entry_points = importlib.metadata.entry_points
def spy(**kw):
    calls.append(kw)
    return _entry_points(**kw)
importlib.metadata.entry_points = spy
from pydantic.plugin import _loader
from forge_cli.conversations.model import Conversation
from forge_cli.stream.warm import warm_up_fold
warm_up_fold()
Conversation()
import sys
seen = getattr(sys.modules.get("fake_plugin_mod"), "SEEN", [])
print(json.dumps({"calls": calls, "plugins": sorted(_loader._plugins or {}), "seen": seen}))
"""


def _run(env_path: str | None = None) -> dict[str, object]:
    env = dict(os.environ)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    if env_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env_path, env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", FOLD_AND_REPORT],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_without_a_plugin_the_entry_points_are_not_parsed() -> None:
    report = _run()
    assert report == {"calls": [], "plugins": [], "seen": []}


def test_an_installed_plugin_is_still_found_and_used(tmp_path: Path) -> None:
    info = tmp_path / "fake_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nfake = fake_plugin_mod:plugin\n")
    (tmp_path / "fake_plugin_mod.py").write_text(
        "SEEN = []\n"
        "class Plugin:\n"
        "    def new_schema_validator(self, schema, schema_type, schema_type_path, *a, **k):\n"
        "        SEEN.append(schema_type_path.name)\n"
        "        return None, None, None\n"
        "plugin = Plugin()\n"
    )
    report = _run(str(tmp_path))
    assert report["calls"] == [{"group": "pydantic"}]
    assert report["plugins"] == ["fake_plugin_mod:plugin"]
    assert {"SessionSettings", "Conversation", "Response", "Message"} <= set(report["seen"])  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["mention", "zip", "egg"])
def test_anything_unusual_is_left_to_pydantic(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _plugins._nothing_mentions_pydantic()  # this environment declares no plugin
    if kind == "mention":
        info = tmp_path / "other-2.0.dist-info"
        info.mkdir()
        (info / "entry_points.txt").write_text("[console_scripts]\nx = pydantic_thing:main\n")
        entry = str(tmp_path)
    elif kind == "zip":
        entry = str(tmp_path / "bundle.zip")
        with zipfile.ZipFile(entry, "w") as archive:
            archive.writestr("x.py", "")
    else:
        entry = str(tmp_path / "thing-1.0.egg")
        Path(entry).mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, entry])
    assert not _plugins._nothing_mentions_pydantic()


def test_a_second_finder_of_distributions_is_left_to_pydantic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Finder:
        def find_spec(self, *args: object) -> None:
            return None

        def find_distributions(self, *args: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert not _plugins._nothing_mentions_pydantic()
