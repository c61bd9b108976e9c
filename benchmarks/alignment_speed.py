"""Speed and memory of referential alignment on org graphs (issue 2's benchmark).

A graph of N people (id, name, role; about a quarter are property twins) with 2N
mentorship edges; the candidate is a relabeled, shuffled copy with one person
dropped, one name typo and two rerouted edges.

Run: ``python benchmarks/alignment_speed.py [--sizes 200 1000] [--repeat 5]``;
``--stages`` adds where the peak memory goes, stage by stage, and
``--max-matrix-cells`` raises :class:`~oa_core.Limits` for N of 4,000 and more;
``--primitives 100000`` also aligns a list of 100,000 integers compared ``exact``;
``--blocked 10000 100000`` scores (``oa_core.score``, each size in a process of its
own, peak RSS reported) people who also have a team, 1,000 people a team, under
:data:`BLOCKED_SCHEMA`, whose people are paired within their team only (``blockBy``,
an explicit option that can change the optimum: see ``docs/schema.md``);
``--scored 10000`` scores the N-person pair with the whole scope paired exactly (the
matrix limit raised to N x N).
Targets on the project's 2-core machines: N=200 < 0.1 s, N=1000 < 2 s.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import oa_core

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "person"},
        "name": {"type": "string", "score": "jaro", "valueWeight": 2},
        "role": {"type": "string", "score": "exact"}}}},
    "mentorships": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "mentor": {"type": "integer", "ref": "person"},
        "mentee": {"type": "integer", "ref": "person"}}}}}}

# The same people with a team each, paired within their team only.
BLOCKED_SCHEMA: dict[str, Any] = copy.deepcopy(SCHEMA)
BLOCKED_SCHEMA["properties"]["people"]["blockBy"] = "team"
BLOCKED_SCHEMA["properties"]["people"]["items"]["properties"]["team"] = {
    "type": "string", "score": "exact"}

ROLES = ["Engineer", "Manager", "Intern", "Designer", "Analyst"]


def make_pair(n: int, seed: int = 0, *, teams: int = 0) -> tuple[dict[str, Any],
                                                                 dict[str, Any]]:
    """Gold graph and its perturbed, relabeled candidate; with ``teams``, each
    person also has one of that many teams (spread evenly, twins share theirs)."""
    rng = random.Random(seed)
    people: list[dict[str, Any]] = []
    for i in range(n):
        if i % 4 == 3:  # a property twin of the previous person
            twin = people[-1]
            people.append({"id": i + 1, "name": twin["name"], "role": twin["role"]})
        else:
            people.append({"id": i + 1, "name": f"Person{i:05d}", "role": rng.choice(ROLES)})
        if teams:  # drawn from no generator: the pairs without teams stay the same
            people[-1]["team"] = people[-2]["team"] if i % 4 == 3 else (
                f"Team{(i * 7919) % teams:04d}")
    edges = [{"mentor": rng.randint(1, n), "mentee": rng.randint(1, n)} for _ in range(2 * n)]
    gold = {"people": people, "mentorships": edges}
    cand = copy.deepcopy(gold)
    dropped = cand["people"].pop(rng.randrange(n))["id"]
    cand["people"][0]["name"] += "x"
    for edge in cand["mentorships"][:2]:
        edge["mentee"] = rng.randint(1, n)
    ids = list(range(1, n + 1))
    new_ids = rng.sample(range(10_000, 10_000 + 10 * n), n)
    mapping = dict(zip(ids, new_ids, strict=True))
    for person in cand["people"]:
        person["id"] = mapping[person["id"]]
    for edge in cand["mentorships"]:
        edge["mentor"] = mapping.get(edge["mentor"], dropped)
        edge["mentee"] = mapping.get(edge["mentee"], dropped)
    rng.shuffle(cand["people"])
    rng.shuffle(cand["mentorships"])
    return gold, cand


def measure(n: int, repeat: int, limits: oa_core.Limits | None = None) -> dict[str, float]:
    gold, cand = make_pair(n)
    schema = oa_core.Schema.parse(SCHEMA)
    limits = limits or oa_core.Limits()
    oa_core.align(gold, cand, schema, limits=limits)  # warm caches and imports
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = oa_core.align(gold, cand, schema, limits=limits)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    tracemalloc.start()
    oa_core.align(gold, cand, schema, limits=limits)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"n": n, "median_s": statistics.median(times), "min_s": min(times),
            "cpu_s": statistics.median(cpu),
            "peak_mib": peak / 2**20, "score": result.score}


# The stages of align() whose peaks are reported, as (label, module, attribute); none
# runs inside another, but a stage may run several times (its largest peak counts).
# tracemalloc sees Python's and numpy's allocations, not the Rust engine's own.
STAGES = (
    ("validation and check_json", "oa_core.aligner", "schema_violations"),
    ("scopes resolved (C, WL, pairing, ties, traces) and the node table", "oa_core.aligner",
     "resolved_scopes"),
    ("scope alignments, traces and warnings built", "oa_core.aligner", "scope_resolution"),
    ("match tree (MatchNode tree)", "oa_core.aligner", "match_tree"),
)


def stage_peaks(n: int, limits: oa_core.Limits | None = None) -> dict[str, float]:
    """The peak traced memory (MiB) above the memory in use when each stage of one
    ``align`` of the N-person pair starts, and the whole call's peak ("total", above
    the memory in use before the call)."""
    import functools
    import importlib

    gold, cand = make_pair(n)
    schema = oa_core.Schema.parse(SCHEMA)
    peaks: dict[str, float] = {}
    depth, highest = [0], [0]
    patched = []
    for label, module_name, attribute in STAGES:
        owner: Any = importlib.import_module(module_name)
        if "." in attribute:
            owner, attribute = getattr(owner, attribute.split(".")[0]), attribute.split(".")[1]
        original = getattr(owner, attribute)

        def wrapper(*args: Any, _original: Any = original, _label: str = label,
                    **kwargs: Any) -> Any:
            if depth[0]:  # inside another stage: counted there
                return _original(*args, **kwargs)
            depth[0] += 1
            start, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            try:
                return _original(*args, **kwargs)
            finally:
                _, peak = tracemalloc.get_traced_memory()
                depth[0] -= 1
                peaks[_label] = max(peaks.get(_label, 0.0), (peak - start) / 2**20)
                highest[0] = max(highest[0], peak)  # reset_peak forgets it

        setattr(owner, attribute, functools.wraps(original)(wrapper))
        patched.append((owner, attribute, original))
    try:
        tracemalloc.start()
        oa_core.align(gold, cand, schema, limits=limits or oa_core.Limits())
        total = max(highest[0], tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()
        for owner, attribute, original in patched:
            setattr(owner, attribute, original)
    return {**peaks, "total": total / 2**20}


PRIMITIVES_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"values": {
    "type": "array", "order": "align", "items": {"type": "integer", "score": "exact"}}}}


def measure_primitives(n: int) -> dict[str, float]:
    """CPU seconds and peak of one ``score`` of a list of ``n`` integers (values
    repeat; the candidate is shuffled, with a tenth of them changed)."""
    rng = random.Random(0)
    gold = [rng.randrange(n // 2 or 1) for _ in range(n)]
    cand = [v if rng.random() > 0.1 else v + n for v in gold]
    rng.shuffle(cand)
    schema = oa_core.Schema.parse(PRIMITIVES_SCHEMA)
    tracemalloc.start()
    start = time.process_time()
    value = oa_core.score({"values": gold}, {"values": cand}, schema)
    cpu = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"n": n, "cpu_s": cpu, "peak_mib": peak / 2**20, "score": value}


def measure_scored(n: int, teams: int = 0) -> dict[str, float]:
    """One ``score`` of the N-person pair in a new process: wall and CPU seconds,
    peak RSS. With ``teams``, people also have
    one of that many teams under :data:`BLOCKED_SCHEMA` (paired within their team);
    without, the exact pairing of the whole scope under :data:`SCHEMA`, with
    ``Limits.max_matrix_cells`` raised to N x N. (The 2N mentorships need
    ``Limits.max_items`` raised past N = 50,000.)"""
    schema = "BLOCKED_SCHEMA" if teams else "SCHEMA"
    script = ("import json, resource, time, oa_core\n"
              f"from benchmarks.alignment_speed import {schema} as schema, make_pair\n"
              f"gold, cand = make_pair({n}, teams={teams})\n"
              "schema = oa_core.Schema.parse(schema)\n"
              f"limits = oa_core.Limits(max_items=max(100_000, 2 * {n}), "
              f"max_matrix_cells=max(25_000_000, {n} * {n}))\n"
              "wall, cpu = time.perf_counter(), time.process_time()\n"
              "value = oa_core.score(gold, cand, schema, limits=limits)\n"
              "print(json.dumps({'wall_s': time.perf_counter() - wall, 'cpu_s': "
              "time.process_time() - cpu, 'rss_mib': resource.getrusage("
              "resource.RUSAGE_SELF).ru_maxrss / 1024, 'score': value.hex()}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    return {"n": n, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--stages", action="store_true",
                        help="also where each size's peak memory goes, stage by stage")
    parser.add_argument("--primitives", type=int, nargs="*", default=[],
                        help="also align lists of this many integers (exact)")
    parser.add_argument("--blocked", type=int, nargs="*", default=[],
                        help="also score this many people paired within teams of 1,000")
    parser.add_argument("--scored", type=int, nargs="*", default=[],
                        help="also score this many people, the whole scope paired exactly")
    parser.add_argument("--max-matrix-cells", type=int, default=None,
                        help="raise Limits.max_matrix_cells (N=4000 and up need it)")
    args = parser.parse_args()
    limits = (oa_core.Limits(max_matrix_cells=args.max_matrix_cells)
              if args.max_matrix_cells else None)
    print("wall and CPU seconds of align (the machine may be shared); peak = tracemalloc")
    print(f"{'N':>6} {'median s':>9} {'min s':>8} {'CPU s':>8} {'peak MiB':>9} {'score':>8}")
    for n in args.sizes:
        row = measure(n, args.repeat, limits)
        print(f"{row['n']:>6} {row['median_s']:>9.4f} {row['min_s']:>8.4f} "
              f"{row['cpu_s']:>8.3f} {row['peak_mib']:>9.1f} {row['score']:>8.4f}")
        if args.stages:
            for label, mib in stage_peaks(n, limits).items():
                print(f"       {label:<44} {mib:>9.1f} MiB")
    for n in args.primitives:
        row = measure_primitives(n)
        print(f"{n:,} integers (exact): {row['cpu_s']:.2f} s CPU, {row['peak_mib']:.1f} MiB "
              f"peak, score {row['score']:.4f}")
    for n, teams in [(n, max(1, n // 1000)) for n in args.blocked] + [
            (n, 0) for n in args.scored]:
        row = measure_scored(n, teams)
        what = "in teams of 1,000 (blockBy)" if teams else "(exact, one scope)"
        print(f"{n:,} people {what}, score(): {row['wall_s']:.1f} s wall, "
              f"{row['cpu_s']:.1f} s CPU, {row['rss_mib']:,.0f} MiB peak RSS, score "
              f"{row['score']}")


if __name__ == "__main__":
    main()
