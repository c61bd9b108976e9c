"""Custom Python comparators called from the Rust scorer.

A schema naming a custom comparator (``score`` or ``keyScore``) is planned in Rust,
which calls the registry's ``Comparator.scalar`` and ``.matrix`` back.
:func:`oa_core.score` must give the ``float.hex``, or the
:class:`~oa_core.errors.ComparatorError` (type, pointer, message, cause) when a
comparator raises or breaks its contract, that the Python engine gave: frozen in
``tests/golden/custom_outcomes.json`` (keyed by test and call, in order) while both
engines gave the same.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oa_helpers import FrozenOutcomes

import oa_core
from benchmarks import bits
from oa_core._engine import ScorePlan, match_table
from oa_core.comparators import Comparator
from oa_core.errors import ComparatorError
from oa_core.native import prepared_plan
from oa_core.options import Limits
from oa_core.schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema


def _initial(g: str, p: str) -> float:
    return float(g[:1] == p[:1])


def _length(g: str, p: str) -> float:
    return min(len(g), len(p)) / max(len(g), len(p), 1)


def _near(g: Any, p: Any) -> float:
    return 1.0 if g == p else 0.5 / (1 + abs(g - p))


def _same(g: Any, p: Any) -> float:
    return 1.0 if g == p else 0.25


def _picky(g: Any, p: Any) -> float:
    # raises on some pairs that random documents hold (a string with a newline, 3)
    if "\n" in str(g) + str(p) or 3 in (g, p):
        raise ValueError(f"cannot compare {g!r}")
    return 0.5 if g != p else 1.0


COMPARATORS: dict[str, Any] = {
    "initial": _initial, "length": _length, "near": (_near, ("number",)),
    "same": (_same, ("string", "number", "boolean")),
    "picky": (_picky, ("string", "number"))}
KEYS = ["a", "b", "ab", "name", "nmae", "é"]
LEAF_COMPARATORS = ["initial", "length", "near", "same", "picky", "jaro", "exact"]
KEY_COMPARATORS = ["initial", "length", "same", "jaro"]

leaves = st.builds(
    lambda kind, comparator, threshold: {
        **({"type": kind} if kind else {}), "score": comparator,
        **({"threshold": threshold} if threshold else {})},
    st.sampled_from(["string", "number", None]), st.sampled_from(LEAF_COMPARATORS),
    st.sampled_from([0.0, 0.4]))
schemas = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.builds(lambda properties, key_score, importance: {
            "type": "object", "properties": properties, "keyScore": key_score,
            "keyImportance": importance},
            st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
            st.sampled_from(KEY_COMPARATORS), st.sampled_from([0.0, 1.0])),
        st.builds(lambda items, order: {"type": "array", "items": items, "order": order},
                  inner, st.sampled_from(["align", "fixed"]))),
    max_leaves=6)
texts = st.text(alphabet="ab\n\ud800", max_size=3)
numbers = st.one_of(st.integers(-3, 4), st.integers(-2**70, 2**70),
                    st.sampled_from([0.5, -0.0, 2.5e-7]))
primitives = st.one_of(st.none(), st.booleans(), numbers, texts)
documents = st.recursive(
    primitives,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
    max_leaves=10)


FROZEN = FrozenOutcomes(Path(__file__).resolve().parent / "golden" / "custom_outcomes.json")
FROZEN_SCOPED = {mode: "0x1.8888888888888p-1" for mode in ("tie_break", "blend", "none")}


def _outcome(gold: Any, candidate: Any, schema: Schema) -> tuple[Any, ...]:
    """The score's hex, or its error as the user sees it."""
    try:
        return ("score", oa_core.score(gold, candidate, schema).hex())
    except oa_core.OAError as error:
        return (type(error).__name__, error.document, error.pointer, error.message,
                error.fix, type(error.__cause__).__name__)


@pytest.fixture(autouse=True)
def _count_calls() -> None:
    FROZEN.reset()


def _same(gold: Any, candidate: Any, schema: Schema) -> tuple[Any, ...]:
    """The outcome, which must be the frozen one."""
    key, frozen = FROZEN.expected()
    found = _outcome(gold, candidate, schema)
    assert list(found) == frozen, key
    return found


def _fitting(raw: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Documents the schema accepts as a gold (oa_core.score checks the gold)."""
    kind = raw.get("type")
    if kind == "object":
        properties = raw["properties"]
        extra = [k for k in KEYS if k not in properties]
        return st.builds(lambda declared, others: {**others, **declared},
                         st.fixed_dictionaries({}, optional={
                             k: _fitting(v) for k, v in properties.items()}),
                         st.dictionaries(st.sampled_from(extra), primitives, max_size=2))
    if kind == "array":
        return st.lists(_fitting(raw["items"]), max_size=3)
    return {"string": texts, "number": numbers}.get(kind, primitives)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, st.data())
def test_random_schemas_with_custom_comparators_score_as_they_align(raw, data):
    try:
        schema = Schema.parse(raw, comparators=COMPARATORS)
    except oa_core.OAError:  # e.g. a string leaf naming a number comparator
        return
    assert prepared_plan(schema) is not None  # planned: the customs run from Rust
    gold = data.draw(_fitting(raw))
    candidate = data.draw(st.one_of(_fitting(raw), documents))  # may violate it
    for other in (candidate, gold):
        try:
            expected: tuple[Any, ...] = ("score", oa_core.align(gold, other, schema).score.hex())
        except oa_core.OAError as error:
            expected = (type(error).__name__, error.document, error.pointer, error.message,
                        error.fix, type(error.__cause__).__name__)
        assert _outcome(gold, other, schema) == expected


PEOPLE = {"type": "object", "keyScore": "initial", "keyImportance": 1.0, "properties": {
    "name": {"type": "string", "score": "length"},
    "age": {"type": "integer", "score": "near"},
    "tags": {"type": "array", "order": "align", "items": {"type": "string",
                                                          "score": "initial"}},
    "ok": {"type": "boolean", "score": "same"}}}
GOLD = {"name": "Ada", "age": 36, "tags": ["math", "engines"], "ok": True}
CANDIDATE = {"nom": "Adam", "age": 37, "tags": ["notes", "maths", "x"], "ok": False,
             "extra": 1}


def test_leaf_and_key_comparators_of_several_kinds_are_native():
    schema = Schema.parse(PEOPLE, comparators=COMPARATORS)
    plan = prepared_plan(schema)
    assert plan is not None
    native = plan.score(GOLD, CANDIDATE, Limits())
    assert native is not None  # scored in Rust, not handed back to Python
    assert native.hex() == oa_core.score(GOLD, CANDIDATE, schema).hex()
    assert _same(GOLD, CANDIDATE, schema)[0] == "score"


def _with_matrix(schema: Schema, name: str, matrix: Callable[..., np.ndarray]) -> list[int]:
    # The public API makes custom comparators without a matrix form; one with it is
    # called through that form for key pairings (Comparator.matrix), so give one.
    registry = schema.comparators
    plain = registry.get(name)
    calls: list[int] = []

    def counted(golds: Any, cands: Any) -> np.ndarray:
        calls.append(len(golds) * len(cands))
        return matrix(golds, cands)

    registry._table[name] = Comparator(name, plain.kinds, plain.scalar, counted)
    return calls


def test_a_matrix_form_is_called_for_key_pairings():
    schema = Schema.parse(PEOPLE, comparators=COMPARATORS)
    calls = _with_matrix(schema, "initial", lambda golds, cands: np.array(
        [[_initial(g, p) for p in cands] for g in golds], dtype=np.float64).reshape(
            len(golds), len(cands)))
    plan = prepared_plan(schema)
    assert plan is not None and plan.score(GOLD, CANDIDATE, Limits()) is not None
    assert calls == [4 * 5]  # the root's keys, once
    _same(GOLD, CANDIDATE, schema)


@pytest.mark.parametrize("matrix", [
    lambda golds, cands: np.full((len(golds), len(cands)), np.nan),
    lambda golds, cands: np.full((len(golds), len(cands)), 1.5),
    lambda golds, cands: np.ones((len(golds), len(cands)), dtype=np.float32),
    lambda golds, cands: [[1.0] * len(cands) for _ in golds],
    lambda golds, cands: np.ones((len(golds) + 1, len(cands)))])
def test_a_broken_matrix_form_is_a_comparator_error(matrix):
    # (the Python engine raises a bare ValueError, TypeError or IndexError for some of
    # these, or takes 1.5 as a similarity: the Rust engine holds the form to the
    # contract of the scalar one)
    schema = Schema.parse(PEOPLE, comparators=COMPARATORS)
    _with_matrix(schema, "initial", matrix)
    plan = prepared_plan(schema)
    assert plan is not None
    with pytest.raises(ComparatorError) as caught:
        plan.score(GOLD, CANDIDATE, Limits())
    assert caught.value.pointer == "/keyScore" and caught.value.comparator == "initial"


def _broken(result: Any) -> Callable[[Any, Any], Any]:
    def comparator(g: Any, p: Any) -> Any:
        if g != p:
            if isinstance(result, type) and issubclass(result, BaseException):
                raise result("broken")
            return result
        return 1.0
    return comparator


@pytest.mark.parametrize("result", [
    ValueError, ZeroDivisionError, float("nan"), 1.5, -0.5, "0.5", None, True,
    float("inf"), 2**2000])
@pytest.mark.parametrize("where", ["score", "keyScore", "items"])
def test_a_misbehaving_comparator_gives_the_frozen_error(result, where):
    leaf = {"type": "string", "score": "bad"}
    raw: dict[str, Any] = {
        "score": {"type": "object", "properties": {"a": leaf}},
        "keyScore": {"type": "object", "keyScore": "bad"},
        "items": {"type": "object", "properties": {"a": {
            "type": "array", "order": "align", "items": leaf}}}}[where]
    schema = Schema.parse(raw, comparators={"bad": _broken(result)})
    gold, candidate = ({"a": ["x"]}, {"a": ["y"]}) if where == "items" else (
        {"a": "x"}, {"b": "y"} if where == "keyScore" else {"a": "y"})
    outcome = _same(gold, candidate, schema)
    assert outcome[:3] == ("ComparatorError", "schema", {
        "score": "/properties/a/score", "keyScore": "/keyScore",
        "items": "/properties/a/items/score"}[where])
    assert _same(gold, gold, schema)[0] == "score"  # equal values: 1.0


def test_an_interruption_is_raised_at_once_not_retried():
    calls: list[tuple[Any, Any]] = []

    def interrupted(g: Any, p: Any) -> float:
        calls.append((g, p))
        raise KeyboardInterrupt

    schema = Schema.parse({"type": "object", "properties": {"a": {"score": "stop"}}},
                          comparators={"stop": interrupted})
    with pytest.raises(KeyboardInterrupt):
        oa_core.score({"a": "x"}, {"a": "y"}, schema)
    assert calls == [("x", "y")]


def test_values_reach_the_comparator_as_python_gave_them():
    seen: list[tuple[Any, Any]] = []

    def record(g: Any, p: Any) -> float:
        seen.append((g, p))
        return 0.5

    schema = Schema.parse({"type": "array", "order": "fixed", "items": {"score": "rec"}},
                          comparators={"rec": (record, ("string", "number", "boolean"))})
    gold = ["e\u0301x", -2**70 - 1, 2**64, -0.0, 1e300, True, 7]
    candidate = ["\U0001f600", 2**70, -(2**64), 0.0, -1e-300, False, 7.0]
    _same(gold, candidate, schema)
    # the values as the documents hold them (the same values and types), each item
    # against its own at least
    assert {(repr(g), type(g)) for g, _ in seen} <= {(repr(g), type(g)) for g in gold}
    assert {(repr(p), type(p)) for _, p in seen} <= {(repr(p), type(p)) for p in candidate}
    assert {(repr(g), repr(p)) for g, p in zip(gold, candidate, strict=True)} <= {
        (repr(g), repr(p)) for g, p in seen}
    assert prepared_plan(schema) is not None


def test_custom_key_pairings_are_not_kept_across_calls():
    counts: list[int] = []

    def keys(g: str, p: str) -> float:
        counts.append(1)
        return _initial(g, p)

    schema = Schema.parse({"type": "object", "keyScore": "keys"},
                          comparators={"keys": keys})
    gold, candidate = {"ab": 1, "b": 2}, {"ax": 1, "c": 2, "d": 3}
    scores = {_same(gold, candidate, schema) for _ in range(3)}
    assert len(scores) == 1
    assert len(counts) == 3 * 2 * 3  # every call pairs the keys again


@pytest.mark.parametrize("key_score", ["initial", "jaro"])  # custom: no shared memo
def test_scores_are_deterministic_across_dict_order_and_threads(key_score):
    schema = Schema.parse({**PEOPLE, "keyScore": key_score}, comparators=COMPARATORS)
    expected = oa_core.score(GOLD, CANDIDATE, schema).hex()
    reversed_gold = dict(reversed(list(GOLD.items())))
    reversed_candidate = dict(reversed(list(CANDIDATE.items())))
    assert oa_core.score(reversed_gold, reversed_candidate, schema).hex() == expected
    results: list[str] = []

    def work() -> None:  # each thread re-attaches to call the comparators
        for _ in range(20):
            results.append(oa_core.score(GOLD, CANDIDATE, schema).hex())

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 60


def test_a_comparator_may_score_under_its_own_schema():
    # the outer score holds the plan's key alignments while the comparator runs
    def nested(g: str, p: str) -> float:
        return oa_core.score({"b": g, "c": 1}, {"b": p, "c": 2}, schema)

    schema = Schema.parse({"type": "object", "properties": {
        "a": {"type": "string", "score": "nested"}}}, comparators={"nested": nested})
    outcome: list[Any] = []
    # a thread, so that a deadlock fails the test instead of hanging the suite
    worker = threading.Thread(target=lambda: outcome.append(_same(
        {"a": "xy", "d": 1}, {"a": "xz", "d": 1}, schema)), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive() and outcome and outcome[0][0] == "score"


SCOPED = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object",
               "keyScore": "initial", "properties": {
                   "id": {"type": "integer", "idScope": "person"},
                   "name": {"type": "string", "score": "length"},
                   "boss": {"type": "integer", "ref": "person"}}}}}}
SCOPED_GOLD = {"people": [{"id": 1, "name": "Ada", "boss": 2},
                          {"id": 2, "name": "Bob", "boss": 1}]}
SCOPED_CANDIDATE = {"people": [{"id": 7, "name": "Bobby", "bos": None},
                               {"id": 9, "name": "Ada", "boss": 7}]}


@pytest.mark.parametrize("mode", ["tie_break", "blend", "none"])
def test_scoped_documents_call_the_customs_from_rust(mode):
    schema = Schema.parse(SCOPED, comparators=COMPARATORS)
    found = oa_core.score(SCOPED_GOLD, SCOPED_CANDIDATE, schema, wl_mode=mode).hex()
    assert found == FROZEN_SCOPED[mode]
    raising = Schema.parse(SCOPED, comparators={**COMPARATORS, "initial": _broken(
        ValueError)})
    with pytest.raises(ComparatorError) as caught:
        oa_core.score(SCOPED_GOLD, SCOPED_CANDIDATE, raising, wl_mode=mode)
    assert caught.value.pointer == "/properties/people/items/keyScore"


def test_a_plan_without_the_registry_refuses_a_custom_name():
    schema = Schema.parse(PEOPLE, comparators=COMPARATORS)
    with pytest.raises(ValueError, match="without its registry"):
        ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, ())


def _rows(node: Any) -> Iterator[tuple[str, str | None, str, float]]:
    yield node.label, node.comparator, node.status.value, node.score
    for child in node.children:
        yield from _rows(child)


def test_the_match_tree_names_a_custom_comparator():
    schema = Schema.parse(PEOPLE, comparators=COMPARATORS)
    plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, (),
                     comparators=schema.comparators)
    table = match_table(plan, GOLD, CANDIDATE, Limits())
    assert table is not None
    rows = list(zip(table.label, table.comparator, table.status, table.score, strict=True))
    assert rows == list(_rows(oa_core.align(GOLD, CANDIDATE, schema).tree))
    assert ("name ~ nom", "length") in {row[:2] for row in rows}
    broken = Schema.parse(PEOPLE, comparators={**COMPARATORS, "near": (
        _broken(ZeroDivisionError), ("number",))})
    plan = ScorePlan(broken.root, ANY, ANY_OBJECT, ANY_ARRAY, broken.raw, (),
                     comparators=broken.comparators)
    with pytest.raises(ComparatorError):  # named as Python names it
        match_table(plan, GOLD, CANDIDATE, Limits())


_HOSTILE = [c for c in bits.corpus(hostile_count=120, org2graph_count=0, nested_count=0)
            if bits.family(c[0]) == "hostile"]


def test_the_hostile_corpus_comparators_give_the_frozen_outcome():
    native = 0
    for _, raw, gold, candidate, comparators in _HOSTILE:
        try:
            schema = Schema.parse(raw, comparators=comparators)
        except oa_core.OAError:
            continue
        plan = None if schema.scopes else prepared_plan(schema)
        text = json.dumps(raw)
        if plan is None or not any(f'"{name}"' in text for name in comparators):
            continue  # scopes are Python's; built-ins are tested elsewhere
        _same(gold, candidate, schema)
        native += plan.score(gold, candidate, Limits()) is not None
    assert native >= 5


def test_a_custom_comparator_error_keeps_its_cause():
    def bad(g: Any, p: Any) -> float:
        raise LookupError("no such thing")

    schema = Schema.parse({"type": "string", "score": "bad"}, comparators={"bad": bad})
    with pytest.raises(ComparatorError) as caught:
        oa_core.score("a", "b", schema)
    assert isinstance(caught.value.__cause__, LookupError)
    assert caught.value.pointer == "/score" and caught.value.comparator == "bad"
