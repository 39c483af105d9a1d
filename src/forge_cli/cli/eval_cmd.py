"""``forge eval DATASET``: run a dataset of questions and score the answers (gates CI).

Thin: resolve settings exactly as ``forge ask`` does, build the same backend and responder,
hand them to :class:`forge_cli.evaluation.Evaluator`, then print the report. Imports of the
evaluation and render packages happen inside the command so ``forge --help`` stays light.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from forge_cli.cli.build import build_backend, build_mcp, build_responder, default_model, warn
from forge_cli.cli.options import settings_from_options, shared_options
from forge_cli.config import Settings
from forge_cli.errors import Interrupted, UsageError

if TYPE_CHECKING:
    from forge_cli.backends.base import Backend
    from forge_cli.evaluation import Dataset, EvalReport, Evaluator, JsonlResultWriter
    from forge_cli.mcp.manager import McpManager

__all__ = ["EVAL_EPILOG", "eval_command"]

EVAL_EPILOG = """\b
DATASET is JSONL (one question per line) or JSON:
  {"id": "q1", "question": "...", "expected_files": ["guide.md"],
   "expected_answer_contains": ["..."], "vector_store_ids": ["vs_1"],
   "tools": ["file-search"], "expected_tools": ["file_search",
   {"name": "lookup_order", "arguments": {"order_id": 4711}}],
   "tools_in_order": false, "expected_answer": "...",
   "weights": {"answer": 2, "citations": 1, "tools": 1}}
The Knowledge Forge shape {"vectorstore_id", "files": [{file_id, path, questions}]}
is accepted too. Bad entries are reported with their line number and skipped.

\b
Exit codes:
  0    the pass rate reached --min-pass
  1    the pass rate is below --min-pass
  2    usage error (bad option, unreadable or empty dataset)
  130  interrupted (Ctrl+C); --output keeps every finished result
"""


def _inline(text: str) -> str:
    from forge_cli.sanitize import sanitize_inline

    return sanitize_inline(text)


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _defaults(settings: Settings) -> Any:
    from forge_cli.evaluation import RequestDefaults

    return RequestDefaults(
        model=default_model(settings),
        instructions=settings.instructions,
        effort=settings.effort,
        tools=tuple(settings.tools),
        vector_stores=tuple(settings.vector_stores),
    )


async def _run(
    evaluator: Evaluator,
    backend: Backend,
    data: Dataset,
    min_pass: float,
    mcp: McpManager | None = None,
) -> EvalReport:
    try:
        return await evaluator.run(data.cases, skipped=len(data.problems), min_pass=min_pass)
    finally:
        if mcp is not None:
            await mcp.aclose()
        await backend.aclose()


def _print(report: EvalReport, data: Dataset, as_json: bool) -> None:
    if as_json:
        from forge_cli.evaluation import report_document
        from forge_cli.sanitize import json_dumps_safe

        document = report_document(report, dataset=data.source, problems=data.problems)
        from forge_cli.redact import redact

        click.echo(redact(json_dumps_safe(document, indent=2)))
    else:
        from forge_cli.render.eval_report import print_eval_report

        print_eval_report(sys.stdout, report.results, report.summary)


def _evaluate(
    settings: Settings,
    data: Dataset,
    *,
    concurrency: int,
    min_pass: float,
    writer: JsonlResultWriter | None,
    judge_model: str | None = None,
    judge_threshold: float = 0.5,
    mcp_values: tuple[str, ...] = (),
) -> tuple[EvalReport, bool]:
    """Run the dataset; returns the report and whether the run was interrupted."""
    from dataclasses import replace

    from forge_cli.evaluation import CaseResult, Evaluator, Judge
    from forge_cli.render.eval_report import EvalProgress

    defaults = _defaults(settings)
    backend = build_backend(settings)
    mcp = build_mcp(mcp_values)
    # MCP calls stay SERVER__TOOL function calls here: expected_tools scores them by that name.
    responder = build_responder(settings, backend, interactive=False, mcp=mcp, present_mcp=False)
    judge = None
    if judge_model is not None:
        plain = replace(settings, functions=(), tools=(), vector_stores=())
        judge = Judge(
            build_responder(plain, backend, interactive=False),
            judge_model,
            threshold=judge_threshold,
        )
    with EvalProgress(sys.stderr, len(data.cases)) as progress:

        def on_result(result: CaseResult) -> None:
            if writer is not None:
                writer.write_result(result)
            progress.advance(result)

        evaluator = Evaluator(
            lambda case: responder,
            defaults=defaults,
            concurrency=concurrency,
            on_result=on_result,
            judge=judge,
        )
        try:
            return asyncio.run(_run(evaluator, backend, data, min_pass, mcp)), False
        except KeyboardInterrupt:
            report = evaluator.report(
                planned=len(data.cases), skipped=len(data.problems), min_pass=min_pass
            )
            return report, True


@click.command("eval", epilog=EVAL_EPILOG)
@shared_options
@click.argument("dataset", type=click.Path(dir_okay=False))
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Questions asked at the same time.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document at the end.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Write JSONL results to FILE as they arrive (a summary line at the end).",
)
@click.option(
    "--min-pass",
    type=click.FloatRange(0.0, 1.0),
    default=1.0,
    show_default=True,
    help="Pass rate (0..1) needed for exit code 0.",
)
@click.option(
    "--judge-model",
    metavar="MODEL",
    help="Grade each answer with this model (same backend, no tools) against the question's "
    "expected_answer; adds a judge check and counts in the reward.",
)
@click.option(
    "--judge-threshold",
    type=click.FloatRange(0.0, 1.0),
    default=0.5,
    show_default=True,
    help="Judge score (0..1) a question needs to pass its judge check.",
)
def eval_command(
    dataset: str,
    concurrency: int,
    as_json: bool,
    output: str | None,
    min_pass: float,
    judge_model: str | None,
    judge_threshold: float,
    **options: Any,
) -> int:
    """Ask every question of DATASET and score the answers: cited files, expected text, tool
    use, and a graded reward (optionally with a judge model)."""
    from forge_cli.evaluation import JsonlResultWriter, load_dataset

    settings = settings_from_options(options)
    data = load_dataset(dataset)
    for problem in data.problems:
        warn(f"skipped {problem.one_line(dataset)}")
    if output and _same_file(output, dataset):
        raise UsageError("--output must not be the dataset file itself")
    writer = JsonlResultWriter(output) if output else None
    try:
        report, interrupted = _evaluate(
            settings,
            data,
            concurrency=concurrency,
            min_pass=min_pass,
            writer=writer,
            judge_model=judge_model,
            judge_threshold=judge_threshold,
            mcp_values=tuple(options.get("mcp") or ()),
        )
        if writer is not None and not interrupted:
            writer.write_summary(report.summary)
    finally:
        if writer is not None:
            writer.close()
    _print(report, data, as_json)
    summary = report.summary
    if interrupted:
        kept = f"; finished results are in {_inline(output)}" if output else ""
        raise Interrupted(
            f"interrupted after {summary.completed} of {summary.planned} questions{kept}"
        )
    if not summary.gate_passed:
        click.echo(
            f"forge: pass rate {summary.pass_rate:.1%} is below --min-pass {min_pass:.1%}",
            err=True,
        )
        return 1
    return 0
