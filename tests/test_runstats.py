"""oa_core.runs.runstats: bootstrap intervals, error patterns, field metrics, filters,
run comparison and rank change."""

from __future__ import annotations

import json

import numpy as np
import pytest

from oa_core.runs import runstats
from oa_core.runs.dataset import from_files, score_run

SCHEMA = {"type": "object", "properties": {
    "people": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string", "score": "exact"}, "age": {"type": "number"}}}}}}
GOLDS = [{"people": [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}]},
         {"people": [{"name": "Cy", "age": 20}]},
         {"people": [{"name": "Di", "age": 50}, {"name": "Ed", "age": 60}]}]
RUN_A = [{"people": [{"name": "Ann", "age": 30}]},  # Bob missing
         {"people": [{"name": "Cy", "age": 20}]},
         {"people": [{"name": "Di", "age": 50}, {"name": "Ed", "age": 61}]}]
RUN_B = [{"people": [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}]},
         {"people": [{"name": "Cyrus", "age": 20}]},
         {"people": [{"name": "Di", "age": 50}, {"name": "Ed", "age": 60}]}]


def scored(run: list[dict], name: str = "r"):
    lines = "\n".join(json.dumps({"id": f"d{k}", "gold": g, "candidate": c})
                      for k, (g, c) in enumerate(zip(GOLDS, run, strict=True)))
    data = from_files({"schema.json": json.dumps(SCHEMA), f"{name}.jsonl": lines})
    return score_run(data, name)


def test_bootstrap_is_deterministic_and_covers_the_mean() -> None:
    rng = np.random.default_rng(5)
    scores = rng.uniform(0.3, 1.0, size=400)
    first, second = runstats.bootstrap_mean(scores), runstats.bootstrap_mean(scores)
    assert first == second
    assert first.low < scores.mean() < first.high
    assert first.high - first.low < 0.1
    # a wider level gives a wider interval
    wide = runstats.bootstrap_mean(scores, level=0.99)
    assert wide.low <= first.low and wide.high >= first.high
    empty = runstats.bootstrap_mean([])
    assert np.isnan(empty.estimate)


def test_paired_bootstrap_cancels_what_both_runs_share() -> None:
    rng = np.random.default_rng(1)
    base = rng.uniform(0.0, 1.0, size=200)  # hard and easy documents
    better = np.clip(base + 0.02 + rng.normal(0, 0.005, size=200), 0, 1)
    paired = runstats.paired_bootstrap(base, better)
    assert 0.0 < paired.low < paired.high < 0.05
    # the unpaired intervals overlap widely: pairing is what makes the gain visible
    a, b = runstats.bootstrap_mean(base), runstats.bootstrap_mean(better)
    assert a.high > b.low


def test_summary_counts_and_quantiles() -> None:
    run = scored(RUN_A)
    summary = runstats.summary(run)
    assert summary["n"] == 3 and summary["scored"] == 3 and summary["unparsable"] == 0
    assert summary["p50"] == pytest.approx(float(np.median(run.scores)))
    assert summary["mean"].estimate == pytest.approx(run.scores.mean())


def test_error_patterns_sum_to_the_mean_deficit() -> None:
    run = scored(RUN_A)
    patterns = runstats.error_patterns(run)
    assert patterns["mean_loss"].sum() == pytest.approx(1.0 - run.scores.mean())
    top = patterns.iloc[0]
    assert (top["pattern"], top["kind"], top["pairs"]) == ("/people/*", "missing-list-item", 1)


def test_field_metrics_follow_the_counting_rule_and_the_threshold() -> None:
    run = scored(RUN_A)
    metrics = runstats.field_metrics(run, threshold=1.0).set_index("field")
    # Bob missing: one FN per field; Ed's age 61 vs 60 is below an exact credit
    assert metrics.loc["/people/*/name", ["tp", "fp", "fn"]].tolist() == [4, 0, 1]
    assert metrics.loc["/people/*/age", ["tp", "fp", "fn"]].tolist() == [3, 1, 2]
    assert metrics.loc["/people/*/age", "precision"] == pytest.approx(0.75)
    assert metrics.loc["(all fields)", "tp"] == 7
    lenient = runstats.field_metrics(run, threshold=0.5).set_index("field")
    assert lenient.loc["/people/*/age", ["tp", "fp", "fn"]].tolist() == [4, 0, 1]


def test_filters_combine() -> None:
    run = scored(RUN_A)
    assert runstats.filter_pairs(run)["id"].tolist() == ["d0", "d1", "d2"]
    assert runstats.filter_pairs(run, high=0.99)["id"].tolist() == ["d0", "d2"]
    assert runstats.filter_pairs(run, kind="missing-list-item")["id"].tolist() == ["d0"]
    assert runstats.filter_pairs(run, pattern="/people")["id"].tolist() == ["d0", "d2"]
    assert runstats.filter_pairs(run, pattern="/people/*/age")["id"].tolist() == ["d2"]
    assert runstats.filter_pairs(run, text="D2")["id"].tolist() == ["d2"]
    assert runstats.filter_pairs(run, kind="missing-list-item", text="d2").empty


def test_compare_runs() -> None:
    a, b = scored(RUN_A, "a"), scored(RUN_B, "b")
    comparison = runstats.compare(a, b, threshold=1.0)
    assert (comparison.wins, comparison.ties, comparison.losses) == (2, 0, 1)
    assert comparison.difference.estimate == pytest.approx(b.scores.mean() - a.scores.mean())
    worst = comparison.pairs.sort_values("diff").iloc[0]
    assert worst["id"] == "d1" and worst["diff"] < 0
    moved = comparison.patterns.set_index(["pattern", "kind"])
    assert moved.loc[("/people/*", "missing-list-item"), "change"] < 0  # shrank in B
    f1 = comparison.fields.set_index("field")
    assert f1.loc["/people/*/age", "change"] > 0
    assert comparison.only_a == comparison.only_b == []


def test_rank_change() -> None:
    a, b = scored(RUN_A, "a"), scored(RUN_B, "b")
    rho, moves = runstats.rank_change(a, b)
    assert -1.0 <= rho <= 1.0
    assert moves.iloc[0]["change"] == pytest.approx(max(moves["change"].abs(), key=abs))
    same, _ = runstats.rank_change(a, a)
    assert same == pytest.approx(1.0)


def raw_run(predictions: list[str], name: str = "raw"):
    lines = "\n".join(json.dumps({"id": f"d{k}", "gold": g, "prediction": p})
                      for k, (g, p) in enumerate(zip(GOLDS, predictions, strict=True)))
    data = from_files({"schema.json": json.dumps(SCHEMA), f"{name}.jsonl": lines})
    return score_run(data, name)


def test_format_failures_are_counted_apart_and_left_out_of_the_worst() -> None:
    run = raw_run([json.dumps(RUN_A[0]), '{"people": [{"name": "Cy", "age": 2',
                   "Sorry, I cannot answer that."])
    assert run.frame["status"].tolist() == ["ok", "cut off", "refused"]
    found = runstats.format_failures(run)
    assert (found.count, found.kinds, found.examples) == (
        2, {"cut off": 1, "refused": 1}, {"cut off": ["d1"], "refused": ["d2"]})
    assert runstats.summary(run)["format_failures"] == 2
    assert runstats.summary(run)["unparsable"] == 1  # no JSON read at all
    assert runstats.worst(run, 5)["id"].tolist() == ["d0"]
    assert runstats.filter_pairs(run, status=runstats.FAILED)["id"].tolist() == ["d1", "d2"]
    assert runstats.filter_pairs(run, status="refused")["id"].tolist() == ["d2"]


def test_regressions_are_of_content_and_new_format_failures_are_listed_apart() -> None:
    good = raw_run([json.dumps(g) for g in GOLDS], "a")
    worse = raw_run([json.dumps(RUN_A[0]), "", json.dumps(RUN_A[2])], "b")
    comparison = runstats.compare(good, worse)
    assert runstats.regressions(comparison, 10)["id"].tolist() == ["d0", "d2"]
    failed = runstats.new_failures(comparison)
    assert failed[["id", "status_b"]].values.tolist() == [["d1", "empty"]]


def test_field_metrics_split_false_positives_and_fold_wrong_shapes() -> None:
    # d1 answers a bare list of people (wrong shape: /*/name is no field); d2 adds a key
    run = raw_run([json.dumps(RUN_B[0]), json.dumps(RUN_B[1]["people"]),
                   json.dumps({"people": [{"name": "Di", "age": 51, "nick": "D"},
                                          {"name": "Ed", "age": 60}]})])
    metrics = runstats.field_metrics(run).set_index("field")
    assert metrics.index.tolist() == ["/people/*/age", "/people/*/name", "(wrong shape)",
                                      "(all fields)"]
    # d1's age is missing (FN); 51 for 50 is close enough at the default threshold
    assert metrics.loc["/people/*/age", ["tp", "fp", "fd", "fa", "fn"]].tolist() == [
        4, 0, 0, 0, 1]
    strict = runstats.field_metrics(run, 1.0).set_index("field")
    assert strict.loc["/people/*/age", ["tp", "fp", "fd", "fa", "fn"]].tolist() == [
        3, 1, 1, 0, 2]  # now a wrong value: one FP (wrong) and one FN
    shape = metrics.loc["(wrong shape)"]
    assert shape[["tp", "fp", "fd", "fa", "fn"]].tolist() == [0, 3, 0, 3, 0]
    assert np.isnan(shape["recall"]) and shape["precision"] == 0.0
    assert (metrics["fd"] + metrics["fa"] == metrics["fp"]).all()
    total = metrics.loc["(all fields)"]
    assert total["tp"] == metrics["tp"].iloc[:-1].sum()
