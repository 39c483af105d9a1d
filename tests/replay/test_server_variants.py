"""What each server variant of issue 13 must show, beyond the checks every recording gets.

The streams are replayed over loopback through ``forge ask`` (``--json`` and ``--plain``, in
process through click, as :mod:`test_recorded_streams` does); the synthetic ones say in their
``# source:`` line which server documentation they follow.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from helpers.loopback import LoopbackServer, Reply, Send, sse  # type: ignore[import-not-found]
from replay.recordings import STREAMS, load  # type: ignore[import-not-found]


@click.command(context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def _forge(args: tuple[str, ...]) -> None:
    from forge_cli.cli.main import run

    sys.exit(run(list(args)))


class Ask:
    """``forge ask`` against one stream served on loopback."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.server: LoopbackServer | None = None

    def __call__(
        self, name: str, *mode: str, env: dict[str, str] | None = None
    ) -> tuple[int, str, str]:
        rec = load(STREAMS / f"{name}.sse")
        self.server = LoopbackServer().start()
        self.server.add(Reply.sse([Send(frame) for frame in rec.frames]))
        args = ["ask", "--api", rec.api, "--base-url", self.server.base_url, "-m", "m"]
        full_env = {
            "FORGE_DATA_DIR": str(self.tmp / "data"),
            "FORGE_CONFIG": str(self.tmp / "config.toml"),
            "NO_COLOR": "1",
            **(env or {}),
        }
        result = CliRunner().invoke(_forge, [*args, *mode, "q"], env=full_env)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        return result.exit_code, result.stdout, result.stderr

    def json(self, name: str, env: dict[str, str] | None = None) -> dict[str, Any]:
        code, out, err = self(name, "--json", env=env)
        assert code == 0, err
        doc: dict[str, Any] = json.loads(out)
        return doc

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.fixture
def ask(tmp_path: Path) -> Iterator[Ask]:
    runner = Ask(tmp_path)
    yield runner
    runner.close()


def _items(doc: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in doc["items"] if item["type"] == kind]


# -- Chat ---------------------------------------------------------------------------------------


def test_think_tags_become_reasoning(ask: Ask) -> None:
    doc = ask.json("C20_synthetic_vllm_chat_think_in_content")
    assert doc["text"] == "**9.9** is larger than 9.11."
    [reasoning] = _items(doc, "reasoning")
    assert reasoning["text"].startswith("The user asks for 9.11 vs 9.9.")
    assert "<think>" not in json.dumps(doc)


def test_think_tags_in_plain_mode_go_to_stderr_without_tags(ask: Ask) -> None:
    code, out, err = ask("C20_synthetic_vllm_chat_think_in_content", "--plain")
    assert code == 0
    assert out.strip() == "**9.9** is larger than 9.11."
    assert "Compare tenths" in err
    assert "think>" not in out + err


def test_think_tags_setting_off_keeps_the_content_as_sent(ask: Ask) -> None:
    doc = ask.json("C20_synthetic_vllm_chat_think_in_content", env={"FORGE_THINK_TAGS": "false"})
    assert doc["text"].startswith("<think>\nThe user asks")
    assert not _items(doc, "reasoning")


def test_chat_url_annotations_are_citations_with_sources(ask: Ask) -> None:
    doc = ask.json("C21_synthetic_openrouter_chat_url_citations")
    urls = [c["url"] for c in doc["citations"]]
    assert urls == ["https://example.com/forge-2", "https://example.org/forge-engine"]
    assert doc["citations"][0]["title"] == "Forge 2.0 released"
    assert doc["citations"][0]["snippet"] == "Forge 2.0 ships in March."
    # The first citation ends inside the Markdown link: its marker goes after the link.
    assert "[example.com](https://example.com/forge-2)[1]" in doc["text_cited"]
    code, out, _err = ask("C21_synthetic_openrouter_chat_url_citations", "--plain")
    assert code == 0
    assert "Sources:" in out
    # Plain mode prints text as it streams: annotations sent after the text (as OpenRouter does)
    # are listed, and placed in the text only at its very end.
    assert "The Forge engine — example.org" in out
    assert "Forge 2.0 released — example.com" in out
    assert "(https://example.com/forge-2)." in out


def test_refusal_is_kept_in_json_and_shown_as_a_refusal(ask: Ask) -> None:
    doc = ask.json("C05_openai_chat_refusal_logprobs")
    [message] = _items(doc, "message")
    assert message["refusal"] == "I'm very sorry, but I can't assist with that."
    code, _out, err = ask("C05_openai_chat_refusal_logprobs", "--plain")
    assert code == 0
    assert "refused: I'm very sorry" in err


def test_error_chunk_fails_the_answer(ask: Ask) -> None:
    code, out, _err = ask("C11_groq_chat_tool_use_failed_error", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "failed"
    assert doc["error"]["message"]
    assert all(item["status"] == "completed" for item in doc["items"])


# -- Responses ----------------------------------------------------------------------------------


def test_reasoning_whose_id_changes_is_one_item(ask: Ask) -> None:
    doc = ask.json("R20_synthetic_openrouter_reasoning_id_changes")
    [reasoning] = _items(doc, "reasoning")
    assert reasoning["status"] == "completed"
    assert reasoning["text"] == "Think about ids."
    code, _out, err = ask("R20_synthetic_openrouter_reasoning_id_changes", "--plain")
    assert code == 0
    assert err.count("Think about ids.") == 1


def test_api_sources_are_named(ask: Ask) -> None:
    doc = ask.json("R21_synthetic_openai_web_search_api_source")
    [search] = _items(doc, "web_search_call")
    assert {"type": "api", "url": "", "name": "oai-weather"} in search["result"]["sources"]
    code, _out, err = ask("R21_synthetic_openai_web_search_api_source", "--plain")
    assert code == 0
    assert "oai-weather · api" in err
    assert "└  · " not in err
    assert "├  · " not in err


def test_compaction_is_settled_and_printed_once(ask: Ask) -> None:
    doc = ask.json("R22_synthetic_openai_compaction_item")
    [compaction] = _items(doc, "compaction")
    assert compaction["status"] == "completed"
    code, _out, err = ask("R22_synthetic_openai_compaction_item", "--plain")
    assert code == 0
    assert err.count("Compaction") == 1
    assert "in progress" not in err


def test_markers_never_go_inside_a_link_target(ask: Ask) -> None:
    doc = ask.json("R15_openai_code_interpreter_image")
    assert "(sandbox:/mnt/data/y_eq_x_squared_plot.png)" in doc["text_cited"]
    assert "%5B" not in doc["text_cited"]


# -- Knowledge Forge ----------------------------------------------------------------------------


def test_knowledge_forge_file_citation_index_is_the_page(ask: Ask) -> None:
    doc = ask.json("K01_synthetic_kf_snapshot_stream")
    first = doc["citations"][0]
    assert (first["filename"], first["page"]) == ("q3-report.pdf", 2)
    code, out, _err = ask("K01_synthetic_kf_snapshot_stream", "--plain")
    assert code == 0
    assert "[1] q3-report.pdf, p. 2" in out


def test_knowledge_forge_tool_results_are_shown(ask: Ask) -> None:
    doc = ask.json("K01_synthetic_kf_snapshot_stream")
    [code_call] = _items(doc, "code_interpreter_call")
    assert code_call["result"]["logs"] == "112.00000000000001"
    [search] = _items(doc, "web_search_call")
    assert [s["url"] for s in search["result"]["sources"]] == ["https://example.com/acme"]
    [pages] = _items(doc, "page_reader_call")
    # Knowledge Forge counts pages from 0; Forge shows them from 1.
    assert (pages["arguments"]["start_page"], pages["arguments"]["end_page"]) == (2, 3)
    code, _out, err = ask("K01_synthetic_kf_snapshot_stream", "--plain")
    assert code == 0
    assert "→ 112.00000000000001" in err
    assert "Acme news · example.com" in err


# -- HTTP errors with an event-stream body ------------------------------------------------------


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_sse_bodied_http_error_is_one_clean_line(tmp_path: Path, api: str) -> None:
    body = {"error": {"message": "upstream model crashed", "code": "internal"}}
    frames = [sse(body), Send(b"data: [DONE]\n\n")]
    with LoopbackServer() as server:
        for _ in range(4):  # the first try and its retries
            server.add(Reply.sse(frames, status=500))
        args = ["ask", "--api", api, "--base-url", server.base_url, "-m", "m", "--plain", "q"]
        env = {"FORGE_DATA_DIR": str(tmp_path), "FORGE_CONFIG": str(tmp_path / "c.toml")}
        result = CliRunner().invoke(_forge, args, env=env)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].endswith("HTTP 500: upstream model crashed")
    assert "data:" not in result.stderr
