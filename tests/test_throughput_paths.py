"""Fast paths give the same answers as the slow ones (issue 14).

The fast validation path (the Rust conversion and schema shape) has its own file,
``tests/test_validation_native.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import oa_core
from oa_core.errors import InputError
from oa_core.options import Limits
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


# -- schemas without scopes skip the referential stage ------------------------------------

def test_no_scopes_resolve_to_nothing() -> None:
    from oa_core.referential import index_document, resolve_scopes
    for folder in EXAMPLES:
        for schema_file in sorted(folder.glob("schema*.json")):
            parsed = oa_core.Schema.parse(json.loads(schema_file.read_text()))
            if parsed.scopes:
                continue
            for doc in _documents(folder):
                resolved = resolve_scopes(index_document(doc, parsed),
                                          index_document(doc, parsed), parsed,
                                          lambda *a: pytest.fail("no scope to score"))
                assert resolved == ({}, {}, {}, {}, [])


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


# -- score() of objects and leaves without a match tree (oa_core.scoreonly) ---------------

from oa_core.matchtree import Scorer  # noqa: E402
from oa_core.scoreonly import Unsupported, score_objects  # noqa: E402

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


@settings(max_examples=300, deadline=None)
@given(object_schemas, document_pairs())
def test_score_objects_equals_the_match_tree(raw: dict[str, Any],
                                             pair: tuple[dict[str, Any], dict[str, Any]]
                                             ) -> None:
    gold, candidate = pair
    try:
        parsed = oa_core.Schema.parse(raw)
    except oa_core.SchemaError:
        assume(False)
    try:
        quick = score_objects(gold, candidate, parsed)
    except Unsupported:
        return
    full = Scorer(parsed.comparators).node(gold, candidate, parsed.root, "", "").score
    assert quick.hex() == full.hex()


@settings(max_examples=300, deadline=None)
@given(object_schemas, document_pairs())
def test_object_plans_equal_the_general_map(raw: dict[str, Any],
                                            pair: tuple[dict[str, Any], dict[str, Any]]
                                            ) -> None:
    """scoreonly._map's remembered plan (slots, scaled weights, s_key) gives
    map_score's bits: planned (first and second call) against the general form."""
    from oa_core.scoreonly import _map, _map_general

    gold, candidate = pair
    try:
        parsed = oa_core.Schema.parse(raw)
    except oa_core.SchemaError:
        assume(False)
    scorer = Scorer(parsed.comparators, limits=Limits())
    try:
        general = _map_general(scorer, gold, candidate, parsed.root, None)
    except Unsupported:
        with pytest.raises(Unsupported):
            _map(scorer, gold, candidate, parsed.root, None)
        return
    for _ in range(2):  # the plan made, then read from the registry's memo
        assert _map(scorer, gold, candidate, parsed.root, None).hex() == general.hex()


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


def test_score_objects_leaves_scopes_and_limits_to_the_full_path(
        running: tuple[Any, Any, Any]) -> None:
    gold, candidate, raw = running
    with pytest.raises(Unsupported):
        score_objects(gold, candidate, oa_core.Schema.parse(raw))
    # lists only with the caller's limits; over them, the full path names the list
    with pytest.raises(Unsupported):
        score_objects({"a": [1]}, {"a": [1]}, oa_core.Schema.parse({"type": "object"}))
    with pytest.raises(Unsupported):
        score_objects({"a": [1, 2, 3]}, {"a": [3, 2, 1]}, oa_core.Schema.parse(
            {"type": "object"}), Limits(max_matrix_cells=4))
    small = oa_core.AlignOptions(limits=Limits(max_matrix_cells=4))
    with pytest.raises(InputError, match="over the limit"):
        oa_core.score({"a": [1, 2, 3]}, {"a": [3, 2, 1]}, {"type": "object"}, small)


# -- lists without a match tree (oa_core.scoreonly._sequence) -----------------------------

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


@settings(max_examples=300, deadline=None)
@given(list_schemas, list_documents())
def test_score_objects_of_lists_equals_the_match_tree(
        raw: dict[str, Any], pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    gold, candidate = pair
    try:
        parsed = oa_core.Schema.parse(raw)
    except oa_core.SchemaError:
        assume(False)
    full = Scorer(parsed.comparators).node(gold, candidate, parsed.root, "", "").score
    assert score_objects(gold, candidate, parsed, Limits()).hex() == full.hex()


def _strip(node: Any) -> Any:
    """A schema without its scopes (``idScope`` and ``ref`` removed at any depth)."""
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in ("idScope", "ref")}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_score_objects_of_every_sample_without_scopes(folder: Path) -> None:
    docs = _documents(folder)
    for schema_file in sorted(folder.glob("schema*.json")):
        parsed = oa_core.Schema.parse(_strip(json.loads(schema_file.read_text())))
        for candidate in docs:
            full = oa_core.align(docs[0], candidate, parsed).score
            assert score_objects(docs[0], candidate, parsed, Limits()).hex() == full.hex()
            assert oa_core.score(docs[0], candidate, parsed).hex() == full.hex()


def test_score_objects_on_the_benchmark_records() -> None:
    from benchmarks.peers import flat_case, oa_schema
    from benchmarks.throughput import flat_pairs
    cases = [(flat_pairs(100)[0], flat_pairs()[1]),
             (flat_case(100), oa_schema(5, 5, listed=False))]
    for pairs, raw in cases:
        parsed = oa_core.Schema.parse(raw)
        for gold, candidate in pairs:
            full = oa_core.align(gold, candidate, parsed).score
            assert score_objects(gold, candidate, parsed).hex() == full.hex()
            assert oa_core.score(gold, candidate, parsed).hex() == full.hex()


# -- the benchmarks run (smoke tests; never timed here) -----------------------------------

def test_throughput_benchmark_measures_every_workload() -> None:
    from benchmarks import throughput
    for workload in throughput.WORKLOADS:
        row = throughput.measure(workload, "score", repeat=1, seconds=0.01)
        assert row["pairs_per_s"] > 0 and row["peak_mib"] >= 0 and row["pairs"] >= 1
    assert throughput.measure("running", "score", 1, 0.01)["score_sum"] == 0.7678571428571429
    # score_objects with limits: the same scores as score (measure checks), no scopes
    assert throughput.measure("lists", "score_objects", 1, 0.01) is not None
    assert throughput.measure("running", "score_objects", 1, 0.01) is None
    # score on prepared golds: the same scores as score (measure checks)
    assert throughput.measure("org2graph", "score_prepared", 1, 0.01)["pairs"] == 200


def test_peers_benchmark_cases_and_scores() -> None:
    from benchmarks import peers
    gold, candidate = peers.list_case(50, 100)
    assert len(gold["items"]) == 50 and len(candidate["items"]) == 100
    gold, candidate = peers.list_case(500, 500)
    assert len(candidate["items"]) == 500
    pytest.importorskip("stickler")
    row = peers.measure("list50", repeat=1)
    assert row["max_score_difference"] < 1e-12 and row["ratio"] > 0



# -- scope pairing in less memory: the old formulas, kept here as the reference -----------

from oa_helpers import scope_matrices  # noqa: E402

from oa_core.assignment import bipartite_colours  # noqa: E402
from oa_core.referential import _cell_labels  # noqa: E402


def _intern_rows(rows: np.ndarray) -> np.ndarray:
    """The rank of each row among the distinct rows (lexicographic order)."""
    lines = [tuple(line) for line in rows.tolist()]
    rank = {line: k for k, line in enumerate(sorted(set(lines)))}
    return np.array([rank[line] for line in lines], dtype=np.int64)


def _old_labels(matrix: np.ndarray, same: np.ndarray, depth: np.ndarray) -> np.ndarray:
    _, codes = np.unique(matrix, return_inverse=True)
    rounds = int(depth.max(initial=0)) + 1
    return (codes.reshape(matrix.shape).astype(np.int64) * 2
            + same.astype(np.int64)) * rounds + depth


def _old_colours(cells: np.ndarray, row_seed: list[int], col_seed: list[int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    n, m = cells.shape
    rows = _intern_rows(np.asarray(row_seed, dtype=np.int64).reshape(n, 1))
    cols = _intern_rows(np.asarray(col_seed, dtype=np.int64).reshape(m, 1))
    if n == 0 or m == 0:
        return rows, cols
    counts = (len(set(rows.tolist())), len(set(cols.tolist())))
    for _ in range(n + m):
        row_sig = np.sort(cells * (m + 1) + cols[None, :], axis=1)
        col_sig = np.sort(cells.T * (n + 1) + rows[None, :], axis=1)
        new_rows = _intern_rows(np.concatenate([rows[:, None], row_sig], axis=1))
        new_cols = _intern_rows(np.concatenate([cols[:, None], col_sig], axis=1))
        new_counts = (len(set(new_rows.tolist())), len(set(new_cols.tolist())))
        rows, cols = new_rows, new_cols
        if new_counts == counts:
            break
        counts = new_counts
    return rows, cols


@settings(max_examples=300, deadline=None)
@given(scope_matrices())
def test_cell_labels_and_colours_in_place_equal_the_old_ones(case: tuple[Any, ...]) -> None:
    matrix, same, depth, row_seed, col_seed = case
    labels = _cell_labels(matrix, same, depth, np.unique(matrix))
    old = _old_labels(matrix, same, depth)
    assert labels.dtype == old.dtype and (labels == old).all()
    rows, cols = bipartite_colours(labels, row_seed, col_seed)
    old_rows, old_cols = _old_colours(old, row_seed, col_seed)
    assert rows.dtype == old_rows.dtype and (rows == old_rows).all() and (cols == old_cols).all()


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
def test_resolve_for_score_equals_resolve_scopes(mode: str) -> None:
    """What score() reads of the resolution (bijections, candidate ids, the scorer's
    record pairs) is what resolve_scopes and align's final scorer give, and
    score() has align's bits."""
    from oa_core.aligner import _final_scorer, _resolved, _scope_callbacks
    from oa_core.referential import index_document, resolve_for_score

    checked = 0
    for name, gold, candidate, parsed in _scope_cases():
        opts = oa_core.AlignOptions(wl_mode=mode)
        try:
            bijections, candidate_ids, scopes, _, _ = _resolved(gold, candidate, parsed, opts)
        except oa_core.OAError:
            continue
        matrix_fn, evaluate = _scope_callbacks(gold, candidate, parsed, opts)
        lean = resolve_for_score(index_document(gold, parsed), index_document(candidate, parsed),
                                 parsed, matrix_fn, wl_mode=mode, limits=opts.limits,
                                 evaluate=evaluate)
        full = _final_scorer(parsed, opts, bijections, candidate_ids, scopes)
        assert lean[0] == bijections, name
        assert lean[1] == candidate_ids, name
        assert lean[2] == full.record_pairs, name
        try:
            expected = oa_core.align(gold, candidate, parsed, opts).score
        except oa_core.OAError:
            continue
        assert oa_core.score(gold, candidate, parsed, opts).hex() == expected.hex(), name
        checked += 1
    assert checked >= 20


def _index_as_written(document: Any, schema: oa_core.Schema) -> Any:
    """referential.index_document as it was before its scalars were inlined (the
    reference for the test below)."""
    from oa_core.comparators import id_key, value_kind
    from oa_core.referential import _POSITION, Carrier, DocumentIndex, Record, _is_exact
    from oa_core.schema import concrete

    index = DocumentIndex({name: [] for name in schema.scopes}, {})
    root = Carrier("")
    if isinstance(document, dict):
        index.carriers[""] = root

    def walk(value: Any, node: Any, pointer: str, carrier: Any, role: str) -> None:
        if node.inferred or node.type == "any":
            node = concrete(node, value, value)
        if node.id_scope is not None or value is None:
            return
        if node.ref is not None:
            carrier.refs.append((node.ref, role, value))
        elif isinstance(value, dict) and node.type in ("object", "any"):
            declared = [k for k in node.properties if k in value]
            for key in declared + sorted(k for k in value if k not in node.properties):
                child = value[key]
                walk(child, node.property_schema(key),
                     join(pointer, key) if isinstance(child, dict | list) else pointer,
                     carrier, f"{role}/{key}" if role else key)
        elif isinstance(value, list) and node.type in ("array", "any"):
            decl = schema.scope_of_records(node)
            positional = decl is None and node.order == "fixed"
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    item_pointer = join(pointer, i)
                    inner = index.carriers.setdefault(item_pointer, Carrier(item_pointer))
                    if positional:
                        inner.scalars.append((_POSITION, i))
                    if decl is not None:
                        records = index.records[decl.name]
                        inner.record = (decl.name, len(records))
                        record_id = item.get(decl.id_field)
                        records.append(Record(item_pointer, item, record_id, id_key(record_id)))
                    walk(item, node.item_schema(i), item_pointer, inner, "")
                else:
                    slot = str(i) if positional else "*"
                    walk(item, node.item_schema(i),
                         join(pointer, i) if isinstance(item, list) else pointer, carrier,
                         f"{role}/{slot}" if role else slot)
        elif value_kind(value) in ("string", "number", "boolean") and _is_exact(node):
            carrier.scalars.append((role, value))

    walk(document, schema.root, "", root, "")
    return index


def test_index_document_equals_the_walk_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """index_document (scalars of an object handled in its loop) gives the same
    records and carriers, in the same order, as the walk as it was written (the
    Python engine's index: the Rust one leaves the carriers to Rust)."""
    from oa_core.referential import index_document
    from synthetic import hostile

    monkeypatch.setenv("OA_ENGINE", "python")

    cases = [(gold, parsed) for _, gold, _, parsed in _scope_cases()]
    cases += [(candidate, parsed) for _, _, candidate, parsed in _scope_cases()]
    for seed in range(60, 160):  # any nodes, inferred types, undeclared keys, nulls
        raw, gold, candidate = hostile.triple(seed)
        try:
            parsed = oa_core.Schema.parse(raw, comparators=hostile.COMPARATORS)
        except oa_core.SchemaError:
            continue
        cases += [(gold, parsed), (candidate, parsed)]
    for document, parsed in cases:
        new, old = index_document(document, parsed), _index_as_written(document, parsed)
        assert list(new.carriers) == list(old.carriers)
        assert new == old


record_values = st.dictionaries(st.sampled_from(["id", "name", "tags"]),
                                st.integers(0, 3) | st.sampled_from(["a", "b"])
                                | st.lists(st.integers(0, 2), max_size=3), max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(record_values, st.integers(0, 3), st.integers(0, 2)),
                max_size=8))
def test_canonical_texts_only_where_compared(rows: list[tuple[Any, int, int]]) -> None:
    """_with_texts reads the canonical JSON of records sharing a colour only, and
    _targets of ids shared by several records only: the same order and the same
    designations as with every record's text."""
    from oa_core.comparators import id_key
    from oa_core.referential import Record, _record_key, _targets, _with_texts

    def fresh() -> list[Record]:
        return [Record(f"/r/{k}", value, value.get("id"), id_key(value.get("id")))
                for k, (value, _, _) in enumerate(rows)]

    colours = np.array([colour for _, colour, _ in rows], dtype=np.int64)
    records = fresh()
    texts = [_record_key(r) for r in records]
    order = sorted(range(len(rows)), key=lambda k: (int(colours[k]), texts[k]))
    expected = np.empty(len(rows), dtype=np.int64)
    expected[order] = np.arange(len(rows))
    assert _with_texts(colours, fresh()).tolist() == expected.tolist()

    priority = {k: (float(p),) for k, (_, _, p) in enumerate(rows) if p}
    groups: dict[Any, list[int]] = {}
    for k, r in enumerate(records):
        if r.key is not None:
            groups.setdefault(r.key, []).append(k)
    chosen, by_label = {}, []
    for key, members in groups.items():  # _targets as written, every text read
        best = max(priority.get(k, ()) for k in members)
        top = [k for k in members if priority.get(k, ()) == best]
        chosen[key] = min(top, key=lambda k: (_record_key(records[k]), k))
        if len({_record_key(records[k]) for k in top}) > 1:
            by_label.append(chosen[key])
    assert _targets(fresh(), priority) == (chosen, sorted(by_label))


def test_pointers_only_above_record_arrays() -> None:
    """score_with builds JSON Pointers only down to the nodes that hold a scope's
    record array: the same bits as with pointers built everywhere (every node
    marked), on samples, Org2Graph and hostile triples."""
    from oa_core.aligner import _final_scorer, _resolved
    from oa_core.scoreonly import _holding_records, _value, score_with

    checked = 0
    for name, gold, candidate, parsed in _scope_cases():
        opts = oa_core.AlignOptions()
        try:
            bijections, candidate_ids, scopes, _, _ = _resolved(gold, candidate, parsed, opts)
            scorer = _final_scorer(parsed, opts, bijections, candidate_ids, scopes)
            expected = scorer.node(gold, candidate, parsed.root, "", "").score
            lean = score_with(scorer, gold, candidate, parsed)
        except (oa_core.OAError, Unsupported):
            continue
        every = frozenset(node.pointer for node in parsed.root.walk())
        assert _holding_records(parsed) < every or not scopes, name
        full = _value(scorer, gold, candidate, parsed.root, ("", "", every, {}))
        assert lean.hex() == full.hex() == expected.hex(), name
        checked += 1
    assert checked >= 20


primitive_values = (st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, 2.0])
                    | st.sampled_from(["x", "xy", "abc", ""]))


@settings(max_examples=400, deadline=None)
@given(leaf_specs, st.lists(primitive_values, min_size=1, max_size=4),
       st.lists(primitive_values, min_size=1, max_size=4), st.booleans())
def test_leaf_matrix_of_one_kind_equals_node(spec: dict[str, Any], golds: list[Any],
                                             candidates: list[Any], one_kind: bool) -> None:
    """A leaf matrix (one kind on both sides: its block alone; mixed kinds: block by
    block) holds node()'s score of every pair, bit for bit."""
    if one_kind:  # the same kind everywhere: strings
        golds = [str(v) for v in golds]
        candidates = [str(v) for v in candidates]
    try:
        parsed = oa_core.Schema.parse({"type": "object", "properties": {"a": spec}})
    except oa_core.SchemaError:
        assume(False)
    node = parsed.root.properties["a"]
    scorer = Scorer(parsed.comparators)
    matrix = scorer.matrix(golds, candidates, node)
    expected = [[scorer.node(g, c, node, "", "").score.hex() for c in candidates]
                for g in golds]
    assert [[float(v).hex() for v in line] for line in matrix.tolist()] == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=4), st.none() | st.booleans() | st.integers()
                          | st.floats(allow_nan=False, allow_infinity=False)
                          | st.text(max_size=4) | st.just(["unmatched"])
                          | st.just(["dangling"])), max_size=4))
def test_edge_labels_written_directly(items: list[tuple[str, Any]]) -> None:
    """referential._label writes the sorted rows as the JSON encoder does (strings
    through encode_basestring, lone surrogates and escapes included)."""
    from oa_core.comparators import canonical_json, value_kind
    from oa_core.referential import _LABEL_ROWS, _label

    expected = _LABEL_ROWS.encode(sorted((role, value_kind(v), canonical_json(v))
                                         for role, v in items)) if items else ""
    assert _label(items) == expected


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


def test_prepared_gold_is_a_frozen_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing the document a gold was prepared from changes no later score (the
    Python engine's prepared index; tests/test_native_gold.py has the Rust one's)."""
    monkeypatch.setenv("OA_ENGINE", "python")
    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, raw = (json.loads((folder / f"{n}.json").read_text())
                            for n in ("gold", "candidate", "schema"))
    schema = oa_core.Schema.parse(raw)
    prepared = oa_core.prepare_gold(gold, schema)
    assert oa_core.score(prepared, candidate, schema) == 0.7678571428571429
    # the gold's reference graph of the first scope group is kept, and read again
    assert prepared._index is not None and list(prepared._index.graphs) == [
        (frozenset({"person"}), False, False)]
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



# -- the final pass takes a self-contained record's score from C ---------------------

@pytest.mark.parametrize("mode", ["tie_break", "blend", "none"])
def test_known_record_scores_are_the_final_pass_scores(mode: str) -> None:
    """The record scores resolve_for_score hands on (scopes whose records hold no
    reference) are the final scorer's scores of those pairs, bit for bit, and
    score_with gives the same bits with them as without."""
    from oa_core.aligner import _scope_callbacks
    from oa_core.matchtree import Scorer
    from oa_core.pointer import resolve
    from oa_core.referential import index_document, resolve_for_score
    from oa_core.scoreonly import Unsupported, score_with

    known_pairs = 0
    for name, gold, candidate, parsed in _scope_cases():
        opts = oa_core.AlignOptions(wl_mode=mode)
        try:
            oa_core.score(gold, candidate, parsed, opts)
        except oa_core.OAError:
            continue
        matrix_fn, evaluate = _scope_callbacks(gold, candidate, parsed, opts)
        bijections, ids, record_pairs, scores = resolve_for_score(
            index_document(gold, parsed), index_document(candidate, parsed), parsed,
            matrix_fn, wl_mode=mode, limits=opts.limits, evaluate=evaluate)
        scorer = Scorer(parsed.comparators, bijections=bijections, candidate_ids=ids,
                        record_pairs=record_pairs, limits=opts.limits)
        for records, known in scores.items():
            scope, by_pointer = record_pairs[records]
            assert sorted(known) == sorted(by_pointer), name
            for gold_pointer, value in known.items():
                expected = scorer.node(resolve(gold, gold_pointer),
                                       resolve(candidate, by_pointer[gold_pointer]),
                                       parsed.scopes[scope].record, gold_pointer,
                                       by_pointer[gold_pointer]).score
                assert value.hex() == expected.hex(), name
                known_pairs += 1
        try:
            with_known = score_with(scorer, gold, candidate, parsed, scores)
        except Unsupported:
            continue
        assert with_known.hex() == score_with(scorer, gold, candidate, parsed).hex(), name
    assert known_pairs >= 100


def test_records_with_references_are_scored_again() -> None:
    """A scope whose records reference another scope (or hold its records) is not
    self-contained: its pairs are scored in the final pass."""
    from oa_core.referential import _self_contained

    folder = ROOT / "sample_data" / "running_example"
    running = oa_core.Schema.parse(json.loads((folder / "schema.json").read_text()))
    assert _self_contained(running) == ("person",)
    for lead in ({}, {"lead": {"type": "string", "ref": "person"}}):
        nested = oa_core.Schema.parse({"type": "object", "properties": {
            "teams": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string", "idScope": "team"}, **lead,
                "members": {"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "string", "idScope": "person"}}}}}}}}})
        assert _self_contained(nested) == ("person",)
    # records holding their own scope's array (a tree, through $ref): paired by pointer
    tree = oa_core.Schema.parse({"type": "object", "properties": {"people": {
        "type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "person"},
            "reports": {"$ref": "#/properties/people"}}}}}})
    assert _self_contained(tree) == ()
