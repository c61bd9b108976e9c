"""Synthetic generators: determinism, structure, edit operations and exact score identities."""

from __future__ import annotations

import importlib.util
import itertools
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from synthetic import facts2order as f2o
from synthetic import make_org2graph_example
from synthetic import org2graph as o2g

RA = oa_core.Schema.parse(o2g.schema(True))
PLAIN = oa_core.Schema.parse(o2g.schema(False))
FIXED = oa_core.Schema.parse(f2o.schema("fixed"))
ALIGN = oa_core.Schema.parse(f2o.schema("align"))
RECORDS = ("people", "companies")
EDGES = ("employment", "acquaintance", "partnership")


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def gold_for(seed: int, **params: Any) -> dict[str, Any]:
    r = rng(seed)
    p = o2g.Org2GraphParams(**params) if params else o2g.sample_params(r)
    return o2g.generate(p, r).gold


def ids_of(doc: dict[str, Any], scope: str) -> list[str]:
    return [r["id"] for r in doc[scope]]


def assert_well_formed(doc: dict[str, Any]) -> None:
    people, companies = set(ids_of(doc, "people")), set(ids_of(doc, "companies"))
    assert len(people) + len(companies) == len(doc["people"]) + len(doc["companies"])
    assert not people & companies
    for e in doc["employment"]:
        assert e["person"] in people and e["company"] in companies
    for e in doc["acquaintance"]:
        assert e["source"] in people and e["target"] in people
    for e in doc["partnership"]:
        assert e["source"] in companies and e["target"] in companies


def edges(doc: dict[str, Any]) -> int:
    return sum(len(doc[k]) for k in EDGES)


def lcs(a: list[int], b: list[int]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, j in itertools.product(range(len(a)), range(len(b))):
        table[i + 1][j + 1] = (table[i][j] + 1 if a[i] == b[j]
                               else max(table[i][j + 1], table[i + 1][j]))
    return table[-1][-1]


def overlap(a: list[int], b: list[int]) -> int:
    return sum((Counter(a) & Counter(b)).values())


# ------------------------------------------------------------------------- Org2Graph


def test_generation_is_deterministic_per_seed() -> None:
    assert gold_for(11) == gold_for(11)
    assert gold_for(11) != gold_for(12)
    assert make_org2graph_example(6, 0.5, 3, seed=4) == make_org2graph_example(6, 0.5, 3, seed=4)
    assert make_org2graph_example(6, 0.5, 3, seed=4) != make_org2graph_example(6, 0.5, 3, seed=5)
    g = gold_for(3)
    for op in o2g.EDIT_OPERATIONS.values():
        assert op(g, rng(9), None) == op(g, rng(9), None)
    assert o2g.relabel(g, rng(1), shuffle=True) == o2g.relabel(g, rng(1), shuffle=True)


@pytest.mark.parametrize("seed", range(20))
def test_generated_graph_structure(seed: int) -> None:
    r = rng(seed)
    params = o2g.sample_params(r)
    inst = o2g.generate(params, r)
    g = inst.gold
    assert_well_formed(g)
    assert len(g["people"]) == params.n_people and len(g["companies"]) == params.n_companies
    assert sorted(e["person"] for e in g["employment"]) == sorted(ids_of(g, "people"))
    for scope, field in (("people", "title"), ("companies", "industry")):
        combos = Counter((rec["name"], rec[field]) for rec in g[scope])
        n_twins = round(params.twin_density * len(g[scope]))
        repeated = [c for c in combos.values() if c > 1]
        assert repeated == ([n_twins] if n_twins >= 2 else [])
    for array, field, book in (("people", "title", "title"), ("companies", "industry", "industry"),
                               ("employment", "role", "role"),
                               ("acquaintance", "relation", "acquaintance"),
                               ("partnership", "relation", "partnership")):
        assert {rec[field] for rec in g[array]} <= set(inst.vocabulary.codebooks[book])
        assert len(inst.vocabulary.codebooks[book]) == o2g.WIDTHS["narrow"][book]
    assert edges(g) == inst.text.count(" works at ") + len(g["acquaintance"]) + len(
        g["partnership"])
    assert not any(i in inst.text for i in ids_of(g, "people"))


def test_wide_obfuscated_vocabulary() -> None:
    params = o2g.Org2GraphParams(n_people=10, n_companies=5, width="wide", obfuscate=True)
    inst = o2g.generate(params, rng(0))
    titles = {p["title"] for p in inst.gold["people"]}
    assert all(t.startswith("T") and t[1:].isdigit() for t in titles)
    assert {len(v) for v in inst.vocabulary.codebooks.values()} == {24, 20, 12}
    assert all(inst.vocabulary.legend[t] in inst.text for t in titles)
    assert not any(t in inst.text for t in titles)


def test_relabel_renumbers_everything_and_keeps_the_graph() -> None:
    g = gold_for(5, n_people=8, n_companies=4, twin_density=0.5)
    old = ids_of(g, "people") + ids_of(g, "companies")
    c = o2g.relabel(g, rng(2))
    new = ids_of(c, "people") + ids_of(c, "companies")
    assert_well_formed(c)
    assert not set(old) & set(new)
    back = dict(zip(new, old, strict=True))
    assert {k: [{f: back.get(v, v) for f, v in rec.items()} for rec in items]
            for k, items in c.items()} == g

    shuffled = o2g.relabel(g, rng(2), shuffle=True)
    assert_well_formed(shuffled)
    assert not set(old) & set(ids_of(shuffled, "people") + ids_of(shuffled, "companies"))
    for scope in RECORDS:
        def attrs(doc: dict[str, Any], scope: str = scope) -> list[str]:
            return sorted(str({k: v for k, v in r.items() if k != "id"}) for r in doc[scope])
        assert attrs(shuffled) == attrs(g)
    assert [r["name"] for r in shuffled["people"]] != [r["name"] for r in g["people"]]
    assert all(len(shuffled[k]) == len(g[k]) for k in g)


@pytest.mark.parametrize("seed", range(12))
def test_relabel_only_copies_score_exactly_one_under_ra(seed: int) -> None:
    twin_density = 1.0 if seed % 3 == 0 else seed / 12
    g = gold_for(seed, n_people=3 + seed % 8, n_companies=2 + seed % 3,
                 twin_density=twin_density, acquaintance_density=0.4)
    for shuffle in (False, True):
        c = o2g.relabel(g, rng(100 + seed), shuffle=shuffle)
        assert oa_core.score(g, c, RA) == 1.0
    assert oa_core.score(g, o2g.relabel(g, rng(seed)), PLAIN) < 1.0


def test_edit_operations_change_the_document_as_specified() -> None:
    g = gold_for(21, n_people=6, n_companies=3, acquaintance_density=0.5)
    out = o2g.categorical_relabel(g, rng(0))
    diffs = [(k, i) for k in g for i, (a, b) in enumerate(zip(g[k], out[k], strict=True))
             if a != b]
    assert len(diffs) == 1

    out = o2g.reroute_reference(g, rng(0))
    assert_well_formed(out)
    changed = [(a, b) for k in EDGES for a, b in zip(g[k], out[k], strict=True) if a != b]
    assert len(changed) == 1 and sum(changed[0][0][f] != changed[0][1][f]
                                     for f in changed[0][0]) == 1

    for seed in range(6):
        out = o2g.delete_record(g, rng(seed))
        assert_well_formed(out)
        assert sum(len(out[s]) for s in RECORDS) == sum(len(g[s]) for s in RECORDS) - 1

        out = o2g.insert_record(g, rng(seed))
        assert_well_formed(out)
        (new,) = set(ids_of(out, "people") + ids_of(out, "companies")) - set(
            ids_of(g, "people") + ids_of(g, "companies"))
        assert len(out["employment"]) == len(g["employment"]) + (new in ids_of(out, "people"))

        out = o2g.insert_edge(g, rng(seed))
        assert_well_formed(out)
        assert edges(out) == edges(g) + 1
        added = (out["acquaintance"] + out["partnership"])[-1]
        assert added["source"] != added["target"]

    assert edges(o2g.delete_edge(g, rng(0))) == edges(g) - 1
    assert g == gold_for(21, n_people=6, n_companies=3, acquaintance_density=0.5)


def test_infeasible_edits_raise() -> None:
    tiny = {"people": [{"id": "a", "name": "Ada", "title": "nurse"}],
            "companies": [{"id": "c", "name": "Orlen", "industry": "energy"}],
            "employment": [], "acquaintance": [], "partnership": []}
    for op in (o2g.reroute_reference, o2g.delete_record, o2g.delete_edge, o2g.insert_edge):
        with pytest.raises(o2g.InfeasibleEdit):
            op(tiny, rng(0))
    out, applied = o2g.apply_edits(tiny, {"edge_deletion": 3}, rng(0))
    assert applied == [] and out == tiny


@pytest.mark.parametrize("op", ["categorical_relabel", "record_deletion", "edge_deletion",
                                "record_insertion", "edge_insertion"])
def test_non_isomorphic_edits_lower_the_ra_score(op: str) -> None:
    for seed in range(4):
        g = gold_for(seed, n_people=5, n_companies=3, twin_density=0.4)
        c, applied = o2g.apply_edits(o2g.relabel(g, rng(seed)), {op: 1}, rng(seed))
        assert applied == [op]
        assert oa_core.score(g, c, RA) < 1.0


def test_schema_variants() -> None:
    ra, plain = o2g.schema(True), o2g.schema(False)
    assert "idScope" in str(ra) and "'ref'" in str(ra)
    assert "idScope" not in str(plain) and "'ref'" not in str(plain)
    assert make_org2graph_example(5, 0.0, 0, seed=0, referential=False)[2] == plain


# ----------------------------------------------------------------------- Facts2Order


def test_facts2order_generation() -> None:
    inst = f2o.generate(f2o.Facts2OrderParams(n_items=6, key_type="integer", hidden=True),
                        rng(1))
    weights = {}
    for line in inst.text.splitlines():
        if "weighs" in line:
            label = len(weights) + 1
            weights[label] = int(line.split("weighs ")[1].split()[0])
    assert inst.gold == sorted(weights, key=weights.get)
    assert inst.text.count("Item ") == 6
    assert f2o.generate(f2o.sample_params(rng(4)), rng(4)) == f2o.generate(
        f2o.sample_params(rng(4)), rng(4))
    for key_type in f2o.KEY_TYPES:
        p = f2o.Facts2OrderParams(n_items=12, key_type=key_type, n_distractors=3)
        assert sorted(f2o.generate(p, rng(7)).gold) == list(range(1, 13))


@pytest.mark.parametrize("seed", range(10))
def test_corruption_pairs_are_tagged_correctly(seed: int) -> None:
    n = 3 + seed
    gold = [int(x) + 1 for x in rng(seed).permutation(n)]
    pairs = f2o.corruption_pairs(gold, rng(seed))
    assert pairs == f2o.corruption_pairs(gold, rng(seed))
    assert len(pairs) == n + 2 + min(3, n - 1) + 3
    assert pairs[0].family == "none" and pairs[0].candidate == gold
    for p in pairs[1:]:
        assert p.candidate != gold
        assert p.distance == f2o.kendall_distance(gold, p.candidate)
        if p.family in ("deletion", "insertion"):
            assert p.distance is None
            sign = -1 if p.family == "deletion" else 1
            assert len(p.candidate) == n + sign * p.k
            assert set(p.candidate) <= set(gold)
        else:
            assert sorted(p.candidate) == sorted(gold) and p.distance > 0


@given(st.permutations(range(1, 9)))
@settings(max_examples=60, deadline=None)
def test_kendall_distance_and_tau(perm: list[int]) -> None:
    gold = list(range(1, 9))
    brute = sum(perm.index(a) > perm.index(b) for a, b in itertools.combinations(gold, 2))
    assert f2o.kendall_distance(gold, perm) == brute
    assert f2o.kendall_tau(gold, perm) == pytest.approx(1 - 4 * brute / (8 * 7))


@given(n=st.integers(1, 9), data=st.data())
@settings(max_examples=150, deadline=None)
def test_exact_integer_lists_score_lcs_and_overlap_ratios(n: int, data: Any) -> None:
    gold = data.draw(st.permutations(range(1, n + 1)))
    cand = data.draw(st.lists(st.integers(1, n + 2), max_size=n + 3))
    g, c = {"indices": list(gold)}, {"indices": cand}
    length = lcs(list(gold), cand)
    inter = overlap(list(gold), cand)
    assert oa_core.score(g, c, FIXED) == pytest.approx(length / (n + len(cand) - length),
                                                       abs=1e-12)
    assert oa_core.score(g, c, ALIGN) == pytest.approx(inter / (n + len(cand) - inter),
                                                       abs=1e-12)


def test_generated_pairs_score_lcs_and_overlap_ratios_exactly() -> None:
    for seed in range(15):
        r = rng(seed)
        gold = f2o.generate(f2o.sample_params(r), r).gold
        for p in f2o.corruption_pairs(gold, r):
            n, m = len(p.gold), len(p.candidate)
            length, inter = lcs(p.gold, p.candidate), overlap(p.gold, p.candidate)
            g, c = {"indices": p.gold}, {"indices": p.candidate}
            assert oa_core.score(g, c, FIXED) == length / (n + m - length)
            assert oa_core.score(g, c, ALIGN) == inter / (n + m - inter)


def test_order_schema_variants() -> None:
    assert f2o.schema()["properties"]["indices"]["order"] == "fixed"
    assert f2o.schema("align")["properties"]["indices"]["order"] == "align"
    near = f2o.schema(items="invdiff")
    assert oa_core.score({"indices": [1, 2]}, {"indices": [1, 3]}, near) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        f2o.schema("sorted")  # type: ignore[arg-type]


# ------------------------------------------------------------------------- benchmark


def test_intrinsic_benchmark_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "intrinsic.py"
    spec = importlib.util.spec_from_file_location("intrinsic_benchmark", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--golds", "2", "--order-golds", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"RA: copies scoring exactly 1\.0\s+10/10\s", out)
    assert re.search(r"pairs where sequence != L/\(n\+m-L\)\s+0\s", out)
    assert re.search(r"pairs where set != I/\(n\+m-I\)\s+0\s", out)
    assert bench.auroc([1.0, 0.9], [0.5, 0.9]) == 0.875
