"""Every bit the engine gives on a fixed corpus, to compare two builds or two versions.

An optimisation of the engine must keep every score bit, every pair and every repair
delta. This tool writes what :func:`oa_core.score`, :func:`oa_core.align` and
:func:`oa_core.feedback` give, in the three WL modes, on a fixed corpus: every
sample of ``sample_data`` (each schema with each candidate), Org2Graph-sized pairs,
the throughput benchmark's flat and list workloads, a 60-person graph of
``benchmarks/alignment_speed.py`` and the first hostile fuzz triples (with their
custom comparators). Floats are written with :meth:`float.hex`; an input the engine
refuses is written as its error type, pointer and message. Two dumps are equal
exactly when the two engines agree on all of it.

Run from the repository root::

    python -m benchmarks.bits --out before.json      # on the old code
    python -m benchmarks.bits --out after.json       # on the new code
    python -m benchmarks.bits --compare before.json after.json

It compares two engines (``OA_ENGINE``) or two versions of one, bit for bit.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import oa_core
from benchmarks.alignment_speed import SCHEMA as GRAPH_SCHEMA
from benchmarks.alignment_speed import make_pair
from benchmarks.throughput import WORKLOADS
from oa_core.build import describe_build
from oa_core.synthetic import hostile

__all__ = ["corpus", "dump", "main"]

ROOT = Path(__file__).resolve().parent.parent
MODES = ("tie_break", "blend", "none")

Case = tuple[str, Any, Any, Any, Any]  # name, schema, gold, candidate, comparators


def corpus(hostile_count: int = 300, org2graph_count: int = 40) -> Iterator[Case]:
    """The cases, in a fixed order."""
    index = json.loads((ROOT / "sample_data" / "index.json").read_text())
    for entry in index:
        folder = ROOT / "sample_data" / entry["id"]
        gold = json.loads((folder / "gold.json").read_text())
        for schema_entry in entry["schemas"]:
            schema = json.loads((folder / schema_entry["file"]).read_text())
            for candidate_entry in entry["candidates"]:
                candidate = json.loads((folder / candidate_entry["file"]).read_text())
                yield (f"{entry['id']}/{schema_entry['file']}/{candidate_entry['file']}",
                       schema, gold, candidate, None)
    for workload, count in (("org2graph", org2graph_count), ("flat", 20), ("lists", 20)):
        pairs, schema = WORKLOADS[workload]()
        for k, (gold, candidate) in enumerate(pairs[:count]):
            yield f"{workload}/{k}", schema, gold, candidate, None
    gold, candidate = make_pair(60, seed=3)
    yield "graph/60", GRAPH_SCHEMA, gold, candidate, None
    for seed in range(hostile_count):
        schema, gold, candidate = hostile.generate(seed).materialize()
        yield f"hostile/{seed}", schema, gold, candidate, hostile.COMPARATORS


def _refused(error: oa_core.OAError) -> dict[str, str]:
    return {"error": type(error).__name__, "pointer": error.pointer, "message": str(error)}


def _alignment(alignment: oa_core.Alignment) -> dict[str, Any]:
    data = alignment.to_dict()
    data["score"] = alignment.score.hex()
    data["scopes"] = {
        name: {"pairs": [list(p) for p in scope.pairs],
               "rules": sorted([i, j, str(rule)] for (i, j), rule in scope.rules.items()),
               "label_ties": [list(p) for p in scope.label_ties],
               "label_designations": list(scope.label_designations)}
        for name, scope in alignment.scopes.items()}
    return data


def _case(schema: Any, gold: Any, candidate: Any, comparators: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        parsed = oa_core.Schema.parse(schema, comparators=comparators)
    except oa_core.OAError as error:
        return {"schema": _refused(error)}
    for mode in MODES:
        entry: dict[str, Any] = {}
        try:
            entry["score"] = oa_core.score(gold, candidate, parsed, wl_mode=mode).hex()
        except oa_core.OAError as error:
            entry["score"] = _refused(error)
        try:
            entry["align"] = _alignment(oa_core.align(gold, candidate, parsed, wl_mode=mode))
        except oa_core.OAError as error:
            entry["align"] = _refused(error)
        try:
            result = oa_core.feedback(gold, candidate, parsed, wl_mode=mode)
            entry["feedback"] = {"text": result.text,
                                 "deltas": [op.delta.hex() for op in result.ops],
                                 "ops": [op.to_dict() for op in result.ops]}
        except oa_core.OAError as error:
            entry["feedback"] = _refused(error)
        out[mode] = entry
    return out


def dump(hostile_count: int = 300, org2graph_count: int = 40) -> dict[str, Any]:
    """Every case's bits, keyed by the case's name (see :func:`corpus`)."""
    return {name: _case(schema, gold, candidate, comparators)
            for name, schema, gold, candidate, comparators
            in corpus(hostile_count, org2graph_count)}


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    names = sorted(set(before) | set(after))
    return [name for name in names if before.get(name) != after.get(name)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the dump here (default: stdout)")
    parser.add_argument("--hostile", type=int, default=300, help="hostile triples")
    parser.add_argument("--org2graph", type=int, default=40, help="Org2Graph pairs")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="compare two dumps instead; exit 1 if they differ")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(path.read_text())["cases"] for path in args.compare)
        differing = _differences(before, after)
        print(f"{len(before)} and {len(after)} cases; {len(differing)} differ")
        for name in differing[:20]:
            print(f"  {name}")
        return 1 if differing else 0
    text = json.dumps({"engine": describe_build(),
                       "cases": dump(args.hostile, args.org2graph)}, sort_keys=True)
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
