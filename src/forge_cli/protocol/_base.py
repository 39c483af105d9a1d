"""Base model and small shared helpers for the wire protocol."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """Base of every protocol value.

    ``extra="allow"`` keeps fields a server sends that we do not model (they round-trip on dump),
    so a newer server never loses information on its way through the client.
    """

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, serialize_by_alias=True, validate_default=False
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
