"""Inspect AI: Object Aligner as a scorer.

:func:`oa_scorer` is an Inspect AI scorer: it reads the JSON of the model's completion
(``state.output.completion``, raw text: code fences and prose around one JSON value are
stripped) and of the sample's target (``target.text``), and gives a :class:`Score`
whose value is the OA score, whose explanation is the ranked feedback (within the
feedback budget) and whose metadata holds the per-field sub-scores. Its metrics are the
mean and its standard error.

Examples
--------
::

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate

    task = Task(dataset=[Sample(input="...", target='{"city": "Paris"}')],
                solver=generate(), scorer=oa_scorer(schema, objectives="properties"))
    eval(task, model="mockllm/model")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..extras import require
from ..schema import Schema
from .judge import DEFAULT_MAX_CHARS, Judge

require("inspect", "inspect_ai")

from inspect_ai.scorer import (  # noqa: E402  (after the check that it is installed)
    Score,
    Scorer,
    Target,
    mean,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState  # noqa: E402

__all__ = ["oa_scorer"]


@scorer(metrics=[mean(), stderr()], name="object_aligner")
def oa_scorer(schema: Schema | Mapping[str, Any] | str, top_k: int = 5,
              max_chars: int | None = DEFAULT_MAX_CHARS,
              objectives: str | Sequence[str] | None = None, **options: Any) -> Scorer:
    """An Inspect AI scorer comparing the completion's JSON with the target's.

    Parameters
    ----------
    schema, top_k, max_chars, objectives, **options
        As for :class:`~oa_core.adapters.judge.Judge`.

    Returns
    -------
    Scorer
        Scores ``value`` (the OA score), ``answer`` (the completion),
        ``explanation`` (the feedback) and ``metadata`` (``subscores``,
        ``has_json``). A completion without JSON scores 0; a target without JSON
        is an error of the sample.
    """
    judge = Judge(schema, top_k=top_k, max_chars=max_chars, objectives=objectives,
                  field="completion", gold_field="target", **options)

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        verdict = judge.judge(target.text, completion)
        return Score(value=verdict.score, answer=completion, explanation=verdict.feedback,
                     metadata={"subscores": verdict.subscores, "has_json": verdict.has_json})

    return score
