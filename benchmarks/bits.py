"""Every bit the engine gives on a fixed corpus, to compare two builds or two versions.

An optimisation of the engine must keep every score bit, every pair and every repair
delta. This tool writes what :func:`oa_core.score`, :func:`oa_core.align` and
:func:`oa_core.feedback` give, in the three WL modes, on a fixed corpus: every
sample of ``sample_data`` (each schema with each candidate), Org2Graph-sized pairs,
the throughput benchmark's flat and list workloads, a 60-person graph of
``benchmarks/alignment_speed.py``, the first hostile fuzz triples (with their
custom comparators) and scopes nested in arrays (hand-written cases and hostile
triples drawn with ``nested=True``). Floats are written with :meth:`float.hex`; an
input the engine refuses is written as its error type, pointer and message. Two dumps
are equal exactly when the two builds agree on all of it.

Run from the repository root::

    python -m benchmarks.bits --out before.json      # on the old code
    python -m benchmarks.bits --out after.json       # on the new code
    python -m benchmarks.bits --compare before.json after.json

It compares two builds or two versions of the engine, bit for bit.

The golden files. ``tests/golden/<family>.json.gz`` hold the corpus of
:data:`GOLDEN_CORPUS` as :func:`public_view` gives it (the engine's public outputs:
scores, pairs, tie rules, WL rounds, match trees, ops, deltas and feedback text;
without the wording of refusals and of the validator's schema violations, which are
not the engine's rules), one file per family (:func:`family`).
``tests/test_golden_bits.py`` recomputes every case and names the first that
differs. After a deliberate change of the engine's results, regenerate them with::

    python -m benchmarks.bits --write-golden
"""

from __future__ import annotations

import argparse
import gzip
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
from synthetic import hostile

__all__ = ["FAMILIES", "GOLDEN_CORPUS", "corpus", "dump", "family", "first_difference",
           "load_golden", "main", "public_view", "scoped_cases", "write_golden"]

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
MODES = ("tie_break", "blend", "none")
FAMILIES = ("samples", "org2graph", "flat", "lists", "graph", "hostile", "nested")
# the corpus the golden files freeze: every family, small enough to recompute in the
# suite (the hostile triples drawn with nested=True are those whose scopes nested)
GOLDEN_CORPUS = {"hostile_count": 300, "org2graph_count": 20, "nested_count": 300}

_MEMBERS = {"type": "object", "properties": {
    "id": {"type": "integer", "idScope": "m"}, "name": {"type": "string"},
    "buddy": {"type": ["integer", "null"], "ref": "m"}}}


def _groups(outer: str, inner: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"groups": {"type": "array", "order": outer, "items": {
        "type": "object", "properties": {"members": {"type": "array", "order": inner,
                                                     "items": _MEMBERS}}}}}}


_GROUPS_GOLD = {"groups": [
    {"members": [{"id": 1, "name": "ann", "buddy": 3}, {"id": 2, "name": "bob"}]},
    {"members": [{"id": 3, "name": "cy", "buddy": 1}, {"id": 4, "name": "ann", "buddy": 4}]}]}
_GROUPS_CANDIDATE = {"groups": [  # ids relabelled, bob moved, a buddy rerouted, a name off
    {"members": [{"id": 11, "name": "ann", "buddy": 13}]},
    {"members": [{"id": 14, "name": "anne", "buddy": 14}, {"id": 13, "name": "cy",
                                                           "buddy": 14},
                 {"id": 12, "name": "bob"}]}]}
_NESTED_CASES: list[tuple[str, Any, Any, Any]] = [
    ("array-of-arrays", {"type": "array", "items": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "integer", "idScope": "p"}}}}},
     [[{"id": 1}]], [[{"id": 1}]]),
    *[(f"groups-{outer}-{inner}/{which}", _groups(outer, inner), _GROUPS_GOLD, candidate)
      for outer in ("align", "fixed") for inner in ("align", "fixed")
      for which, candidate in (("same", _GROUPS_GOLD), ("edited", _GROUPS_CANDIDATE))],
]

Case = tuple[str, Any, Any, Any, Any]  # name, schema, gold, candidate, comparators


def corpus(hostile_count: int = 300, org2graph_count: int = 40,
           nested_count: int = 60) -> Iterator[Case]:
    """The cases, in a fixed order (``nested_count``: hostile seeds drawn with
    ``nested=True``, of which those whose scopes nested are kept)."""
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
    for name, schema, gold, candidate in _NESTED_CASES:
        yield f"nested/{name}", schema, gold, candidate, None
    for seed in range(nested_count):
        triple = hostile.generate(seed, nested=True)
        if "nested-scope" in triple.features:
            schema, gold, candidate = triple.materialize()
            yield f"nested/hostile/{seed}", schema, gold, candidate, hostile.COMPARATORS


def scoped_cases() -> Iterator[tuple[str, oa_core.Schema, Any, Any]]:
    """The golden corpus's cases whose schema parses and declares scopes, as (name,
    parsed schema, gold, candidate): what the referential parity tests replay."""
    for name, schema, gold, candidate, comparators in corpus(**GOLDEN_CORPUS):
        try:
            parsed = oa_core.Schema.parse(schema, comparators=comparators)
        except oa_core.OAError:
            continue
        if parsed.scopes:
            yield name, parsed, gold, candidate


def family(name: str) -> str:
    """The golden file of a case: its corpus family (every sample is in ``samples``)."""
    head = name.split("/", 1)[0]
    return head if head in FAMILIES else "samples"


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


def case(schema: Any, gold: Any, candidate: Any, comparators: Any) -> dict[str, Any]:
    """One case's bits in every WL mode (a refusal as its type, pointer and message)."""
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


def dump(hostile_count: int = 300, org2graph_count: int = 40,
         nested_count: int = 60) -> dict[str, Any]:
    """Every case's bits, keyed by the case's name (see :func:`corpus`)."""
    return {name: case(schema, gold, candidate, comparators)
            for name, schema, gold, candidate, comparators
            in corpus(hostile_count, org2graph_count, nested_count)}


def public_view(value: Any) -> Any:
    """A case's bits (:func:`case`) without the wording of refusals and of schema
    violations: their type and pointer stay (the validator's messages are not the
    engine's rules, and a port need not word them alike), as plain JSON (no enums,
    no tuples: what the golden files hold)."""
    return _without_wording(json.loads(json.dumps(value)))


def _without_wording(value: Any) -> Any:
    if isinstance(value, dict):
        if "error" in value and "pointer" in value:  # a refusal
            return {k: v for k, v in value.items() if k != "message"}
        return {k: ([{kk: vv for kk, vv in d.items() if kk != "message"} for d in v]
                    if k == "violations" and isinstance(v, list) else _without_wording(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_without_wording(v) for v in value]
    return value


def write_golden(directory: Path = GOLDEN) -> dict[str, int]:
    """Write the golden files of :data:`GOLDEN_CORPUS`; the cases per family."""
    directory.mkdir(parents=True, exist_ok=True)
    families: dict[str, dict[str, Any]] = {name: {} for name in FAMILIES}
    for name, schema, gold, candidate, comparators in corpus(**GOLDEN_CORPUS):
        families[family(name)][name] = public_view(case(schema, gold, candidate, comparators))
    for name, cases in families.items():
        text = json.dumps(cases, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        # mtime 0 and no file name inside: the same cases give the same bytes
        with (directory / f"{name}.json.gz").open("wb") as raw, gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
            out.write(text.encode("ascii"))
    return {name: len(cases) for name, cases in families.items()}


def load_golden(name: str, directory: Path = GOLDEN) -> dict[str, Any]:
    """The golden cases of family ``name``, keyed by case name."""
    with gzip.open(directory / f"{name}.json.gz", "rt", encoding="ascii") as source:
        found: dict[str, Any] = json.load(source)
    return found


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ (a JSON Pointer into them) and the two
    values there; None when they are equal.

    >>> first_difference({"a": [1, 2]}, {"a": [1, 3]})
    ('/a/1', 2, 3)
    """
    if type(expected) is not type(actual):
        return path, expected, actual
    if isinstance(expected, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{path}/{key}", expected.get(key, "<absent>"), actual.get(
                    key, "<absent>")
            found = first_difference(expected[key], actual[key], f"{path}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        for k, (a, b) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(a, b, f"{path}/{k}")
            if found is not None:
                return found
        if len(expected) != len(actual):
            return f"{path}/length", len(expected), len(actual)
        return None
    return None if expected == actual else (path, expected, actual)


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    names = sorted(set(before) | set(after))
    return [name for name in names if before.get(name) != after.get(name)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the dump here (default: stdout)")
    parser.add_argument("--hostile", type=int, default=300, help="hostile triples")
    parser.add_argument("--org2graph", type=int, default=40, help="Org2Graph pairs")
    parser.add_argument("--nested", type=int, default=60,
                        help="hostile seeds drawn with nested scopes")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="compare two dumps instead; exit 1 if they differ")
    parser.add_argument("--write-golden", action="store_true",
                        help=f"write the golden files ({GOLDEN.relative_to(ROOT)}) instead")
    args = parser.parse_args(argv)
    if args.write_golden:
        counts = write_golden()
        print(", ".join(f"{name} {count}" for name, count in counts.items()), "cases")
        return 0
    if args.compare:
        before, after = (json.loads(path.read_text())["cases"] for path in args.compare)
        differing = _differences(before, after)
        print(f"{len(before)} and {len(after)} cases; {len(differing)} differ")
        for name in differing[:20]:
            print(f"  {name}")
        return 1 if differing else 0
    text = json.dumps({"engine": describe_build(),
                       "cases": dump(args.hostile, args.org2graph, args.nested)},
                      sort_keys=True)
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
