"""Tool calls written as text by models served without a tool parser (issue 15)."""

from __future__ import annotations

import json

import pytest

from forge_cli.agent.drivers.tool_tags import TextCall, extract_tool_call_tags, find_text_calls
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.items import FunctionCall, Message

OFFERED = {"get_weather", "now"}


def _args(call: TextCall) -> object:
    return json.loads(call.arguments)


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        # Hermes / Qwen JSON, with text around it.
        (
            'Let me check. <tool_call>\n{"name": "get_weather", "arguments": {"city": "NYC"}}\n'
            "</tool_call> One moment.",
            "Let me check.  One moment.",
        ),
        # The closing tag is missing where the server stopped on it.
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}', ""),
        # Arguments given as a JSON string, and "parameters" instead of "arguments".
        (
            '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"NYC\\"}"}'
            "</tool_call>",
            "",
        ),
        ('<tool_call>{"name": "get_weather", "parameters": {"city": "NYC"}}</tool_call>', ""),
        # The pythonic form inside the tag, and as a bracketed list.
        ('<tool_call>get_weather(city="NYC")</tool_call>', ""),
        ('[get_weather(city="NYC")]', ""),
        # Llama 3.
        ('<|python_tag|>{"name": "get_weather", "parameters": {"city": "NYC"}}<|eom_id|>', ""),
        # Mistral, both generations.
        ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "NYC"}}]', ""),
        ('[TOOL_CALLS]get_weather[ARGS]{"city": "NYC"}', ""),
        # A bare JSON call, plain or fenced.
        ('{"name": "get_weather", "arguments": {"city": "NYC"}}', ""),
        ('```json\n{"name": "get_weather", "arguments": {"city": "NYC"}}\n```', ""),
    ],
)
def test_each_format_gives_the_call_and_keeps_the_text(text: str, rest: str) -> None:
    calls, left = find_text_calls(text, OFFERED)
    assert [(c.name, _args(c)) for c in calls] == [("get_weather", {"city": "NYC"})]
    assert left == rest.strip()


def test_several_calls_in_one_reply_keep_their_order() -> None:
    text = (
        '<tool_call>{"name": "now", "arguments": {}}</tool_call>'
        '<tool_call>get_weather(city="Oslo", days=2, metric=True)</tool_call>'
    )
    calls, left = find_text_calls(text, OFFERED)
    assert [(c.name, _args(c)) for c in calls] == [
        ("now", {}),
        ("get_weather", {"city": "Oslo", "days": 2, "metric": True}),
    ]
    assert left == ""
    llama = (
        '<|python_tag|>{"name": "now", "parameters": {}}; '
        '{"name": "get_weather", "parameters": {"city": "Rome"}}'
    )
    assert [c.name for c in find_text_calls(llama, OFFERED)[0]] == ["now", "get_weather"]
    assert [c.name for c in find_text_calls('[now(), get_weather(city="X")]', OFFERED)[0]] == [
        "now",
        "get_weather",
    ]


@pytest.mark.parametrize(
    "text",
    [
        # Unknown tools stay text.
        '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>',
        '{"name": "rm_rf", "arguments": {}}',
        "[rm_rf()]",
        # Malformed calls stay text.
        "<tool_call>{not json</tool_call>",
        "<tool_call>get_weather(*args)</tool_call>",
        "<tool_call>get_weather(city=open('/etc/passwd'))</tool_call>",
        "<tool_call>__import__('os').system('x')</tool_call>",
        # JSON that is an answer, not a call.
        '{"city": "NYC", "temperature": 21}',
        '["NYC", "Oslo"]',
        # Prose that mentions the syntax without calling.
        "Use get_weather(city) to look it up.",
        "",
    ],
)
def test_what_is_not_a_call_of_an_offered_tool_stays_text(text: str) -> None:
    assert find_text_calls(text, OFFERED) == ([], text)


def test_without_a_list_of_offered_tools_tags_are_taken_but_bare_json_is_not() -> None:
    calls, _ = find_text_calls('<tool_call>{"name": "anything", "arguments": {}}</tool_call>')
    assert [c.name for c in calls] == ["anything"]
    bare = '{"name": "anything", "arguments": {}}'
    assert find_text_calls(bare) == ([], bare)


def test_huge_or_deep_text_is_left_alone() -> None:
    deep = "<tool_call>" + "[" * 100_000 + "]" * 100_000 + "</tool_call>"
    assert find_text_calls(deep, OFFERED) == ([], deep)
    nested = '<tool_call>{"name": "now", "arguments": ' + "[" * 5000 + "]" * 5000 + "}</tool_call>"
    assert find_text_calls(nested, OFFERED)[0] == []


def test_items_are_rewritten_into_a_message_and_function_calls() -> None:
    message = Message(
        id="m1",
        content=[OutputText(text="Checking. <tool_call>now()</tool_call>")],
        status="completed",
    )
    out = extract_tool_call_tags([message], OFFERED)
    assert isinstance(out[0], Message)
    assert out[0].text == "Checking."
    assert isinstance(out[1], FunctionCall)
    assert out[1].name == "now"
    assert out[1].arguments == "{}"
