"""The leaf comparators (Rust): comparisons per CPU second, one process.

Every built-in comparator (``oa_core.comparators.BUILTIN_COMPARATORS``) runs on a fixed
workload in two forms:

``scalar``
    one ``Comparator.scalar`` call per pair (the match tree's leaves): the figure is
    pairs per CPU second;
``matrix``
    ``Comparator.matrix`` on 32 golds x 32 candidates (the score matrices that drive
    alignment): the figure is cells per CPU second.

Workloads, drawn from a fixed seed: strings are names and short phrases (3-40
characters, some accented) with near copies among the candidates; numbers are
integers and floats below 10**6, and for ``invdiff (wide)`` integers beyond 2**53,
which are subtracted exactly. The figure is the median over the turns
(``time.process_time``, one thread). The two forms are checked to give the same bits
before timing. The Python implementations (rapidfuzz and numpy) these were once timed
beside were deleted on 2026-11-26; the figures from before are in docs/performance.md.

Run from the repository root::

    python -m benchmarks.comparator_speed              # 7 turns
    python -m benchmarks.comparator_speed --turns 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from oa_core.build import describe_build
from oa_core.comparators import BUILTIN_COMPARATORS, Comparator

__all__ = ["IMPLEMENTATIONS", "WORKLOADS", "main", "measure", "workload"]

IMPLEMENTATIONS: dict[str, dict[str, Comparator]] = {"rust": BUILTIN_COMPARATORS}

# (label, comparator, value kind)
WORKLOADS: list[tuple[str, str, str]] = [
    *((name, name, "string") for name in ("exact", "jaro", "jaro_winkler", "levenshtein",
                                          "damerau_levenshtein", "osa", "indel", "lcsseq")),
    ("invdiff", "invdiff", "number"),
    ("relative", "relative", "number"),
    ("invdiff (wide)", "invdiff", "wide"),
]

SIDE = 32  # golds and candidates of a matrix

_WORDS = ["Ada", "Lovelace", "Grace", "Hopper", "Édith", "Piaf", "Zoë", "Müller", "Jean",
          "closing", "remarks", "opening", "keynote", "panel", "intro", "outro", "Q&A",
          "workshop", "Łódź", "São", "Paulo", "north", "wing", "room"]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))


def _near(rng: random.Random, text: str) -> str:
    cut = rng.randrange(len(text) + 1)
    return text[:cut] + rng.choice(["", "e", "x", text[cut:cut + 2][::-1]]) + text[cut + 2:]


def _number(rng: random.Random, kind: str) -> int | float:
    if kind == "wide":
        return rng.randrange(2**60, 2**70) * rng.choice([1, -1])
    return rng.randrange(10**6) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)


def workload(kind: str, size: int, seed: int = 0) -> tuple[list[Any], list[Any]]:
    """``size`` golds and as many candidates (half of them near copies of a gold)."""
    rng = random.Random(f"{kind}/{seed}")
    if kind == "string":
        golds: list[Any] = [_text(rng) for _ in range(size)]
        candidates: list[Any] = [_near(rng, g) if rng.random() < 0.5 else _text(rng)
                                 for g in golds]
    else:
        golds = [_number(rng, kind) for _ in range(size)]
        candidates = [g + rng.choice([0, 1, -3]) if rng.random() < 0.5
                      else _number(rng, kind) for g in golds]
    return golds, candidates


def _bits(value: Any) -> list[str]:
    return [float(v).hex() for v in np.ravel(value)]


def _scalars(golds: list[Any], candidates: list[Any], comparator: Comparator) -> None:
    for g, p in zip(golds, candidates, strict=True):
        comparator.scalar(g, p)


def _matrices(rows: list[Any], columns: list[Any], repeats: int,
              comparator: Comparator) -> None:
    for _ in range(repeats):
        comparator.matrix(rows, columns)


def _median_rates(run: Callable[[Comparator], None], count: int,
                  tables: dict[str, Comparator], turns: int) -> dict[str, float]:
    rates: dict[str, list[float]] = {impl: [] for impl in tables}
    for turn in range(turns):
        for impl in (list(tables) if turn % 2 == 0 else list(tables)[::-1]):
            start = time.process_time()
            run(tables[impl])
            rates[impl].append(count / max(time.process_time() - start, 1e-9))
    return {impl: statistics.median(values) for impl, values in rates.items()}


def measure(turns: int = 7, pairs: int = 2000) -> dict[str, dict[str, dict[str, float]]]:
    """Median comparisons per CPU second: ``{label: {form: {implementation: rate}}}``.

    ``form`` is ``scalar`` (``pairs`` pairs) or ``matrix`` (32 x 32 cells, repeated to
    about ``pairs`` cells).
    """
    results: dict[str, dict[str, dict[str, float]]] = {}
    for label, name, kind in WORKLOADS:
        golds, candidates = workload(kind, pairs)
        rows, columns = golds[:SIDE], candidates[:SIDE]
        repeats = max(1, pairs // (SIDE * SIDE))
        tables = {impl: table[name] for impl, table in IMPLEMENTATIONS.items()}
        for impl, comparator in tables.items():  # the matrix's diagonal: the first pairs
            scalars = _bits([comparator.scalar(g, p) for g, p in zip(rows, columns, strict=True)])
            if scalars != _bits(np.diag(comparator.matrix(rows, columns))):
                raise AssertionError(f"{label}: {impl}'s scalar and matrix forms disagree")
        results[label] = {
            "scalar": _median_rates(partial(_scalars, golds, candidates), len(golds),
                                    tables, turns),
            "matrix": _median_rates(partial(_matrices, rows, columns, repeats),
                                    repeats * len(rows) * len(columns), tables, turns)}
    return results


def _table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = [f"{'comparator':<22}{'form':<8}{'rust /s':>14}"]
    for label, forms in results.items():
        for form, rates in forms.items():
            lines.append(f"{label:<22}{form:<8}{rates['rust']:>14,.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=7, help="turns (median over them)")
    parser.add_argument("--pairs", type=int, default=2000, help="pairs per turn")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    results = measure(args.turns, args.pairs)
    print(f"{describe_build()}; {platform.python_implementation()} {platform.python_version()}"
          f"; load average {os.getloadavg()[0]:.2f}")
    print(_table(results))
    if args.json:
        args.json.write_text(json.dumps({"engine": describe_build(), "turns": args.turns,
                                         "pairs": args.pairs,
                                         "load_average": os.getloadavg()[0],
                                         "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
