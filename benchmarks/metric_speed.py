"""The DSPy/GEPA metric with and without its cache of prepared golds, and ``align``
given a raw or a prepared gold: calls per CPU second, interleaved in one process.

A GEPA run scores many candidates against each gold of its train set, with feedback
text: :class:`oa_core.adapters.dspy.OAMetric` aligns (building a match tree) and renders
the feedback at every call. Since it keeps each gold prepared
(:func:`oa_core.prepare_gold`: checked, deep-copied and indexed once), only the
candidate is checked and indexed per call. This benchmark times, per workload:

``metric``
    one metric call (score and feedback text) per candidate, the gold given as data
    (a dict in the example's field): ``before`` is the metric without the cache (the
    gold's JSON handed to ``align`` at every call, the code before the cache), ``after``
    the metric as it is (its cache warm: the golds were seen in an earlier turn);
``metric_text``
    the same with the gold given as JSON text (``before`` parses it at every call);
``align``
    :func:`oa_core.align` given the raw gold (``before``) or its
    :class:`~oa_core.PreparedGold` (``after``, prepared outside the timing).

Workloads: ``running`` -- the running example's gold against its candidate and 11
variants of it (a few leaves changed, a list shuffled); ``org2graph`` -- 6 Org2Graph
golds (people ``U{3..10}``, as ``benchmarks/batch.py`` draws them) with 8 candidates
each (relabelled, shuffled copies with ``U{0..3}`` edits). ``before`` and ``after``
alternate within each turn (their order swapped every turn), one pass of every
(gold, candidate) pair each; the figure is the median over the turns of pairs per CPU
second (``time.process_time``). The results are checked to be the same (score bits
and feedback text) before timing.

Run from the repository root::

    python -m benchmarks.metric_speed                 # 30 turns, every workload
    python -m benchmarks.metric_speed --turns 10 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import oa_core
from oa_core.adapters.dspy import OAMetric, dspy_metric
from synthetic.org2graph import apply_edits, generate, relabel, sample_params
from synthetic.org2graph import schema as org2graph_schema

__all__ = ["KINDS", "WORKLOADS", "main", "measure"]

ROOT = Path(__file__).resolve().parent.parent

Golds = list[tuple[Any, list[Any]]]  # (gold, its candidates)


def _variant(document: Any, rng: np.random.Generator, changes: int) -> Any:
    """A copy of ``document`` with ``changes`` leaves changed and one list shuffled."""
    copy = json.loads(json.dumps(document))
    leaves: list[tuple[Any, Any]] = []
    lists: list[list[Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        if isinstance(node, list) and len(node) > 1:
            lists.append(node)
        for key, value in items:
            if isinstance(value, dict | list):
                walk(value)
            elif isinstance(value, str | int | float) and not isinstance(value, bool):
                leaves.append((node, key))

    walk(copy)
    for k in rng.choice(len(leaves), min(changes, len(leaves)), replace=False).tolist():
        parent, key = leaves[k]
        value = parent[key]
        parent[key] = value[:-1] + "x" if isinstance(value, str) and value else value + 1
    if lists:
        chosen = lists[int(rng.integers(len(lists)))]
        chosen[:] = [chosen[k] for k in rng.permutation(len(chosen))]
    return copy


def running_golds() -> tuple[Golds, dict[str, Any]]:
    """The running example's gold, its candidate and 11 variants of the candidate."""
    folder = ROOT / "sample_data" / "running_example"
    gold, candidate, schema = (json.loads((folder / f"{name}.json").read_text())
                               for name in ("gold", "candidate", "schema"))
    rng = np.random.default_rng(0)
    candidates = [candidate, *(_variant(candidate, rng, 1 + k % 3) for k in range(11))]
    return [(gold, candidates)], schema


def org2graph_golds(golds: int = 6, candidates: int = 8,
                    seed: int = 0) -> tuple[Golds, dict[str, Any]]:
    """``golds`` Org2Graph golds, each with ``candidates`` relabelled, shuffled and
    edited copies."""
    out: Golds = []
    for child in np.random.SeedSequence(seed).spawn(golds):
        rng = np.random.default_rng(child)
        instance = generate(sample_params(rng), rng)
        out.append((instance.gold, [
            apply_edits(relabel(instance.gold, rng, shuffle=True),
                        int(rng.integers(0, 4)), rng, instance.vocabulary)[0]
            for _ in range(candidates)]))
    return out, org2graph_schema(True)


WORKLOADS: dict[str, Callable[[], tuple[Golds, dict[str, Any]]]] = {
    "running": running_golds, "org2graph": org2graph_golds}
KINDS = ("metric", "metric_text", "align")


def _uncached(metric: OAMetric) -> OAMetric:
    """The metric as it was before its cache: the gold's JSON handed to ``align``."""
    metric._prepared_gold = metric._gold_value  # type: ignore[method-assign]
    return metric


Call = Callable[[Any, Any], Any]


def _calls(kind: str, golds: Golds, raw: dict[str, Any]
           ) -> tuple[list[tuple[Any, Any]], list[tuple[Any, Any]], Call, Call]:
    """The (gold, candidate) arguments of ``before`` and ``after``, and the two calls."""
    if kind == "align":
        schema = oa_core.Schema.parse(raw)
        plain = [(g, c) for g, cs in golds for c in cs]
        prepared = [(oa_core.prepare_gold(g, schema), c) for g, cs in golds for c in cs]
        return (plain, prepared, lambda g, c: oa_core.align(g, c, schema),
                lambda g, c: oa_core.align(g, c, schema))
    form = json.dumps if kind == "metric_text" else (lambda g: g)
    pairs = [({"answer": form(g)}, {"answer": c}) for g, cs in golds for c in cs]
    return pairs, pairs, _uncached(dspy_metric(raw)), dspy_metric(raw)


def _same(result: Any) -> Any:
    """What must not change: score bits and feedback text (or the alignment's)."""
    if isinstance(result, oa_core.Alignment):
        return result.score.hex(), json.dumps(result.to_dict(), sort_keys=True, default=str)
    return result.score.hex(), result.feedback


def _pass(call: Call, args: list[tuple[Any, Any]]) -> float:
    start = time.process_time()
    for gold, candidate in args:
        call(gold, candidate)
    return len(args) / (time.process_time() - start)


def measure(workload: str, kind: str, turns: int = 30) -> dict[str, Any]:
    """Median pairs per CPU second of ``before`` and ``after`` (see the module)."""
    golds, raw = WORKLOADS[workload]()
    before_args, after_args, before, after = _calls(kind, golds, raw)
    for (g0, c0), (g1, c1) in zip(before_args, after_args, strict=True):
        assert _same(before(g0, c0)) == _same(after(g1, c1))  # also warms the cache
    rates: dict[str, list[float]] = {"before": [], "after": []}
    for turn in range(turns):
        order = [("before", before, before_args), ("after", after, after_args)]
        for name, call, args in (order if turn % 2 == 0 else order[::-1]):
            rates[name].append(_pass(call, args))
    before_rate = statistics.median(rates["before"])
    after_rate = statistics.median(rates["after"])
    return {"workload": workload, "kind": kind, "golds": len(golds),
            "pairs": len(before_args), "turns": turns,
            "before_pairs_per_s": before_rate, "after_pairs_per_s": after_rate,
            "before_us": 1e6 / before_rate, "after_us": 1e6 / after_rate,
            "gain": after_rate / before_rate - 1.0, "runs": rates}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS),
                        choices=list(WORKLOADS))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    rows = []
    print(f"{'workload':<10} {'kind':<12} {'before pairs/s':>15} {'after pairs/s':>14} "
          f"{'gain':>7}")
    for workload in args.workloads:
        for kind in args.kinds:
            row = measure(workload, kind, args.turns)
            rows.append(row)
            print(f"{workload:<10} {kind:<12} {row['before_pairs_per_s']:>15,.0f} "
                  f"{row['after_pairs_per_s']:>14,.0f} {row['gain']:>+7.1%}", flush=True)
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min): {load_before} at the start, {load_after} at the "
          f"end; started {started}")
    if args.json:
        args.json.write_text(json.dumps({
            "started": started, "python": platform.python_version(),
            "machine": platform.machine(), "cpus": os.cpu_count(),
            "load_before": load_before, "load_after": load_after, "rows": rows},
            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
