"""Optimizer integrations: Object Aligner as a DSPy / GEPA feedback metric.

:func:`dspy_metric` builds a callable with the metric signature of DSPy's GEPA
optimizer, ``(gold, pred, trace=None, pred_name=None, pred_trace=None)``, that
returns the OA score together with the deterministic, ranked feedback text of
:func:`oa_core.feedback` -- what GEPA's reflection step reads. With DSPy installed
the result is a ``dspy.Prediction(score=..., feedback=...)``; without it, a
:class:`MetricResult` with the same two attributes.

The JSON is read from one field of the gold example and of the prediction (an
attribute or a mapping key). Strings are raw model text and go through
:func:`oa_core.jsonio.extract_json` (code fences and prose around one JSON value
are stripped). A prediction that holds no JSON scores 0, and its feedback says
why and where; a gold that holds no JSON is a programming error and raises
:class:`~oa_core.errors.InputError`.

A metric scores many candidates against the same golds, so it keeps each gold
prepared (:func:`oa_core.prepare_gold`: checked, copied and indexed once) for the
:data:`PREPARED_GOLDS` golds it used last, keyed by the gold's text, or by a type-exact
serialisation of its data (``1``, ``1.0`` and ``true`` are three golds). The results
are the same bits as without it; the cache is shared safely by threads.

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
import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .aligner import PreparedGold, align, prepare_gold
from .errors import InputError, OAError
from .feedback import load_templates, render_feedback
from .jsonio import extract_json
from .options import AlignOptions
from .schema import Schema

__all__ = ["PREPARED_GOLDS", "MetricResult", "OAMetric", "dspy_metric"]

_FEEDBACK_OPTIONS = frozenset({"min_delta", "style", "templates", "describe_refs"})
_MISSING = object()

# Golds an OAMetric keeps prepared, the least recently used dropped first (a GEPA
# run cycles through its train and validation golds, scoring many candidates each).
PREPARED_GOLDS = 256


@dataclass(frozen=True, slots=True)
class MetricResult:
    """Score and feedback, returned when DSPy is not installed.

    Attributes
    ----------
    score : float
        The OA score in [0, 1].
    feedback : str
        The ranked repair feedback (or why the output could not be scored).
    """

    score: float
    feedback: str

    def __float__(self) -> float:
        return self.score


class _NoJSON(Exception):
    """The prediction's field holds no usable JSON; ``text`` says why and where."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class OAMetric:
    """A GEPA-compatible metric scoring one JSON field with Object Aligner.

    Build it with :func:`dspy_metric`.

    Parameters
    ----------
    schema : Schema, dict or str
        The OA schema (parsed once, here).
    field : str
        The prediction's field that holds the JSON output.
    gold_field : str
        The gold example's field that holds the gold JSON.
    top_k : int
        Repair operations named in the feedback.
    make_result : callable
        ``make_result(score=..., feedback=...)`` builds the returned object.
    options : dict
        Options of :func:`oa_core.render_feedback` (``min_delta``, ``style``,
        ``templates``, ``describe_refs``), ``comparators``, and any other name is an
        option of :func:`oa_core.align`, read with :meth:`AlignOptions.coerce`
        (``options`` itself may hold an :class:`AlignOptions`).
    """

    def __init__(self, schema: Schema | Mapping[str, Any] | str, *, field: str,
                 gold_field: str, top_k: int, make_result: Callable[..., Any],
                 options: Mapping[str, Any]) -> None:
        self.schema = Schema.parse(schema, comparators=options.get("comparators"))
        self.field = field
        self.gold_field = gold_field
        self.top_k = top_k
        self.make_result = make_result
        align_options = {k: v for k, v in options.items()
                         if k not in _FEEDBACK_OPTIONS and k not in ("comparators", "options")}
        self.align_options = AlignOptions.coerce(options.get("options"), **align_options)
        self.feedback_options = {k: v for k, v in options.items() if k in _FEEDBACK_OPTIONS}
        templates = self.feedback_options.get("templates")
        if isinstance(templates, str | Path):
            self.feedback_options["templates"] = load_templates(templates)
        # gold key (_gold_key) -> its PreparedGold under self.schema and the limits
        self._prepared: OrderedDict[tuple[str, str | bytes], PreparedGold] = OrderedDict()
        self._lock = threading.Lock()

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
        gold_value = self._prepared_gold(gold)
        try:
            candidate = self._candidate_value(pred)
            alignment = align(gold_value, candidate, self.schema, self.align_options)
        except _NoJSON as exc:
            return self.make_result(score=0.0, feedback=f"The prediction scored 0.00: {exc.text}")
        except OAError as exc:
            if exc.document != "candidate":
                raise
            where = f" at {exc.pointer}" if exc.pointer else ""
            return self.make_result(score=0.0, feedback=(
                f"The prediction scored 0.00: the {self.field!r} output is not usable "
                f"JSON{where}: {exc.message}. Fix: {exc.fix}."))
        result = render_feedback(alignment, top_k=self.top_k, **self.feedback_options)
        text = result.text
        if alignment.options.strict and alignment.violations:
            shown = alignment.violations[:3]
            more = len(alignment.violations) - len(shown)
            text += "\nIn strict mode any schema violation scores 0. Violations: " + "; ".join(
                f"{v.pointer or '(root)'}: {v.message}" for v in shown) + (
                f"; and {more} more." if more else ".")
        return self.make_result(score=float(alignment.score), feedback=text)

    def _prepared_gold(self, gold: Any) -> Any:
        """The gold's :class:`PreparedGold` (from the cache, else made and kept), or
        the gold's JSON itself when it cannot be prepared (no plain JSON, or it
        violates the schema: :func:`align` then raises what it always raised) or has
        no exact key."""
        raw = _read_field(gold, self.gold_field)
        key: tuple[str, str | bytes] | None = ("text", raw) if type(raw) is str else None
        if key is not None and (prepared := self._cached(key)) is not None:
            return prepared
        value = self._gold_value(gold)
        if key is None:
            data_key = _data_key(value)
            if data_key is None:
                return value
            key = ("data", data_key)
            if (prepared := self._cached(key)) is not None:
                return prepared
        try:
            prepared = prepare_gold(value, self.schema, self.align_options)
        except OAError:
            return value
        with self._lock:
            self._prepared[key] = prepared
            self._prepared.move_to_end(key)
            while len(self._prepared) > PREPARED_GOLDS:
                self._prepared.popitem(last=False)
        return prepared

    def _cached(self, key: tuple[str, str | bytes]) -> PreparedGold | None:
        """The prepared gold kept under ``key`` (now the most recently used), or None."""
        with self._lock:
            prepared = self._prepared.get(key)
            if prepared is not None:
                self._prepared.move_to_end(key)
            return prepared

    def _gold_value(self, gold: Any) -> Any:
        value = _read_field(gold, self.gold_field)
        if value is _MISSING:
            raise InputError("", f"the gold example has no field {self.gold_field!r}",
                             fix="pass gold_field= naming the field that holds the gold JSON",
                             document="gold")
        if isinstance(value, str):
            try:
                return extract_json(value, limits=self.align_options.limits)
            except InputError as exc:
                raise InputError("", f"the gold field {self.gold_field!r} holds no JSON value: "
                                 f"{exc.message}", fix="store the gold as JSON text or data",
                                 document="gold") from None
        return _plain(value)

    def _candidate_value(self, pred: Any) -> Any:
        value = _read_field(pred, self.field)
        if value is _MISSING:
            raise _NoJSON(f"the prediction has no {self.field!r} output. Fix: make the "
                          f"program produce the {self.field!r} field holding one JSON value.")
        if isinstance(value, str):
            try:
                return extract_json(value, limits=self.align_options.limits)
            except InputError as exc:
                raise _NoJSON(f"the {self.field!r} output is not JSON: {exc.message}. "
                              f"Fix: {exc.fix}.") from None
        return _plain(value)


def _read_field(obj: Any, name: str) -> Any:
    """``obj[name]`` for mappings, else ``obj.name``; ``_MISSING`` when absent."""
    if isinstance(obj, Mapping):
        return obj.get(name, _MISSING)
    try:
        return getattr(obj, name)
    except (AttributeError, KeyError):
        return _MISSING


def _data_key(value: Any) -> bytes | None:
    """``value`` serialised type-exactly (:mod:`marshal`, format 2: no references, so
    the bytes do not depend on which objects are shared), or None when it holds
    something :mod:`marshal` does not write (a subclass of a JSON type, an object, a
    cycle). Equal bytes are the same value, types included: ``1``, ``1.0``, ``True``,
    ``0.0`` and ``-0.0`` differ, as do a list and a tuple, ``{1: 0}`` and ``{"1": 0}``
    (``==`` and ``json.dumps`` confuse some of them). Keys are in the dict's order: the
    same data in another order is another entry, never a wrong one."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:  # unmarshallable, or nested deeper than marshal goes
        return None


def _plain(value: Any) -> Any:
    """JSON data from a typed output (a pydantic model becomes its JSON dump)."""
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


def _result_factory() -> Callable[..., Any]:
    if importlib.util.find_spec("dspy") is None:
        return MetricResult
    return importlib.import_module("dspy").Prediction


def dspy_metric(schema: Schema | Mapping[str, Any] | str, *, field: str = "answer",
                gold_field: str | None = None, top_k: int = 5, **options: Any) -> OAMetric:
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
    **options
        ``options`` (an :class:`~oa_core.AlignOptions`) and/or its fields as
        keywords: ``wl_mode``, ``wl_blend_lambda``, ``strict``, ``limits`` (see
        :func:`oa_core.align`); ``min_delta``, ``style``, ``templates`` (a mapping
        or a TOML/JSON file path), ``describe_refs`` (see :func:`oa_core.render_feedback`);
        ``comparators`` (custom comparators, see :meth:`oa_core.Schema.parse`).

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
        For a bad schema, option value, comparators or templates.

    Examples
    --------
    Use it as the metric of ``dspy.GEPA``::

        metric = dspy_metric(schema, field="graph", describe_refs=True)
        optimizer = dspy.GEPA(metric=metric, auto="light", reflection_lm=lm)
    """
    known = {f.name for f in fields(AlignOptions)} | _FEEDBACK_OPTIONS | {
        "comparators", "options"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"dspy_metric() got unexpected option(s): {', '.join(unknown)}")
    return OAMetric(schema, field=field, gold_field=gold_field or field, top_k=top_k,
                    make_result=_result_factory(), options=options)
