"""The tie policy of referential alignment at scale (issue 22).

On :func:`benchmarks.alignment_speed.make_pair`'s org graphs of N people (a quarter
property twins, a damaged candidate), the CPU seconds of :func:`oa_core.score` and
:func:`oa_core.align` (median of the repeats, this process), and how many of the
person scope's pairs each tie rule decided (attributes, the WL colour bonus, the
agreement depth, the content rule; ``ScopeAlignment.rules``) with the label ties
among them. Run from the repository root::

    python -m benchmarks.ties_speed --sizes 50 200 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import oa_core
from benchmarks.alignment_speed import SCHEMA, make_pair

__all__ = ["main", "measure"]


def _cpu(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def measure(n: int, repeat: int) -> dict[str, Any]:
    """CPU seconds of ``score`` and ``align``, the score's bits, and the pairs per tie
    rule (and label ties) of the person scope."""
    gold, candidate = make_pair(n)
    schema = oa_core.Schema.parse(SCHEMA)
    found = oa_core.align(gold, candidate, schema)
    value = oa_core.score(gold, candidate, schema)
    if value.hex() != found.score.hex():
        raise SystemExit(f"N={n}: score() and align() differ")
    rules: Counter[str] = Counter()
    ties = 0
    for scope in found.scopes.values():
        rules.update(rule.value for rule in scope.rules.values())
        ties += len(scope.label_ties)
    return {"score": _cpu(lambda: oa_core.score(gold, candidate, schema), repeat),
            "align": _cpu(lambda: oa_core.align(gold, candidate, schema), repeat),
            "bits": value, "rules": dict(sorted(rules.items())), "label ties": ties}


def main(argv: list[str] | None = None) -> None:
    """Print the figures, one line per size, with the load."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.1f}; CPU seconds, median of {args.repeat}")
    for n in args.sizes:
        found = measure(n, args.repeat)
        print(f"N={n}: score() {found['score']:.4f} align() {found['align']:.4f}; "
              f"pairs by rule {found['rules']}, label ties {found['label ties']}; "
              f"score {found['bits'].hex()}")


if __name__ == "__main__":
    main()
