"""One evaluation question and what a good answer must show.

A case is plain data read from a dataset file; it knows nothing about backends. ``index`` is its
position in the dataset, so reports keep dataset order whatever order answers arrive in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["COMPONENTS", "EvalCase", "ExpectedFile", "ExpectedTool"]

COMPONENTS = ("answer", "citations", "tools")
"""The parts of a question's reward, each weighted by the dataset (1 by default)."""


@dataclass(frozen=True, slots=True)
class ExpectedFile:
    """A file the answer should cite, named by one or more references (file id, file name or
    path); a citation matches when it matches any of them."""

    refs: tuple[str, ...]

    @property
    def label(self) -> str:
        """The references for reports, ``a | b`` when there are several."""
        return " | ".join(self.refs)


@dataclass(frozen=True, slots=True)
class ExpectedTool:
    """A tool the answer should have called: a function name, a hosted kind (``file_search``,
    ``web-search``, ...), and optionally a subset of the arguments it should have been given."""

    name: str
    arguments: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        """``name`` or ``name(key=value, ...)`` for reports."""
        if not self.arguments:
            return self.name
        args = ", ".join(f"{key}={value!r}" for key, value in self.arguments.items())
        return f"{self.name}({args})"

    def to_json(self) -> Any:
        """The dataset shape: a name, or ``{name, arguments}``."""
        if self.arguments is None:
            return self.name
        return {"name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class EvalCase:
    """A question with its expectations.

    - ``expected_files``: file ids or file names; the answer should cite at least one of them.
    - ``expected_answer_contains``: texts the answer must contain (case-insensitive).
    - ``expected_tools``: tools the answer should have called (each by a call that completed);
      ``tools_in_order``: in that order.
    - ``expected_answer``: a reference answer for the judge model (``forge eval --judge-model``).
    - ``weights``: the weight of each reward component (``answer``, ``citations``, ``tools``).
    - ``vector_store_ids`` / ``tools``: per-question overrides of the run's settings
      (``None``: use the run's settings).
    - ``line``: where the case came from in the dataset file (for messages).
    """

    index: int
    id: str
    question: str
    expected_files: tuple[ExpectedFile, ...] = ()
    expected_answer_contains: tuple[str, ...] = ()
    expected_tools: tuple[ExpectedTool, ...] = ()
    tools_in_order: bool = False
    expected_answer: str | None = None
    weights: dict[str, float] | None = None
    vector_store_ids: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None
    line: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The case as plain data (the dataset shape, plus ``index``)."""
        data: dict[str, Any] = {"index": self.index, "id": self.id, "question": self.question}
        if self.expected_files:
            data["expected_files"] = [f.label for f in self.expected_files]
        if self.expected_answer_contains:
            data["expected_answer_contains"] = list(self.expected_answer_contains)
        if self.expected_tools:
            data["expected_tools"] = [t.to_json() for t in self.expected_tools]
        if self.tools_in_order:
            data["tools_in_order"] = True
        if self.expected_answer is not None:
            data["expected_answer"] = self.expected_answer
        if self.weights is not None:
            data["weights"] = dict(self.weights)
        if self.vector_store_ids is not None:
            data["vector_store_ids"] = list(self.vector_store_ids)
        if self.tools is not None:
            data["tools"] = list(self.tools)
        return data
