"""Custom Python comparators called back from the Rust engine (issue 22).

The ``flat`` workload of :mod:`benchmarks.throughput` (10-field records) scored with
its built-in comparators (``built-in``), with its string fields scored by a custom
comparator (``leaves``), and with the object's keys paired by one too
(``leaves+keys``): :func:`oa_core.score` pairs per CPU second of one process (the
engine converts each pair's values to Python objects for the call back). Run from
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
from benchmarks.native_score import _rate
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


def measure(custom: str, seconds: float = 1.0, repeat: int = 3) -> float:
    """Median pairs/s (CPU time) of ``score()`` with ``custom`` comparators:
    ``built-in`` (none), ``leaves`` or ``leaves+keys``."""
    pairs, raw = WORKLOADS["flat"]()
    raw = json.loads(json.dumps(raw))
    if custom != "built-in":
        for spec in raw["properties"].values():
            if spec["type"] == "string":
                spec["score"] = "prefix"
    if custom == "leaves+keys":
        raw["keyScore"] = "prefix"
    schema = oa_core.Schema.parse(raw, comparators={"prefix": _prefix})
    return statistics.median(_rate(lambda g, c: oa_core.score(g, c, schema), pairs, seconds)
                             for _ in range(repeat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; CPU time, one process")
    results: dict[str, Any] = {}
    for name in ("built-in", "leaves", "leaves+keys"):
        results[name] = measure(name, args.seconds, args.repeat)
        print(f"flat {name:12} score() {results[name]:10,.0f} pairs/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
