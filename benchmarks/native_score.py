"""The cost of the Python layer around the Rust engine (issue 22).

For the ``flat`` (10-field records) and ``lists`` workloads of
:mod:`benchmarks.throughput`, pairs per CPU second of one process (one core):

``engine call``
    :meth:`oa_core.native.PreparedPlan.score`, the values converted on every call;
``score()``
    :func:`oa_core.score`, input checks and schema validation included (made while
    the documents are converted, for schemas asserting only ``type``,
    ``properties``, ``required``, ``prefixItems`` and ``items``, as these
    workloads' do).

For the documents with scopes of the ``running`` example and ``org2graph`` pairs:
``score()``; ``score() prepared``, ``score()`` of a :func:`oa_core.prepare_gold` (the
gold checked, converted and indexed once, the metric case); ``engine resolve``, the
engine's call alone (:func:`oa_core.native.native_resolved_score`: the scopes
resolved and the final pass scored, without ``score()``'s checks). On the
``running`` example, ``align()`` and ``feedback()`` (the match tree built from the
engine's node table, :mod:`oa_core.nodetable`).

Every entry's bits are checked to be ``score()``'s before timing.

Run from the repository root::

    python -m benchmarks.native_score --seconds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import oa_core
from benchmarks.throughput import WORKLOADS
from oa_core.native import native_resolved_score, prepared_plan

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


def _timed(entries: dict[str, Callable[[Any, Any], Any]], pairs: Pairs, seconds: float,
           repeat: int) -> dict[str, float]:
    """Each entry's median pairs/s, once its scores are checked to be ``score()``'s
    bits."""
    expected = [entries["score()"](g, c).hex() for g, c in pairs]
    for name, fn in entries.items():
        assert [fn(g, c).hex() for g, c in pairs] == expected, f"{name} differs from score()"
    return {name: statistics.median(_rate(fn, pairs, seconds) for _ in range(repeat))
            for name, fn in entries.items()}


def measure(workload: str, seconds: float = 1.0, repeat: int = 3) -> dict[str, float]:
    """Median pairs/s (CPU time) of each entry on a scope-free ``workload``, keyed by
    entry."""
    pairs, raw = WORKLOADS[workload]()
    schema = oa_core.Schema.parse(raw)
    limits = oa_core.Limits()
    plan = prepared_plan(schema)
    return _timed({"engine call": lambda g, c: plan.score(g, c, limits),
                   "score()": lambda g, c: oa_core.score(g, c, schema)},
                  pairs, seconds, repeat)


def measure_scoped(workload: str, seconds: float = 1.0, repeat: int = 3,
                   count: int = 20) -> dict[str, float]:
    """Median pairs/s (CPU time) of ``score()``, ``score()`` of a prepared gold and the
    engine's resolution alone on the first ``count`` pairs of a workload with scopes,
    keyed by entry."""
    pairs, raw = WORKLOADS[workload]()
    pairs = pairs[:count]
    schema = oa_core.Schema.parse(raw)
    assert schema.scopes, "the workload has scopes"
    limits = oa_core.Limits()
    prepared = {id(g): oa_core.prepare_gold(g, schema) for g, _ in pairs}
    return _timed({
        "score()": lambda g, c: oa_core.score(g, c, schema),
        "score() prepared": lambda g, c: oa_core.score(prepared[id(g)], c, schema),
        "engine resolve": lambda g, c: native_resolved_score(g, c, schema, limits,
                                                             "tie_break", 0.5),
    }, pairs, seconds, repeat)


def _tree_view(alignment: oa_core.Alignment) -> Any:
    return alignment.score.hex(), alignment.tree.to_dict()


def _feedback_view(result: Any) -> Any:
    return result.text, [op.delta.hex() for op in result.ops]


def measure_tree(workload: str = "running", seconds: float = 1.0, repeat: int = 3,
                 count: int = 20) -> dict[str, float]:
    """Median pairs/s (CPU time) of ``align()`` and ``feedback()`` on the first
    ``count`` pairs of a workload, keyed by entry (each made twice first: the same
    tree and feedback)."""
    pairs, raw = WORKLOADS[workload]()
    pairs = pairs[:count]
    schema = oa_core.Schema.parse(raw)
    entries: dict[str, Callable[[Any, Any], Any]] = {
        "align()": lambda g, c: oa_core.align(g, c, schema),
        "feedback()": lambda g, c: oa_core.feedback(g, c, schema)}
    for name, view in (("align()", _tree_view), ("feedback()", _feedback_view)):
        first = [view(entries[name](g, c)) for g, c in pairs]
        assert [view(entries[name](g, c)) for g, c in pairs] == first, f"{name} varies"
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
            print(f"{workload:9} {name:21} {rate:12,.0f} pairs/s")
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
