"""Base model and small shared helpers for the wire protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from forge_cli.protocol._defaults import empty_list

if TYPE_CHECKING:
    from pydantic.json_schema import JsonSchemaValue

__all__ = ["BUILT_ON_USE", "WireModel", "empty_list", "evolve", "type_tag"]


class WireModel(BaseModel):
    """Base of every protocol value.

    ``extra="allow"`` keeps fields a server sends that we do not model (they round-trip on dump),
    so a newer server never loses information on its way through the client. ``defer_build``
    postpones building each validator to its first use, which keeps ``forge`` start-up fast.
    """

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        serialize_by_alias=True,
        validate_default=False,
        defer_build=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict a server would send or accept (aliases, no ``None`` fields)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def type_tag(known: frozenset[str], fallback: str) -> Any:
    """A callable discriminator: the ``type`` value if known, else ``fallback``.

    Used so that an unknown ``type`` validates into the Unknown model instead of failing. An
    Unknown model instance (``is_unknown_kind``) always maps to ``fallback``, even when its
    ``type`` is a known name whose fields did not validate.
    """

    def _tag(value: Any) -> str:
        if getattr(value, "is_unknown_kind", False):
            return fallback
        raw = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
        return raw if isinstance(raw, str) and raw in known else fallback

    return _tag


class _BuiltOnUse:
    """Marker for a member of a tagged union: ``Annotated[Message, BUILT_ON_USE, Tag("message")]``.

    Building a union's validator normally builds every member's schema into it, so the first
    output item of a stream built all fifteen item models (and the annotation and tool unions
    they hold) before a text answer could use one. A member marked with this validates by its
    own model validator instead, built on its first use (``defer_build``), so a text answer
    builds only ``Message`` and ``OutputText``. Everything else is pydantic's own: the union's
    discriminator picks the member, a model instance passes through as it would (no
    revalidation), a :class:`~pydantic.ValidationError` of the member keeps its locations under
    the union's tag, and dumping a member delegates to its model's serializer with the same
    options (byte-identical output; docs/adr/0024-union-members-built-on-use.md).
    """

    def __get_pydantic_core_schema__(
        self, source: type[BaseModel], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def validate(value: Any) -> Any:
            # A deferred model's validator is a placeholder that builds it on first access.
            return source.__pydantic_validator__.validate_python(value)

        return core_schema.no_info_plain_validator_function(
            validate, metadata={_MEMBER_KEY: source}
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        model: type[BaseModel] = schema["metadata"][_MEMBER_KEY]
        return handler(model.__pydantic_core_schema__)


_MEMBER_KEY = "forge_union_member"

BUILT_ON_USE = _BuiltOnUse()
"""See :class:`_BuiltOnUse`."""


_M = TypeVar("_M", bound=BaseModel)


def evolve(model: _M, **update: Any) -> _M:
    """A shallow copy of ``model`` with declared fields replaced, without validation.

    The hot path of the SnapshotBuilder (one call per text delta); equivalent to
    ``model.model_copy(update=...)`` for declared fields, at a fraction of the cost. Extras and
    private attributes are carried over (the private dict is copied, extras are shared: neither is
    mutated after a snapshot is handed out).

    Kept beside ``model_copy`` by measurement (issue 28, pydantic 2.14.4): ``model_copy`` costs
    ~1.2-1.6x this per call and folding a 20k-chunk chat stream ~1.35x the CPU per chunk
    (benchmarks/bench_chat_stream.py ``--fold``). It sets only the instance attributes pydantic's
    ``BaseModel`` API reference documents (``__dict__``, ``__pydantic_fields_set__``,
    ``__pydantic_extra__``, ``__pydantic_private__``); ``tests/protocol/test_evolve.py`` fails
    if a pydantic release adds per-instance state or copies differently.
    """
    cls = model.__class__
    new = cls.__new__(cls)
    fields = model.__dict__.copy()
    fields.update(update)
    _set(new, "__dict__", fields)
    _set(new, "__pydantic_fields_set__", model.__pydantic_fields_set__.union(update))
    _set(new, "__pydantic_extra__", model.__pydantic_extra__)
    private = model.__pydantic_private__
    _set(new, "__pydantic_private__", private.copy() if private else private)
    return new


_set = object.__setattr__
