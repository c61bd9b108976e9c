"""A prepared gold in :func:`oa_core.align` and the metric's cache of prepared golds.

* ``align(prepare_gold(g, s), c, s)`` is ``align(g, c, s)`` bit for bit (score, match
  tree, pairs, WL traces, warnings), in the three WL modes;
* :class:`~oa_core.adapters.dspy.OAMetric` keeps a bounded LRU of prepared golds keyed
  by the gold's exact JSON (``1``, ``1.0`` and ``true`` are three golds), safe for
  threads, giving the results the metric gave without it (errors included).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from oa_core.adapters import judge
from oa_core.adapters.dspy import OAMetric, dspy_metric
from oa_core.adapters.judge import _data_key
from oa_core.schema import SchemaNode
from synthetic import make_org2graph_example

ROOT = Path(__file__).resolve().parent.parent
MODES = ["tie_break", "blend", "none"]


def _exact(obj: Any) -> Any:
    """``obj`` as nested tuples that are equal exactly when the values are the same
    bits and types (floats by ``float.hex``, arrays by their bytes, dict order kept;
    schema nodes by identity)."""
    if isinstance(obj, float):
        return ("float", obj.hex())
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, np.generic):
        return ("np", obj.dtype.str, obj.tobytes())
    if isinstance(obj, oa_core.Schema | SchemaNode):
        return ("schema", id(obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, tuple(
            (f.name, _exact(getattr(obj, f.name))) for f in dataclasses.fields(obj)))
    if isinstance(obj, dict):
        return ("dict", tuple((_exact(k), _exact(v)) for k, v in obj.items()))
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(_exact(x) for x in obj))
    if isinstance(obj, set | frozenset):
        return (type(obj).__name__, tuple(sorted(repr(_exact(x)) for x in obj)))
    return (type(obj).__name__, obj)


def _outcome(gold: Any, candidate: Any, schema: Any, **options: Any) -> Any:
    """An alignment, exactly, or the error align raised (type and text)."""
    try:
        return _exact(oa_core.align(gold, candidate, schema, **options))
    except oa_core.OAError as exc:
        return f"{type(exc).__name__}: {exc}"


def _load(folder: str) -> tuple[Any, list[Any], Any]:
    path = ROOT / "sample_data" / folder
    gold = json.loads((path / "gold.json").read_text())
    candidates = [json.loads(f.read_text()) for f in [
        path / "candidate.json", *sorted((path / "candidates").glob("*.json"))]
        if f.exists()]
    return gold, candidates, json.loads((path / "schema.json").read_text())


def _cases() -> list[tuple[str, Any, list[Any], oa_core.Schema]]:
    cases = []
    for folder in ("running_example", "org2graph"):
        gold, candidates, raw = _load(folder)
        cases.append((folder, gold, candidates, oa_core.Schema.parse(raw)))
    for seed in range(4):
        gold, candidate, raw = make_org2graph_example(4 + seed, 0.5, seed % 4, seed=seed)
        cases.append((f"org2graph-{seed}", gold, [candidate, gold],
                      oa_core.Schema.parse(raw)))
    return cases


# -- align() takes a PreparedGold --------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_align_prepared_is_align_raw_bit_for_bit(mode: str) -> None:
    """Score, match tree, pairs, traces and warnings: the same bits, each alignment
    made twice (the prepared index is read again, never changed), score() between."""
    compared = 0
    for name, gold, candidates, parsed in _cases():
        prepared = oa_core.prepare_gold(gold, parsed)
        assert parsed.scopes and prepared._native is not None
        for candidate in candidates:
            raw = _outcome(gold, candidate, parsed, wl_mode=mode)
            assert not isinstance(raw, str), name
            for _ in range(2):
                assert _outcome(prepared, candidate, parsed, wl_mode=mode) == raw, name
                assert (oa_core.score(prepared, candidate, parsed, wl_mode=mode).hex()
                        == oa_core.score(gold, candidate, parsed, wl_mode=mode).hex())
            compared += 1
    assert compared >= 10


def test_align_prepared_running_example_feedback() -> None:
    gold, candidates, raw = _load("running_example")
    parsed = oa_core.Schema.parse(raw)
    prepared = oa_core.prepare_gold(gold, parsed)
    alignment = oa_core.align(prepared, candidates[0], parsed)
    assert alignment.score == 0.7678571428571429
    assert alignment.gold == gold and alignment.gold is prepared._gold
    assert (oa_core.feedback(prepared, candidates[0], parsed).text
            == oa_core.feedback(gold, candidates[0], parsed).text)
    for style in ("text", "json"):
        assert (oa_core.feedback(prepared, candidates[0], parsed, style=style,
                                 describe_refs=True, wl_mode="blend").to_dict()
                == oa_core.feedback(gold, candidates[0], parsed, style=style,
                                    describe_refs=True, wl_mode="blend").to_dict())


def test_align_prepared_without_scopes_and_strict() -> None:
    schema = oa_core.Schema.parse({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}},
        "additionalProperties": False})
    gold = {"a": "abc", "b": [1, 2, 3]}
    prepared = oa_core.prepare_gold(gold, schema)
    for candidate in ({"a": "abd", "b": [3, 1]}, {"a": 1, "b": [1]}, {"c": None}):
        for strict in (False, True):
            assert (_outcome(prepared, candidate, schema, strict=strict)
                    == _outcome(gold, candidate, schema, strict=strict))


def test_align_prepared_under_another_schema_or_limits_is_checked_again() -> None:
    """As in score(): another Schema object, other limits or comparators and the
    prepared copy is checked again, giving the error (its type and text) align gives
    the plain gold, or the plain gold's alignment."""
    raw = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"},
                                            "b": {"type": "array", "items": {}}}}
    gold = {"a": "x", "b": [[1]]}
    prepared = oa_core.prepare_gold(gold, raw)
    same = oa_core.Schema.parse(raw)  # equal, but not the object it was prepared with
    assert _outcome(prepared, {"a": "y"}, same) == _outcome(gold, {"a": "y"}, same)
    mine, theirs = (oa_core.align(g, {"a": "y"}, raw) for g in (prepared, gold))
    assert mine.score.hex() == theirs.score.hex() and mine.to_dict() == theirs.to_dict()
    stricter = oa_core.Schema.parse({"type": "object", "properties": {"a": {"type": "integer"}}})
    with pytest.raises(oa_core.InputError, match="gold violates the schema") as refused:
        oa_core.align(prepared, {"a": 1}, stricter)
    with pytest.raises(oa_core.InputError) as plain:
        oa_core.align(gold, {"a": 1}, stricter)
    with pytest.raises(oa_core.InputError) as scored:
        oa_core.score(prepared, {"a": 1}, stricter)
    assert str(refused.value) == str(plain.value) == str(scored.value)
    assert refused.value.document == plain.value.document == "gold"
    shallow = oa_core.Limits(max_depth=1)
    assert (_outcome(prepared, {"a": "x"}, prepared.schema, limits=shallow)
            == _outcome(gold, {"a": "x"}, prepared.schema, limits=shallow))
    assert "nested deeper than 1" in _outcome(prepared, {"a": "x"}, prepared.schema,
                                              limits=shallow)


# -- the metric's cache of prepared golds --------------------------------------------------

def _uncached(metric: OAMetric) -> OAMetric:
    """``metric`` as it was before the cache: the gold's JSON handed to align."""
    metric._prepared_gold = metric._gold_value  # type: ignore[method-assign]
    return metric


def _result(metric: OAMetric, gold: Any, pred: Any) -> Any:
    try:
        result = metric(gold, pred)
    except oa_core.OAError as exc:
        return f"{type(exc).__name__}: {exc}"
    return (result.score.hex(), result.feedback)


@pytest.mark.parametrize("mode", MODES)
def test_metric_results_are_the_uncached_results(mode: str) -> None:
    """Golds as data and as text, every candidate twice (hits): the same score bits and
    feedback text as the metric without the cache; one prepare per gold."""
    for strict in (False, True):
        options = {"wl_mode": mode, "strict": strict, "describe_refs": True}
        gold, candidates, raw = _load("org2graph")
        cached = dspy_metric(raw, **options)
        plain = _uncached(dspy_metric(raw, **options))
        for _ in range(2):
            for form in (gold, json.dumps(gold)):
                for candidate in [*candidates, "no JSON here", {"people": 3}]:
                    assert (_result(cached, {"answer": form}, {"answer": candidate})
                            == _result(plain, {"answer": form}, {"answer": candidate}))
        assert len(cached._prepared) == 2  # the data and the text: one entry each
    for name, gold, candidates, parsed in _cases():
        cached, plain = dspy_metric(parsed, wl_mode=mode), _uncached(
            dspy_metric(parsed, wl_mode=mode))
        for candidate in candidates * 2:
            assert (_result(cached, {"answer": gold}, {"answer": candidate})
                    == _result(plain, {"answer": gold}, {"answer": candidate})), name
        assert len(cached._prepared) == 1


def test_metric_prepares_each_gold_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Any] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        made.append(args[0])
        return oa_core.prepare_gold(*args, **kwargs)

    monkeypatch.setattr(judge, "prepare_gold", counting)
    gold, candidates, raw = _load("running_example")
    metric = dspy_metric(raw)
    for candidate in candidates * 5:
        assert metric({"answer": gold}, {"answer": candidate}).score <= 1.0
    assert len(made) == 1
    assert metric({"answer": gold}, {"answer": candidates[0]}).score == 0.7678571428571429
    assert len(made) == 1
    gold["people"][0]["name"] = "Zed"  # another gold now: prepared again, scored as it is
    changed = metric({"answer": gold}, {"answer": candidates[0]}).score
    assert len(made) == 2 and changed == oa_core.score(gold, candidates[0], raw)
    assert changed != 0.7678571428571429


NUMBERS = {"type": "object", "properties": {"n": {}}}


def test_metric_cache_key_tells_1_10_and_true_apart() -> None:
    """Golds that ``==`` confuses ({"n": 1} == {"n": 1.0} == {"n": True}) score and read
    differently, so each has its own entry: a key made with ``==`` would hand the
    second and third gold the first one's prepared copy."""
    metric = dspy_metric(NUMBERS)
    values = (1, 1.0, True)  # (a dict keyed by them would hold one entry)
    expected = [_result(_uncached(dspy_metric(NUMBERS)), {"answer": {"n": value}},
                        {"answer": {"n": 2}}) for value in values]
    assert len(set(expected)) == 3
    assert "expected 1," in expected[0][1] and "expected 1.0," in expected[1][1]
    for _ in range(2):
        for value, result in zip(values, expected, strict=True):
            assert _result(metric, {"answer": {"n": value}}, {"answer": {"n": 2}}) == result
    assert metric({"answer": {"n": True}}, {"answer": {"n": True}}).score == 1.0
    assert metric({"answer": {"n": 1}}, {"answer": {"n": True}}).score == 0.0
    assert len(metric._prepared) == 3
    # -0.0 and 0.0 are equal too, but the feedback shows the gold as it is
    metric({"answer": {"n": 0.0}}, {"answer": {"n": 2}})
    assert "expected -0.0," in metric({"answer": {"n": -0.0}}, {"answer": {"n": 2}}).feedback
    assert len(metric._prepared) == 5


def test_metric_cache_is_bounded_lru(monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge.PREPARED_GOLDS == 256
    monkeypatch.setattr(judge, "PREPARED_GOLDS", 4)
    metric = dspy_metric(NUMBERS)
    for n in range(10):
        assert metric({"answer": {"n": n}}, {"answer": {"n": n}}).score == 1.0
    assert len(metric._prepared) == 4
    def key(n: int) -> tuple[str, bytes]:
        return ("data", _data_key({"n": n}) or b"")

    assert list(metric._prepared) == [key(6), key(7), key(8), key(9)]
    kept = metric._prepared[key(6)]
    metric({"answer": {"n": 6}}, {"answer": {"n": 1}})  # a hit: the most recent now
    metric({"answer": '{"n": 10}'}, {"answer": {"n": 1}})  # text: drops 7
    assert list(metric._prepared) == [key(8), key(9), key(6), ("text", '{"n": 10}')]
    assert metric._prepared[key(6)] is kept


def test_metric_golds_that_fail_give_the_errors_they_gave() -> None:
    """A gold without JSON, against the schema, over the limits or of no exact JSON
    type: the same error (or result) as without the cache, and nothing kept."""
    schema = {"type": "object", "properties": {"city": {"type": "string"},
                                               "n": {}}, "required": ["city"]}

    class Number(enum.IntEnum):
        ONE = 1

    golds: list[Any] = [
        {"answer": "no JSON"}, {"answer": {"city": 3}}, {"answer": '{"city": 3}'},
        {"other": 1}, {"answer": {"city": "x", "n": math.nan}},
        {"answer": {"city": "x", "n": (1, 2)}}, {"answer": {"city": "x", 1: 2}},
        {"answer": {"city": "x", "n": Number.ONE}}, {"answer": {"city": "x", "n": [[[1]]]}}]
    for limits in (None, oa_core.Limits(max_depth=2)):
        options = {} if limits is None else {"limits": limits}
        metric = dspy_metric(schema, **options)
        plain = _uncached(dspy_metric(schema, **options))
        for gold in golds:
            for pred in ({"answer": {"city": "x", "n": 1}}, {"answer": {"city": math.inf}},
                         {"answer": "nothing"}):
                for _ in range(2):
                    assert _result(metric, gold, pred) == _result(plain, gold, pred)
        assert len(metric._prepared) == (0 if limits else 1)  # only [[[1]]] is fine
    with pytest.raises(oa_core.InputError, match="gold violates the schema"):
        metric({"answer": {"city": 3}}, {"answer": {"city": "x"}})


def test_metric_cache_from_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight threads on five golds with room for three (entries dropped while others
    read them): every result is the one-thread result."""
    monkeypatch.setattr(judge, "PREPARED_GOLDS", 3)
    cases = [make_org2graph_example(3 + seed, 0.5, seed % 4, seed=seed) for seed in range(5)]
    schema = cases[0][2]
    assert all(raw == schema for _, _, raw in cases)
    work = [({"answer": gold}, {"answer": candidate}) for gold, candidate, _ in cases] * 4
    plain = _uncached(dspy_metric(schema))
    expected = [_result(plain, gold, pred) for gold, pred in work]
    metric = dspy_metric(schema)
    results: dict[int, list[Any]] = {}
    start = threading.Barrier(8)

    def run(worker: int) -> None:
        start.wait()
        order = work[worker:] + work[:worker]
        results[worker] = [_result(metric, gold, pred) for gold, pred in order]

    threads = [threading.Thread(target=run, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for worker in range(8):
        assert results[worker] == expected[worker:] + expected[:worker]
    assert len(metric._prepared) == 3


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.0, -0.0, 1.0, 2.5])
    | st.sampled_from(["", "1", "a", "true"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "1"]), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_data_key_is_type_exact(a: Any, b: Any) -> None:
    """Two values share a key exactly when they are the same JSON, types, float signs
    and dict order included (``==`` is looser: 1 == 1.0 == True, 0.0 == -0.0)."""
    key_a, key_b = _data_key(a), _data_key(b)
    assert key_a is not None and key_b is not None
    assert (key_a == key_b) == (_exact(a) == _exact(b))
    assert _data_key(json.loads(json.dumps(a))) == key_a  # another copy: the same key


def test_metric_speed_benchmark_measures_the_same_results() -> None:
    """The benchmark's before and after give the same results (it checks them before
    timing) and measure one pass of every pair per turn; never timed here."""
    from benchmarks import metric_speed

    for kind in metric_speed.KINDS:
        row = metric_speed.measure("running", kind, turns=1)
        assert row["pairs"] == 12 and row["golds"] == 1
        assert row["before_pairs_per_s"] > 0 and row["after_pairs_per_s"] > 0
    golds, _ = metric_speed.org2graph_golds(golds=2, candidates=3)
    assert len(golds) == 2 and all(len(candidates) == 3 for _, candidates in golds)


def test_data_key_tells_apart_what_json_dumps_confuses() -> None:
    """A tuple is no JSON (check_json refuses it), an int key neither: were their keys
    a list's and a str key's, a gold once prepared would let them through."""
    assert _data_key({"n": (1, 2)}) != _data_key({"n": [1, 2]})
    assert _data_key({1: 0}) != _data_key({"1": 0})
    assert len({_data_key(v) for v in (1, 1.0, True, 0.0, -0.0, None, "1")}) == 7
    cycle: dict[str, Any] = {}
    cycle["a"] = cycle

    class Text(str):
        pass

    assert _data_key(cycle) is None and _data_key({"a": Text("x")}) is None
    schema = {"type": "object", "properties": {"n": {}}}
    metric = dspy_metric(schema)
    assert metric({"answer": {"n": [1, 2]}}, {"answer": {"n": [1, 2]}}).score == 1.0
    with pytest.raises(oa_core.InputError, match="tuple is not a JSON value"):
        metric({"answer": {"n": (1, 2)}}, {"answer": {"n": [1, 2]}})
    assert metric({"answer": {"1": 0}}, {"answer": {"1": 0}}).score == 1.0
    with pytest.raises(oa_core.InputError, match="not a string"):
        metric({"answer": {1: 0}}, {"answer": {"1": 0}})
