"""Smoke tests of benchmarks/pairing_accuracy.py: the generator and the measure (never timed)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

import oa_core
from benchmarks import pairing_accuracy as pa


def _edge_key(lst: str, edge: dict[str, Any]) -> tuple[Any, ...]:
    return (lst, *sorted(edge.items()))


def test_same_seed_same_documents() -> None:
    first, second = pa.make_graphs(5, seed=11), pa.make_graphs(5, seed=11)
    assert first == second
    assert json.dumps([g.candidate for g in first]) == json.dumps([g.candidate for g in second])
    assert pa.make_graphs(5, seed=12) != first
    assert pa.reshuffled(first[0].candidate, 3) == pa.reshuffled(first[0].candidate, 3)


@pytest.mark.parametrize("seed", range(12))
def test_ground_truth_relabels_the_candidate_back_to_the_noisy_gold(seed: int) -> None:
    graph = pa.make_graph(seed)
    gold, cand, truth, noise = graph.gold, graph.candidate, graph.truth, graph.noise
    n = len(gold["people"])
    assert 8 <= n <= 40
    gold_ids = {p["id"] for p in gold["people"]}
    cand_ids = {p["id"] for p in cand["people"]}
    # fresh ids, one person dropped, the truth a bijection onto the candidate's ids
    assert gold_ids.isdisjoint(cand_ids)
    assert len(cand["people"]) == n - 1 == len(truth)
    assert noise.dropped in gold_ids and noise.dropped not in truth
    assert set(truth) == gold_ids - {noise.dropped} and set(truth.values()) == cand_ids
    back = {c: g for g, c in truth.items()}
    # people: the gold minus the dropped one, with exactly one name changed (the typo)
    people = {p["id"]: p for p in gold["people"] if p["id"] != noise.dropped}
    typo_id, before, after = noise.typo
    assert people[typo_id]["name"] == before and before != after and len(before) == len(after)
    expected_people = {i: {**p, "name": after} if i == typo_id else p for i, p in people.items()}
    relabelled_people = {back[p["id"]]: {**p, "id": back[p["id"]]} for p in cand["people"]}
    assert relabelled_people == expected_people
    # links: the gold's minus those touching the dropped person, two of them rerouted
    expected: Counter[tuple[Any, ...]] = Counter(
        _edge_key(lst, e) for lst, (a, b) in pa.EDGE_LISTS.items() for e in gold[lst]
        if noise.dropped not in (e[a], e[b]))
    assert len(noise.reroutes) == 2
    for lst, old, end, new in noise.reroutes:
        assert old[end] != new and new != noise.dropped
        expected[_edge_key(lst, old)] -= 1
        expected[_edge_key(lst, {**old, end: new})] += 1
    relabelled = Counter(
        _edge_key(lst, {**e, **{f: back[e[f]] for f in ends}})
        for lst, ends in pa.EDGE_LISTS.items() for e in cand[lst])
    assert relabelled == +expected
    for lst, (a, b) in pa.EDGE_LISTS.items():
        assert all(e[a] != e[b] for e in cand[lst])
    # the documents fit the schema
    assert oa_core.align(gold, cand, pa.SCHEMA).violations == []


def test_twins_and_wl_ceiling() -> None:
    gold = {"people": [{"id": 1, "name": "Ada", "role": "Intern"},
                       {"id": 2, "name": "Ada", "role": "Intern"},
                       {"id": 3, "name": "Fay", "role": "Intern"}],
            "mentorships": [{"mentor": 3, "mentee": 1}], "collaborations": []}
    assert pa.twin_ids(gold) == {1, 2}
    assert pa.wl_distinguishable(gold) == {1, 2, 3}
    gold["mentorships"] = []
    assert pa.wl_distinguishable(gold) == {3}


def test_tally_counts_against_the_ground_truth() -> None:
    graph = pa.make_graph(5, n=20)
    right = pa.tally(graph, dict(graph.truth))
    assert right.correct == right.records == 19 and right.twins_correct == right.twins > 0
    attrs = {p["id"]: (p["name"], p["role"]) for p in graph.gold["people"]}
    twins = sorted(g for g in pa.twin_ids(graph.gold) if g in graph.truth)
    a, b = next((x, y) for x in twins for y in twins if x < y and attrs[x] == attrs[y])
    swapped = {**graph.truth, a: graph.truth[b], b: graph.truth[a]}
    loner = next(g for g in graph.truth if g not in twins)
    del swapped[loner]  # left unpaired
    row = pa.tally(graph, swapped)
    assert sorted(row.wrong) == sorted([(a, graph.truth[b]), (b, graph.truth[a]), (loner, None)])
    assert row.correct == 16 and row.twins_correct == row.twins - 2


def test_measure_gives_sane_fractions(tmp_path: Any) -> None:
    out = tmp_path / "pairing.json"
    report = pa.main(["--graphs", "4", "--seed", "1", "--reshuffles", "1",
                      "--out", str(out)])
    assert json.loads(out.read_text(encoding="utf-8"))["modes"] == report["modes"]
    assert list(report["modes"]) == list(pa.MODES)
    for summary in report["modes"].values():
        assert summary["graphs"] == 4 and summary["records"] >= summary["twin_records"] > 0
        for key in ("accuracy", "twin_accuracy", "graphs_all_correct", "wl_ceiling",
                    "mean_score", "pairing_changed", "score_changed"):
            assert 0.0 <= summary[key] <= 1.0, key
        assert summary["mean_seconds"] > 0
    for mode, wrong in report["wrong"].items():
        accuracy = report["modes"][mode]["accuracy"]
        assert len(wrong) == round((1 - accuracy) * report["modes"][mode]["records"])
