"""Fast paths give the same answers as the slow ones (issue 14): score() has align()'s bits.

The fast validation path (the Rust conversion and schema shape) has its own file,
``tests/test_validation_native.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from oa_core.pointer import join

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "sample_data").iterdir() if (p / "gold.json").exists())


def _documents(folder: Path) -> list[Any]:
    files = [folder / "gold.json", folder / "candidate.json",
             *sorted((folder / "candidates").glob("*.json"))]
    return [json.loads(f.read_text()) for f in files if f.exists()]


# -- score() without describing violations ---------------------------------------------

@pytest.mark.parametrize("strict", [False, True])
def test_score_equals_align_on_invalid_candidates(running: tuple[Any, Any, Any],
                                                  strict: bool) -> None:
    gold, candidate, raw = running
    parsed = oa_core.Schema.parse(raw)
    broken = {**candidate, "people": [*candidate["people"], {"id": "x", "name": 3}]}
    full = oa_core.align(gold, broken, parsed, strict=strict)
    assert full.violations
    assert oa_core.score(gold, broken, parsed, strict=strict) == full.score
    assert oa_core.score(gold, broken, raw, oa_core.AlignOptions(strict=strict)) == full.score


@given(st.text(max_size=4) | st.integers(), st.text("~/a", max_size=4) | st.integers(),
       st.text("~/a", max_size=3))
def test_pointer_join_one_token_equals_the_general_form(base: Any, token: Any,
                                                        other: str) -> None:
    from oa_core.pointer import escape
    base = str(base)
    assert join(base, token) == base + "/" + escape(token)
    assert join(base, token, other) == join(join(base, token), other)


# -- edit-distance comparators: the single-pair function gives cdist's bits -------------

EDIT_DISTANCES = ["levenshtein", "damerau_levenshtein", "osa", "indel", "lcsseq"]
texts = st.text("abcde XY\u00e9\u4e2d\U0001f600", max_size=9) | st.text(max_size=150)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(EDIT_DISTANCES), st.lists(texts, min_size=1, max_size=12),
       st.lists(texts, min_size=1, max_size=12))
def test_edit_distance_scalar_equals_matrix(name: str, golds: list[str],
                                            cands: list[str]) -> None:
    from oa_core.comparators import ComparatorRegistry
    comparator = ComparatorRegistry().get(name)
    matrix = comparator.matrix(golds, cands)
    for i, g in enumerate(golds):
        for j, p in enumerate(cands):
            assert matrix[i, j] == comparator.scalar(g, p), (name, g, p)


class _Str(str):
    pass


class _Int(int):
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("value, kind", [
    (None, "null"), (True, "boolean"), (False, "boolean"), (0, "number"), (2**70, "number"),
    (1.5, "number"), ("x", "string"), ({}, "object"), ([], "array"), (_Str("a"), "string"),
    (_Int(3), "number"), (_Dict(), "object"), ((1,), "tuple"), (np.float64(1.0), "number"),
    (np.bool_(True), "bool")])
def test_value_kind_of_exact_types_and_subclasses(value: Any, kind: str) -> None:
    from oa_core.comparators import value_kind
    assert value_kind(value) == kind


# -- score() and align() give the same bits on drawn records -------------------------------


FIELD_KEYS = ["a", "b", "c", "d"]
leaf_specs = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["string", "number", "integer", "boolean", ["string", "null"]]),
    "score": st.sampled_from(["exact", "jaro", "levenshtein", "invdiff", "relative",
                              "jaro_winkler", "indel"]),
    "threshold": st.sampled_from([0.0, 0.5, 0.9]),
    "nullScore": st.sampled_from([0.0, 0.25]),
    "valueWeight": st.sampled_from([0, 1, 2.5, 1e-300, 1e300])})


def _object_specs(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({
        "type": st.just("object"),
        "properties": st.dictionaries(st.sampled_from(FIELD_KEYS), inner, max_size=4)},
        optional={"keyImportance": st.sampled_from([0.0, 1.0, 0.3]),
                  "valueImportance": st.sampled_from([1.0, 0.0, 2.0]),
                  "keyScore": st.sampled_from(["jaro", "exact"]),
                  "keyThreshold": st.sampled_from([0.0, 0.8]),
                  "nullScore": st.sampled_from([0.0, 0.5])})


object_schemas = _object_specs(st.recursive(leaf_specs | st.just({}), _object_specs,
                                            max_leaves=6))
field_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, 2.0, 1e300])
    | st.sampled_from(["x", "xy", "yx", "", "abc"]),
    lambda inner: st.dictionaries(st.sampled_from([*FIELD_KEYS, "e", "aa"]), inner,
                                  max_size=4) | st.lists(inner, max_size=2),
    max_leaves=10)
documents = st.dictionaries(st.sampled_from([*FIELD_KEYS, "e", "aa"]), field_values,
                            min_size=1, max_size=5)


@st.composite
def document_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A gold and a candidate: unrelated, or the gold with values changed and keys
    dropped (so that most scores fall strictly between 0 and 1)."""
    gold = draw(documents)
    if draw(st.booleans()):
        return gold, draw(documents)
    dropped = draw(st.sets(st.sampled_from(sorted(gold)), max_size=1))
    candidate = {k: v for k, v in gold.items() if k not in dropped}
    return gold, {**candidate, **draw(st.dictionaries(
        st.sampled_from([*FIELD_KEYS, "e", "aa"]), field_values, max_size=2))}


@settings(max_examples=200, deadline=None)
@given(object_schemas, document_pairs(), st.booleans())
def test_score_equals_align_on_records(raw: dict[str, Any],
                                       pair: tuple[dict[str, Any], dict[str, Any]],
                                       strict: bool) -> None:
    gold, candidate = pair
    try:
        parsed = oa_core.Schema.parse(raw)
        expected = oa_core.align(gold, candidate, parsed, strict=strict).score
    except oa_core.OAError as exc:
        with pytest.raises(type(exc)):
            oa_core.score(gold, candidate, raw, strict=strict)
        return
    assert oa_core.score(gold, candidate, parsed, strict=strict).hex() == expected.hex()


# -- score() and align() give the same bits on lists --------------------------------------

def _array_specs(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def build(spec: dict[str, Any], prefix: list[Any], weights: list[float],
              tail: bool) -> dict[str, Any]:
        if prefix:
            spec["prefixItems"] = prefix
            if any(weights):
                spec["prefixWeights"] = weights[:len(prefix)]
            if tail and "items" in spec:
                spec["prefixImportance"], spec["restImportance"] = 1.0, 0.5
            elif "items" in spec:
                del spec["items"]
        return spec

    base = st.fixed_dictionaries({"type": st.just("array")}, optional={
        "items": inner, "order": st.sampled_from(["align", "fixed"]),
        "ignoreMissing": st.booleans(), "ignoreExcess": st.booleans()})
    return st.builds(build, base, st.lists(inner, max_size=2),
                     st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=2, max_size=2),
                     st.booleans())


list_schemas = _object_specs(st.recursive(
    leaf_specs | st.just({}), lambda inner: _object_specs(inner) | _array_specs(inner),
    max_leaves=8))
list_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, 2.0])
    | st.sampled_from(["x", "xy", "yx", "", "abc"]),
    lambda inner: st.dictionaries(st.sampled_from([*FIELD_KEYS, "e"]), inner, max_size=3)
    | st.lists(inner, max_size=4),
    max_leaves=14)


@st.composite
def list_documents(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A gold and a candidate with lists: unrelated, or the gold with lists shuffled,
    truncated or extended and values changed."""
    gold = draw(st.dictionaries(st.sampled_from(FIELD_KEYS), list_values, min_size=1,
                                max_size=4))
    if draw(st.booleans()):
        return gold, draw(st.dictionaries(st.sampled_from(FIELD_KEYS), list_values,
                                          min_size=1, max_size=4))

    def vary(value: Any) -> Any:
        if isinstance(value, list):
            items = [vary(v) for v in draw(st.permutations(value))]
            return items[:draw(st.integers(0, len(items)))] + draw(
                st.lists(list_values, max_size=1))
        if isinstance(value, dict):
            return {k: vary(v) for k, v in value.items()}
        return value if draw(st.booleans()) else draw(list_values)

    return gold, {k: vary(v) for k, v in gold.items()}


@settings(max_examples=100, deadline=None)
@given(list_schemas, list_documents())
def test_score_equals_align_on_lists(raw: dict[str, Any],
                                     pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    gold, candidate = pair
    try:
        parsed = oa_core.Schema.parse(raw)
        expected = oa_core.align(gold, candidate, parsed).score
    except oa_core.OAError as exc:
        with pytest.raises(type(exc)):
            oa_core.score(gold, candidate, raw)
        return
    assert oa_core.score(gold, candidate, parsed).hex() == expected.hex()


def _strip(node: Any) -> Any:
    """A schema without its scopes (``idScope`` and ``ref`` removed at any depth)."""
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in ("idScope", "ref")}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_score_equals_align_on_every_sample_without_scopes(folder: Path) -> None:
    docs = _documents(folder)
    for schema_file in sorted(folder.glob("schema*.json")):
        parsed = oa_core.Schema.parse(_strip(json.loads(schema_file.read_text())))
        for candidate in docs:
            full = oa_core.align(docs[0], candidate, parsed).score
            assert oa_core.score(docs[0], candidate, parsed).hex() == full.hex()


def test_score_equals_align_on_the_benchmark_records() -> None:
    from benchmarks.peers import flat_case, oa_schema
    from benchmarks.throughput import flat_pairs
    cases = [(flat_pairs(100)[0], flat_pairs()[1]),
             (flat_case(100), oa_schema(5, 5, listed=False))]
    for pairs, raw in cases:
        parsed = oa_core.Schema.parse(raw)
        for gold, candidate in pairs:
            full = oa_core.align(gold, candidate, parsed).score
            assert oa_core.score(gold, candidate, parsed).hex() == full.hex()


# -- the benchmarks run (smoke tests; never timed here) -----------------------------------

def test_throughput_benchmark_measures_every_workload() -> None:
    from benchmarks import throughput
    for workload in throughput.WORKLOADS:
        row = throughput.measure(workload, "score", repeat=1, seconds=0.01)
        assert row["pairs_per_s"] > 0 and row["peak_mib"] >= 0 and row["pairs"] >= 1
    assert throughput.measure("running", "score", 1, 0.01)["score_sum"] == 0.7678571428571429
    # score on prepared golds: the same scores as score (measure checks)
    assert throughput.measure("org2graph", "score_prepared", 1, 0.01)["pairs"] == 200


def test_peers_benchmark_cases_and_scores() -> None:
    from benchmarks import peers
    gold, candidate = peers.list_case(50, 100)
    assert len(gold["items"]) == 50 and len(candidate["items"]) == 100
    gold, candidate = peers.list_case(500, 500)
    assert len(candidate["items"]) == 500
    pytest.importorskip("stickler")
    row = peers.measure("list50", repeat=1, memory=False)  # Stickler traced: 20 s
    assert row["max_score_difference"] < 1e-12 and row["ratio"] > 0
    assert row["oa_peak_mib"] is None
    row = peers.measure("flat", repeat=1)
    assert row["max_score_difference"] < 1e-12 and row["stickler_peak_mib"] > 0


# -- score(): the scopes resolved without what only align shows -----------------------

def _scope_cases() -> list[tuple[str, Any, Any, oa_core.Schema]]:
    from synthetic import hostile, make_org2graph_example

    cases = []
    for folder in EXAMPLES:
        docs = _documents(folder)
        for schema_file in sorted(folder.glob("schema*.json")):
            parsed = oa_core.Schema.parse(json.loads(schema_file.read_text()))
            if parsed.scopes:
                cases += [(f"{folder.name}/{schema_file.name}", docs[0], doc, parsed)
                          for doc in docs[1:]]
    for seed in range(6):
        gold, candidate, raw = make_org2graph_example(4 + seed, 0.5, seed % 4, seed=seed)
        cases.append((f"org2graph-{seed}", gold, candidate, oa_core.Schema.parse(raw)))
    for seed in range(60):
        raw, gold, candidate = hostile.triple(seed)
        try:
            parsed = oa_core.Schema.parse(raw, comparators=hostile.COMPARATORS)
        except oa_core.SchemaError:
            continue
        if parsed.scopes:
            cases.append((f"hostile-{seed}", gold, candidate, parsed))
    return cases


@pytest.mark.parametrize("mode", ["tie_break", "blend", "none"])
def test_score_equals_align_with_scopes(mode: str) -> None:
    """score() resolves the scopes without what only align shows, and has align's
    bits (or its error's type and message) on samples, Org2Graph and hostile triples."""
    checked = 0
    for name, gold, candidate, parsed in _scope_cases():
        opts = oa_core.AlignOptions(wl_mode=mode)
        try:
            expected = oa_core.align(gold, candidate, parsed, opts).score
        except oa_core.OAError as exc:
            with pytest.raises(type(exc)) as raised:
                oa_core.score(gold, candidate, parsed, opts)
            assert str(raised.value) == str(exc), name
            continue
        assert oa_core.score(gold, candidate, parsed, opts).hex() == expected.hex(), name
        checked += 1
    assert checked >= 20


# -- prepare_gold: a gold checked and indexed once -----------------------------------

def _outcome(gold: Any, candidate: Any, schema: oa_core.Schema, mode: str) -> str:
    """A score's bits, or the error it raised (type, pointer and message)."""
    try:
        return oa_core.score(gold, candidate, schema, wl_mode=mode).hex()
    except oa_core.OAError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("mode", ["tie_break", "blend", "none"])
def test_prepared_gold_scores_the_same_bits(mode: str) -> None:
    """score(prepare_gold(g, s), c, s) has score(g, c, s)'s bits (or its error) on
    every sample (with and without scopes), Org2Graph pairs and hostile triples."""
    cases = list(_scope_cases())
    for folder in EXAMPLES:
        docs = _documents(folder)
        for schema_file in sorted(folder.glob("schema*.json")):
            parsed = oa_core.Schema.parse(json.loads(schema_file.read_text()))
            if not parsed.scopes:
                cases += [(folder.name, docs[0], doc, parsed) for doc in docs[1:]]
    checked = 0
    for name, gold, candidate, parsed in cases:
        try:
            prepared = oa_core.prepare_gold(gold, parsed)
        except oa_core.OAError as exc:  # what score raises for this gold
            with pytest.raises(type(exc)):
                oa_core.score(gold, candidate, parsed, wl_mode=mode)
            continue
        for _ in range(2):  # the index is read again, never changed
            assert (_outcome(prepared, candidate, parsed, mode)
                    == _outcome(gold, candidate, parsed, mode)), name
        checked += 1
    assert checked >= 30


def test_prepared_gold_is_a_frozen_copy() -> None:
    """Changing the document a gold was prepared from changes no later score (the
    prepared index itself: tests/test_native_gold.py)."""
    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, raw = (json.loads((folder / f"{n}.json").read_text())
                            for n in ("gold", "candidate", "schema"))
    schema = oa_core.Schema.parse(raw)
    prepared = oa_core.prepare_gold(gold, schema)
    assert oa_core.score(prepared, candidate, schema) == 0.7678571428571429
    assert oa_core.score(prepared, candidate, schema) == 0.7678571428571429
    gold["people"][0]["name"] = "Zed"
    gold["people"].pop()
    gold["mentorships"].clear()
    assert oa_core.score(prepared, candidate, schema) == 0.7678571428571429
    assert oa_core.score(gold, candidate, schema) != 0.7678571428571429
    with pytest.raises(AttributeError):
        prepared.schema = schema  # type: ignore[misc]


def test_prepared_gold_under_another_schema_or_limits_is_checked_again() -> None:
    """Another schema object, other limits or comparators: the prepared gold is
    checked (and indexed) again, as a plain gold would be."""
    raw = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"},
                                            "b": {"type": "array", "items": {}}}}
    gold = {"a": "x", "b": [[1]]}
    prepared = oa_core.prepare_gold(gold, raw)
    assert oa_core.score(prepared, gold, prepared.schema) == 1.0
    assert oa_core.score(prepared, {"a": "y", "b": [[1]]}, raw) == oa_core.score(
        gold, {"a": "y", "b": [[1]]}, raw)
    stricter = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with pytest.raises(oa_core.InputError, match="gold violates the schema"):
        oa_core.score(prepared, {"a": 1}, stricter)
    shallow = oa_core.Limits(max_depth=1)
    with pytest.raises(oa_core.InputError) as plain:
        oa_core.score(gold, {"a": "x"}, prepared.schema, limits=shallow)
    with pytest.raises(oa_core.InputError) as again:
        oa_core.score(prepared, {"a": "x"}, prepared.schema, limits=shallow)
    assert str(again.value) == str(plain.value)


def test_prepare_gold_refuses_what_score_refuses() -> None:
    schema = oa_core.Schema.parse({"type": "object", "properties": {"a": {"type": "integer"}}})
    with pytest.raises(oa_core.InputError, match="gold violates the schema"):
        oa_core.prepare_gold({"a": "x"}, schema)
    with pytest.raises(oa_core.InputError):
        oa_core.prepare_gold({"a": float("nan")}, schema)
