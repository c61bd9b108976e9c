"""The fuzz benchmark (benchmarks/fuzz.py), its generator, and the defects it found.

The smoke run checks every invariant on a few hundred hostile triples; the regression
tests below are the minimised reproductions of what the fuzz runs found.
"""

from __future__ import annotations

import copy
import json
import math
import signal
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import oa_core
from benchmarks import fuzz
from synthetic import hostile


def test_hostile_triples_are_deterministic_and_golds_are_valid() -> None:
    for seed in range(300):
        triple = hostile.generate(seed)
        assert triple.materialize() == hostile.triple(seed)
        schema, gold, _ = triple.materialize()
        if "sabotage" not in triple.features:
            assert not list(Draft202012Validator(schema).iter_errors(gold)), seed


def test_hostile_variants_keep_the_documents_up_to_order_and_labels() -> None:
    for seed in range(200):
        triple = hostile.generate(seed)
        schema, gold, candidate = triple.materialize()
        _, gold2, candidate2 = triple.materialize(permute=5, sides="both")
        assert json.dumps(gold2, sort_keys=True).count("{") == json.dumps(
            gold, sort_keys=True).count("{")
        assert len(json.dumps(candidate2)) == len(json.dumps(candidate)) or triple.has_align
        if triple.relabel_safe:
            _, gold3, candidate3 = triple.materialize(relabel=9)
            assert gold3 == gold  # only the candidate's ids move
            assert fuzz._id_pairs(schema, candidate, candidate3) or not triple.has_ids or (
                "renamed-key" in triple.features)


def test_fuzz_smoke_run_checks_every_invariant(tmp_path) -> None:
    summary = fuzz.run(triples=300, workers=2, seed=3, size=3, sample_every=100,
                       out_dir=tmp_path, progress=False)
    assert summary["triples"] == 300
    assert all(summary["checked"][k] > 0 for k in "bcdefgh"), summary["checked"]
    lines = (tmp_path / "fuzz-failures.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads((tmp_path / "fuzz.json").read_text())["triples"] == 300
    failures = [json.loads(line) for line in lines]
    assert summary["failed"] == bool(failures)
    assert not failures, fuzz.digest(failures, budget=5)


def test_the_harness_reports_raw_exceptions_and_hangs(tmp_path, monkeypatch) -> None:
    real = fuzz.check_triple

    def hostile_engine(seed: int, **kwargs: Any) -> dict[str, Any]:
        if seed % 4 == 1:
            raise_in = kwargs["check"]
            raise_in.call("a", "feedback", lambda: {}["missing"])
        if seed % 4 == 2:
            while True:  # a hang in Python: the CPU-time alarm stops it
                pass
        if seed % 4 == 3:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF})
            time.sleep(60)  # deaf to the alarm: the watchdog kills the worker
        return real(seed, **kwargs)

    monkeypatch.setattr(fuzz, "check_triple", hostile_engine)  # the forked workers see it
    summary = fuzz.run(triples=4, workers=2, seed=0, size=2, sample_every=0, timeout=1.0,
                       out_dir=tmp_path, progress=False)
    assert summary["raw_exceptions"] == {"KeyError": 1}
    assert summary["hangs"] == 2
    assert summary["failed"]
    assert fuzz.main(["--from-results", "--out", str(tmp_path)]) == 1


def test_shrinker_minimises_a_failure() -> None:
    def shows(schema: Any, gold: Any, candidate: Any) -> bool:
        return isinstance(gold, dict) and "x" in gold

    docs = fuzz.shrink([{"type": "object"}, {"x": [1, 2, {"y": 3}], "z": "long"}, [1, 2]],
                       shows, budget=10)
    assert docs[1] == {"x": 1}
    assert docs[2] == 1 or docs[2] == []


# -- regression tests: minimised reproductions from the fuzz runs -------------------------

EXACT = {"type": "string", "score": "exact"}


def test_untyped_scope_records_that_are_not_objects_score_one_against_themselves() -> None:
    schema = {"items": {"properties": {"k": {"type": "string", "idScope": "S"}}}}
    assert oa_core.score(["2"], ["2"], schema) == 1.0
    nested = {"properties": {"P": schema}}
    assert oa_core.score({"P": ["2"]}, {"P": ["2"]}, nested) == 1.0


def test_relabelling_twins_keeps_the_bits() -> None:
    schema = {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {
            "type": "object", "properties": {"id": {"type": "integer", "idScope": "person"},
                                             "name": EXACT}}},
        "links": {"type": "array", "order": "align", "items": {
            "type": "object", "properties": {"src": {"type": "integer", "ref": "person"},
                                             "dst": {"type": "integer", "ref": "person"},
                                             "kind": EXACT}}}}}
    people = [{"id": i, "name": "Ann"} for i in (1, 2, 3, 4)]
    gold = {"people": people, "links": [{"src": 4, "dst": 3, "kind": "mentor"},
                                        {"src": 3, "dst": 1, "kind": "mentor"}]}
    cand = {"people": people, "links": [{"src": 4, "dst": 2, "kind": "mentor"},
                                        {"src": 3, "dst": 1, "kind": "mentor"}]}
    label = {1: 138, 2: 155, 3: 179, 4: 110}
    relabelled = {"people": [{"id": label[p["id"]], "name": "Ann"} for p in people],
                  "links": [{**link, "src": label[link["src"]], "dst": label[link["dst"]]}
                            for link in cand["links"]]}
    # 1-WL cannot tell these twins apart on the damaged candidate and no reference
    # through the pairing does either; the documents' score does (the content rule).
    for mode in ("tie_break", "blend", "none"):
        assert oa_core.score(gold, relabelled, schema, wl_mode=mode) == oa_core.score(
            gold, cand, schema, wl_mode=mode), mode
    # Several pairings share the best score (the candidate's two links are symmetric
    # to the gold's chain): the score cannot follow the labels, the pairing may, and
    # the pairs are reported as label ties.
    assert len(oa_core.align(gold, cand, schema).scopes["person"].label_ties) == 4


def test_self_referencing_twins_with_equal_ids_keep_the_bits_under_permutation() -> None:
    record = {"properties": {"i/d": {"type": "string", "idScope": "a ~ b"},
                             "friend": {"type": "string", "ref": "a ~ b"}}}
    schema = {"properties": {"p/l1": {"items": {"$ref": "#/$defs/R"}, "order": "align"}},
              "$defs": {"R": record}}
    gold = {"p/l1": [{"i/d": " ", "name": "closing", "friend": " "},
                     {"i/d": " ", "name": "😀😀", "friend": " "}]}
    cand = {"p/l1": [{"i/d": " ", "name": "😀😀", "friend": " ~ "},
                     {"i/d": " ~ ", "name": "closing", "friend": " ~ "}]}
    for mode in ("tie_break", "blend"):
        before = oa_core.score(gold, cand, schema, wl_mode=mode)
        swapped = {"p/l1": gold["p/l1"][::-1]}
        assert oa_core.score(swapped, cand, schema, wl_mode=mode) == before, mode
        assert oa_core.score(gold, {"p/l1": cand["p/l1"][::-1]}, schema,
                             wl_mode=mode) == before, mode


def test_dangling_references_into_an_empty_scope_do_not_depend_on_labels() -> None:
    schema = {"properties": {
        "p/l0": {"items": {"properties": {"ключ": {"type": "integer", "idScope": "~s"},
                                          "boss_1": {"type": "string", "ref": "org"}}}},
        "k": {"$ref": "#/$defs/A2"},
        "links1": {"items": {"properties": {"src": {"type": "integer", "ref": "~s"}}}}},
        "$defs": {"A2": {"items": {"properties": {"": {"type": "string", "idScope": "org"}}}}}}
    gold = {"p/l0": [{"ключ": 10**300 + 4}], "links1": [{"src": 10**300 + 4}]}
    cand = {"p/l0": [{"ключ": 1, "boss_1": " "}, {"ключ": 5635515, "boss_1": "r"}],
            "links1": [{"src": 1}]}
    relabelled = {"p/l0": [{"ключ": 1, "boss_1": "Ω"}, {"ключ": 8570813, "boss_1": "r"}],
                  "links1": [{"src": 1}]}
    for mode in ("tie_break", "blend", "none"):
        assert oa_core.score(gold, relabelled, schema, wl_mode=mode) == oa_core.score(
            gold, cand, schema, wl_mode=mode), mode


def test_the_label_of_a_dangling_reference_does_not_matter() -> None:
    schema = {"type": "object", "properties": {"people": {
        "type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "S"}, "f": {"type": "integer", "ref": "S"}}}}}}
    gold = {"people": [{"f": 1}]}
    first = {"people": [{"id": 7}, {"id": 7, "f": 7}, {"k": 1, "f": 5}]}
    second = {"people": [{"id": 7}, {"id": 7, "f": 7}, {"k": 1, "f": 9}]}  # 5 -> 9
    for mode in ("tie_break", "blend", "none"):
        assert oa_core.score(gold, first, schema, wl_mode=mode) == oa_core.score(
            gold, second, schema, wl_mode=mode), mode


def test_ops_give_a_dangling_reference_when_the_gold_one_dangles() -> None:
    schema = {"properties": {
        "0": {"items": {"$ref": "#/$defs/"}},
        "people2": {"items": {"properties": {"boss_0": {"type": "string", "ref": "a ~ b"}}}}},
        "$defs": {"": {"properties": {"id": {"type": "string", "idScope": "a ~ b"}}}}}
    gold = {"0": [{"id": "p2"}], "people2": [{"boss_0": "z"}]}
    cand = {"people2": [{"boss_0": "p2"}]}
    fb = oa_core.feedback(gold, cand, schema, top_k=10**6)
    assert oa_core.score(gold, oa_core.apply_ops(cand, fb.ops), schema) == 1.0


def test_applying_the_ops_repairs_a_scope_with_a_repeated_gold_id() -> None:
    schema = {"properties": {"recs": {"items": {"properties": {
        "id": {"type": "string", "idScope": "0"}, "~r": {"type": "string", "ref": "0"}}}}}}
    gold = {"recs": [{"id": "2"}, {"id": "2", "~r": "2"}]}
    cand = {"recs": [{"kind": "m", "~r": 1}]}
    fb = oa_core.feedback(gold, cand, schema, top_k=10**6)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1 - fb.score)) <= 1e-12
    assert oa_core.score(gold, oa_core.apply_ops(copy.deepcopy(cand), fb.ops), schema) == 1.0


def test_ops_repair_a_scope_whose_gold_repeats_an_id() -> None:
    schema = {"properties": {
        "p/l0": {"items": {"properties": {"": {"type": "integer", "idScope": "org"}}}},
        "links1": {"items": {"properties": {"dst": {"type": "integer", "ref": "org"}}}}}}
    gold = {"p/l0": [{"": 3}, {"": 1}, {"": 1}], "links1": [{"dst": 1}]}
    cand = {"p/l0": [{"": 7360052}]}
    fb = oa_core.feedback(gold, cand, schema, top_k=10**6)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1 - fb.score)) <= 1e-12
    assert oa_core.score(gold, oa_core.apply_ops(cand, fb.ops), schema) == 1.0


def test_relabelling_repeated_candidate_ids_keeps_the_bits() -> None:
    schema = {"$ref": "#/$defs/ ~0 ", "$defs": {
        "t~x": {"items": {"properties": {"i/d": {"type": "integer", "idScope": "a ~ b"}}}},
        "x y": {"$ref": "#/$defs/t~0x"},
        " ~ ": {"properties": {"p/l1": {"$ref": "#/$defs/x y"}, "links0": {"items": {
            "properties": {"dst": {"type": "integer", "ref": "a ~ b"}}}}}}}}
    gold = {"p/l1": [{"i/d": 2**53 + 1}, {"i/d": 1, "name": "Ann"}],
            "links0": [{"dst": 2**53 + 1}]}
    cand = {"p/l1": [{"i/d": 7976390}, {"name": "Ann", "i/d": 7976390},
                     {"i/d": 9185207, "name": "Ann"}], "links0": [{"dst": 7976390}]}
    relabelled = {"p/l1": [{"i/d": 7374481}, {"name": "Ann", "i/d": 7374481},
                           {"i/d": 5874722, "name": "Ann"}], "links0": [{"dst": 7374481}]}
    for mode in ("tie_break", "blend", "none"):
        assert oa_core.score(gold, relabelled, schema, wl_mode=mode) == oa_core.score(
            gold, cand, schema, wl_mode=mode), mode


def test_relabelling_ids_referenced_from_ref_lists_keeps_the_bits() -> None:
    schema = {"properties": {
        " ~ 0": {"items": {"properties": {"i/d": {"type": "integer", "idScope": "p/q"}}}},
        "p/l1": {"items": {"properties": {"to0": {"items": {"type": "integer", "ref": "p/q"}}}}}}}
    gold = {" ~ 0": [{"i/d": 4}, {"i/d": 5}], "p/l1": [{"to0": [4, 4, 5]}]}
    cand = {" ~ 0": [{"i/d": 5047258, "k": "B"}, {"i/d": 5844090, "k": "B"}, {"i/d": 4985756},
                     {"i/d": 7231713, "k": "B"}],
            "p/l1": [{"to0": [7231713, 7231713, 4985756]}, {"to0": [5844090, 5844090, 5047258]}]}
    label = {5047258: 9465155, 5844090: 8789579, 4985756: 9576006, 7231713: 5674926}
    relabelled = {" ~ 0": [{**r, "i/d": label[r["i/d"]]} for r in cand[" ~ 0"]],
                  "p/l1": [{"to0": [label[v] for v in c["to0"]]} for c in cand["p/l1"]]}
    for mode in ("tie_break", "blend", "none"):
        assert oa_core.score(gold, relabelled, schema, wl_mode=mode) == oa_core.score(
            gold, cand, schema, wl_mode=mode), mode


def test_permuting_a_ref_list_between_mutual_scopes_keeps_the_bits() -> None:
    schema = {"properties": {"people0": {"$ref": "#/$defs/~01"},
                             "people1": {"$ref": "#/$defs/ ~0 1"}}, "$defs": {
        "1": {"properties": {"id": {"type": "integer", "idScope": "org"},
                             "to1": {"order": "align",
                                     "items": {"type": "string", "ref": "a ~ b"}}}},
        "t~x": {"$ref": "#/$defs/1"}, "~1": {"items": {"$ref": "#/$defs/t~0x"}},
        " ~ 1": {"items": {"properties": {"id": {"type": "string", "idScope": "a ~ b"},
                                          "ref_0": {"type": "integer", "ref": "org"}}}}}}
    gold = {"people0": [{"id": 1, "name": "Bob", "k": "peer", "to1": ["a", "a"]},
                        {"id": 3, "name": "Bob", "k": "peer", "to1": ["a", "a", "a", "a"]}],
            "people1": [{"ref_0": 1}]}

    def cand(first: list[str]) -> dict[str, Any]:
        return {"people0": [{"id": 3380420, "name": "Bob", "kind": "peer", "to1": first},
                            {"id": 3380420, "name": "Bob", "kind": "peer",
                             "to1": ["r", "r", "a", "Ω"]}],
                "people1": [{"id": "r400702", "ref_0": 3380420}]}

    for mode in ("tie_break", "blend"):
        assert oa_core.score(gold, cand(["", "r400702"]), schema, wl_mode=mode) == \
            oa_core.score(gold, cand(["r400702", ""]), schema, wl_mode=mode), mode


def test_ops_give_a_dangling_reference_in_a_ref_list() -> None:
    schema = {"properties": {"p/l1": {"items": {"properties": {
        "id": {"type": "string", "idScope": "org"},
        "to1": {"items": {"type": "string", "ref": "org"}}}}}}}
    gold = {"p/l1": [{"id": "p1", "to1": ["z"]}]}
    cand = {"p/l1": [{"to1": ["p1"]}]}
    fb = oa_core.feedback(gold, cand, schema, top_k=10**6)
    assert oa_core.score(gold, oa_core.apply_ops(cand, fb.ops), schema) == 1.0


def test_twins_are_paired_by_the_final_score_not_by_labels() -> None:
    schema = {"properties": {
        "people0": {"items": {"properties": {"i/d": {"type": "string", "idScope": "person"}}}},
        "links0": {"items": {"properties": {"dst": {"type": "string", "ref": "person"}}}}}}
    gold = {"people0": [{"i/d": "1", "name": ""}, {"i/d": "2", "name": ""}],
            "links0": [{"dst": "1"}, {"dst": "2"}]}
    for other in ("2", "b"):
        repaired = {"people0": [{"i/d": "a", "name": ""}, {"i/d": other, "name": ""}],
                    "links0": [{"dst": "a"}, {"dst": other}]}
        for mode in ("tie_break", "blend", "none"):
            assert oa_core.score(gold, repaired, schema, wl_mode=mode) == 1.0, (other, mode)


@pytest.mark.parametrize("seed", [114, 1095, 10852])
def test_fuzz_seeds_that_failed_pass(seed: int) -> None:
    result = fuzz.check_triple(seed, size=4)
    assert result["failures"] == [], json.dumps(result["failures"], default=repr)[:2000]
