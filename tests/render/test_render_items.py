"""Per-kind item renderers: what each tool-call kind shows, ascii mode, generic fallback."""

from __future__ import annotations

import re

from tests_render_helpers import FakeClock, Screen, render_plain_text  # type: ignore[import-not-found]

from forge_cli.protocol import (
    CodeInterpreterCall,
    ComputerCall,
    FileReaderCall,
    FunctionCall,
    FunctionCallOutput,
    ListDocumentsCall,
    PageReaderCall,
    Reasoning,
    Response,
    SummaryText,
    UnknownItem,
    WebSearchCall,
    WebSearchSource,
)
from forge_cli.protocol.guards import ITEM_GUARDS
from forge_cli.render.items import ITEM_RENDERERS, RegistryEntry
from forge_cli.render.items.generic import render_unknown
from forge_cli.render.rich_renderer import RichRenderer


def _live(*items: object, ascii: bool = False, final: bool = False, reasoning: bool = False) -> str:
    renderer = RichRenderer(
        Screen().console(), ascii=ascii, clock=FakeClock(0.5), show_reasoning=reasoning
    )
    response = Response(id="r", output=list(items))  # type: ignore[arg-type]
    renderer.on_snapshot(response)
    if final:
        return render_plain_text(renderer.render_static(response))
    return render_plain_text(renderer._live_view(response).renderables)


def test_file_reader_has_progress_bar_and_last_trace_lines() -> None:
    trace = "\n".join(f"[10:00:0{i}] [read] page {i}" for i in range(1, 7))
    out = _live(
        FileReaderCall(
            id="fr", status="reading", file_name="big.pdf", progress=0.4, execution_trace=trace
        )
    )
    assert "████████░░░░░░░░░░░░  40%" in out
    assert "big.pdf" in out
    assert "page 6" in out
    assert "page 4" in out
    assert "page 3" not in out


def test_page_reader_short_id_and_range_in_ascii() -> None:
    out = _live(
        PageReaderCall(
            id="pr",
            status="reading",
            document_id="doc_0123456789abcdef",
            start_page=2,
            end_page=5,
            progress=0.5,
        ),
        ascii=True,
    )
    assert "doc_01234..." in out
    assert "pp. 2-5" in out
    assert "##########.........." in out
    assert out.isascii()


def test_function_call_with_error_output() -> None:
    call = FunctionCall(
        id="fc", call_id="c1", name="divide", arguments='{"a": 1, "b": 0}', status="completed"
    )
    output = FunctionCallOutput(
        call_id="c1", output="ZeroDivisionError: division by zero", is_error=True
    )
    out = _live(call, output, final=True)
    assert "✗ Function · failed · divide(a=1, b=0)" in out
    assert "→ ZeroDivisionError: division by zero" in out


def test_code_interpreter_code_and_logs() -> None:
    code = "import math\nprint(math.pi)\nx = 1\ny = 2\nz = 3"
    out = _live(
        CodeInterpreterCall(
            id="ci",
            status="interpreting",
            code=code,
            outputs=[{"type": "logs", "logs": "3.14159\n"}],
        )
    )
    assert "import math" in out
    assert "2 more lines" in out
    assert "→ 3.14159" in out


def test_web_search_sources_and_list_documents_count() -> None:
    web = WebSearchCall(
        id="w",
        status="completed",
        queries=["q"],
        sources=[WebSearchSource(url="https://www.example.org/a", title="Ex")],
    )
    docs = ListDocumentsCall(id="l", status="completed", queries=["report"], count=4)
    out = _live(web, docs, final=True)
    assert "Ex · example.org" in out
    assert "4 documents" in out


def test_computer_call_in_words() -> None:
    out = _live(
        ComputerCall(
            id="cc", status="completed", action={"type": "click", "button": "left", "x": 3, "y": 4}
        ),
        final=True,
    )
    assert "left click at (3, 4)" in out


def test_reasoning_tail_then_hidden_or_full() -> None:
    item = Reasoning(id="rs", summary=[SummaryText(text="l1\nl2\nl3\nl4\nl5")])
    assert "l2" not in _live(item)
    assert "l5" in _live(item)
    assert "Reasoned for" in _live(item, final=True)
    assert "l1" not in _live(item, final=True)
    full = _live(item, final=True, reasoning=True)
    assert "l1" in full
    assert "l5" in full


def test_reasoning_without_text_is_one_line() -> None:
    """A reasoning item with no readable text (encrypted, or an empty summary) was drawn as a
    heading over blank lines when reasoning is shown."""
    item = Reasoning(id="rs", summary=[], encrypted_content="gAAA")
    full = _live(item, final=True, reasoning=True)
    assert next(line for line in full.splitlines() if line.strip()).startswith("∴ Reasoned for ")
    assert full == _live(item, final=True)  # as when reasoning is hidden: nothing more to show


def test_unknown_item_generic_line() -> None:
    out = _live(UnknownItem(type="document_finder_call", id="x", status="searching"))
    assert "Document finder · searching" in out


def test_every_item_kind_has_a_registry_entry() -> None:
    for kind, guard in ITEM_GUARDS.items():
        entries = [
            e for e in ITEM_RENDERERS._entries if isinstance(e, RegistryEntry) and e.guard is guard
        ]
        assert entries, f"no renderer registered for {kind}"
    fallback = ITEM_RENDERERS.lookup(object())
    assert isinstance(fallback, RegistryEntry)
    assert fallback.renderer is render_unknown


def test_elapsed_time_is_shown_per_tool_call() -> None:
    out = _live(ListDocumentsCall(id="l", status="searching", queries=["x"]))
    assert re.search(r"· \d+\.\ds$", out.splitlines()[0]), out
