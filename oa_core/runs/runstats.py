"""Statistics of scored runs: bootstrap intervals, error patterns, field metrics,
run-vs-run comparison and the rank change of a schema edit.

Everything works on the tables of :class:`oa_core.runs.dataset.ScoredRun` and is
deterministic: the bootstrap resamples with a fixed seed, ties are broken by the
pairs' order, and sorting is stable.

Examples
--------
>>> interval = bootstrap_mean([0.2, 0.4, 0.6, 0.8, 1.0], resamples=2000)
>>> round(interval.estimate, 2), interval.low < 0.6 < interval.high
(0.6, True)
>>> paired = paired_bootstrap([0.5, 0.6, 0.7], [0.6, 0.7, 0.8])
>>> round(paired.estimate, 2), round(paired.low, 2), round(paired.high, 2)
(0.1, 0.1, 0.1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .fields import TOTAL, WRONG_SHAPE, count_arrays, table
from .output_format import FAILURES, FORMATS

if TYPE_CHECKING:
    from .dataset import ScoredRun

__all__ = [
    "FAILED",
    "FIELD_COLUMNS",
    "TIE",
    "Comparison",
    "FormatFailures",
    "Interval",
    "bootstrap_mean",
    "compare",
    "content_rows",
    "error_patterns",
    "field_metrics",
    "filter_pairs",
    "format_failures",
    "new_failures",
    "paired_bootstrap",
    "rank_change",
    "regressions",
    "summary",
    "worst",
]

FIELD_COLUMNS = ("field", "tp", "fp", "fd", "fa", "fn", "precision", "recall", "f1")
"""The columns of :func:`field_metrics` (``fd`` + ``fa`` = ``fp``)."""
TIE = 1e-9
"""Two scores closer than this are a tie (a win or loss needs a real difference)."""
FAILED = "format failure"
"""The :func:`filter_pairs` status that matches every format failure."""
SEED = 20251124
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its bootstrap confidence interval.

    Attributes
    ----------
    estimate : float
        The statistic on the data (NaN without data).
    low, high : float
        The percentile interval bounds at ``level``.
    level : float
    """

    estimate: float
    low: float
    high: float
    level: float = 0.95

    def render(self, digits: int = 4) -> str:
        """``0.7312 [0.7010, 0.7598]``."""
        return (f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, "
                f"{self.high:.{digits}f}]")


def _bootstrap(values: np.ndarray, resamples: int, level: float, seed: int) -> Interval:
    if values.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), level)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    # in blocks, so 100,000 pairs x 2,000 resamples never hold 200 million indices
    block = max(1, 2_000_000 // values.size)
    for start in range(0, resamples, block):
        stop = min(start + block, resamples)
        picks = rng.integers(0, values.size, size=(stop - start, values.size))
        means[start:stop] = values[picks].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Interval(float(values.mean()), float(low), float(high), level)


def bootstrap_mean(scores: Sequence[float] | np.ndarray, *, resamples: int = 2000,
                   level: float = 0.95, seed: int = SEED) -> Interval:
    """The mean with a percentile bootstrap interval (NaNs left out).

    Parameters
    ----------
    scores : sequence of float
    resamples : int
    level : float
        Coverage of the interval (0.95: a 95% interval).
    seed : int
        The resampling seed (fixed: the same data gives the same interval).
    """
    values = np.asarray(scores, dtype=float)
    return _bootstrap(values[~np.isnan(values)], resamples, level, seed)


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
                     resamples: int = 2000, level: float = 0.95,
                     seed: int = SEED) -> Interval:
    """The mean of ``b - a`` over paired documents, with a paired bootstrap interval.

    Documents are resampled as pairs, so what both runs share (an easy or a hard
    document) cancels out. Pairs where either score is NaN are left out.
    """
    left, right = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = ~(np.isnan(left) | np.isnan(right))
    return _bootstrap(right[keep] - left[keep], resamples, level, seed)


def summary(run: ScoredRun, *, resamples: int = 2000) -> dict[str, Any]:
    """The headline numbers of a run.

    Returns
    -------
    dict
        ``n`` (pairs), ``scored``, ``unparsable`` (no JSON read: refused, not JSON,
        empty), ``format_failures`` (those and the cut-off outputs, see
        :mod:`oa_core.runs.output_format`), ``errors`` (lines not scored), ``mean`` (an
        :class:`Interval`, 95%), and ``p10``..``p90`` quantiles.
    """
    frame = run.frame
    scores = run.scores
    quantiles = (np.quantile(scores, QUANTILES) if scores.size else
                 [float("nan")] * len(QUANTILES))
    status = frame["status"]
    return {"n": len(frame), "scored": int(scores.size),
            "unparsable": int(status.isin(("refused", "not JSON", "empty")).sum()),
            "format_failures": int(status.isin(FAILURES).sum()),
            "errors": int((frame["status"] == "error").sum()),
            "mean": bootstrap_mean(scores, resamples=resamples),
            **{f"p{round(q * 100)}": float(v) for q, v in zip(QUANTILES, quantiles,
                                                               strict=True)}}


@dataclass(frozen=True, slots=True)
class FormatFailures:
    """The pairs whose output failed its format (:data:`oa_core.runs.output_format.FAILURES`):
    their score measures the format, not the content, so they are reported apart.

    Attributes
    ----------
    count : int
    kinds : dict of str to int
        Pairs per format status, in :data:`oa_core.runs.output_format.FORMATS` order (only
        the statuses that occur).
    examples : dict of str to list of str
        The ids of the first few pairs of each kind, in input order.
    """

    count: int
    kinds: dict[str, int]
    examples: dict[str, list[str]]

    def render(self) -> str:
        """``43 format failures: cut off 30, refused 8, ...`` (or that there are none).

        >>> FormatFailures(3, {"cut off": 2, "empty": 1}, {}).render()
        '3 format failures: cut off 2, empty 1'
        """
        if not self.count:
            return "no format failures"
        kinds = ", ".join(f"{kind} {n}" for kind, n in self.kinds.items())
        return f"{self.count} format failure{'s' * (self.count != 1)}: {kinds}"


def format_failures(run: ScoredRun, examples: int = 3) -> FormatFailures:
    """The run's format failures: how many, of which kinds, and a few ids of each."""
    frame = run.frame
    status = frame["status"]
    kinds: dict[str, int] = {}
    shown: dict[str, list[str]] = {}
    for kind in FORMATS:
        if kind not in FAILURES:
            continue
        ids = frame["id"][status == kind]
        if len(ids):
            kinds[kind] = len(ids)
            shown[kind] = [str(i) for i in ids.head(examples)]
    return FormatFailures(sum(kinds.values()), kinds, shown)


def content_rows(frame: pd.DataFrame) -> np.ndarray:
    """Which pairs of a run's table were scored on their content (not a format failure,
    not an error): the pairs whose score says how good the model's answer is."""
    return (~frame["status"].isin(FAILURES) & frame["score"].notna()).to_numpy()


def worst(run: ScoredRun, count: int) -> pd.DataFrame:
    """The ``count`` pairs with the most content error (lowest score first, ties in
    input order); format failures and unscored lines are left out
    (:func:`format_failures` reports them).

    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> frame = pd.DataFrame({"row": [0, 1, 2], "id": ["a", "b", "c"],
    ...                       "score": [0.0, 0.4, 0.2], "status": ["cut off", "ok", "prose"]})
    >>> worst(SimpleNamespace(frame=frame), 5)["id"].tolist()
    ['c', 'b']
    """
    frame = run.frame[content_rows(run.frame)]
    return frame.sort_values(["score", "row"], kind="stable").head(count)


def error_patterns(run: ScoredRun, *, content_only: bool = False) -> pd.DataFrame:
    """Loss and count per (path pattern, op kind), the costliest first.

    Parameters
    ----------
    run : ScoredRun
    content_only : bool
        Leave out the format failures (:func:`format_failures`): the patterns of the
        content errors alone, per pair scored on its content.

    Returns
    -------
    pandas.DataFrame
        ``pattern``, ``kind``, ``count`` (operations), ``pairs`` (pairs having one),
        ``loss`` (summed delta) and ``mean_loss`` (``loss`` per scored pair: what the
        pattern costs the run's mean score).
    """
    ops = run.ops
    scored = max(int(run.scores.size), 1)
    if content_only:
        rows = run.frame["row"].to_numpy()[content_rows(run.frame)]
        ops = ops[np.isin(ops["row"].to_numpy(), rows)]
        scored = max(int(rows.size), 1)
    if ops.empty:
        return pd.DataFrame(columns=["pattern", "kind", "count", "pairs", "loss", "mean_loss"])
    table = ops.groupby(["pattern", "kind"], sort=True).agg(
        count=("delta", "size"), pairs=("row", "nunique"), loss=("delta", "sum")).reset_index()
    table["mean_loss"] = table["loss"] / scored
    return table.sort_values(["loss", "pattern", "kind"], ascending=[False, True, True],
                             kind="stable").reset_index(drop=True)


def field_metrics(run: ScoredRun, threshold: float = 0.5) -> pd.DataFrame:
    """TP, FP (wrong values FD + spurious values FA), FN, precision, recall and F1 per
    field, then the wrong-shape row and the total.

    The counting rule and the rows are :mod:`oa_core.runs.fields`' (``threshold`` is the
    credit threshold): values at patterns no gold has are one ``(wrong shape)`` row,
    and the last row, ``(all fields)``, sums the counts (micro average). A ratio with
    a zero denominator is NaN (shown as a dash).
    """
    fields = run.fields
    counts = count_arrays(fields["pattern"].to_numpy(dtype=object),
                          fields["outcome"].to_numpy(dtype=object),
                          fields["similarity"].to_numpy(dtype=float), threshold)
    rows = [{"field": name, "tp": c.tp, "fp": c.fp, "fd": c.fd, "fa": c.fa, "fn": c.fn,
             "precision": c.precision, "recall": c.recall, "f1": c.f1}
            for name, c in table(counts)]
    frame = pd.DataFrame(rows, columns=list(FIELD_COLUMNS))
    return frame.astype({"precision": "float64", "recall": "float64", "f1": "float64"})


def filter_pairs(run: ScoredRun, *, low: float = 0.0, high: float = 1.0, kind: str = "",
                 pattern: str = "", text: str = "", status: str = "") -> pd.DataFrame:
    """The pairs matching every given filter (the empty ones match all).

    Parameters
    ----------
    low, high : float
        Score range (inclusive); pairs that were not scored pass only the full range.
    kind : str
        An op kind the pair has (``missing-list-item``).
    pattern : str
        A path pattern the pair has an op at (``/people/*/name``; a trailing ``/*``-free
        prefix matches the patterns below it).
    text : str
        A case-insensitive substring of the id, the top op or the problem.
    status : str
        A status (:data:`oa_core.runs.output_format.STATUSES`), or :data:`FAILED` for
        every format failure.
    """
    frame = run.frame
    mask = np.ones(len(frame), dtype=bool)
    scores = frame["score"].to_numpy(dtype=float)
    if low > 0.0 or high < 1.0:
        mask &= (scores >= low) & (scores <= high)
    if kind or pattern:
        ops = run.ops
        chosen = np.ones(len(ops), dtype=bool)
        if kind:
            chosen &= (ops["kind"] == kind).to_numpy()
        if pattern:
            names = ops["pattern"]
            chosen &= ((names == pattern) | names.str.startswith(pattern.rstrip("/") + "/")
                       ).to_numpy()
        rows = np.unique(ops["row"].to_numpy()[chosen])
        mask &= np.isin(frame["row"].to_numpy(), rows)
    if status:
        mask &= (frame["status"].isin(FAILURES) if status == FAILED
                 else frame["status"] == status).to_numpy()
    if text:
        needle = text.casefold()
        haystack = (frame["id"].astype(str) + "\n" + frame["top_op"] + "\n"
                    + frame["problem"]).str.casefold()
        mask &= haystack.str.contains(needle, regex=False).to_numpy()
    return frame[mask]


@dataclass(slots=True)
class Comparison:
    """Run B against run A on the same golds.

    Attributes
    ----------
    pairs : pandas.DataFrame
        ``id``, ``row_a``, ``row_b``, ``score_a``, ``score_b``, ``status_a``,
        ``status_b``, ``diff`` (B - A), one per id both runs scored, in A's order.
    difference : Interval
        Mean of B - A with a paired bootstrap 95% interval.
    wins, ties, losses : int
        Documents where B scores higher, the same (within :data:`TIE`), lower.
    patterns : pandas.DataFrame
        Per (pattern, kind): ``loss_a``, ``loss_b`` (mean loss per pair) and ``change``
        (B - A; positive: the pattern grew), the biggest moves first.
    fields : pandas.DataFrame
        Per field: ``f1_a``, ``f1_b``, ``change``.
    only_a, only_b : list of str
        Ids only one run has.
    """

    pairs: pd.DataFrame
    difference: Interval
    wins: int
    ties: int
    losses: int
    patterns: pd.DataFrame
    fields: pd.DataFrame
    only_a: list[str]
    only_b: list[str]


def compare(a: ScoredRun, b: ScoredRun, *, threshold: float = 0.5,
            resamples: int = 2000) -> Comparison:
    """Compare two runs on the same golds, document by document (joined by id)."""
    left = a.frame[["id", "row", "score", "status"]].drop_duplicates("id")
    right = b.frame[["id", "row", "score", "status"]].drop_duplicates("id")
    pairs = left.merge(right, on="id", how="inner", suffixes=("_a", "_b"), sort=False)
    pairs = pairs.dropna(subset=["score_a", "score_b"]).reset_index(drop=True)
    pairs["diff"] = pairs["score_b"] - pairs["score_a"]
    diff = pairs["diff"].to_numpy()
    interval = paired_bootstrap(pairs["score_a"].to_numpy(), pairs["score_b"].to_numpy(),
                                resamples=resamples)
    pa, pb = error_patterns(a), error_patterns(b)
    patterns = pa[["pattern", "kind", "mean_loss"]].merge(
        pb[["pattern", "kind", "mean_loss"]], on=["pattern", "kind"], how="outer",
        suffixes=("_a", "_b")).fillna(0.0)
    patterns = patterns.rename(columns={"mean_loss_a": "loss_a", "mean_loss_b": "loss_b"})
    patterns["change"] = patterns["loss_b"] - patterns["loss_a"]
    patterns = patterns.assign(size=patterns["change"].abs()).sort_values(
        ["size", "pattern", "kind"], ascending=[False, True, True], kind="stable"
    ).drop(columns="size").reset_index(drop=True)
    fa, fb = field_metrics(a, threshold), field_metrics(b, threshold)
    fields = fa[["field", "f1"]].merge(fb[["field", "f1"]], on="field", how="outer",
                                       suffixes=("_a", "_b"))
    fields["change"] = fields["f1_b"] - fields["f1_a"]
    # as field_metrics orders them: the fields, then the wrong-shape row and the total
    last = {WRONG_SHAPE: 1, TOTAL: 2}
    fields = fields.assign(_last=fields["field"].map(last).fillna(0)).sort_values(
        ["_last", "field"], kind="stable").drop(columns="_last").reset_index(drop=True)
    ids_a, ids_b = set(left["id"]), set(right["id"])
    return Comparison(pairs, interval, int((diff > TIE).sum()),
                      int((np.abs(diff) <= TIE).sum()), int((diff < -TIE).sum()),
                      patterns, fields, [i for i in left["id"] if i not in ids_b],
                      [i for i in right["id"] if i not in ids_a])


def regressions(comparison: Comparison, count: int) -> pd.DataFrame:
    """The ``count`` documents whose content regressed most in B (the biggest drop
    first, ties by id): documents that are a format failure in either run are left out
    (:func:`new_failures` lists those that became one)."""
    pairs = comparison.pairs
    readable = ~(pairs["status_a"].isin(FAILURES) | pairs["status_b"].isin(FAILURES))
    found = pairs[readable & (pairs["diff"] < -TIE)]
    return found.sort_values(["diff", "id"], kind="stable").head(count)


def new_failures(comparison: Comparison) -> pd.DataFrame:
    """The documents whose output is a format failure in B but not in A (in A's order),
    with B's format status: regressions of the format, not of the content."""
    pairs = comparison.pairs
    return pairs[pairs["status_b"].isin(FAILURES) & ~pairs["status_a"].isin(FAILURES)]


def rank_change(before: ScoredRun, after: ScoredRun) -> tuple[float, pd.DataFrame]:
    """How a rescoring (another schema) moved the run.

    Returns
    -------
    rho : float
        Spearman's rank correlation of the per-document scores (NaN when either is
        constant or fewer than 2 documents were scored by both).
    moves : pandas.DataFrame
        ``id``, ``row``, ``before``, ``after``, ``change``, the biggest moves first.
    """
    from scipy.stats import spearmanr

    frame = pd.DataFrame({"id": before.frame["id"], "row": before.frame["row"],
                          "before": before.frame["score"],
                          "after": after.frame["score"].to_numpy()}).dropna()
    frame["change"] = frame["after"] - frame["before"]
    rho = float("nan")
    if len(frame) >= 2 and frame["before"].nunique() > 1 and frame["after"].nunique() > 1:
        rho = float(spearmanr(frame["before"], frame["after"]).statistic)
    moves = frame.assign(size=frame["change"].abs()).sort_values(
        ["size", "row"], ascending=[False, True], kind="stable").drop(columns="size")
    return rho, moves.reset_index(drop=True)
