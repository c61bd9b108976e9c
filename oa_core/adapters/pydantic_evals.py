"""pydantic-evals: Object Aligner as an ``Evaluator``.

:class:`ObjectAligner` compares a case's output with its ``expected_output`` (JSON
data, a pydantic model, or text holding one JSON value) and reports the OA score under
its name, with the ranked feedback as the reason, and each objective's sub-score under
``"<name><pointer>"`` (``object_aligner/city``). A case without ``expected_output``
gets no score from it (as pydantic-evals' ``EqualsExpected`` does).

Examples
--------
::

    from pydantic_evals import Case, Dataset

    dataset = Dataset(cases=[Case(inputs="Paris", expected_output={"city": "Paris"})],
                      evaluators=[ObjectAligner(schema, objectives="properties")])
    report = dataset.evaluate_sync(lambda text: {"city": text})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..extras import require
from .judge import DEFAULT_MAX_CHARS, Judge

require("pydantic-evals", "pydantic_evals")

from pydantic_evals.evaluators import (  # noqa: E402  (after the check that it is installed)
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    EvaluatorOutput,
)

__all__ = ["ObjectAligner"]


@dataclass(repr=False)
class ObjectAligner(Evaluator[Any, Any, Any]):
    """The OA score of a case's output against its expected output.

    Parameters
    ----------
    schema : dict or str
        The OA schema (a dict, JSON text or a file path: serialisable, as
        pydantic-evals' dataset files want their evaluators' arguments).
    top_k, max_chars, objectives
        As for :class:`~oa_core.adapters.judge.Judge`.
    name : str
        The name of the score in the report (default ``"object_aligner"``).
    options : dict
        Any other option of :class:`~oa_core.adapters.judge.Judge`.
    """

    schema: Any
    top_k: int = 5
    max_chars: int | None = DEFAULT_MAX_CHARS
    objectives: str | Sequence[str] | None = None
    name: str = "object_aligner"
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._judge = Judge(self.schema, top_k=self.top_k, max_chars=self.max_chars,
                            objectives=self.objectives, field="output",
                            gold_field="expected_output", **self.options)

    def get_default_evaluation_name(self) -> str:
        return self.name

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluatorOutput:
        """The score (with the feedback as its reason) and the sub-scores."""
        if ctx.expected_output is None:
            return {}
        verdict = self._judge.judge(ctx.expected_output, ctx.output)
        results: dict[str, Any] = {
            self.name: EvaluationReason(value=verdict.score, reason=verdict.feedback)}
        results.update((self.name + pointer, value)
                       for pointer, value in verdict.subscores.items())
        return results
