"""The engine's event stream: standard events, file_search results, cited retrieval answers."""

from __future__ import annotations

import pytest
from engine_helpers import RESULTS, check_structure, collect, file_search_request

from forge_cli.engine import RETRIEVAL_MODEL, Engine, EngineConfig
from forge_cli.errors import NotFoundError, UsageError
from forge_cli.protocol import Request, StreamEvent
from forge_cli.protocol.guards import is_file_citation
from forge_cli.stream import SnapshotBuilder

pytestmark = pytest.mark.anyio


def _final(events: list[StreamEvent]) -> dict:
    assert events[-1].type == "response.completed"
    return events[-1].data["response"]


async def test_stream_has_standard_structure_and_citations(engine: Engine, corpus) -> None:
    request = file_search_request(
        corpus.vector_store_id, "How often does the keeper sound the foghorn?"
    )
    events = await collect(engine.stream(request))
    check_structure(events)
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    for status in ("in_progress", "searching", "completed"):
        assert f"response.file_search_call.{status}" in kinds
    assert "response.output_text.annotation.added" in kinds
    final = _final(events)
    assert final["model"] == RETRIEVAL_MODEL
    assert final["usage"]["total_tokens"] > 0
    search, message = final["output"]
    assert search["type"] == "file_search_call"
    assert search["results"][0]["filename"] == "lighthouse.md"
    text = message["content"][0]["text"]
    assert text.splitlines()[0].startswith("Retrieval-only answer")
    assert "thirty seconds" in text
    for annotation in message["content"][0]["annotations"]:
        assert annotation["type"] == "file_citation"
        assert annotation["file_id"] == corpus.file_ids["lighthouse.md"]
        assert 0 < annotation["index"] <= len(text)
        assert annotation["snippet"]


async def test_retrieval_answer_quotes_relevant_sentences_not_chunks(
    engine: Engine, corpus
) -> None:
    request = file_search_request(corpus.vector_store_id, "what temperature to bake the loaf")
    final = _final(await collect(engine.stream(request)))
    text = final["output"][-1]["content"][0]["text"]
    assert "Bake the loaf at 250 degrees" in text
    assert "wild yeast" not in text  # an unrelated sentence of the same chunk is left out


async def test_snapshot_builder_folds_the_stream_into_the_final_response(
    engine: Engine, corpus
) -> None:
    events = await collect(engine.stream(file_search_request(corpus.vector_store_id, "tides moon")))
    builder = SnapshotBuilder()
    for event in events:
        builder.feed(event)
    snapshot = builder.finish()
    final = _final(events)
    assert builder.terminal == "completed"
    assert snapshot.output_text == final["output"][-1]["content"][0]["text"]
    assert [a.file_id for a in snapshot.annotations() if is_file_citation(a)] == [
        a["file_id"] for a in final["output"][-1]["content"][0]["annotations"]
    ]


async def test_max_results_threshold_and_filters(engine: Engine, corpus) -> None:
    question = "keeper starter moon"
    events = await collect(
        engine.stream(file_search_request(corpus.vector_store_id, question, max_num_results=1))
    )
    assert len(_final(events)["output"][0]["results"]) == 1
    flt = {"type": "eq", "key": "kind", "value": "recipe"}
    events = await collect(
        engine.stream(file_search_request(corpus.vector_store_id, question, filters=flt))
    )
    assert {r["filename"] for r in _final(events)["output"][0]["results"]} == {"sourdough.md"}
    events = await collect(
        engine.stream(
            file_search_request(
                corpus.vector_store_id, question, ranking_options={"score_threshold": 1.0}
            )
        )
    )
    final = _final(events)
    assert final["output"][0]["results"] == []
    assert "nothing in the searched sources matches" in final["output"][-1]["content"][0]["text"]


async def test_unknown_vector_store_and_bad_filters_fail_before_any_event(
    engine: Engine, corpus
) -> None:
    with pytest.raises(NotFoundError, match="vs_nope"):
        await collect(engine.stream(file_search_request("vs_nope", "x")))
    bad = {"type": "almost", "key": "kind", "value": 1}
    with pytest.raises(UsageError):
        await collect(engine.stream(file_search_request(corpus.vector_store_id, "x", filters=bad)))


async def test_vector_store_names_resolve_locally(engine: Engine) -> None:
    events = await collect(engine.stream(file_search_request("corpus", "sourdough starter")))
    assert _final(events)["output"][0]["results"]


async def test_no_tools_searches_the_default_stores(engine: Engine, corpus) -> None:
    # The engine's own default search shows its results without ``include`` (the tool tree).
    final = _final(await collect(engine.stream(Request(model="m", input="Fresnel lens beam"))))
    assert final["output"][0]["type"] == "file_search_call"
    assert final["output"][0]["results"][0]["file_id"] == corpus.file_ids["lighthouse.md"]


async def test_results_only_when_the_request_includes_them(engine: Engine, corpus) -> None:
    request = Request.model_validate(
        {"model": "m", "input": "Fresnel lens beam", "tools": [{"type": "file_search"}]}
    )
    search = _final(await collect(engine.stream(request)))["output"][0]
    assert (search["type"], search["status"], search["results"]) == (
        "file_search_call",
        "completed",
        None,
    )


async def test_file_search_without_vector_stores_searches_the_default_stores(
    engine: Engine, corpus
) -> None:
    request = Request.model_validate(
        {
            "model": "m",
            "input": "Fresnel lens beam",
            "tools": [{"type": "file_search"}],
            "include": [RESULTS],
        }
    )
    final = _final(await collect(engine.stream(request)))
    search = final["output"][0]
    assert (search["type"], search["status"]) == ("file_search_call", "completed")
    assert search["results"][0]["file_id"] == corpus.file_ids["lighthouse.md"]


async def test_web_search_without_provider_fails_visibly(engine: Engine) -> None:
    request = Request.model_validate(
        {"model": "m", "input": "news", "tools": [{"type": "web_search"}]}
    )
    events = await collect(engine.stream(request))
    check_structure(events)
    final = _final(events)
    call = final["output"][0]
    assert call["type"] == "web_search_call"
    assert call["status"] == "failed"
    assert "FORGE_SEARXNG_URL" in call["error"]["message"]
    assert "engine.searxng_url" in final["output"][-1]["content"][0]["text"]


async def test_stored_responses_and_previous_response_id(engine: Engine, corpus) -> None:
    final = _final(
        await collect(engine.stream(file_search_request(corpus.vector_store_id, "tides")))
    )
    assert engine.get_response(final["id"]) == final
    follow = Request(model="m", input="and spring tides?", previous_response_id=final["id"])
    assert _final(await collect(engine.stream(follow)))["previous_response_id"] == final["id"]
    with pytest.raises(NotFoundError):
        engine.get_response("resp_unknown")
    with pytest.raises(NotFoundError):
        await collect(
            engine.stream(Request(model="m", input="x", previous_response_id="resp_unknown"))
        )


async def test_fresh_home_answers_about_web_search_from_forge_docs(tmp_path, monkeypatch) -> None:
    """What `forge ask "How do I enable web search?"` needs on a fresh machine, no network."""
    from forge_cli.engine.local import LocalBackend

    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    backend = LocalBackend()
    try:
        events = await collect(
            backend.stream(Request(model="m", input="How do I enable web search?"))
        )
        docs = backend.store.find_vector_store("forge-docs")
        assert docs is not None
        doc_ids = {m.file_id for m in backend.store.list_vector_store_files(docs.id)}
    finally:
        await backend.aclose()
    final = _final(events)
    content = final["output"][-1]["content"][0]
    assert "searxng_url" in content["text"]
    assert content["annotations"]
    assert {a["file_id"] for a in content["annotations"]} <= doc_ids


async def test_an_engine_error_ends_the_stream_with_response_failed(corpus) -> None:
    class Broken:
        model = "broken"

        async def answer(self, ctx):  # type: ignore[no-untyped-def]
            yield ctx.tools.emitter.event("response.output_text.delta")
            raise UsageError("the answer step broke")

    engine = Engine(corpus.store, EngineConfig(seed=False), answerer=Broken())
    events = await collect(engine.stream(Request(model="m", input="x")))
    assert events[-1].type == "response.failed"
    assert "the answer step broke" in events[-1].data["response"]["error"]["message"]
