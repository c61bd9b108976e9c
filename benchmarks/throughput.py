"""Throughput of small pairs: pairs per second per core (CPU time) and peak memory.

Issue 14's workloads, each scored in this process with one parsed schema reused
(what a GEPA/DSPy metric does at every step):

``running``
    the paper's running example (``sample_data/running_example``, score 0.768);
``org2graph``
    Org2Graph-sized pairs drawn like ``benchmarks/batch.py`` (people ``U{3..10}``,
    relabelled and shuffled candidates with ``U{0..3}`` edits);
``flat``
    a flat record of 10 string/number fields (the peers benchmark's third case);
``lists``
    a record with lists and no scopes: 3-8 tags (strings, unordered), 2-6 line items
    (objects of a string, a number and an exact code, unordered) and 3 scores
    (numbers in a fixed order), the candidate shuffled with a few edits.

For each workload three entry points are timed: :func:`oa_core.score` (the score
only), :func:`oa_core.align` (the match tree and alignment) and
:func:`oa_core.feedback` (repair operations as well, what ``oa batch`` computes);
``score_prepared`` times ``score`` given each gold prepared once by
:func:`oa_core.prepare_gold` (outside the timing: a metric scoring many candidates
against one gold; not the issue's "parsed schema reused" row, which is ``score``);
Rates are pairs per CPU second of this process (``time.process_time``), so other
work on a shared machine inflates them less than wall-clock figures would; the
peak is the largest traced allocation (``tracemalloc``) while one pass runs.
``--stages`` adds a cProfile breakdown of ``score`` by pipeline stage.

The engine's version is printed (:func:`oa_core.build.describe_build`), and the
machine's load average before and after, since the machine may be shared.

Run from the repository root::

    python -m benchmarks.throughput                  # every workload, 3 repeats
    python -m benchmarks.throughput --json out.json --seconds 2
    python -m benchmarks.throughput --entries score --workloads running
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import oa_core
from oa_core.build import describe_build
from synthetic import make_org2graph_example
from synthetic.org2graph import sample_params

__all__ = ["WORKLOADS", "flat_pairs", "main", "measure", "org2graph_pairs", "running_pairs"]

ROOT = Path(__file__).resolve().parent.parent

Pairs = list[tuple[Any, Any]]


def running_pairs() -> tuple[Pairs, dict[str, Any]]:
    """The running example's one pair and its schema."""
    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, schema = (json.loads((folder / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    return [(gold, candidate)], schema


def org2graph_pairs(count: int = 200, seed: int = 0) -> tuple[Pairs, dict[str, Any]]:
    """``count`` Org2Graph pairs drawn as in ``benchmarks/batch.py``, and their schema."""
    pairs: Pairs = []
    schema: dict[str, Any] = {}
    for child in np.random.SeedSequence(seed).spawn(count):
        rng = np.random.default_rng(child)
        params = sample_params(rng)
        gold, candidate, schema = make_org2graph_example(
            params.n_people, params.twin_density, int(rng.integers(0, 4)),
            seed=int(rng.integers(2**31)))
        pairs.append((gold, candidate))
    return pairs, schema


FLAT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    **{f"s{k}": {"type": "string", "score": "levenshtein"} for k in range(5)},
    **{f"n{k}": {"type": "number", "score": "exact"} for k in range(5)}}}


def flat_pairs(count: int = 200, seed: int = 0) -> tuple[Pairs, dict[str, Any]]:
    """``count`` flat records of 5 string and 5 number fields, the candidate with a few
    changed values."""
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    pairs: Pairs = []
    for _ in range(count):
        gold: dict[str, Any] = {}
        for k in range(5):
            gold[f"s{k}"] = " ".join(rng.choice(words, 2).tolist())
            gold[f"n{k}"] = int(rng.integers(0, 100))
        candidate = dict(gold)
        for key in rng.choice(sorted(gold), 3, replace=False).tolist():
            value = gold[key]
            candidate[key] = value + "s" if isinstance(value, str) else value + 1
        pairs.append((gold, candidate))
    return pairs, FLAT_SCHEMA


LISTS_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "title": {"type": "string", "score": "levenshtein"},
    "tags": {"type": "array", "order": "align",
             "items": {"type": "string", "score": "levenshtein"}},
    "items": {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {
            "name": {"type": "string", "score": "levenshtein", "valueWeight": 2},
            "quantity": {"type": "number", "score": "relative"},
            "code": {"type": "string", "score": "exact"}}}},
    "scores": {"type": "array", "order": "fixed", "items": {"type": "number"}}}}


def lists_pairs(count: int = 200, seed: int = 0) -> tuple[Pairs, dict[str, Any]]:
    """``count`` records with lists of strings, objects and numbers; the candidate's
    unordered lists shuffled, with an item dropped, a value changed, a tag added."""
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    pairs: Pairs = []
    for _ in range(count):
        gold = {"title": " ".join(rng.choice(words, 3).tolist()),
                "tags": rng.choice(words, int(rng.integers(3, 9))).tolist(),
                "items": [{"name": " ".join(rng.choice(words, 2).tolist()),
                           "quantity": int(rng.integers(1, 20)),
                           "code": f"C{int(rng.integers(100)):03d}"}
                          for _ in range(int(rng.integers(2, 7)))],
                "scores": [float(rng.integers(0, 10)) for _ in range(3)]}
        items = [dict(item) for item in gold["items"]]
        items.pop(int(rng.integers(len(items))))
        items[0]["quantity"] += 1
        tags = [*gold["tags"], str(rng.choice(words)) + "s"]
        candidate = {"title": gold["title"],
                     "tags": [tags[k] for k in rng.permutation(len(tags))],
                     "items": [items[k] for k in rng.permutation(len(items))],
                     "scores": [gold["scores"][0] + 1, *gold["scores"][1:]]}
        pairs.append((gold, candidate))
    return pairs, LISTS_SCHEMA


WORKLOADS: dict[str, Callable[[], tuple[Pairs, dict[str, Any]]]] = {
    "running": running_pairs, "org2graph": org2graph_pairs, "flat": flat_pairs,
    "lists": lists_pairs}

ENTRY_POINTS: dict[str, Callable[[Any, Any, oa_core.Schema], Any]] = {
    "score": lambda g, c, s: oa_core.score(g, c, s),
    "align": lambda g, c, s: oa_core.align(g, c, s),
    "feedback": lambda g, c, s: oa_core.feedback(g, c, s, style="compact"),
    "score_prepared": lambda g, c, s: oa_core.score(g, c, s),
}
# Entries timed on the golds prepared by oa_core.prepare_gold (before the timing)
PREPARED = {"score_prepared"}


def _rate(fn: Callable[[Any, Any, oa_core.Schema], Any], pairs: Pairs,
          schema: oa_core.Schema, seconds: float) -> float:
    """Pairs per CPU second over passes through ``pairs`` lasting at least ``seconds``."""
    done = 0
    start = time.process_time()
    while True:
        for gold, candidate in pairs:
            fn(gold, candidate, schema)
        done += len(pairs)
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def _peak_mib(fn: Callable[[Any, Any, oa_core.Schema], Any], pairs: Pairs,
              schema: oa_core.Schema) -> float:
    tracemalloc.start()
    for gold, candidate in pairs:
        fn(gold, candidate, schema)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def measure(workload: str, entry: str = "score", repeat: int = 3,
            seconds: float = 1.0) -> dict[str, Any]:
    """Median pairs/s per core (CPU time) of ``entry`` on ``workload``, and its peak.

    Returns
    -------
    dict
        ``workload``, ``entry``, ``pairs`` (distinct pairs cycled through),
        ``pairs_per_s`` (median), ``runs`` (every repeat), ``peak_mib``,
        ``score_sum`` (the sum of the scores, to check that a change kept them) and
        ``engine`` (the engine's version, :mod:`oa_core.build`).
    """
    pairs, raw = WORKLOADS[workload]()
    schema = oa_core.Schema.parse(raw)
    fn = ENTRY_POINTS[entry]
    scores = [oa_core.score(g, c, schema) for g, c in pairs]  # also warms imports
    if entry in PREPARED:  # the same bits as score
        pairs = [(oa_core.prepare_gold(g, schema), c) for g, c in pairs]
        assert [fn(g, c, schema) for g, c in pairs] == scores
    runs = [_rate(fn, pairs, schema, seconds) for _ in range(repeat)]
    return {"workload": workload, "entry": entry, "pairs": len(pairs),
            "pairs_per_s": statistics.median(runs), "runs": runs,
            "peak_mib": _peak_mib(fn, pairs, schema), "score_sum": sum(scores),
            "engine": describe_build()}


STAGES = {
    "validation (jsonschema)": ("validation.py", "schema_violations"),
    "check_json": ("validation.py", "check_json"),
    # one call into the Rust engine per pair: converted, checked, resolved, scored
    "engine, no scopes": ("native.py", "native_score"),
    "engine, scopes resolved": ("native.py", "native_resolved_score"),
}


def stages(workload: str, passes: int = 200) -> dict[str, float]:
    """Share of ``score``'s CPU time per pipeline stage (cProfile cumulative times):
    the Python checks and the engine's call."""
    import cProfile
    import pstats

    pairs, raw = WORKLOADS[workload]()
    schema = oa_core.Schema.parse(raw)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(max(1, passes // len(pairs))):
        for gold, candidate in pairs:
            oa_core.score(gold, candidate, schema)
    profile.disable()
    table: Any = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in table.values())  # sum of self times: the profiled time
    out: dict[str, float] = {}
    for label, (file, function) in STAGES.items():
        cumulative = [v[3] for (path, _, name), v in table.items()
                      if path.endswith(file) and name in function.split("|")]
        out[label] = max(cumulative, default=0.0) / total if total else 0.0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS),
                        choices=list(WORKLOADS))
    parser.add_argument("--entries", nargs="+", default=list(ENTRY_POINTS),
                        choices=list(ENTRY_POINTS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="CPU seconds per repeat (at least)")
    parser.add_argument("--stages", action="store_true",
                        help="also a cProfile breakdown of score by stage")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; "
          "CPU time of this process (the machine may be shared)")
    print(f"engine: {describe_build()}")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"{'workload':<10} {'entry':<14} {'pairs/s/core':>13} {'peak MiB':>9}  score sum")
    rows = []
    for workload in args.workloads:
        for entry in args.entries:
            row = measure(workload, entry, args.repeat, args.seconds)
            rows.append(row)
            print(f"{workload:<10} {entry:<14} {row['pairs_per_s']:>13,.0f} "
                  f"{row['peak_mib']:>9.2f}  {row['score_sum']!r}")
        if args.stages:
            for label, share in stages(workload).items():
                print(f"    {label:<26} {share:6.1%} of score's time")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
