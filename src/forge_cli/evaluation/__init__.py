"""``forge eval``: run a dataset of questions through a backend and score the answers.

Read a dataset (:func:`load_dataset`), run it with an :class:`Evaluator` given a responder
factory (the CLI's, answering exactly as ``forge ask`` does, or a scripted one in tests), then
report: :class:`EvalReport` (results in dataset order and an :class:`EvalSummary`), the JSONL
file (:class:`JsonlResultWriter`) and the ``--json`` document (:func:`report_document`).
This package imports neither rich, click nor prompt_toolkit; the progress bar and tables live
in :mod:`forge_cli.render.eval_report`.
"""

from __future__ import annotations

from forge_cli.evaluation.cases import EvalCase, ExpectedFile, ExpectedTool
from forge_cli.evaluation.dataset import Dataset, DatasetProblem, load_dataset, parse_dataset
from forge_cli.evaluation.judge import Judge, parse_verdict
from forge_cli.evaluation.output import SCHEMA_ID, JsonlResultWriter, report_document
from forge_cli.evaluation.requests import RequestDefaults, build_case_request
from forge_cli.evaluation.results import (
    CaseResult,
    CheckResult,
    CitedFile,
    JudgeVerdict,
    TokenUsage,
    ToolCallRecord,
)
from forge_cli.evaluation.runner import (
    MAX_CONCURRENCY,
    Clock,
    EvalReport,
    Evaluator,
    Responder,
    ResponderFactory,
    ResultSink,
)
from forge_cli.evaluation.scoring import answer_contains, file_matches, score_case
from forge_cli.evaluation.summary import EvalSummary, percentile, summarize

__all__ = [
    "MAX_CONCURRENCY",
    "SCHEMA_ID",
    "CaseResult",
    "CheckResult",
    "CitedFile",
    "Clock",
    "Dataset",
    "DatasetProblem",
    "EvalCase",
    "EvalReport",
    "EvalSummary",
    "Evaluator",
    "ExpectedFile",
    "ExpectedTool",
    "JsonlResultWriter",
    "Judge",
    "JudgeVerdict",
    "RequestDefaults",
    "Responder",
    "ResponderFactory",
    "ResultSink",
    "TokenUsage",
    "ToolCallRecord",
    "answer_contains",
    "build_case_request",
    "file_matches",
    "load_dataset",
    "parse_dataset",
    "parse_verdict",
    "percentile",
    "report_document",
    "score_case",
    "summarize",
]
