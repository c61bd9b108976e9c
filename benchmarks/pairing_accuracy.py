"""How often referential alignment pairs a record with its true counterpart.

The instrument behind the "agreement depth" tie-break (spec notes, "Ties and cycles"):
on noisy people graphs full of property twins, count the gold records that the
``person`` scope's bijection pairs with the candidate record they really became.

Generator
---------
Every graph is drawn from its own :class:`random.Random` (seeded from the master seed;
no other source of randomness), so the same ``--seed`` gives the same documents.

*Gold.* ``N ~ U{8..40}`` people ``{"id", "name", "role"}`` with ids ``1..N``, names
from the first 6 of :data:`NAMES` (``--names`` to change) and roles from :data:`ROLES`
(3): at most 18 attribute combinations, so most people are *twins* (another person has the same name
and role) and only structure can tell them apart. Two kinds of directed links join
them: ``round(1.2 N)`` mentorships ``{"mentor", "mentee"}`` and ``N // 2``
collaborations ``{"lead", "member", "project"}`` (``project`` from
:data:`PROJECTS`, compared exactly, so it labels the WL edge). Links have two
distinct endpoints; duplicates are allowed.

*Candidate.* A copy of the gold with noise, applied in gold ids:

1. one person dropped, with every link touching it;
2. one typo: one character of a surviving person's name replaced by another letter;
3. two rerouted links: one endpoint (mentor/mentee, lead/member) of two surviving
   links moved to another surviving person (never making a self-link);

then relabelled with fresh ids (``rng.sample`` from ``1000..1000 + 10 N``, disjoint
from the gold's) and every list shuffled. The generator returns the ground truth,
gold id -> candidate id of every surviving person (:class:`NoisyGraph`).

Measure
-------
For each ``wl_mode`` (``"tie_break"``, ``"blend"``, ``"none"``) every pair is
aligned with :func:`oa_core.align`, and ``result.scopes["person"].pairs`` (indices
into ``gold_paths`` / ``candidate_paths``, equivalently ``gold_ids`` /
``candidate_ids``) is read. *Accuracy* is the fraction of surviving gold records
(all but the dropped one) paired with their true counterpart, pooled over the graphs;
*twin accuracy* the same over the twins only (gold records sharing ``(name, role)``
with another gold record), since non-twins are decided by their attributes. Also
reported: the mean score, the mean alignment time per graph, and the *WL ceiling*,
the fraction of surviving gold records that the gold's own attribute-seeded 1-WL
colouring tells apart from every other gold record (the rest are interchangeable as
far as 1-WL sees, even without noise; counting them needs luck).

*Order invariance.* With ``--reshuffles K`` each candidate is also aligned after
``K`` further reshuffles of its lists (same content). A graph counts as *pairing
changed* when any reshuffle gives another bijection, *score changed* when any
reshuffle gives another float (the spec requires neither in ``tie_break`` and
``blend`` modes; ``none`` may follow positions).

Run from the repository root::

    python -m benchmarks.pairing_accuracy --graphs 200 --seed 0

The table is printed and the figures are written as JSON to
``benchmarks/results/pairing_accuracy.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import oa_core

__all__ = [
    "EDGE_LISTS",
    "MODES",
    "NAMES",
    "PROJECTS",
    "ROLES",
    "SCHEMA",
    "SCOPE",
    "GraphResult",
    "Noise",
    "NoisyGraph",
    "evaluate",
    "main",
    "make_graph",
    "make_graphs",
    "pairing",
    "reshuffled",
    "run",
    "summarize",
    "tally",
    "twin_ids",
    "wl_distinguishable",
]

SCOPE = "person"
MODES: tuple[str, ...] = ("tie_break", "blend", "none")
#: Name pool; a graph draws from the first ``names`` (6 unless told).
NAMES: tuple[str, ...] = ("Ada", "Bruno", "Cleo", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo",
                          "Jade", "Kai", "Lena", "Mara", "Nils", "Omar", "Pia")
ROLES: tuple[str, ...] = ("Engineer", "Manager", "Intern")
PROJECTS: tuple[str, ...] = ("apollo", "borealis", "cygnus")
#: Link lists and their two endpoint fields, in schema (= WL direction) order.
EDGE_LISTS: dict[str, tuple[str, str]] = {
    "mentorships": ("mentor", "mentee"),
    "collaborations": ("lead", "member"),
}
RESULTS = Path(__file__).resolve().parent / "results" / "pairing_accuracy.json"

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": SCOPE},
        "name": {"type": "string", "score": "jaro", "valueWeight": 2},
        "role": {"type": "string", "score": "exact"}}}},
    "mentorships": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "mentor": {"type": "integer", "ref": SCOPE},
        "mentee": {"type": "integer", "ref": SCOPE}}}},
    "collaborations": {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {
            "lead": {"type": "integer", "ref": SCOPE},
            "member": {"type": "integer", "ref": SCOPE},
            "project": {"type": "string", "score": "exact"}}}}}}


@dataclass(frozen=True, slots=True)
class Noise:
    """What was done to the gold (in gold ids) to make the candidate.

    Attributes
    ----------
    dropped : int
        Gold id of the dropped person (its links are dropped too).
    typo : tuple of (int, str, str)
        ``(gold id, gold name, candidate name)``.
    reroutes : tuple of (str, dict, str, int)
        ``(link list, gold link, endpoint field, new endpoint's gold id)`` per rerouted
        link.
    """

    dropped: int
    typo: tuple[int, str, str]
    reroutes: tuple[tuple[str, dict[str, Any], str, int], ...]


@dataclass(frozen=True, slots=True)
class NoisyGraph:
    """One gold, its noisy relabelled candidate and the ground truth.

    Attributes
    ----------
    seed : int
        The seed of the graph's own :class:`random.Random`.
    gold, candidate : dict
        The documents (see :data:`SCHEMA`).
    truth : dict of int to int
        Gold id -> candidate id of every surviving person.
    noise : Noise
    """

    seed: int
    gold: dict[str, Any]
    candidate: dict[str, Any]
    truth: dict[int, int]
    noise: Noise


def _typo(name: str, rng: random.Random) -> str:
    pos = rng.randrange(len(name))
    old = name[pos].lower()
    letter = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != old])
    if pos == 0:
        letter = letter.upper()
    return name[:pos] + letter + name[pos + 1:]


def make_graph(seed: int, n: int | None = None, names: int = 6) -> NoisyGraph:
    """Draw one noisy graph (see the module docstring).

    Parameters
    ----------
    seed : int
        Seed of the graph's :class:`random.Random`; the only source of randomness.
    n : int, optional
        Number of gold people (at least 4); drawn from ``U{8..40}`` when omitted.
    names : int
        How many names of :data:`NAMES` to draw from (fewer: more twins).

    Returns
    -------
    NoisyGraph

    Examples
    --------
    >>> g = make_graph(3, n=10)
    >>> len(g.gold["people"]), len(g.candidate["people"]), len(g.truth)
    (10, 9, 9)
    >>> make_graph(3, n=10) == g
    True
    """
    rng = random.Random(seed)
    if n is None:
        n = rng.randint(8, 40)
    if n < 4:
        raise ValueError(f"a noisy graph needs at least 4 people, got {n}")
    ids = list(range(1, n + 1))
    pool = NAMES[:names]
    people = [{"id": i, "name": rng.choice(pool), "role": rng.choice(ROLES)} for i in ids]

    def endpoints() -> tuple[int, int]:
        a, b = rng.sample(ids, 2)
        return a, b

    gold: dict[str, Any] = {"people": people}
    gold["mentorships"] = [dict(zip(EDGE_LISTS["mentorships"], endpoints(), strict=True))
                           for _ in range(round(1.2 * n))]
    gold["collaborations"] = [
        {**dict(zip(EDGE_LISTS["collaborations"], endpoints(), strict=True)),
         "project": rng.choice(PROJECTS)} for _ in range(n // 2)]

    # noise, in gold ids
    noisy = copy.deepcopy(gold)
    dropped = rng.choice(ids)
    survivors = [i for i in ids if i != dropped]
    noisy["people"] = [p for p in noisy["people"] if p["id"] != dropped]
    for lst, (a, b) in EDGE_LISTS.items():
        noisy[lst] = [e for e in noisy[lst] if dropped not in (e[a], e[b])]
    victim = rng.choice(noisy["people"])
    old_name = victim["name"]
    victim["name"] = _typo(old_name, rng)
    slots = [(lst, k) for lst in EDGE_LISTS for k in range(len(noisy[lst]))]
    reroutes = []
    for lst, k in rng.sample(slots, 2):
        edge = noisy[lst][k]
        before = dict(edge)
        end, other = EDGE_LISTS[lst] if rng.random() < 0.5 else EDGE_LISTS[lst][::-1]
        target = rng.choice([i for i in survivors if i not in (edge[end], edge[other])])
        edge[end] = target
        reroutes.append((lst, before, end, target))

    # relabel and shuffle
    fresh = rng.sample(range(1000, 1000 + 10 * n), n)
    mapping = dict(zip(ids, fresh, strict=True))
    candidate: dict[str, Any] = {
        "people": [{**p, "id": mapping[p["id"]]} for p in noisy["people"]]}
    for lst, ends in EDGE_LISTS.items():
        candidate[lst] = [{**e, **{f: mapping[e[f]] for f in ends}} for e in noisy[lst]]
    for items in candidate.values():
        rng.shuffle(items)
    truth = {i: mapping[i] for i in survivors}
    noise = Noise(dropped, (victim["id"], old_name, victim["name"]), tuple(reroutes))
    return NoisyGraph(seed, gold, candidate, truth, noise)


def make_graphs(count: int, seed: int = 0, names: int = 6) -> list[NoisyGraph]:
    """``count`` graphs whose seeds are drawn from ``random.Random(seed)``."""
    master = random.Random(seed)
    return [make_graph(master.getrandbits(63), names=names) for _ in range(count)]


def reshuffled(candidate: dict[str, Any], seed: int) -> dict[str, Any]:
    """The candidate with every list shuffled again (same content)."""
    rng = random.Random(seed)
    out = {key: [dict(item) for item in items] for key, items in candidate.items()}
    for items in out.values():
        rng.shuffle(items)
    return out


def twin_ids(gold: dict[str, Any]) -> set[int]:
    """Gold ids of the people sharing ``(name, role)`` with another person."""
    counts = Counter((p["name"], p["role"]) for p in gold["people"])
    return {p["id"] for p in gold["people"] if counts[p["name"], p["role"]] > 1}


def wl_distinguishable(gold: dict[str, Any]) -> set[int]:
    """Gold ids whose stable attribute-seeded 1-WL colour on the gold is unique.

    Vertices start from ``(name, role)``; a signature adds the sorted multiset of
    ``(link list, direction, project, neighbour colour)``. The others are
    interchangeable as far as 1-WL can tell, even on a noise-free candidate.
    """
    ids = [p["id"] for p in gold["people"]]
    colour = {p["id"]: (p["name"], p["role"]) for p in gold["people"]}
    incident: dict[int, list[tuple[str, str, str, int]]] = {i: [] for i in ids}
    for lst, (a, b) in EDGE_LISTS.items():
        for edge in gold[lst]:
            label = str(edge.get("project", ""))
            incident[edge[a]].append((lst, "out", label, edge[b]))
            incident[edge[b]].append((lst, "in", label, edge[a]))

    def relabel(sigs: dict[int, Any]) -> dict[int, Any]:
        table = {s: k for k, s in enumerate(sorted(set(sigs.values()), key=repr))}
        return {i: table[s] for i, s in sigs.items()}

    current = relabel(colour)
    count = len(set(current.values()))
    for _ in range(len(ids)):
        sigs = {i: (current[i], tuple(sorted((lst, d, lab, current[u])
                                             for lst, d, lab, u in incident[i])))
                for i in ids}
        new = relabel(sigs)
        new_count = len(set(new.values()))
        if new_count <= count:
            break
        current, count = new, new_count
    sizes = Counter(current.values())
    return {i for i in ids if sizes[current[i]] == 1}


@dataclass(slots=True)
class GraphResult:
    """The figures of one graph under one mode."""

    n: int
    records: int  # surviving gold records
    correct: int
    twins: int
    twins_correct: int
    distinguishable: int
    score: float
    seconds: float
    pairing_changed: bool = False
    score_changed: bool = False
    wrong: list[tuple[int, int | None]] = field(default_factory=list)  # (gold id, paired)


def pairing(result: oa_core.Alignment) -> dict[Any, Any]:
    """Gold id -> candidate id of every pair of the person scope's ``pairs``."""
    scope = result.scopes[SCOPE]
    return {scope.gold_ids[i]: scope.candidate_ids[j] for i, j in scope.pairs}


def tally(graph: NoisyGraph, paired: dict[Any, Any], score: float = 1.0,
          seconds: float = 0.0) -> GraphResult:
    """Compare a pairing (gold id -> candidate id) with the ground truth."""
    twins = twin_ids(graph.gold)
    distinct = wl_distinguishable(graph.gold)
    wrong = [(g, paired.get(g)) for g, c in sorted(graph.truth.items()) if paired.get(g) != c]
    return GraphResult(
        n=len(graph.gold["people"]), records=len(graph.truth),
        correct=len(graph.truth) - len(wrong),
        twins=sum(1 for g in graph.truth if g in twins),
        twins_correct=sum(1 for g, c in graph.truth.items() if g in twins and paired.get(g) == c),
        distinguishable=sum(1 for g in graph.truth if g in distinct),
        score=score, seconds=seconds, wrong=wrong)


def evaluate(graph: NoisyGraph, schema: oa_core.Schema, mode: str,
             reshuffles: int = 0) -> GraphResult:
    """Align one graph under ``wl_mode=mode`` and compare with the ground truth.

    Parameters
    ----------
    graph : NoisyGraph
    schema : oa_core.Schema
        :data:`SCHEMA`, parsed.
    mode : str
        A ``wl_mode``.
    reshuffles : int
        Further shuffles of the candidate's lists to align (order-invariance check).

    Returns
    -------
    GraphResult
    """
    start = time.perf_counter()
    result = oa_core.align(graph.gold, graph.candidate, schema, wl_mode=mode)
    seconds = time.perf_counter() - start
    paired = pairing(result)
    row = tally(graph, paired, result.score, seconds)
    for k in range(reshuffles):
        other = oa_core.align(graph.gold, reshuffled(graph.candidate, graph.seed + 1 + k),
                              schema, wl_mode=mode)
        row.pairing_changed |= pairing(other) != paired
        row.score_changed |= other.score != result.score
    return row


def summarize(rows: Sequence[GraphResult]) -> dict[str, float]:
    """Pooled fractions, mean score and mean time per graph of one mode."""
    records = sum(r.records for r in rows)
    twins = sum(r.twins for r in rows)
    return {
        "graphs": len(rows),
        "records": records,
        "twin_records": twins,
        "accuracy": sum(r.correct for r in rows) / records if records else 1.0,
        "twin_accuracy": sum(r.twins_correct for r in rows) / twins if twins else 1.0,
        "graphs_all_correct": sum(r.correct == r.records for r in rows) / len(rows)
        if rows else 1.0,
        "wl_ceiling": sum(r.distinguishable for r in rows) / records if records else 1.0,
        "mean_score": statistics.fmean(r.score for r in rows) if rows else 1.0,
        "mean_seconds": statistics.fmean(r.seconds for r in rows) if rows else 0.0,
        "pairing_changed": sum(r.pairing_changed for r in rows) / len(rows) if rows else 0.0,
        "score_changed": sum(r.score_changed for r in rows) / len(rows) if rows else 0.0,
    }


def _git_head() -> str:
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).resolve().parent)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run(graphs: int = 200, seed: int = 0, modes: Sequence[str] = MODES,
        reshuffles: int = 1, label: str = "", names: int = 6) -> dict[str, Any]:
    """Generate the graphs and measure every mode.

    Returns
    -------
    dict
        ``{"config": ..., "engine": ..., "modes": {mode: summary}, "wrong": {mode:
        [[graph, gold id, paired candidate id or None, true candidate id], ...]}}``.
    """
    data = make_graphs(graphs, seed, names)
    schema = oa_core.Schema.parse(SCHEMA)
    oa_core.align(data[0].gold, data[0].candidate, schema)  # warm imports and caches
    summaries: dict[str, Any] = {}
    wrong: dict[str, list[list[Any]]] = {}
    for mode in modes:
        rows = [evaluate(g, schema, mode, reshuffles) for g in data]
        summaries[mode] = summarize(rows)
        wrong[mode] = [[k, gid, got, data[k].truth[gid]]
                       for k, r in enumerate(rows) for gid, got in r.wrong]
    return {"config": {"graphs": graphs, "seed": seed, "reshuffles": reshuffles,
                       "n_range": [8, 40], "names": names, "roles": len(ROLES)},
            "engine": {"head": _git_head(), "oa_core": str(Path(oa_core.__file__).parent),
                       "label": label},
            "modes": summaries, "wrong": wrong}


def _table(report: dict[str, Any]) -> str:
    head = (f"{'mode':<10} {'accuracy':>9} {'twins':>7} {'all-ok':>7} {'ceiling':>8} "
            f"{'score':>7} {'ms/graph':>9} {'pair≠':>6} {'score≠':>7}")
    lines = [head]
    for mode, s in report["modes"].items():
        lines.append(
            f"{mode:<10} {s['accuracy']:>9.4f} {s['twin_accuracy']:>7.4f} "
            f"{s['graphs_all_correct']:>7.3f} {s['wl_ceiling']:>8.4f} {s['mean_score']:>7.4f} "
            f"{1000 * s['mean_seconds']:>9.2f} {s['pairing_changed']:>6.3f} "
            f"{s['score_changed']:>7.3f}")
    first = next(iter(report["modes"].values()), None)
    if first:
        lines.append(f"{first['graphs']} graphs, {first['records']} surviving gold records "
                     f"({first['twin_records']} twins); engine: {report['engine']['head']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Command line: print the table and write the JSON report."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--graphs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--reshuffles", type=int, default=1,
                        help="further shuffles of each candidate (order-invariance check)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--names", type=int, default=6, choices=range(1, len(NAMES) + 1),
                        metavar=f"1..{len(NAMES)}", help="name pool size (fewer: more twins)")
    parser.add_argument("--label", default="", help="a note on the engine measured")
    args = parser.parse_args(argv)
    report = run(args.graphs, args.seed, args.modes, args.reshuffles, args.label, args.names)
    print(_table(report))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    main()
