"""The metric every adapter wraps: a gold and a model output in, a :class:`Verdict` out.

A :class:`Judge` reads both sides (strings are raw model text and go through
:func:`oa_core.jsonio.extract_json`; a pydantic model is dumped), aligns them and
returns the OA score, the ranked feedback text of :func:`oa_core.render_feedback`
and, when asked, per-field sub-scores. The adapters of :mod:`oa_core.adapters` only
translate a framework's calling convention to :meth:`Judge.judge` and its result back.

An output that holds no JSON scores 0, and its feedback says why and where; a gold
that holds no JSON, or violates the schema, is a programming error and raises
:class:`~oa_core.errors.InputError`.

**Feedback budget.** Reflection prompts quote the feedback of several examples at
once, so it is kept small: ``top_k`` repair operations at most (the ops budget), and
``max_chars`` characters at most (default :data:`DEFAULT_MAX_CHARS`; None lifts it).
Text over the budget loses its last lines, and a last line says how many were cut;
JSON feedback loses its full op list, then its last shown ops (``"cut"`` counts them).

**Sub-scores** (``objectives``): ``"properties"`` names the top-level properties the
schema declares; a sequence names JSON Pointers. The sub-score of a pointer is the
score of the match-tree node at that place of the gold, else of the candidate (an
excess value, or a key paired with a gold key of another name); a place absent from
both scores 1 below a matched parent (nothing was lost there) and the parent's score
below a missing, excess or mismatched one. Sub-scores are the fields' own scores:
strict mode zeroes the document score, not them.

A judge scores many outputs against the same golds, so it keeps each gold prepared
(:func:`oa_core.prepare_gold`: checked, copied and indexed once) for the
:data:`PREPARED_GOLDS` golds it used last, keyed by the gold's text, or by a type-exact
serialisation of its data (``1``, ``1.0`` and ``true`` are three golds). The results
are the same bits as without it; the cache is shared safely by threads.

Examples
--------
>>> schema = {"type": "object", "properties": {"city": {"type": "string"},
...                                            "year": {"type": "integer"}}}
>>> judge = Judge(schema, objectives="properties")
>>> verdict = judge.judge({"city": "Paris", "year": 2024}, '{"city": "Paris", "year": 2023}')
>>> verdict.score, verdict.subscores
(0.75, {'/city': 1.0, '/year': 0.5})
>>> print(verdict.feedback.splitlines()[1])
1. /year: expected 2024, got 2023. Fixing this recovers +0.250.
>>> Judge(schema).judge({"city": "Paris"}, "no idea").has_json
False
"""

from __future__ import annotations

import json
import marshal
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..aligner import Alignment, PreparedGold, align, prepare_gold
from ..comparators import is_number
from ..errors import InputError, OAError
from ..feedback import Feedback, load_templates, render_feedback
from ..jsonio import extract_json
from ..kinds import Status
from ..matchtree import MatchNode
from ..options import AlignOptions
from ..pointer import join, split
from ..schema import Schema, SchemaNode

__all__ = ["DEFAULT_MAX_CHARS", "MISSING", "PREPARED_GOLDS", "Judge", "Verdict", "passed",
           "read_field"]

FEEDBACK_OPTIONS = frozenset({"min_delta", "style", "templates", "describe_refs", "values"})

# Golds a Judge keeps prepared, the least recently used dropped first (a GEPA run
# cycles through its train and validation golds, scoring many candidates each).
PREPARED_GOLDS = 256

# Characters of feedback per example: the running example's feedback is about 700, and
# GEPA quotes a minibatch of 3 examples (plus their inputs and outputs) per reflection.
DEFAULT_MAX_CHARS = 2000
_MIN_CHARS = 200  # room for the header line and the note saying what was cut


class _Missing:
    """The type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""What :func:`read_field` returns for an absent field; :meth:`Judge.judge` takes it as
an output that was not produced."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One output judged.

    Attributes
    ----------
    score : float
        The OA score in [0, 1].
    feedback : str
        The ranked repair feedback within the budget (or why the output has no score).
    subscores : dict
        ``{pointer: score}`` for the judge's objectives (empty without objectives).
    has_json : bool
        False when the output held no usable JSON (it then scores 0).
    """

    score: float
    feedback: str
    subscores: dict[str, float] = field(default_factory=dict)
    has_json: bool = True


class _NoJSON(Exception):
    """The output holds no usable JSON; ``text`` says why and where."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def read_field(obj: Any, name: str) -> Any:
    """``obj[name]`` for mappings, else ``obj.name``; :data:`MISSING` when absent.

    >>> read_field({"a": 1}, "a"), read_field({"a": 1}, "b")
    (1, MISSING)
    """
    if isinstance(obj, Mapping):
        return obj.get(name, MISSING)
    try:
        return getattr(obj, name)
    except (AttributeError, KeyError):
        return MISSING


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


def _schema_below(node: SchemaNode, token: str) -> SchemaNode | None:
    """The schema of child ``token`` of ``node``, or None when the schema rules it out
    (an undeclared property where properties are declared and no others, a non-index in
    an array, anything below a string, number, boolean or null)."""
    if node.is_primitive:
        return None
    if node.type == "array":
        return node.item_schema(int(token)) if token.isdigit() else None
    if node.properties and token not in node.properties and node.additional is None:
        return None
    return node.property_schema(token)


def _objective_pointers(schema: Schema, objectives: str | Sequence[str] | None
                        ) -> tuple[str, ...]:
    """The pointers ``objectives`` names, checked against the schema."""
    if objectives is None:
        return ()
    if objectives == "properties":
        root = schema.root
        if not root.properties:
            raise InputError("/objectives", "objectives='properties' needs a schema whose "
                             "root object declares properties",
                             fix="name the fields as JSON Pointers, e.g. ['/city']",
                             document="options")
        return tuple(join("", key) for key in root.properties)
    if isinstance(objectives, str) or not isinstance(objectives, Sequence):
        raise InputError("/objectives", f"objectives must be 'properties' or a list of JSON "
                         f"Pointers, got {objectives!r}", fix="pass ['/city', '/year'] for "
                         "example", document="options")
    for n, pointer in enumerate(objectives):
        where = f"/objectives/{n}"
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise InputError(where, f"an objective must be a JSON Pointer such as '/city', "
                             f"got {pointer!r}", fix="start it with '/'", document="options")
        node: SchemaNode | None = schema.root
        for token in split(pointer):
            node = _schema_below(node, token) if node is not None else None
        if node is None:
            raise InputError(where, f"the schema has no place {pointer!r}",
                             fix="name a property the schema declares (array items by "
                                 "index)", document="options")
    if len(set(objectives)) != len(objectives):
        raise InputError("/objectives", "objectives name the same pointer twice",
                         fix="name each field once", document="options")
    return tuple(objectives)


class Judge:
    """Object Aligner as a metric: scores, feedback and sub-scores of model outputs.

    Parameters
    ----------
    schema : Schema, dict or str
        The OA schema (parsed once, here).
    top_k : int
        Repair operations named in the feedback (the ops budget; default 5).
    max_chars : int or None
        Characters of feedback at most (default :data:`DEFAULT_MAX_CHARS`, at least
        200); None for no limit.
    objectives : "properties", sequence of str, or None
        The fields given a sub-score (see the module notes).
    field : str
        What feedback calls the output (``"the 'answer' output is not JSON"``).
    gold_field : str
        What errors call the gold.
    **options
        ``min_delta``, ``style``, ``templates`` (a mapping or a TOML/JSON file path),
        ``describe_refs``, ``values`` (see :func:`oa_core.render_feedback`);
        ``comparators`` (see :meth:`oa_core.Schema.parse`); ``options`` (an
        :class:`~oa_core.AlignOptions`) and/or its fields as keywords (``wl_mode``,
        ``strict``, ``limits``...), read with :meth:`AlignOptions.coerce`.

    Raises
    ------
    TypeError
        For an unknown option.
    SchemaError, InputError
        For a bad schema, option value, objective, comparators or templates.
    """

    def __init__(self, schema: Schema | Mapping[str, Any] | str, *, top_k: int = 5,
                 max_chars: int | None = DEFAULT_MAX_CHARS,
                 objectives: str | Sequence[str] | None = None, field: str = "output",
                 gold_field: str = "gold", **options: Any) -> None:
        known = {f.name for f in fields(AlignOptions)} | FEEDBACK_OPTIONS | {
            "comparators", "options"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected option(s): "
                            f"{', '.join(unknown)}")
        if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(
                max_chars, int) or max_chars < _MIN_CHARS):
            raise InputError("/max_chars", f"max_chars must be an integer of at least "
                             f"{_MIN_CHARS}, or None, got {max_chars!r}",
                             fix="pass max_chars=2000 for example", document="options")
        self.schema = Schema.parse(schema, comparators=options.get("comparators"))
        self.top_k = top_k
        self.max_chars = max_chars
        self.objectives = _objective_pointers(self.schema, objectives)
        self.field = field
        self.gold_field = gold_field
        align_options = {k: v for k, v in options.items()
                         if k not in FEEDBACK_OPTIONS and k not in ("comparators", "options")}
        self.align_options = AlignOptions.coerce(options.get("options"), **align_options)
        self.feedback_options = {k: v for k, v in options.items() if k in FEEDBACK_OPTIONS}
        templates = self.feedback_options.get("templates")
        if isinstance(templates, str | Path):
            self.feedback_options["templates"] = load_templates(templates)
        # a bad feedback option fails here, once, rather than at every call
        render_feedback(align({}, {}, {"type": "object"}), top_k=top_k,
                        **self.feedback_options)
        # gold key (see _prepared_gold) -> its PreparedGold under self.schema and limits
        self._prepared: OrderedDict[tuple[str, str | bytes], PreparedGold] = OrderedDict()
        self._lock = threading.Lock()

    def judge(self, gold: Any, output: Any) -> Verdict:
        """Score ``output`` against ``gold`` (JSON data, or text holding one JSON value).

        ``output`` may be :data:`MISSING` (the program produced no such field): it then
        scores 0 like an output without JSON.

        Raises
        ------
        InputError
            When the gold holds no usable JSON, or violates the schema.
        """
        gold_value = self._prepared_gold(gold)
        try:
            candidate = self._candidate_value(output)
            alignment = align(gold_value, candidate, self.schema, self.align_options)
        except _NoJSON as exc:
            return self._without_json(f"The prediction scored 0.00: {exc.text}")
        except OAError as exc:
            if exc.document != "candidate":
                raise
            where = f" at {exc.pointer}" if exc.pointer else ""
            return self._without_json(
                f"The prediction scored 0.00: the {self.field!r} output is not usable "
                f"JSON{where}: {exc.message}. Fix: {exc.fix}.")
        result = render_feedback(alignment, top_k=self.top_k, **self.feedback_options)
        return Verdict(float(alignment.score), self._text(alignment, result),
                       self._subscores(alignment))

    def _without_json(self, text: str) -> Verdict:
        return Verdict(0.0, self._cut_lines(text), dict.fromkeys(self.objectives, 0.0),
                       has_json=False)

    def _text(self, alignment: Alignment, result: Feedback) -> str:
        """The feedback text, with the violations that zeroed a strict score, within
        the budget."""
        violations = alignment.violations if alignment.options.strict else []
        if self.feedback_options.get("style") == "json":
            data = json.loads(result.text)
            if violations:
                data["violations"] = [v.to_dict() for v in violations]
            return self._cut_json(data)
        text = result.text
        if violations:
            shown = violations[:3]
            more = len(violations) - len(shown)
            text += "\nIn strict mode any schema violation scores 0. Violations: " + "; ".join(
                f"{v.pointer or '(root)'}: {v.message}" for v in shown) + (
                f"; and {more} more." if more else ".")
        return self._cut_lines(text)

    def _cut_lines(self, text: str) -> str:
        """``text`` within ``max_chars``: whole lines while they fit, then a note."""
        budget = self.max_chars
        if budget is None or len(text) <= budget:
            return text
        lines = text.split("\n")
        kept: list[str] = []
        used = 0
        for line in lines:
            cut = len(lines) - len(kept) - 1
            note = f"[{cut} more line{'s' * (cut != 1)} cut: feedback budget of {budget} chars]"
            if used + len(line) + 1 + len(note) > budget:
                break
            kept.append(line)
            used += len(line) + 1
        cut = len(lines) - len(kept)
        note = f"[{cut} more line{'s' * (cut != 1)} cut: feedback budget of {budget} chars]"
        if not kept:  # one line longer than the budget: its start, marked as cut
            room = budget - len(note) - 2
            return lines[0][:room] + "…\n" + note
        return "\n".join([*kept, note])

    def _cut_json(self, data: dict[str, Any]) -> str:
        """``data`` as JSON within ``max_chars``: without the full op list, then
        without the last shown ops, while over."""
        def dump() -> str:
            return json.dumps(data, ensure_ascii=False, default=str)

        text = dump()
        if self.max_chars is None or len(text) <= self.max_chars:
            return text
        data["ops"] = []
        data["cut"] = 0
        while len(text := dump()) > self.max_chars and data["shown"]:
            data["shown"] = data["shown"][:-1]
            data["cut"] += 1
        if len(text) > self.max_chars:  # long violation messages: the count says enough
            data["violations"] = len(data.get("violations", ()))
        return dump()

    def _subscores(self, alignment: Alignment) -> dict[str, float]:
        if not self.objectives:
            return {}
        at_gold: dict[str, MatchNode] = {}
        at_candidate: dict[str, MatchNode] = {}
        for node in alignment.tree.iter_nodes():
            if node.gold_path is not None:
                at_gold.setdefault(node.gold_path, node)
            if node.candidate_path is not None:  # a renamed key is at both places
                at_candidate.setdefault(node.candidate_path, node)
        scores: dict[str, float] = {}
        for pointer in self.objectives:
            tokens = split(pointer)
            for depth in range(len(tokens), -1, -1):
                place = join("", *tokens[:depth]) if depth else ""
                found = at_gold.get(place) or at_candidate.get(place)
                if found is None:
                    continue
                exact = depth == len(tokens)
                scores[pointer] = float(found.score) if exact or (
                    found.status != Status.MATCHED) else 1.0
                break
        return scores

    def _prepared_gold(self, gold: Any) -> Any:
        """The gold's :class:`PreparedGold` (from the cache, else made and kept), or
        the gold's JSON itself when it cannot be prepared (no plain JSON, or it
        violates the schema: :func:`align` then raises what it always raised) or has
        no exact key."""
        key: tuple[str, str | bytes] | None = ("text", gold) if type(gold) is str else None
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
        if gold is MISSING:
            raise InputError("", f"the gold example has no field {self.gold_field!r}",
                             fix="pass gold_field= naming the field that holds the gold JSON",
                             document="gold")
        if isinstance(gold, str):
            try:
                return extract_json(gold, limits=self.align_options.limits)
            except InputError as exc:
                raise InputError("", f"the gold field {self.gold_field!r} holds no JSON value: "
                                 f"{exc.message}", fix="store the gold as JSON text or data",
                                 document="gold") from None
        return _plain(gold)

    def _candidate_value(self, output: Any) -> Any:
        if output is MISSING:
            raise _NoJSON(f"the prediction has no {self.field!r} output. Fix: make the "
                          f"program produce the {self.field!r} field holding one JSON value.")
        if isinstance(output, str):
            try:
                return extract_json(output, limits=self.align_options.limits)
            except InputError as exc:
                raise _NoJSON(f"the {self.field!r} output is not JSON: {exc.message}. "
                              f"Fix: {exc.fix}.") from None
        return _plain(output)


def passed(score: float, threshold: float) -> bool:
    """Whether ``score`` passes ``threshold`` (a number in [0, 1]).

    >>> passed(0.75, 0.5), passed(0.25, 0.5)
    (True, False)
    """
    if not is_number(threshold) or not math.isfinite(threshold) or not 0 <= threshold <= 1:
        raise InputError("/threshold", f"threshold must be a number in [0, 1], got "
                         f"{threshold!r}", fix="pass threshold=0.9 for example",
                         document="options")
    return score >= threshold
