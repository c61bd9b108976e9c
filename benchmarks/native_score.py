"""The Python and Rust scorers of scope-free documents side by side (issue 22).

For the ``flat`` (10-field records) and ``lists`` workloads of
:mod:`benchmarks.throughput`, pairs per CPU second of one process (one core):

``python scorer``
    :func:`oa_core.scoreonly.score_objects` (what ``score`` runs after its checks);
``rust scorer``
    :meth:`oa_core.native.PreparedPlan.score`, the values converted on every call;
``score() python`` / ``score() rust``
    :func:`oa_core.score` with ``OA_ENGINE`` set to each engine, input checks and
    schema validation included (under ``rust`` they are made while the documents
    are converted, for schemas asserting only ``type``, ``properties``,
    ``required``, ``prefixItems`` and ``items``, as these workloads' do).

Every pair's score is checked to be the same bits in all four before timing.

For the documents with scopes of the ``running`` example and ``org2graph`` pairs,
``score() python`` beside ``score() rust``: under ``rust`` the whole scope
resolution (C matrices, WL, the tie rules, the settling by score) and the final
pass are one Rust call where Rust takes the schema; ``score() rust prepared`` is
``score()`` of a :func:`oa_core.prepare_gold` (the gold checked, converted and
indexed once, the metric case); ``rust resolve`` is that call
alone (:func:`oa_core.native.native_resolved_score`, without ``score()``'s checks),
asserted to be answered by Rust, not the fallback. The bits are checked the same
first.

On the ``running`` example, ``align()`` and ``feedback()`` under each engine: under
``rust`` the match tree is built from the Rust engine's node table
(:mod:`oa_core.nodetable`), the trees and the feedback checked the same first.

Run from the repository root::

    python -m benchmarks.native_score --seconds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import oa_core
from benchmarks.throughput import WORKLOADS
from oa_core.native import native_resolved_score, prepared_plan
from oa_core.scoreonly import score_objects

__all__ = ["main", "measure", "measure_scoped", "measure_tree"]

Pairs = list[tuple[Any, Any]]


def _rate(fn: Callable[[Any, Any], Any], pairs: Pairs, seconds: float) -> float:
    done, start = 0, time.process_time()
    while True:
        for gold, candidate in pairs:
            fn(gold, candidate)
        done += len(pairs)
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def _with_engine(engine: str, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def run(gold: Any, candidate: Any) -> Any:
        os.environ["OA_ENGINE"] = engine
        return fn(gold, candidate)
    return run


@contextmanager
def _engine_kept() -> Iterator[None]:
    """Restores ``OA_ENGINE`` as it was (the entries set it)."""
    previous = os.environ.get("OA_ENGINE")
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("OA_ENGINE", None)
        else:
            os.environ["OA_ENGINE"] = previous


def measure(workload: str, seconds: float = 1.0, repeat: int = 3) -> dict[str, float]:
    """Median pairs/s (CPU time) of each entry on ``workload``, keyed by entry."""
    pairs, raw = WORKLOADS[workload]()
    schema = oa_core.Schema.parse(raw)
    limits = oa_core.Limits()
    plan = prepared_plan(schema)
    assert plan is not None, "the workload's schema is planned"
    entries: dict[str, Callable[[Any, Any], Any]] = {
        "python scorer": lambda g, c: score_objects(g, c, schema, limits),
        "rust scorer": lambda g, c: plan.score(g, c, limits),
        "score() python": _with_engine("python", lambda g, c: oa_core.score(g, c, schema)),
        "score() rust": _with_engine("rust", lambda g, c: oa_core.score(g, c, schema)),
    }
    with _engine_kept():
        expected = [score_objects(g, c, schema, limits).hex() for g, c in pairs]
        for name, fn in entries.items():
            got = [fn(g, c).hex() for g, c in pairs]
            assert got == expected, f"{name} differs from the Python scorer"
        return {name: statistics.median(_rate(fn, pairs, seconds) for _ in range(repeat))
                for name, fn in entries.items()}


def measure_scoped(workload: str, seconds: float = 1.0, repeat: int = 3,
                   count: int = 20) -> dict[str, float]:
    """Median pairs/s (CPU time) of ``score()`` under each engine on the first
    ``count`` pairs of a workload with scopes, keyed by entry."""
    pairs, raw = WORKLOADS[workload]()
    pairs = pairs[:count]
    schema = oa_core.Schema.parse(raw)
    assert schema.scopes, "the workload has scopes"
    limits = oa_core.Limits()

    def resolved(gold: Any, candidate: Any) -> float:
        found = native_resolved_score(gold, candidate, schema, limits, "tie_break", 0.5)
        assert found is not None, "Rust answered, not the fallback"
        return found

    entries = {f"score() {engine}": _with_engine(engine, lambda g, c: oa_core.score(g, c, schema))
               for engine in ("python", "rust")}
    entries["rust resolve"] = _with_engine("rust", resolved)
    with _engine_kept():
        # prepared under rust (the gold's Rust index is made only then), one per gold
        os.environ["OA_ENGINE"] = "rust"
        prepared = {id(g): oa_core.prepare_gold(g, schema) for g, _ in pairs}
        entries["score() rust prepared"] = _with_engine(
            "rust", lambda g, c: oa_core.score(prepared[id(g)], c, schema))
        expected = [entries["score() python"](g, c).hex() for g, c in pairs]
        for name in ("score() rust", "rust resolve", "score() rust prepared"):
            assert [entries[name](g, c).hex() for g, c in pairs] == expected, (
                f"{name} differs from the Python engine")
        return {name: statistics.median(_rate(fn, pairs, seconds) for _ in range(repeat))
                for name, fn in entries.items()}


def _tree_view(alignment: oa_core.Alignment) -> Any:
    return alignment.score.hex(), alignment.tree.to_dict()


def _feedback_view(result: Any) -> Any:
    return result.text, [op.delta.hex() for op in result.ops]


def measure_tree(workload: str = "running", seconds: float = 1.0, repeat: int = 3,
                 count: int = 20) -> dict[str, float]:
    """Median pairs/s (CPU time) of ``align()`` and ``feedback()`` under each engine on
    the first ``count`` pairs of a workload, keyed by entry."""
    pairs, raw = WORKLOADS[workload]()
    pairs = pairs[:count]
    schema = oa_core.Schema.parse(raw)
    entries = {f"{name}() {engine}": _with_engine(engine, lambda g, c, fn=fn: fn(g, c, schema))
               for name, fn in (("align", oa_core.align), ("feedback", oa_core.feedback))
               for engine in ("python", "rust")}
    with _engine_kept():
        for name, view in (("align", _tree_view), ("feedback", _feedback_view)):
            expected = [view(entries[f"{name}() python"](g, c)) for g, c in pairs]
            got = [view(entries[f"{name}() rust"](g, c)) for g, c in pairs]
            assert got == expected, f"{name}() differs between the engines"
        return {name: statistics.median(_rate(fn, pairs, seconds) for _ in range(repeat))
                for name, fn in entries.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; CPU time, one process")
    results = {}
    for workload in ("flat", "lists"):
        rates = measure(workload, args.seconds, args.repeat)
        results[workload] = rates
        for name, rate in rates.items():
            print(f"{workload:6} {name:15} {rate:12,.0f} pairs/s")
    for workload in ("running", "org2graph"):
        rates = measure_scoped(workload, args.seconds, args.repeat)
        results[workload] = rates
        for name, rate in rates.items():
            print(f"{workload:9} {name:21} {rate:12,.0f} pairs/s")
    rates = measure_tree("running", args.seconds, args.repeat)
    results["running trees"] = rates
    for name, rate in rates.items():
        print(f"{'running':9} {name:21} {rate:12,.0f} pairs/s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"load": load, "results": results}, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
