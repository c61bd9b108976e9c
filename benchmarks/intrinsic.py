"""Reproduce the paper's intrinsic validation (section "Intrinsic validation").

Three experiments, each generated from per-gold seeds spawned from one master seed:

1. **RA invariance** (algorithm "RA invariance"): golds drawn by
   :func:`synthetic.org2graph.sample_params`, five independent identifier
   relabellings each. Referential alignment (RA) must score every copy exactly 1.0;
   the plain ablation's mean and per-gold variance are reported.
2. **RA per-operation sweep** (algorithm "RA per-operation sweep"): each of the six
   edit operations applied ``k = 0..8`` times on top of a relabelled copy (and, as the
   control sweep, on an unrelabelled copy). Reports the AUROC separating clean
   (``k = 0``) from damaged candidates and the Spearman correlation of score with ``k``
   per operation.
3. **Facts2Order** (algorithm "Order-sensitivity experiment"): every corruption family
   scored four ways - the sequence arm (``order: fixed``), the set ablation
   (``order: align``), exact match and Kendall's tau.

Our numbers are printed next to the paper's. The generator draws are our own, so the
statistics agree in trend and magnitude, not to the third digit. Run from the
repository root::

    python -m benchmarks.intrinsic            # paper sizes: 100 / 100 / 300 golds
    python -m benchmarks.intrinsic --quick    # 20 / 20 / 60 golds
    python -m benchmarks.intrinsic --golds 50 --order-golds 150 --jobs 2 --json out.json
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from scipy.stats import rankdata, spearmanr

import oa_core
from synthetic import facts2order as f2o
from synthetic import org2graph as o2g

__all__ = [
    "PAPER",
    "auroc",
    "lcs_length",
    "main",
    "multiset_overlap",
    "order_pairs",
    "ra_invariance",
    "ra_sweep",
    "report",
    "summarize_invariance",
    "summarize_order",
    "summarize_sweep",
]

#: The paper's published numbers (section "Intrinsic validation" and its appendix).
PAPER: dict[str, Any] = {
    "invariance_pairs": 500,
    "plain_mean": 0.738,
    "plain_max_var": 5.5e-3,
    "all_twin_golds": 9,
    "sweep_auroc": {"ra": 0.996, "plain": 0.835},
    "sweep_isomorphic_edits": 42,
    "sweep_spearman": {
        "categorical_relabel": (-0.784, -0.460),
        "reference_rerouting": (-0.660, -0.011),
        "record_deletion": (-0.818, -0.776),
        "edge_deletion": (-0.771, -0.627),
        "record_insertion": (-0.888, -0.779),
        "edge_insertion": (-0.667, -0.604),
    },
    "reroute_means": {"ra": (1.00, 0.93), "plain": (0.74, 0.73)},
    "order_pairs": 4639,
    "order_length_preserving": 2864,
    "order_length_changing": 1775,
    "order_spearman": {"sequence": -0.706, "tau": -0.621},
    "order_auroc": {"sequence": 1.000, "set": 0.705},
    "order_table": {
        "none": (1.000, 1.000, 1.000, 1.000),
        "adjacent d=1": (0.737, 1.000, 0.000, 0.852),
        "adjacent d=2": (0.641, 1.000, 0.000, 0.751),
        "adjacent d=3": (0.581, 1.000, 0.000, 0.772),
        "adjacent d=4": (0.538, 1.000, 0.000, 0.748),
        "deletion k=1": (0.842, 0.842, 0.000, 0.000),
        "deletion k=2": (0.684, 0.684, 0.000, 0.000),
        "deletion k=3": (0.575, 0.575, 0.000, 0.000),
        "insertion k=1": (0.867, 0.867, 0.000, 0.000),
        "insertion k=2": (0.769, 0.769, 0.000, 0.000),
        "insertion k=3": (0.692, 0.692, 0.000, 0.000),
    },
}

MAX_EDITS = 8
RELABELS_PER_GOLD = 5


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Area under the ROC curve of a score separating positives from negatives.

    Equals P(positive > negative) + P(tie) / 2, computed from mid-ranks (the
    Mann-Whitney U statistic divided by ``n_pos * n_neg``).

    Parameters
    ----------
    positives, negatives : sequence of float
        Scores of the two classes; both non-empty.

    Returns
    -------
    float
        The AUROC in ``[0, 1]``.

    Examples
    --------
    >>> auroc([1.0, 1.0], [0.5, 1.0])
    0.75
    """
    ranks = rankdata(np.concatenate([positives, negatives]))
    n_pos, n_neg = len(positives), len(negatives)
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Length of the longest common subsequence of two sequences.

    Examples
    --------
    >>> lcs_length([1, 2, 4, 3], [1, 4, 2, 3])
    3
    """
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def multiset_overlap(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Size of the multiset intersection of two sequences.

    Examples
    --------
    >>> multiset_overlap([1, 2, 2, 3], [2, 2, 2, 4])
    2
    """
    counts: dict[Any, int] = defaultdict(int)
    for x in a:
        counts[x] += 1
    overlap = 0
    for y in b:
        if counts[y] > 0:
            counts[y] -= 1
            overlap += 1
    return overlap


def _seeds(seed: int, stream: int, n: int) -> list[np.random.SeedSequence]:
    return np.random.SeedSequence([seed, stream]).spawn(n)


def _run(fn: Callable[[np.random.SeedSequence], list[dict[str, Any]]],
         seeds: Sequence[np.random.SeedSequence], jobs: int) -> list[dict[str, Any]]:
    """Map `fn` over the per-gold seeds (in order) and concatenate the rows."""
    if jobs <= 1:
        chunks: Iterable[list[dict[str, Any]]] = map(fn, seeds)
        return [row for chunk in chunks for row in chunk]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [row for chunk in pool.map(fn, seeds, chunksize=4) for row in chunk]


@functools.cache
def _schemas() -> tuple[oa_core.Schema, oa_core.Schema]:
    return oa_core.Schema.parse(o2g.schema(True)), oa_core.Schema.parse(o2g.schema(False))


def _draw_gold(seed: np.random.SeedSequence) -> tuple[np.random.Generator, dict[str, Any]]:
    """A gold drawn as in the paper, and the generator that goes on drawing its copies."""
    rng = np.random.default_rng(seed)
    return rng, o2g.generate(o2g.sample_params(rng), rng).gold


def _ra_and_plain(gold: dict[str, Any], candidate: dict[str, Any]) -> dict[str, float]:
    ra_schema, plain_schema = _schemas()
    return {"ra": oa_core.score(gold, candidate, ra_schema),
            "plain": oa_core.score(gold, candidate, plain_schema)}


def _all_twins(gold: dict[str, list[dict[str, Any]]]) -> bool:
    people = {(p["name"], p["title"]) for p in gold["people"]}
    companies = {(c["name"], c["industry"]) for c in gold["companies"]}
    return len(people) == 1 and len(companies) == 1


def _invariance_gold(seed: np.random.SeedSequence) -> list[dict[str, Any]]:
    rng, gold = _draw_gold(seed)
    return [{"shuffle": shuffle, "all_twins": _all_twins(gold),
             **_ra_and_plain(gold, o2g.relabel(gold, rng, shuffle=shuffle))}
            for shuffle in (False, True) for _ in range(RELABELS_PER_GOLD)]


def ra_invariance(golds: int, seed: int, jobs: int = 1) -> list[dict[str, Any]]:
    """Run the RA invariance experiment.

    Parameters
    ----------
    golds : int
        Number of golds (paper: 100).
    seed : int
        Master seed.
    jobs : int
        Worker processes.

    Returns
    -------
    list of dict
        One row per pair: gold index ``gold``, ``shuffle`` (whether the relabelled copy
        also shuffles record order; the paper's relabelling does not), ``all_twins``,
        and the ``ra`` and ``plain`` scores.
    """
    rows = _run(_invariance_gold, _seeds(seed, 1, golds), jobs)
    per_gold = 2 * RELABELS_PER_GOLD
    for i, row in enumerate(rows):
        row["gold"] = i // per_gold
    return rows


def _sweep_gold(seed: np.random.SeedSequence) -> list[dict[str, Any]]:
    rng, gold = _draw_gold(seed)
    rows = []
    for relabelled in (True, False):
        for op_name, op in o2g.EDIT_OPERATIONS.items():
            for k in range(MAX_EDITS + 1):
                cand = o2g.relabel(gold, rng) if relabelled else gold
                for _ in range(k):
                    try:
                        cand = op(cand, rng, None)
                    except o2g.InfeasibleEdit:
                        break
                rows.append({"relabel": relabelled, "op": op_name, "k": k,
                             **_ra_and_plain(gold, cand)})
    return rows


def ra_sweep(golds: int, seed: int, jobs: int = 1) -> list[dict[str, Any]]:
    """Run the RA per-operation sweep (with and without the relabel).

    Parameters
    ----------
    golds : int
        Number of golds (paper: 100).
    seed : int
        Master seed.
    jobs : int
        Worker processes.

    Returns
    -------
    list of dict
        One row per pair: ``relabel``, ``op``, ``k`` and the ``ra`` and ``plain``
        scores (``2 * 6 * 9`` rows per gold).
    """
    return _run(_sweep_gold, _seeds(seed, 2, golds), jobs)


def _order_gold(seed: np.random.SeedSequence) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    fixed = oa_core.Schema.parse(f2o.schema("fixed"))
    align = oa_core.Schema.parse(f2o.schema("align"))
    gold = f2o.generate(f2o.sample_params(rng), rng).gold
    rows = []
    for pair in f2o.corruption_pairs(gold, rng):
        g, c = {"indices": pair.gold}, {"indices": pair.candidate}
        rows.append({
            "family": pair.family, "k": pair.k, "d": pair.distance,
            "n": len(pair.gold), "m": len(pair.candidate),
            "lcs": lcs_length(pair.gold, pair.candidate),
            "overlap": multiset_overlap(pair.gold, pair.candidate),
            "sequence": oa_core.score(g, c, fixed),
            "set": oa_core.score(g, c, align),
            "exact": f2o.exact_match(pair.gold, pair.candidate),
            "tau": f2o.kendall_tau(pair.gold, pair.candidate),
        })
    return rows


def order_pairs(golds: int, seed: int, jobs: int = 1) -> list[dict[str, Any]]:
    """Run the Facts2Order order-sensitivity experiment.

    Parameters
    ----------
    golds : int
        Number of golds (paper: 300).
    seed : int
        Master seed.
    jobs : int
        Worker processes.

    Returns
    -------
    list of dict
        One row per pair: ``family``, dose ``k``, Kendall distance ``d`` (None when
        the length changes), lengths ``n``/``m``, ``lcs``, multiset ``overlap`` and the
        four scores ``sequence``, ``set``, ``exact``, ``tau``.
    """
    return _run(_order_gold, _seeds(seed, 3, golds), jobs)


# ----------------------------------------------------------------------------- report


def _fmt(x: float) -> str:
    return f"{x:+.3f}" if x < 0 else f"{x:.3f}"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
    return "\n".join(lines)


def summarize_invariance(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary statistics of :func:`ra_invariance` rows (paper relabelling and shuffled)."""
    out: dict[str, Any] = {}
    for shuffle in (False, True):
        sel = [r for r in rows if r["shuffle"] is shuffle]
        by_gold: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for r in sel:
            by_gold[r["gold"]].append(r)
        plain_var = [statistics.pvariance([r["plain"] for r in g]) for g in by_gold.values()]
        ra_var = [statistics.pvariance([r["ra"] for r in g]) for g in by_gold.values()]
        twin_golds = [g for g in by_gold.values() if g[0]["all_twins"]]
        out["shuffled" if shuffle else "paper"] = {
            "pairs": len(sel),
            "golds": len(by_gold),
            "ra_exact_one": sum(r["ra"] == 1.0 for r in sel),
            "ra_min": min(r["ra"] for r in sel),
            "ra_max_var": max(ra_var),
            "plain_mean": statistics.fmean(r["plain"] for r in sel),
            "plain_max_var": max(plain_var),
            "plain_mean_var": statistics.fmean(plain_var),
            "all_twin_golds": len(twin_golds),
            "all_twin_golds_exact": sum(all(r["ra"] == 1.0 for r in g) for g in twin_golds),
        }
    return out


def summarize_sweep(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary statistics of :func:`ra_sweep` rows."""
    out: dict[str, Any] = {}
    for relabelled in (True, False):
        sel = [r for r in rows if r["relabel"] is relabelled]
        clean = [r for r in sel if r["k"] == 0]
        damaged = [r for r in sel if r["k"] > 0]
        arm: dict[str, Any] = {
            "pairs": len(sel),
            "auroc": {s: auroc([r[s] for r in clean], [r[s] for r in damaged])
                      for s in ("ra", "plain")},
            "damaged_scoring_one": {s: sum(r[s] == 1.0 for r in damaged) for s in ("ra", "plain")},
            "damaged": len(damaged),
            "spearman": {},
            "means_by_k": {},
        }
        for op in o2g.EDIT_OPERATIONS:
            ops = [r for r in sel if r["op"] == op]
            ks = [r["k"] for r in ops]
            arm["spearman"][op] = {
                s: float(spearmanr(ks, [r[s] for r in ops]).statistic) for s in ("ra", "plain")
            }
            arm["means_by_k"][op] = {
                s: [statistics.fmean(r[s] for r in ops if r["k"] == k)
                    for k in range(MAX_EDITS + 1)]
                for s in ("ra", "plain")
            }
        out["relabel" if relabelled else "control"] = arm
    return out


def _order_row_key(r: dict[str, Any]) -> str:
    if r["family"] == "none":
        return "none"
    if r["family"] == "adjacent_transpositions":
        return f"adjacent d={r['d']}" if r["d"] <= 4 else "adjacent d>=5"
    if r["family"] in ("deletion", "insertion"):
        return f"{r['family']} k={r['k']}"
    return r["family"].replace("_", " ")


def summarize_order(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary statistics of :func:`order_pairs` rows."""
    scorers = ("sequence", "set", "exact", "tau")
    preserving = [r for r in rows if r["d"] is not None]
    changing = [r for r in rows if r["d"] is None]
    clean = [r for r in rows if r["family"] == "none"]
    corrupted = [r for r in rows if r["family"] != "none"]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[_order_row_key(r)].append(r)
    order = ["none", *(f"adjacent d={d}" for d in range(1, 5)), "adjacent d>=5",
             "block reversal", "block move",
             *(f"deletion k={k}" for k in range(1, 4)), *(f"insertion k={k}" for k in range(1, 4))]
    ds = [r["d"] for r in preserving]
    return {
        "pairs": len(rows),
        "length_preserving": len(preserving),
        "length_changing": len(changing),
        "d_min": min(ds), "d_max": max(ds), "d_median": statistics.median(ds),
        "table": {
            key: {"count": len(groups[key]),
                  **{s: statistics.fmean(r[s] for r in groups[key]) for s in scorers}}
            for key in order if groups[key]
        },
        "spearman": {s: float(spearmanr(ds, [r[s] for r in preserving]).statistic)
                     for s in ("sequence", "tau")},
        "auroc": {s: auroc([r[s] for r in clean], [r[s] for r in corrupted]) for s in scorers},
        "formula_mismatches": {
            "sequence": sum(r["sequence"] != r["lcs"] / (r["n"] + r["m"] - r["lcs"])
                            for r in rows),
            "set": sum(r["set"] != r["overlap"] / (r["n"] + r["m"] - r["overlap"])
                       for r in rows),
        },
    }


def report(inv: dict[str, Any], sweep: dict[str, Any], order: dict[str, Any]) -> str:
    """Render the three summaries next to the paper's numbers as plain text."""
    P = PAPER
    out = []
    a = inv["paper"]
    s = inv["shuffled"]
    out.append("== RA invariance (Org2Graph, relabel-only copies) ==")
    out.append(_table(["quantity", "ours", "paper"], [
        ["pairs", a["pairs"], P["invariance_pairs"]],
        ["RA: copies scoring exactly 1.0", f"{a['ra_exact_one']}/{a['pairs']}", "500/500"],
        ["RA: max per-gold variance", f"{a['ra_max_var']:.1e}", "0"],
        ["golds with every record a twin (RA exact)",
         f"{a['all_twin_golds']} ({a['all_twin_golds_exact']})", f"{P['all_twin_golds']} (9)"],
        ["plain: mean score", _fmt(a["plain_mean"]), _fmt(P["plain_mean"])],
        ["plain: max per-gold variance", f"{a['plain_max_var']:.1e}", f"{P['plain_max_var']:.1e}"],
        ["plain: mean per-gold variance", f"{a['plain_mean_var']:.1e}", "-"],
        ["RA, record order also shuffled: exactly 1.0",
         f"{s['ra_exact_one']}/{s['pairs']} (min {s['ra_min']:.3f})", "-"],
    ]))
    r = sweep["relabel"]
    out.append("")
    out.append("== RA per-operation sweep (edits on top of a relabel) ==")
    out.append(_table(["quantity", "ours", "paper"], [
        ["pairs", r["pairs"], 5400],
        ["AUROC clean vs damaged: RA", _fmt(r["auroc"]["ra"]), _fmt(P["sweep_auroc"]["ra"])],
        ["AUROC clean vs damaged: plain", _fmt(r["auroc"]["plain"]),
         _fmt(P["sweep_auroc"]["plain"])],
        ["edited candidates scoring 1.0 under RA",
         f"{r['damaged_scoring_one']['ra']}/{r['damaged']}",
         f"{P['sweep_isomorphic_edits']}/4800"],
    ]))
    out.append("")
    out.append("Spearman(score, k) per operation")
    out.append(_table(
        ["operation", "RA ours", "RA paper", "plain ours", "plain paper"],
        [[op, _fmt(r["spearman"][op]["ra"]), _fmt(P["sweep_spearman"][op][0]),
          _fmt(r["spearman"][op]["plain"]), _fmt(P["sweep_spearman"][op][1])]
         for op in o2g.EDIT_OPERATIONS]))
    rr = r["means_by_k"]["reference_rerouting"]
    out.append("")
    out.append(
        f"reference rerouting, mean k=0 -> k=8: RA {rr['ra'][0]:.2f} -> {rr['ra'][-1]:.2f} "
        f"(paper 1.00 -> 0.93); plain {rr['plain'][0]:.2f} -> {rr['plain'][-1]:.2f} "
        "(paper 0.74 -> 0.73)")
    c = sweep["control"]
    out.append("")
    out.append("Control sweep (no relabel; paper omits the data): mean score at k=0 / k=8")
    out.append(_table(
        ["operation", "RA", "plain", "Spearman RA", "Spearman plain"],
        [[op, f"{c['means_by_k'][op]['ra'][0]:.3f} / {c['means_by_k'][op]['ra'][-1]:.3f}",
          f"{c['means_by_k'][op]['plain'][0]:.3f} / {c['means_by_k'][op]['plain'][-1]:.3f}",
          _fmt(c["spearman"][op]["ra"]), _fmt(c["spearman"][op]["plain"])]
         for op in o2g.EDIT_OPERATIONS]))
    out.append(f"control AUROC: RA {c['auroc']['ra']:.3f}, plain {c['auroc']['plain']:.3f}")
    o = order
    out.append("")
    out.append("== Facts2Order: mean score by corruption family ==")
    out.append(
        f"pairs {o['pairs']} (paper {P['order_pairs']}): length-preserving "
        f"{o['length_preserving']} (paper {P['order_length_preserving']}), d in "
        f"{o['d_min']}..{o['d_max']} median {o['d_median']} (paper 0..55, median 2); "
        f"length-changing {o['length_changing']} (paper {P['order_length_changing']})")
    rows = []
    for key, v in o["table"].items():
        paper = P["order_table"].get(key)
        rows.append([key, v["count"]] + [
            f"{v[s]:.3f}" + (f" ({paper[i]:.3f})" if paper else "")
            for i, s in enumerate(("sequence", "set", "exact", "tau"))])
    out.append(_table(["corruption", "pairs", "sequence (paper)", "set (paper)",
                       "exact (paper)", "Kendall tau (paper)"], rows))
    out.append("")
    out.append(_table(["quantity", "ours", "paper"], [
        ["Spearman(sequence, d), pure reorderings", _fmt(o["spearman"]["sequence"]),
         _fmt(P["order_spearman"]["sequence"])],
        ["Spearman(tau, d), pure reorderings", _fmt(o["spearman"]["tau"]),
         _fmt(P["order_spearman"]["tau"])],
        ["AUROC sorted vs corrupted: sequence", _fmt(o["auroc"]["sequence"]),
         _fmt(P["order_auroc"]["sequence"])],
        ["AUROC sorted vs corrupted: set", _fmt(o["auroc"]["set"]),
         _fmt(P["order_auroc"]["set"])],
        ["AUROC sorted vs corrupted: exact", _fmt(o["auroc"]["exact"]), "-"],
        ["AUROC sorted vs corrupted: Kendall tau", _fmt(o["auroc"]["tau"]), "-"],
        ["pairs where sequence != L/(n+m-L)", o["formula_mismatches"]["sequence"], "-"],
        ["pairs where set != I/(n+m-I)", o["formula_mismatches"]["set"], "-"],
    ]))
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; prints the report and returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golds", type=int, default=100,
                        help="golds of each Org2Graph experiment (paper: 100)")
    parser.add_argument("--order-golds", type=int, default=300,
                        help="Facts2Order golds (paper: 300)")
    parser.add_argument("--quick", action="store_true",
                        help="small run: 20 Org2Graph and 60 Facts2Order golds")
    parser.add_argument("--seed", type=int, default=2025, help="master seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", metavar="PATH", help="also write the summaries as JSON")
    args = parser.parse_args(argv)
    golds, order_golds = (20, 60) if args.quick else (args.golds, args.order_golds)
    if golds < 2 or order_golds < 2:
        parser.error("need at least two golds per experiment")
    started = time.perf_counter()
    inv = summarize_invariance(ra_invariance(golds, args.seed, args.jobs))
    sweep = summarize_sweep(ra_sweep(golds, args.seed, args.jobs))
    order = summarize_order(order_pairs(order_golds, args.seed, args.jobs))
    print(report(inv, sweep, order))
    print(f"\n(seed {args.seed}, {golds} Org2Graph golds, {order_golds} Facts2Order golds, "
          f"{time.perf_counter() - started:.0f} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"seed": args.seed, "golds": golds, "order_golds": order_golds,
                       "invariance": inv, "sweep": sweep, "order": order}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
