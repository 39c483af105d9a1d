"""A judge model grades free-form answers (``forge eval --judge-model MODEL``).

The judge is asked through the same backend as the questions, with no tools, to compare the
answer with the question's reference answer (``expected_answer``) or, without one, to grade it
on correctness and helpfulness. It replies with ``SCORE: n`` (0-10) and a reason; the score is
scaled to [0, 1]. A judge that fails or replies without a score gives a verdict with ``error``
set, and the question's ``judge`` check fails: a broken judge never passes answers silently.
"""

from __future__ import annotations

import re

from forge_cli.agent.turn import Responder, run_turn
from forge_cli.evaluation.cases import EvalCase
from forge_cli.evaluation.results import JudgeVerdict
from forge_cli.protocol.request import Request

__all__ = ["JUDGE_INSTRUCTIONS", "Judge", "parse_verdict"]

JUDGE_INSTRUCTIONS = (
    "You grade answers to questions. Compare the candidate answer with the reference answer "
    "when one is given; otherwise judge whether the candidate answers the question correctly "
    "and helpfully. Reply with exactly two lines: 'SCORE: n' where n is an integer from 0 "
    "(wrong or no answer) to 10 (fully correct and complete), then 'REASON: ' and one sentence."
)

_SCORE = re.compile(r"score\s*[:=]\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+))?", re.IGNORECASE)
_REASON = re.compile(r"reason\s*[:=]\s*(.+)", re.IGNORECASE)

JudgeResponder = Responder
"""What asks the judge: a responder like any other (the same turn runner reads it)."""


def parse_verdict(model: str, text: str) -> JudgeVerdict:
    """The verdict in a judge's reply (an ``error`` verdict when it has no usable score)."""
    found = _SCORE.search(text)
    reason_match = _REASON.search(text)
    reason = " ".join((reason_match.group(1) if reason_match else "").split())[:500]
    if found is None:
        return JudgeVerdict(model, None, reason, error="the judge's reply has no SCORE line")
    scale = float(found.group(2)) if found.group(2) else 10.0
    value = float(found.group(1))
    if scale <= 0 or not 0 <= value <= scale:
        return JudgeVerdict(model, None, reason, error=f"the judge's score {value:g} is not 0-10")
    return JudgeVerdict(model, value / scale, reason)


class Judge:
    """Grades one answer with ``model`` through ``responder`` (which must not offer tools)."""

    def __init__(self, responder: JudgeResponder, model: str, *, threshold: float = 0.5) -> None:
        self.responder = responder
        self.model = model
        self.threshold = threshold

    def request(self, case: EvalCase, answer: str) -> Request:
        """The grading request for ``answer`` to ``case``."""
        reference = case.expected_answer or "(none given)"
        prompt = (
            f"Question:\n{case.question}\n\nReference answer:\n{reference}\n\n"
            f"Candidate answer:\n{answer or '(empty)'}"
        )
        return Request(model=self.model, input=prompt, instructions=JUDGE_INSTRUCTIONS)

    async def __call__(self, case: EvalCase, answer: str) -> JudgeVerdict:
        """The verdict on ``answer`` (errors become an ``error`` verdict, never raise)."""
        try:
            outcome = await run_turn(self.responder, self.request(case, answer))
        except Exception as exc:  # the judge's failure is recorded on the question
            return self._failed(exc)
        if outcome.error is not None:
            return self._failed(outcome.error)
        last = outcome.response
        return parse_verdict(self.model, last.output_text if last is not None else "")

    def _failed(self, exc: Exception) -> JudgeVerdict:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return JudgeVerdict(self.model, None, error=f"judge failed: {text}"[:500])
