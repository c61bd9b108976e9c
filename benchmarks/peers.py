"""Object Aligner next to Stickler (``stickler-eval``) on the same documents, in one run.

Three cases with equal semantics on both sides (issue 14): strings compared by the
normalized Levenshtein similarity, numbers by equality, every weight 1, no
threshold anywhere (Stickler's field ``threshold`` and model ``match_threshold``
are 0; OA has none by default), lists paired by an optimal assignment:

``list 50x100``
    a gold list of 50 records (3 string and 2 integer fields) against a candidate
    list of 100: the 50 gold records shuffled, a third of them with one typo or
    changed number, and 50 other records;
``list 500x500``
    the same with 500 gold records and 500 candidates (a fifth of them new);
``flat record``
    200 pairs of flat records of 5 string and 5 number fields (the candidate with
    3 changed values), scored one pair at a time: pairs per second.

Stickler is used as a black box through its public API (a ``StructuredModel`` per
record type, ``Model(**json)`` then ``compare_with``); both sides are timed from
JSON data to the score, OA with its parsed schema reused (as a metric does), and
Stickler with its model classes made once. Times are CPU seconds of this process
(``time.process_time``; the machine may be shared); the peak is the largest traced
allocation (``tracemalloc``) during one run of each: Python's allocations only, so
OA's column leaves out what its Rust engine allocates (Stickler's and NumPy's are seen).
Both scores are printed, with their largest difference (the two sum in different
orders: equal up to the last bits).

Needs the ``peers`` extra (``pip install -e '.[peers]'``). Run::

    python -m benchmarks.peers                # every case (Stickler's 500x500 takes minutes)
    python -m benchmarks.peers --cases list50 flat --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import oa_core

__all__ = ["CASES", "list_case", "main", "measure", "stickler_models"]

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "sigma"]


def _record(rng: np.random.Generator, strings: int, numbers: int) -> dict[str, Any]:
    record: dict[str, Any] = {f"s{k}": " ".join(rng.choice(WORDS, 2).tolist())
                              for k in range(strings)}
    record.update({f"n{k}": int(rng.integers(0, 1000)) for k in range(numbers)})
    return record


def _perturbed(rng: np.random.Generator, record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    key = str(rng.choice(sorted(out)))
    out[key] = out[key] + "x" if isinstance(out[key], str) else out[key] + 1
    return out


def list_case(gold_size: int, candidate_size: int, seed: int = 0
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """A gold list of records and a candidate list (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    gold = [_record(rng, 3, 2) for _ in range(gold_size)]
    kept = gold[:min(gold_size, candidate_size * 4 // 5 if candidate_size <= gold_size
                     else gold_size)]
    candidate = [_perturbed(rng, r) if k % 3 == 0 else dict(r) for k, r in enumerate(kept)]
    candidate += [_record(rng, 3, 2) for _ in range(candidate_size - len(candidate))]
    order = rng.permutation(len(candidate))
    return {"items": gold}, {"items": [candidate[k] for k in order]}


def flat_case(count: int = 200, seed: int = 0) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``count`` pairs of flat records of 5 string and 5 number fields."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(count):
        gold = _record(rng, 5, 5)
        candidate = dict(gold)
        for key in rng.choice(sorted(gold), 3, replace=False).tolist():
            candidate = {**candidate, key: _perturbed(rng, {key: gold[key]})[key]}
        pairs.append((gold, candidate))
    return pairs


def oa_schema(strings: int, numbers: int, listed: bool) -> dict[str, Any]:
    """The OA schema of the records (in an ``items`` list when ``listed``)."""
    record = {"type": "object", "properties": {
        **{f"s{k}": {"type": "string", "score": "levenshtein"} for k in range(strings)},
        **{f"n{k}": {"type": "integer", "score": "exact"} for k in range(numbers)}}}
    if not listed:
        return record
    return {"type": "object", "properties": {
        "items": {"type": "array", "order": "align", "items": record}}}


def stickler_models(strings: int, numbers: int) -> tuple[Any, Any]:
    """Stickler's record model and a document model holding a list of records."""
    from stickler import (
        ComparableField,
        ExactComparator,
        LevenshteinComparator,
        StructuredModel,
    )

    annotations: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    with warnings.catch_warnings():  # threshold=0 warns: no threshold is what is compared
        warnings.simplefilter("ignore")
        for k in range(strings):
            annotations[f"s{k}"] = str
            fields[f"s{k}"] = ComparableField(comparator=LevenshteinComparator(),
                                              threshold=0.0, weight=1.0)
        for k in range(numbers):
            annotations[f"n{k}"] = int
            fields[f"n{k}"] = ComparableField(comparator=ExactComparator(), threshold=0.0,
                                              weight=1.0)
        record = type("Record", (StructuredModel,), {
            "__annotations__": annotations, "match_threshold": 0.0, **fields})
        document = type("Document", (StructuredModel,), {
            "__annotations__": {"items": list[record]},  # type: ignore[valid-type]
            "items": ComparableField(weight=1.0)})
    return record, document


def _timed(fn: Callable[[], list[float]], repeat: int,
           memory: bool = True) -> tuple[list[float], float, float | None]:
    """(scores, median CPU seconds, peak MiB) of ``fn``; the peak (one more run, traced,
    several times slower) only with ``memory``."""
    times = []
    scores: list[float] = []
    for _ in range(repeat):
        start = time.process_time()
        scores = fn()
        times.append(time.process_time() - start)
    if not memory:
        return scores, statistics.median(times), None
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return scores, statistics.median(times), peak / 2**20


def measure(case: str, repeat: int = 3, stickler_repeat: int = 1,
            memory: bool = True) -> dict[str, Any]:
    """Both scorers on one case: scores, CPU seconds, peak MiB (None without ``memory``)
    and the time ratio."""
    if case == "flat":
        pairs = flat_case()
        strings, numbers, listed = 5, 5, False
    else:
        sizes = {"list50": (50, 100), "list500": (500, 500)}[case]
        pairs = [list_case(*sizes)]
        strings, numbers, listed = 3, 2, True
    schema = oa_core.Schema.parse(oa_schema(strings, numbers, listed))
    record, document = stickler_models(strings, numbers)

    def oa_run() -> list[float]:
        return [oa_core.score(g, c, schema) for g, c in pairs]

    def stickler_run() -> list[float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if listed:
                return [document(items=[record(**r) for r in g["items"]]).compare_with(
                    document(items=[record(**r) for r in c["items"]]))["overall_score"]
                    for g, c in pairs]
            return [record(**g).compare_with(record(**c))["overall_score"] for g, c in pairs]

    oa_run()  # imports and caches, on both sides (not Stickler's slow 500x500 twice)
    if case != "list500":
        stickler_run()
    oa_scores, oa_s, oa_peak = _timed(oa_run, repeat, memory)
    st_scores, st_s, st_peak = _timed(stickler_run, stickler_repeat, memory)
    return {"case": case, "pairs": len(pairs), "oa_s": oa_s, "stickler_s": st_s,
            "ratio": st_s / oa_s if oa_s else float("inf"),
            "oa_pairs_per_s": len(pairs) / oa_s if oa_s else float("inf"),
            "stickler_pairs_per_s": len(pairs) / st_s if st_s else float("inf"),
            "oa_peak_mib": oa_peak, "stickler_peak_mib": st_peak,
            "oa_score": statistics.fmean(oa_scores),
            "stickler_score": statistics.fmean(st_scores),
            "max_score_difference": max(abs(a - b) for a, b in zip(
                oa_scores, st_scores, strict=True))}


CASES = {"list50": "list 50x100", "list500": "list 500x500", "flat": "flat record"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--repeat", type=int, default=3, help="OA runs per case")
    parser.add_argument("--stickler-repeat", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    print("CPU seconds of this process (the machine may be shared); peak = tracemalloc "
          "(Python allocations only: not those of OA's Rust engine)")
    print(f"{'case':<13} {'OA s':>9} {'Stickler s':>11} {'ratio':>8} {'OA MiB':>7} "
          f"{'St. MiB':>8}  {'OA score':>19} {'Stickler score':>19} {'max diff':>9}")
    rows = []
    for case in args.cases:
        row = measure(case, args.repeat, args.stickler_repeat)
        rows.append(row)
        print(f"{CASES[case]:<13} {row['oa_s']:>9.4f} {row['stickler_s']:>11.3f} "
              f"{row['ratio']:>7.0f}x {row['oa_peak_mib']:>7.2f} "
              f"{row['stickler_peak_mib']:>8.2f}  {row['oa_score']!r:>19} "
              f"{row['stickler_score']!r:>19} {row['max_score_difference']:>9.1e}")
        if case == "flat":
            print(f"{'':<13} {row['oa_pairs_per_s']:>9,.0f} {row['stickler_pairs_per_s']:>11,.0f}"
                  "  pairs/s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
