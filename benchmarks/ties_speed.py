"""The tie policy's pairing of one scope in Python and in Rust, side by side (issue 22).

On :func:`benchmarks.alignment_speed.make_pair`'s org graphs of N people (a quarter
property twins, a damaged candidate), the calls ``oa_core.score`` makes to
``referential._pair_scope`` are recorded, checked to give the same pairs, rules,
label ties and canonical order under ``OA_ENGINE=python`` and ``rust``, then timed
under each (CPU time of this process, median of the repeats); so is the whole
``oa_core.score`` (where the pairing is one part: C, WL and the final pass stay
Python). Run from the repository root::

    python -m benchmarks.ties_speed --sizes 50 200 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import oa_core
from benchmarks.alignment_speed import SCHEMA, make_pair
from oa_core import referential
from oa_core.build import using_engine

__all__ = ["main", "measure"]




def _cpu(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _view(result: Any) -> Any:
    pairs, rules, ties, order = result
    return pairs, [rules[p].value for p in pairs], ties, order.rows, order.cols


def measure(n: int, repeat: int) -> dict[str, float]:
    """CPU seconds of the scope pairing and of ``score`` under each engine."""
    gold, candidate = make_pair(n)
    schema = oa_core.Schema.parse(SCHEMA)
    calls: list[tuple[Any, ...]] = []
    original = referential._pair_scope

    def recording(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    referential._pair_scope = recording  # type: ignore[assignment]
    try:
        with using_engine("python"):
            oa_core.score(gold, candidate, schema)
    finally:
        referential._pair_scope = original  # type: ignore[assignment]
    out: dict[str, float] = {}
    results = {}
    for name in ("python", "rust"):
        with using_engine(name):
            results[name] = [_view(original(*args)) for args in calls]
            out[f"pair_scope {name}"] = _cpu(lambda: [original(*a) for a in calls], repeat)
            scores = oa_core.score(gold, candidate, schema)
            out[f"score {name}"] = _cpu(lambda: oa_core.score(gold, candidate, schema), repeat)
            out[f"bits {name}"] = scores
    if results["python"] != results["rust"] or out["bits python"] != out["bits rust"]:
        raise SystemExit(f"N={n}: the engines differ")
    return out


def main(argv: list[str] | None = None) -> None:
    """Print the figures, one line per size, with the load."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.1f}; CPU seconds, median of {args.repeat}")
    for n in args.sizes:
        found = measure(n, args.repeat)
        print(f"N={n}: pair_scope python {found['pair_scope python']:.4f} rust "
              f"{found['pair_scope rust']:.4f} "
              f"({found['pair_scope python'] / max(found['pair_scope rust'], 1e-9):.1f}x); "
              f"score() python {found['score python']:.4f} rust {found['score rust']:.4f}; "
              f"same bits {found['bits rust'].hex()}")


if __name__ == "__main__":
    main()
