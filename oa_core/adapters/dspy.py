"""DSPy / GEPA: Object Aligner as a feedback metric.

:func:`dspy_metric` builds a callable with the metric signature of DSPy's GEPA
optimizer, ``(gold, pred, trace=None, pred_name=None, pred_trace=None)``, that
returns the OA score together with the deterministic, ranked feedback text of
:func:`oa_core.feedback` -- what GEPA's reflection step reads. With DSPy installed
the result is a ``dspy.Prediction(score=..., feedback=...)``; without it, a
:class:`MetricResult` with the same attributes.

The JSON is read from one field of the gold example and of the prediction (an
attribute or a mapping key); see :class:`~oa_core.adapters.judge.Judge` for how it is
read, scored and kept short (``top_k`` ops, ``max_chars`` characters).

**Per-field objectives.** With ``objectives="properties"`` (the schema's top-level
properties) or a list of JSON Pointers, the result also carries
``objective_scores={pointer: sub-score}``, which GEPA tracks per objective
(``val_aggregate_subscores``, ``objective_pareto_front``) in the DSPy versions whose
``ScoreWithFeedback`` declares ``objective_scores`` (3.4.1 does). An older DSPy gets the
score and feedback only, with a warning when the metric is built.

Examples
--------
>>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
>>> metric = dspy_metric(schema, field="answer")
>>> result = metric({"answer": '{"city": "Paris"}'}, {"answer": 'Sure: {"city": "Paris"}'})
>>> result.score
1.0
>>> result = metric({"answer": {"city": "Paris"}}, {"answer": "I do not know."})
>>> result.score
0.0
>>> print(result.feedback)  # doctest: +NORMALIZE_WHITESPACE
The prediction scored 0.00: the 'answer' output is not JSON: the model output
holds no JSON value (invalid JSON at line 1, column 1: Expecting value). Fix: make the
model answer with one JSON object or array.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..schema import Schema
from .judge import DEFAULT_MAX_CHARS, Judge, read_field

__all__ = ["MetricResult", "OAMetric", "accepts_objective_scores", "dspy_metric"]


@dataclass(frozen=True, slots=True)
class MetricResult:
    """Score and feedback, returned when DSPy is not installed.

    Attributes
    ----------
    score : float
        The OA score in [0, 1].
    feedback : str
        The ranked repair feedback (or why the output could not be scored).
    objective_scores : dict
        ``{pointer: sub-score}`` of the metric's objectives (empty without them).
    """

    score: float
    feedback: str
    objective_scores: dict[str, float] = field(default_factory=dict)

    def __float__(self) -> float:
        return self.score


class OAMetric(Judge):
    """A GEPA-compatible metric scoring one JSON field with Object Aligner.

    Build it with :func:`dspy_metric`; the parameters not listed here are those of
    :class:`~oa_core.adapters.judge.Judge`.

    Parameters
    ----------
    field : str
        The prediction's field that holds the JSON output.
    gold_field : str
        The gold example's field that holds the gold JSON.
    make_result : callable
        ``make_result(score=..., feedback=...[, objective_scores=...])`` builds the
        returned object.
    with_objectives : bool
        Whether results carry ``objective_scores``.
    """

    def __init__(self, schema: Schema | Mapping[str, Any] | str, *, field: str,
                 gold_field: str, make_result: Callable[..., Any], with_objectives: bool,
                 **options: Any) -> None:
        super().__init__(schema, field=field, gold_field=gold_field, **options)
        self.make_result = make_result
        self.with_objectives = with_objectives

    def __call__(self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
                 pred_trace: Any = None) -> Any:
        """Score ``pred`` against ``gold``; GEPA's metric signature.

        ``trace``, ``pred_name`` and ``pred_trace`` are accepted for GEPA and do
        not change the result: the score and the feedback are about the program's
        output, so every predictor receives the same feedback.

        Raises
        ------
        InputError
            When the gold has no usable JSON in its field, or violates the schema.
        """
        verdict = self.judge(read_field(gold, self.gold_field), read_field(pred, self.field))
        if self.with_objectives:
            return self.make_result(score=verdict.score, feedback=verdict.feedback,
                                    objective_scores=verdict.subscores)
        return self.make_result(score=verdict.score, feedback=verdict.feedback)


def accepts_objective_scores() -> bool:
    """Whether the installed DSPy's GEPA reads ``objective_scores`` from a metric's
    result (its ``ScoreWithFeedback`` declares them); False without DSPy."""
    if importlib.util.find_spec("dspy") is None:
        return False
    try:
        utils = importlib.import_module("dspy.teleprompt.gepa.gepa_utils")
    except ImportError:  # a DSPy without GEPA
        return False
    return "objective_scores" in getattr(utils.ScoreWithFeedback, "__annotations__", {})


def _result_factory() -> Callable[..., Any]:
    if importlib.util.find_spec("dspy") is None:
        return MetricResult
    return importlib.import_module("dspy").Prediction


def dspy_metric(schema: Schema | Mapping[str, Any] | str, *, field: str = "answer",
                gold_field: str | None = None, top_k: int = 5,
                max_chars: int | None = DEFAULT_MAX_CHARS,
                objectives: str | Sequence[str] | None = None, **options: Any) -> OAMetric:
    """An Object Aligner metric for DSPy optimizers (GEPA's feedback signature).

    Parameters
    ----------
    schema : Schema, dict or str
        The OA schema; parsed once.
    field : str
        Name of the prediction's output field that holds the JSON (default
        ``"answer"``); read as an attribute or a mapping key. Strings are parsed
        with :func:`~oa_core.jsonio.extract_json`; a pydantic model is dumped.
    gold_field : str, optional
        Name of the gold example's field (default: ``field``).
    top_k : int
        Repair operations named in the feedback (default 5).
    max_chars : int or None
        Characters of feedback at most (default 2000); None for no limit.
    objectives : "properties", list of str, or None
        Fields whose sub-scores go to GEPA as ``objective_scores`` (see the module
        notes).
    **options
        ``options`` (an :class:`~oa_core.AlignOptions`) and/or its fields as
        keywords: ``wl_mode``, ``wl_blend_lambda``, ``strict``, ``limits`` (see
        :func:`oa_core.align`); ``min_delta``, ``style``, ``templates`` (a mapping
        or a TOML/JSON file path), ``describe_refs``, ``values`` (see
        :func:`oa_core.render_feedback`); ``comparators`` (custom comparators, see
        :meth:`oa_core.Schema.parse`).

    Returns
    -------
    OAMetric
        ``metric(gold, pred, trace=None, pred_name=None, pred_trace=None)``
        returning ``dspy.Prediction(score=..., feedback=...)`` when DSPy is
        installed and a :class:`MetricResult` otherwise. A prediction without
        JSON scores 0 with feedback saying why and where.

    Raises
    ------
    TypeError
        For an unknown option.
    SchemaError, InputError
        For a bad schema, option value, objective, comparators or templates.

    Examples
    --------
    Use it as the metric of ``dspy.GEPA``::

        metric = dspy_metric(schema, field="graph", objectives="properties")
        optimizer = dspy.GEPA(metric=metric, auto="light", reflection_lm=lm)
    """
    make_result = _result_factory()
    with_objectives = objectives is not None
    if with_objectives and make_result is not MetricResult and not accepts_objective_scores():
        warnings.warn("this DSPy's GEPA does not read objective_scores: the metric returns "
                      "the score and feedback only (upgrade DSPy for per-field objectives)",
                      stacklevel=2)
        with_objectives = False
    return OAMetric(schema, field=field, gold_field=gold_field or field, top_k=top_k,
                    max_chars=max_chars, objectives=objectives, make_result=make_result,
                    with_objectives=with_objectives, **options)
