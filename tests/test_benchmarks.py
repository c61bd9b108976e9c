"""Smoke tests of the benchmarks: they run and measure the right thing (never timed here)."""

from __future__ import annotations

import oa_core
from benchmarks import alignment_speed, explorer_speed


def test_alignment_speed_pair_is_a_perturbed_relabeling() -> None:
    gold, candidate = alignment_speed.make_pair(40)  # the pair measure() times
    assert len(gold["people"]) == 40 and len(candidate["people"]) == 39
    assert {p["id"] for p in gold["people"]}.isdisjoint(p["id"] for p in candidate["people"])
    row = alignment_speed.measure(40, repeat=1)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    assert row["score"] == oa_core.score(gold, candidate, schema) < 1.0
    assert row["median_s"] > 0 and row["peak_mib"] > 0


def test_explorer_speed_runs_every_scenario() -> None:
    results = explorer_speed.measure(repeat=1)
    assert list(results["running example"]) == [
        "schema weight rescore", "WL mode switch", "apply a fix"]
    assert {"WL round step", "WL round step, interactive (pyvis) graph"} <= set(
        results["200 records"])
    assert {f"open {page}" for page in ("overview", "match_tree", "feedback", "schema_tuning")
            } <= set(results["200 records"])
    for figures in results.values():
        for row in figures.values():
            assert row["runs"] >= 1 and 0 < row["median_ms"] <= row["max_ms"]
