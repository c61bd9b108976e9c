"""Facts2Order: a seeded generator of sorting tasks and of dosed order corruptions.

An instance lists ``N`` short items, each stating one sortable key of a named entity
(an integer quantity, a date or an ordinal word); the target is the permutation of the
item labels ``1..N`` that sorts the items by their key, ascending, as
``{"indices": [...]}``. Keys are distinct, so the gold order is unique. Irrelevant
distractor sentences pad the input and, in the *hidden*-key regime, every item also
carries two or three numeric decoy clauses on other attributes, shuffled per item.

For the paper's intrinsic study (algorithm "Order-sensitivity experiment") the gold
permutations are corrupted by adjacent transpositions, a block reversal, a block move,
deletions and duplicate insertions; every pair is tagged with its Kendall distance
(``None`` when the candidate is not a permutation of the gold's labels).

All randomness comes from an explicit :class:`numpy.random.Generator`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
from scipy.stats import kendalltau

__all__ = [
    "ENTITY_NAMES",
    "KEY_TYPES",
    "Corruption",
    "CorruptionPair",
    "DosedCorruption",
    "Facts2OrderInstance",
    "Facts2OrderParams",
    "adjacent_transpositions",
    "block_move",
    "block_reversal",
    "corruption_pairs",
    "delete_items",
    "exact_match",
    "generate",
    "insert_duplicates",
    "kendall_distance",
    "kendall_tau",
    "sample_params",
    "schema",
]

KeyType = Literal["integer", "date", "ordinal"]

#: The three key types.
KEY_TYPES: tuple[KeyType, ...] = ("integer", "date", "ordinal")

#: Entity names the items are drawn from.
ENTITY_NAMES: tuple[str, ...] = (
    "Saiph", "Antares", "Arcturus", "Bellatrix", "Capella", "Deneb", "Electra", "Fomalhaut",
    "Gienah", "Hadar", "Izar", "Kochab", "Lesath", "Mirfak", "Nunki", "Polaris", "Rigel",
    "Sirius", "Thuban", "Vega", "Wezen", "Zosma", "Alcor", "Merak", "Mizar", "Naos",
)

_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth",
)
_DECOYS = (
    "It is priced at {} dollars.",
    "It measures {} centimetres.",
    "It is {} years old.",
)
_DISTRACTORS = (
    "The list was compiled by a volunteer.",
    "Some of the entries were checked twice.",
    "Nothing in this list is confidential.",
    "The records come from an old ledger.",
    "A few names may be familiar to you.",
)


@dataclass(frozen=True)
class Facts2OrderParams:
    """Parameters of one Facts2Order instance.

    Attributes
    ----------
    n_items : int
        Number of items ``N`` (1 to 20).
    key_type : {"integer", "date", "ordinal"}
        What the sort key is.
    n_distractors : int
        Number of irrelevant sentences appended to the item list (0 to 5).
    hidden : bool
        Hidden-key regime: each item also states 2-3 numeric decoy clauses.
    """

    n_items: int = 4
    key_type: KeyType = "integer"
    n_distractors: int = 0
    hidden: bool = False


@dataclass(frozen=True)
class Facts2OrderInstance:
    """One generated instance.

    Attributes
    ----------
    text : str
        The input listing the items.
    gold : list of int
        Item labels (1-based) in ascending key order.
    params : Facts2OrderParams
        The parameters the instance was drawn with.
    """

    text: str
    gold: list[int]
    params: Facts2OrderParams


@dataclass(frozen=True)
class CorruptionPair:
    """A gold permutation, one corruption of it, and its tags.

    Attributes
    ----------
    gold, candidate : list of int
        The two label sequences.
    family : str
        ``"none"``, ``"adjacent_transpositions"``, ``"block_reversal"``,
        ``"block_move"``, ``"deletion"`` or ``"insertion"``.
    k : int
        The dose: swaps, deleted or inserted items (0 for ``none``, 1 for the block
        families).
    distance : int or None
        Kendall distance between gold and candidate; ``None`` for length-changing pairs.
    """

    gold: list[int]
    candidate: list[int]
    family: str
    k: int
    distance: int | None


def sample_params(rng: np.random.Generator) -> Facts2OrderParams:
    """Draw parameters as in the paper's intrinsic study.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Facts2OrderParams
        ``N ~ U{3..12}`` items, a uniform key type, ``0..3`` distractors and a stated
        key.

    Examples
    --------
    >>> p = sample_params(np.random.default_rng(0))
    >>> 3 <= p.n_items <= 12 and p.key_type in KEY_TYPES and not p.hidden
    True
    """
    return Facts2OrderParams(
        n_items=int(rng.integers(3, 13)),
        key_type=KEY_TYPES[int(rng.integers(len(KEY_TYPES)))],
        n_distractors=int(rng.integers(0, 4)),
        hidden=False,
    )


def _key_clause(name: str, key_type: KeyType, key: int) -> str:
    if key_type == "integer":
        return f"{name} weighs {key} kilograms."
    if key_type == "date":
        day = dt.date(1900, 1, 1) + dt.timedelta(days=key)
        return f"{name} was catalogued on {day.day} {day:%B %Y}."
    return f"{name} arrived {_ORDINALS[key]}."


def generate(params: Facts2OrderParams, rng: np.random.Generator) -> Facts2OrderInstance:
    """Generate one instance: the item list and its unique gold permutation.

    Parameters
    ----------
    params : Facts2OrderParams
        Size, key type, distractors and key regime.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Facts2OrderInstance
        The instance.

    Examples
    --------
    >>> inst = generate(Facts2OrderParams(n_items=3), np.random.default_rng(2))
    >>> sorted(inst.gold)
    [1, 2, 3]
    >>> inst.text.splitlines()[0]
    'Here are the items:'
    """
    n = params.n_items
    if not 1 <= n <= len(_ORDINALS):
        raise ValueError(f"n_items must be in 1..{len(_ORDINALS)}, got {n}")
    if not 0 <= params.n_distractors <= len(_DISTRACTORS):
        raise ValueError(f"n_distractors must be in 0..{len(_DISTRACTORS)}")
    pool = {"integer": 999, "date": 365 * 120, "ordinal": len(_ORDINALS)}[params.key_type]
    keys = [int(k) + (params.key_type == "integer") for k in rng.choice(pool, n, replace=False)]
    names = [ENTITY_NAMES[int(i)] for i in rng.choice(len(ENTITY_NAMES), n, replace=False)]
    lines = ["Here are the items:", ""]
    for label, (name, key) in enumerate(zip(names, keys, strict=True), start=1):
        clauses = [_key_clause(name, params.key_type, key)]
        if params.hidden:
            n_decoys = int(rng.integers(2, 4))
            for template in rng.choice(len(_DECOYS), n_decoys, replace=False):
                clauses.append(_DECOYS[int(template)].format(int(rng.integers(1, 1000))))
            clauses = [clauses[int(i)] for i in rng.permutation(len(clauses))]
        prefix = f"Item {label}: "
        lines.append(prefix + clauses[0])
        lines.extend(" " * len(prefix) + c for c in clauses[1:])
    if params.n_distractors:
        lines.append("")
        picks = rng.choice(len(_DISTRACTORS), params.n_distractors, replace=False)
        lines.extend(_DISTRACTORS[int(i)] for i in picks)
    gold = [label for _, label in sorted(zip(keys, range(1, n + 1), strict=True))]
    return Facts2OrderInstance(text="\n".join(lines), gold=gold, params=params)


class Corruption(Protocol):
    """The signature of the block corruptions, :func:`block_reversal` and :func:`block_move`.

    A corruption returns a corrupted copy of a label sequence (the input is never
    modified) and draws all its randomness from `rng`.
    """

    def __call__(self, perm: Sequence[int], rng: np.random.Generator) -> list[int]:
        """Corrupt `perm` once.

        Parameters
        ----------
        perm : sequence of int
            The labels.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        list of int
            The corrupted copy.
        """


class DosedCorruption(Protocol):
    """The signature of the dosed corruptions.

    They are :func:`adjacent_transpositions`, :func:`delete_items` and
    :func:`insert_duplicates`: like a :class:`Corruption`, but taking the dose `k`
    between `perm` and `rng`.
    """

    def __call__(self, perm: Sequence[int], k: int, rng: np.random.Generator) -> list[int]:
        """Corrupt `perm` with dose `k`.

        Parameters
        ----------
        perm : sequence of int
            The labels.
        k : int
            The dose: how many swaps, deletions or insertions.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        list of int
            The corrupted copy; deletions shorten it and insertions lengthen it.
        """


def adjacent_transpositions(
    perm: Sequence[int], k: int, rng: np.random.Generator
) -> list[int]:
    """Apply `k` uniformly random adjacent swaps (they may cancel each other).

    Parameters and return value as :class:`DosedCorruption`; `perm` holds at least two
    labels.

    Examples
    --------
    >>> adjacent_transpositions([1, 2], 1, np.random.default_rng(0))
    [2, 1]
    """
    out = list(perm)
    for i in rng.integers(len(out) - 1, size=k):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def block_reversal(perm: Sequence[int], rng: np.random.Generator) -> list[int]:
    """Reverse one random contiguous block of length at least 2.

    Parameters and return value as :class:`Corruption`; `perm` holds at least two labels.

    Examples
    --------
    >>> block_reversal([1, 2], np.random.default_rng(0))
    [2, 1]
    """
    n = len(perm)
    length = int(rng.integers(2, n + 1))
    start = int(rng.integers(0, n - length + 1))
    out = list(perm)
    out[start:start + length] = out[start:start + length][::-1]
    return out


def block_move(perm: Sequence[int], rng: np.random.Generator) -> list[int]:
    """Cut one random contiguous block (length 2..N-1) and reinsert it elsewhere.

    Parameters and return value as :class:`Corruption`; `perm` holds at least three
    labels, and the copy never equals `perm` when its labels are distinct.

    Examples
    --------
    >>> block_move([1, 2, 3], np.random.default_rng(0)) in ([3, 1, 2], [2, 3, 1])
    True
    """
    n = len(perm)
    if n < 3:
        raise ValueError("block_move needs at least three items")
    length = int(rng.integers(2, n))
    start = int(rng.integers(0, n - length + 1))
    block = list(perm[start:start + length])
    rest = list(perm[:start]) + list(perm[start + length:])
    spots = [p for p in range(len(rest) + 1) if p != start]
    spot = spots[int(rng.integers(len(spots)))]
    return rest[:spot] + block + rest[spot:]


def delete_items(perm: Sequence[int], k: int, rng: np.random.Generator) -> list[int]:
    """Drop `k` random items, keeping the order of the others.

    Parameters and return value as :class:`DosedCorruption`; `k` is at most
    ``len(perm)``, and the copy is `k` items shorter.

    Examples
    --------
    >>> len(delete_items([1, 2, 4, 3], 1, np.random.default_rng(0)))
    3
    """
    drop = set(rng.choice(len(perm), size=k, replace=False).tolist())
    return [x for i, x in enumerate(perm) if i not in drop]


def insert_duplicates(perm: Sequence[int], k: int, rng: np.random.Generator) -> list[int]:
    """Insert `k` duplicates of random existing labels at random positions.

    Parameters and return value as :class:`DosedCorruption`; `perm` holds at least one
    label, and the copy is `k` items longer.

    Examples
    --------
    >>> out = insert_duplicates([1, 2, 3], 2, np.random.default_rng(0))
    >>> len(out), sorted(set(out))
    (5, [1, 2, 3])
    """
    out = list(perm)
    for _ in range(k):
        label = perm[int(rng.integers(len(perm)))]
        out.insert(int(rng.integers(len(out) + 1)), label)
    return out


def _is_permutation_of(gold: Sequence[int], candidate: Sequence[int]) -> bool:
    return len(gold) == len(candidate) == len(set(gold)) and set(gold) == set(candidate)


def kendall_distance(gold: Sequence[int], candidate: Sequence[int]) -> int | None:
    """Count the discordant pairs (minimum number of adjacent swaps) between two orders.

    Parameters
    ----------
    gold, candidate : sequence of int
        Two label sequences.

    Returns
    -------
    int or None
        The Kendall distance, or ``None`` unless `candidate` is a permutation of the
        distinct labels of `gold`.

    Examples
    --------
    >>> kendall_distance([1, 2, 4, 3], [3, 4, 2, 1])
    6
    >>> kendall_distance([1, 2, 4, 3], [1, 2, 4]) is None
    True
    """
    if not _is_permutation_of(gold, candidate):
        return None
    pos = {label: i for i, label in enumerate(gold)}
    ranks = [pos[label] for label in candidate]
    return sum(
        ranks[i] > ranks[j] for i in range(len(ranks)) for j in range(i + 1, len(ranks))
    )


def kendall_tau(gold: Sequence[int], candidate: Sequence[int]) -> float:
    """Kendall's tau between two orders of the same labels; 0 on any other pair.

    Parameters
    ----------
    gold, candidate : sequence of int
        Two label sequences.

    Returns
    -------
    float
        Tau in ``[-1, 1]`` (``scipy.stats.kendalltau`` of the candidate positions
        against the gold positions), 1 for a single item, and 0 unless `candidate` is
        a permutation of the distinct labels of `gold`.

    Examples
    --------
    >>> round(kendall_tau([1, 2, 4, 3], [1, 4, 2, 3]), 3)
    0.667
    >>> kendall_tau([1, 2, 4, 3], [1, 2, 4])
    0.0
    """
    if not _is_permutation_of(gold, candidate):
        return 0.0
    if len(gold) < 2:
        return 1.0
    pos = {label: i for i, label in enumerate(candidate)}
    return float(kendalltau(range(len(gold)), [pos[label] for label in gold]).statistic)


def exact_match(gold: Sequence[int], candidate: Sequence[int]) -> float:
    """Perfect-match ratio of one pair: 1.0 iff the sequences are identical.

    Parameters
    ----------
    gold, candidate : sequence of int
        Two label sequences.

    Returns
    -------
    float
        1.0 or 0.0.

    Examples
    --------
    >>> exact_match([1, 2], [1, 2]), exact_match([1, 2], [2, 1])
    (1.0, 0.0)
    """
    return float(list(gold) == list(candidate))


def corruption_pairs(gold: Sequence[int], rng: np.random.Generator) -> list[CorruptionPair]:
    """Corrupt one gold permutation once per family, as in the paper's algorithm.

    Emits the ``none`` reference pair, adjacent transpositions with ``k = 1..N-1``
    swaps, one block reversal, one block move (when ``N >= 3``), deletions of
    ``k = 1..min(3, N-1)`` items and insertions of ``k = 1..3`` duplicates. A
    corruption that reproduces the gold is redrawn.

    Parameters
    ----------
    gold : sequence of int
        The gold permutation, at least two labels.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    list of CorruptionPair
        ``N + 2 + min(3, N-1) + 3`` pairs (one fewer when ``N = 2``).

    Examples
    --------
    >>> pairs = corruption_pairs([1, 2, 4, 3], np.random.default_rng(0))
    >>> len(pairs), pairs[0].family, pairs[0].distance
    (12, 'none', 0)
    >>> all(p.candidate != p.gold for p in pairs[1:])
    True
    """
    g = list(gold)
    n = len(g)
    if n < 2:
        raise ValueError("corruption_pairs needs at least two items")

    def draw(make: Any) -> list[int]:
        cand = make()
        while cand == g:
            cand = make()
        return cand

    plan: list[tuple[str, int, Any]] = [
        ("adjacent_transpositions", k, lambda k=k: adjacent_transpositions(g, k, rng))
        for k in range(1, n)
    ]
    plan.append(("block_reversal", 1, lambda: block_reversal(g, rng)))
    if n >= 3:
        plan.append(("block_move", 1, lambda: block_move(g, rng)))
    plan.extend(
        ("deletion", k, lambda k=k: delete_items(g, k, rng)) for k in range(1, min(3, n - 1) + 1)
    )
    plan.extend(("insertion", k, lambda k=k: insert_duplicates(g, k, rng)) for k in range(1, 4))
    pairs = [CorruptionPair(g, list(g), "none", 0, 0)]
    for family, k, make in plan:
        cand = draw(make)
        pairs.append(CorruptionPair(g, cand, family, k, kendall_distance(g, cand)))
    return pairs


def schema(
    order: Literal["fixed", "align"] = "fixed",
    items: Literal["exact", "invdiff"] = "exact",
) -> dict[str, Any]:
    """Return the OA schema of ``{"indices": [...]}`` answers.

    Parameters
    ----------
    order : {"fixed", "align"}, default "fixed"
        ``"fixed"`` is the order-sensitive *sequence* arm, ``"align"`` the
        order-agnostic *set* ablation (Hungarian matching of the label bag).
    items : {"exact", "invdiff"}, default "exact"
        Comparator of the integer labels. With ``"exact"`` the sequence score is
        ``L/(n+m-L)`` (``L`` the longest common subsequence) and the set score
        ``I/(n+m-I)`` (``I`` the multiset overlap); ``"invdiff"`` gives partial credit
        to numerically close labels. Whole-answer exact match (perfect-match ratio) is
        not a schema; see :func:`exact_match`.

    Returns
    -------
    dict
        The schema.

    Examples
    --------
    >>> schema("align")["properties"]["indices"]["order"]
    'align'
    """
    if order not in ("fixed", "align"):
        raise ValueError(f"order must be 'fixed' or 'align', got {order!r}")
    if items not in ("exact", "invdiff"):
        raise ValueError(f"items must be 'exact' or 'invdiff', got {items!r}")
    return {
        "type": "object",
        "required": ["indices"],
        "properties": {
            "indices": {
                "type": "array",
                "order": order,
                "items": {"type": "integer", "score": items, "minimum": 1},
            }
        },
    }
