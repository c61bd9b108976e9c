"""Custom Python comparators under the Python and the Rust engine (issue 22).

The ``flat`` workload of :mod:`benchmarks.throughput` (10-field records) with its
string fields scored by a custom comparator (``leaves``), and with the object's keys
paired by one too (``leaves+keys``): :func:`oa_core.score` pairs per CPU second of
one process under ``OA_ENGINE=python`` and ``OA_ENGINE=rust`` (which calls the
comparator back from Rust, converting each pair's values to Python objects). The
scores are checked to be the same bits under both engines before timing. Run from
the repository root::

    python -m benchmarks.native_custom --seconds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from typing import Any

import oa_core
from benchmarks.native_score import _rate, _with_engine
from benchmarks.throughput import WORKLOADS

__all__ = ["main", "measure"]


def _prefix(g: str, p: str) -> float:
    # a cheap custom similarity: the share of the shorter string's leading characters
    # the two strings have in common
    shared = 0
    for a, b in zip(g, p, strict=False):
        if a != b:
            break
        shared += 1
    return shared / max(len(g), len(p), 1)


def measure(keys: bool, seconds: float = 1.0, repeat: int = 3) -> dict[str, float]:
    """Median pairs/s (CPU time) of ``score()`` under each engine, keyed by engine."""
    pairs, raw = WORKLOADS["flat"]()
    raw = json.loads(json.dumps(raw))
    for spec in raw["properties"].values():
        if spec["type"] == "string":
            spec["score"] = "prefix"
    if keys:
        raw["keyScore"] = "prefix"
    schema = oa_core.Schema.parse(raw, comparators={"prefix": _prefix})
    previous = os.environ.get("OA_ENGINE")
    try:
        runs = {engine: _with_engine(engine, lambda g, c: oa_core.score(g, c, schema))
                for engine in ("python", "rust")}
        expected = [runs["python"](g, c).hex() for g, c in pairs]
        assert [runs["rust"](g, c).hex() for g, c in pairs] == expected
        return {engine: statistics.median(_rate(fn, pairs, seconds) for _ in range(repeat))
                for engine, fn in runs.items()}
    finally:
        if previous is None:
            os.environ.pop("OA_ENGINE", None)
        else:
            os.environ["OA_ENGINE"] = previous


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; CPU time, one process")
    results: dict[str, Any] = {}
    for name, keys in (("leaves", False), ("leaves+keys", True)):
        results[name] = measure(keys, args.seconds, args.repeat)
        for engine, rate in results[name].items():
            print(f"flat {name:12} score() {engine:7} {rate:10,.0f} pairs/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
