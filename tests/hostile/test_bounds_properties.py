"""Properties of the bounds at the bottom of the stack: redaction, JSON depth, SSE size limits.

Hypothesis drives the SSE decoder and the SnapshotBuilder to depth and size: any nesting, any
line length around the limit, any chunking. The decoder either yields the same events whatever
the chunking or stops with the one :class:`ProtocolError` naming the setting; it never raises
anything else, never holds more than the limit, and the builder never breaks on what it yields.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge_cli import jsonsafe
from forge_cli.errors import ProtocolError
from forge_cli.protocol import StreamEvent
from forge_cli.redact import clear_secrets, redact, redact_data, register_secret
from forge_cli.stream import SnapshotBuilder
from forge_cli.stream.sse import INVALID_EVENT, LineSplitter, SSEDecoder

# -- redaction --------------------------------------------------------------------------------


@pytest.fixture
def secret() -> str:
    value = "sk-test-ABCDEF0123456789"
    register_secret(value)
    yield value
    clear_secrets()


def test_registered_secret_and_bearer_tokens_are_redacted(secret: str) -> None:
    text = f"bad key {secret}; header was Authorization: Bearer other-token-9876543210"
    out = redact(text)
    assert secret not in out
    assert "other-token-9876543210" not in out
    assert out == "bad key ***; header was Authorization: Bearer ***"
    assert redact(out) == out  # idempotent
    assert redact("the bearer of bad news") == "the bearer of bad news"  # prose stays


def test_short_values_are_never_registered() -> None:
    register_secret("abc")
    try:
        assert redact("abc abc") == "abc abc"
    finally:
        clear_secrets()


def test_redact_data_walks_any_depth_without_recursion(secret: str) -> None:
    deep: object = {"message": secret}
    for _ in range(5000):
        deep = [deep]
    out = redact_data(deep)
    for _ in range(5000):
        assert isinstance(out, list)
        assert len(out) == 1
        out = out[0]
    assert out == {"message": "***"}


# -- JSON depth -------------------------------------------------------------------------------


def _nest(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    keys = st.text(max_size=3)
    return st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3)


@given(st.integers(1, 400), st.integers(1, 300))
def test_depth_limit_is_exact(depth: int, limit: int) -> None:
    text = "[" * depth + "]" * depth
    if depth > limit:
        with pytest.raises(jsonsafe.JSONTooDeepError, match=r"limits\.max_json_depth"):
            jsonsafe.loads(text, max_depth=limit)
    else:
        assert jsonsafe.json_depth(text) == depth
        jsonsafe.loads(text, max_depth=limit)


@given(st.text(alphabet='[]{}"\\:,ab', max_size=60))
def test_brackets_inside_strings_do_not_count(inner: str) -> None:
    value = {"s": inner, "l": [[inner]]}
    text = json.dumps(value)
    assert jsonsafe.json_depth(text) == 3
    assert jsonsafe.loads(text, max_depth=3) == value


def test_far_too_deep_is_a_value_error_never_a_recursion_error() -> None:
    text = "{" + '"a":[' * 200_000 + "]" * 200_000 + "}"
    with pytest.raises(ValueError, match="nested deeper than 128"):
        jsonsafe.loads(text)


_JSONISH = st.text(alphabet='{}[]"\\:, \t\n\x0b01ab\ud800é', max_size=40) | st.builds(
    json.dumps, st.recursive(st.none() | st.integers() | st.text(max_size=4), _nest, max_leaves=12)
)


@settings(max_examples=500)
@given(_JSONISH, st.integers(1, 6))
def test_the_whole_object_fast_path_takes_only_what_loads_takes(text: str, limit: int) -> None:
    fast = jsonsafe.whole_object(text, limit)
    try:
        value = jsonsafe.loads(text, max_depth=limit)
    except ValueError:
        value = None
    if fast is not None:  # taken: exactly what loads gives
        assert type(value) is dict
        assert fast == value
    elif type(value) is dict:  # left to loads: only text with something around the object
        assert text != text.strip(" \t\n\r") or text.count("{") + text.count("[") > limit


@settings(max_examples=500)
@given(st.lists(_JSONISH, min_size=1, max_size=6), st.integers(1, 6))
def test_objects_parsed_together_are_those_parsed_alone(texts: list[str], limit: int) -> None:
    together = jsonsafe.whole_objects(texts, limit)
    alone = [jsonsafe.whole_object(text, limit) for text in texts]
    if together is not None:  # taken: each text is exactly the object whole_object takes
        assert together == alone
    else:  # left to the caller: at least one text whole_object would not take either
        assert None in alone


@pytest.mark.parametrize(
    "odd", [" {}", "{} ", "{}\n", '{"a": 1}, {"b": 2}', '{"a": 1},', "[{}]", "{}{}", "", "{"]
)
def test_objects_parsed_together_take_nothing_one_alone_would_not(odd: str) -> None:
    """In one array, whitespace around an object or a second object would parse: not taken."""
    assert jsonsafe.whole_object(odd) is None
    assert jsonsafe.whole_objects(['{"x": 1}', odd, "{}"]) is None
    assert jsonsafe.whole_objects(['{"x": 1}', "{}"]) == [{"x": 1}, {}]


# -- SSE size limits ---------------------------------------------------------------------------

LIMIT = 4096


def _decode(data: bytes, cuts: list[int]) -> list[StreamEvent] | str:
    decoder = SSEDecoder(max_event=LIMIT, max_depth=32)
    events: list[StreamEvent] = []
    start = 0
    try:
        for cut in [*sorted(cuts), len(data)]:
            events += decoder.feed(data[start:cut])
            start = max(start, cut)
        events += decoder.flush()
    except ProtocolError as exc:
        assert "limits.max_event_mb" in exc.one_line()  # noqa: PT017
        return "too large"
    return events


def _frame(depth: int, size: int) -> bytes:
    payload = {"type": "response.output_text.delta", "delta": "x" * size}
    text = json.dumps(payload)
    nest = "[" * depth + "]" * depth if depth else "null"
    text = text[:-1] + ', "nest": ' + nest + "}"
    return f"data: {text}\n\n".encode()


frames = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, LIMIT + 200)), min_size=1, max_size=6
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.lists(st.integers(0, 40_000), max_size=12))
def test_decoder_bounds_depth_and_size_in_any_chunking(
    spec: list[tuple[int, int]], cuts: list[int]
) -> None:
    data = b"".join(_frame(depth, size) for depth, size in spec)
    whole = _decode(data, [])
    assert _decode(data, cuts) == whole  # the chunking never matters
    too_large = any(len(_frame(d, s)) - 2 > LIMIT for d, s in spec)  # the line, no line ends
    if too_large:
        assert whole == "too large"
        return
    assert isinstance(whole, list)
    assert len(whole) == len(spec)
    for event, (depth, _) in zip(whole, spec, strict=True):
        if depth + 1 > 32:  # the event object is one level
            assert event.type == INVALID_EVENT
            assert "limits.max_json_depth" in event.data["reason"]
        else:
            assert event.type == "response.output_text.delta"
    builder = SnapshotBuilder()
    for event in whole:
        builder.feed(event)
    builder.finish()


@settings(deadline=None)
@given(st.integers(1, 64), st.lists(st.integers(1, 5000), min_size=1, max_size=40))
def test_line_splitter_never_holds_more_than_the_limit(lines: int, sizes: list[int]) -> None:
    splitter = LineSplitter(1000)
    data = b"\r\n".join(b"y" * size for size in sizes[:lines]) + b"\n"
    got: list[bytes] = []
    try:
        for start in range(0, len(data), 777):
            got += splitter.feed(data[start : start + 777])
            assert sum(len(piece) for piece in splitter._pieces) <= 1000
    except ProtocolError as exc:
        assert max(sizes[:lines]) > 1000
        assert re.search(r"larger than 1000 bytes", exc.message)  # noqa: PT017
        return
    assert got == [b"y" * size for size in sizes[:lines]]


deep_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=3), children, max_size=2)
    ),
    max_leaves=300,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "response.output_item.added",
                    "response.completed",
                    "response.output_text.delta",
                    "error",
                ]
            ),
            deep_values,
            st.integers(0, 128),
        ),
        max_size=8,
    )
)
def test_builder_takes_payloads_as_deep_as_the_decoder_lets_through(
    events: list[tuple[str, object, int]],
) -> None:
    builder = SnapshotBuilder()
    for kind, value, depth in events:
        nested: object = value
        for _ in range(depth):
            nested = [nested]
        data = {
            "type": kind,
            "item": nested,
            "delta": nested,
            "response": nested,
            "message": nested,
        }
        builder.feed(StreamEvent(kind, data))
    json.dumps(builder.finish().model_dump(mode="json"))


def test_environment_secrets_are_registered_by_name_and_shape() -> None:
    from forge_cli.redact import register_environment_secrets

    environ = {
        "ACME_API_KEY": "acme-0123456789",
        "SERVICE_TOKEN": "tok_9f8e7d6c5b",
        "FEATURE_KEY": "enabled",  # a word, not a key
        "PATH": "/usr/bin:/bin0123456789",  # not named like a secret
    }
    try:
        register_environment_secrets(environ)
        out = redact("acme-0123456789 tok_9f8e7d6c5b enabled /usr/bin:/bin0123456789")
        assert out == "*** *** enabled /usr/bin:/bin0123456789"
    finally:
        clear_secrets()
