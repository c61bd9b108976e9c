"""Speed and memory of referential alignment on org graphs (issue 2's benchmark).

A graph of N people (id, name, role; about a quarter are property twins) with 2N
mentorship edges; the candidate is a relabeled, shuffled copy with one person
dropped, one name typo and two rerouted edges.

Run: ``python benchmarks/alignment_speed.py [--sizes 200 1000] [--repeat 5]``.
Targets on the project's 2-core machines: N=200 < 0.1 s, N=1000 < 2 s.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import time
import tracemalloc
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

ROLES = ["Engineer", "Manager", "Intern", "Designer", "Analyst"]


def make_pair(n: int, seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """Gold graph and its perturbed, relabeled candidate."""
    rng = random.Random(seed)
    people = []
    for i in range(n):
        if i % 4 == 3:  # a property twin of the previous person
            twin = people[-1]
            people.append({"id": i + 1, "name": twin["name"], "role": twin["role"]})
        else:
            people.append({"id": i + 1, "name": f"Person{i:05d}", "role": rng.choice(ROLES)})
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


def measure(n: int, repeat: int) -> dict[str, float]:
    gold, cand = make_pair(n)
    schema = oa_core.Schema.parse(SCHEMA)
    oa_core.align(gold, cand, schema)  # warm caches and imports
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = oa_core.align(gold, cand, schema)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    oa_core.align(gold, cand, schema)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"n": n, "median_s": statistics.median(times), "min_s": min(times),
            "peak_mib": peak / 2**20, "score": result.score}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'N':>6} {'median s':>9} {'min s':>8} {'peak MiB':>9} {'score':>8}")
    for n in args.sizes:
        row = measure(n, args.repeat)
        print(f"{row['n']:>6} {row['median_s']:>9.4f} {row['min_s']:>8.4f} "
              f"{row['peak_mib']:>9.1f} {row['score']:>8.4f}")


if __name__ == "__main__":
    main()
