"""LangSmith / openevals: Object Aligner as an evaluator.

:func:`oa_evaluator` builds an evaluator with the signature and result shape of
openevals' evaluators, which LangSmith's ``evaluate`` (and its pytest integration)
runs as they are: called as ``evaluator(inputs=..., outputs=...,
reference_outputs=...)``, it returns ``{"key": ..., "score": ..., "comment": ...,
"metadata": ...}`` with the OA score and the ranked feedback as the comment; with
objectives, a list holding that result then one per objective, keyed
``"<key><pointer>"``. It imports neither package: the ``[langsmith]`` extra installs
LangSmith and openevals to run it in.

The JSON is the whole ``outputs`` / ``reference_outputs`` (LangSmith's run and example
outputs), or one field of each with ``field=`` / ``reference_field=``. Text is raw
model output (code fences and prose around one JSON value are stripped).

Examples
--------
>>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
>>> evaluator = oa_evaluator(schema, field="answer")
>>> result = evaluator(inputs={"q": "capital?"}, outputs={"answer": '{"city": "Paris"}'},
...                    reference_outputs={"answer": {"city": "Paris"}})
>>> result["key"], result["score"], result["comment"]
('object_aligner', 1.0, 'The prediction scored 1.00: it matches the gold; nothing to fix.')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..schema import Schema
from .judge import DEFAULT_MAX_CHARS, Judge, read_field

__all__ = ["oa_evaluator"]


def oa_evaluator(schema: Schema | Mapping[str, Any] | str, *, key: str = "object_aligner",
                 field: str | None = None, reference_field: str | None = None,
                 top_k: int = 5, max_chars: int | None = DEFAULT_MAX_CHARS,
                 objectives: str | Sequence[str] | None = None,
                 **options: Any) -> Callable[..., Any]:
    """A LangSmith / openevals evaluator scoring the outputs' JSON with Object Aligner.

    Parameters
    ----------
    schema, top_k, max_chars, objectives, **options
        As for :class:`~oa_core.adapters.judge.Judge`.
    key : str
        The feedback key (default ``"object_aligner"``).
    field : str, optional
        The field of ``outputs`` holding the JSON (default: ``outputs`` itself).
    reference_field : str, optional
        The field of ``reference_outputs`` holding the gold (default: ``field``).

    Returns
    -------
    callable
        ``evaluator(*, inputs=None, outputs, reference_outputs=None, **kwargs)``
        returning an openevals ``EvaluatorResult`` dict (a list of them with
        objectives). Without ``reference_outputs`` it raises
        :class:`~oa_core.errors.InputError`: the metric needs a gold.
    """
    gold_field = reference_field or field
    judge = Judge(schema, top_k=top_k, max_chars=max_chars, objectives=objectives,
                  field=field or "outputs", gold_field=gold_field or "reference_outputs",
                  **options)

    def evaluator(*, inputs: Any = None, outputs: Any, reference_outputs: Any = None,
                  **kwargs: Any) -> dict[str, Any] | list[dict[str, Any]]:
        output = outputs if field is None else read_field(outputs, field)
        gold = reference_outputs if gold_field is None else read_field(reference_outputs,
                                                                      gold_field)
        if reference_outputs is None:
            from ..errors import InputError

            raise InputError("", "the example has no reference outputs to compare with",
                             fix="give the dataset's examples reference outputs (the gold "
                                 "JSON)", document="gold")
        verdict = judge.judge(gold, output)
        result = {"key": key, "score": verdict.score, "comment": verdict.feedback,
                  "metadata": {"has_json": verdict.has_json}}
        if not judge.objectives:
            return result
        return [result] + [{"key": key + pointer, "score": value, "comment": None,
                            "metadata": None} for pointer, value in verdict.subscores.items()]

    evaluator.__name__ = key
    return evaluator
