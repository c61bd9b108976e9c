"""The alignment solvers (Rust, ``oa_core._engine``): CPU time per call, one core,
one process.

Workloads, each an ``oa_core._engine`` call, made twice (the same output) before it
is timed:

``max_weight NxN``
    ``_engine.max_weight_matching`` of a similarity matrix whose cells are 0 (a third
    of them) or two-decimal values (many ties);
``monotone NxN``
    ``_engine.monotone_matching`` of the same matrix;
``wl running example``
    ``_engine.wl_refine`` on the running example's person graph (as ``align``
    builds it);
``wl V vertices``
    refinement of a union of two mentorship graphs of ``V / 2`` records each (two
    edges a record; the candidate a shuffled copy with 1% of the edges rerouted);
``blocks N records``
    ``_engine.blocks`` of two lists of ``N`` records by two properties.

The Python implementations these were once timed beside were deleted on 2026-11-26;
the figures from before, Python beside Rust, are in docs/performance.md.

Each turn repeats a call until ``--budget`` CPU seconds (``time.process_time``) have
passed; the figure is the median over the turns of CPU microseconds per call,
including the conversion of the inputs (numpy arrays, tuples) at the boundary.

Run from the repository root::

    python -m benchmarks.solver_speed                  # 5 turns, every workload
    python -m benchmarks.solver_speed --turns 3 --json out.json
    python -m benchmarks.solver_speed --sparse-items 0   # no blocking row
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import oa_core
from oa_core import _engine, wl

ROOT = Path(__file__).resolve().parent.parent
MATRIX_SIZES = (8, 50, 300)
WL_VERTICES = 4000
SPARSE_ITEMS = 10_000

Call = Callable[[], Any]


def similarity_matrix(n: int, seed: int = 0) -> np.ndarray:
    """An ``n x n`` matrix: a third zeros, the rest two-decimal values in (0, 1]."""
    rng = np.random.default_rng(seed)
    values = np.ceil(rng.random((n, n)) * 100) / 100
    return np.where(rng.random((n, n)) < 1 / 3, 0.0, values)


def running_example_graph() -> tuple[list[wl.WLVertex], list[wl.WLEdge], list[str]]:
    """The person graph ``align`` refines on the running example; seeds that sort as
    its round 0 does (zero-padded colours)."""
    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, schema = (json.loads((folder / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    trace = oa_core.align(gold, candidate, oa_core.Schema.parse(schema)).wl["person"]
    return trace.vertices, trace.edges, [f"{c:08d}" for c in trace.rounds[0]]


def mentorship_graph(vertices: int, seed: int = 0
                     ) -> tuple[list[wl.WLVertex], list[wl.WLEdge], list[str]]:
    """Two mentorship graphs of ``vertices // 2`` records (two edges a record), the
    candidate a shuffled copy with 1% of its edges rerouted."""
    rng = random.Random(seed)
    half = vertices // 2
    gold = [(rng.randrange(half), rng.randrange(half)) for _ in range(2 * half)]
    order = list(range(half))
    rng.shuffle(order)
    candidate = [(order[s], order[t]) for s, t in gold]
    for k in rng.sample(range(len(candidate)), len(candidate) // 100):
        candidate[k] = (candidate[k][0], rng.randrange(half))
    nodes = [wl.WLVertex(side, f"/people/{k}", k) for side in ("gold", "candidate")
             for k in range(half)]
    edges = [wl.WLEdge("gold", s, t, "mentor->mentee") for s, t in gold]
    edges += [wl.WLEdge("candidate", half + s, half + t, "mentor->mentee")
              for s, t in candidate]
    return nodes, edges, ["record"] * (2 * half)


def wl_call(graph: tuple[list[wl.WLVertex], list[wl.WLEdge], list[str]]) -> Call:
    """The engine's call of one refinement."""
    vertices, edges, seeds = graph
    links = [(e.source, e.target, e.relation, e.label) for e in edges]
    return partial(_engine.wl_refine, len(vertices), links, seeds)


def block_records(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` records with a role (50 of them) and a team (10)."""
    rng = random.Random(seed)
    return [{"role": f"role-{rng.randrange(50)}", "team": rng.randrange(10), "n": k}
            for k in range(n)]


def workloads(sizes: tuple[int, ...], wl_vertices: int, sparse_items: int = 0
              ) -> dict[str, Call]:
    """Each workload's engine call; the blocks' when ``sparse_items``."""
    calls: dict[str, Call] = {}
    for n in sizes:
        calls[f"max_weight {n}x{n}"] = partial(_engine.max_weight_matching,
                                               similarity_matrix(n))
    for n in sizes:
        calls[f"monotone {n}x{n}"] = partial(_engine.monotone_matching, similarity_matrix(n))
    calls["wl running example"] = wl_call(running_example_graph())
    calls[f"wl {wl_vertices} vertices"] = wl_call(mentorship_graph(wl_vertices))
    if sparse_items:
        golds, candidates = block_records(sparse_items, 1), block_records(sparse_items, 2)
        calls[f"blocks {sparse_items} records"] = partial(_engine.blocks, golds, candidates,
                                                          ["role", "team"])
    return calls


def per_call_us(call: Call, budget: float) -> float:
    """CPU microseconds per call, over as many calls as fill ``budget`` CPU seconds."""
    runs = 0
    start = time.process_time()
    elapsed = 0.0
    while runs == 0 or elapsed < budget:
        call()
        runs += 1
        elapsed = time.process_time() - start
    return elapsed / runs * 1e6


def measure(sizes: tuple[int, ...] = MATRIX_SIZES, wl_vertices: int = WL_VERTICES,
            turns: int = 5, budget: float = 0.2, sparse_items: int = 0
            ) -> dict[str, dict[str, float]]:
    """{workload: {"rust_us"}}, the medians over ``turns``."""
    results: dict[str, dict[str, float]] = {}
    for name, call in workloads(sizes, wl_vertices, sparse_items).items():
        if repr(call()) != repr(call()):
            raise AssertionError(f"{name}: two calls disagree")
        times = [per_call_us(call, budget) for _ in range(turns)]
        results[name] = {"rust_us": statistics.median(times)}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.2,
                        help="CPU seconds per turn and workload")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--sparse-items", type=int, default=SPARSE_ITEMS,
                        help="list length of the blocking row (0: none)")
    args = parser.parse_args(argv)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    pinned = hasattr(os, "sched_setaffinity")
    cores = os.sched_getaffinity(0) if pinned else set()
    if pinned:  # one core, as the figures are (restored for a caller's process)
        os.sched_setaffinity(0, {min(cores)})
    try:
        results = measure(turns=args.turns, budget=args.budget,
                          sparse_items=args.sparse_items)
    finally:
        if pinned:
            os.sched_setaffinity(0, cores)
    print(f"uptime: {load.strip()}")
    print(f"{'workload':<24}{'rust us':>12}")
    for name, row in results.items():
        print(f"{name:<24}{row['rust_us']:>12.1f}")
    if args.json:
        args.json.write_text(json.dumps({"uptime": load.strip(), "results": results},
                                        indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
