"""The match tree: recursive alignment and scoring of gold against candidate.

:class:`Scorer` descends gold, candidate and schema in lockstep (Algorithm 1 of
the paper) and builds a :class:`MatchNode` per compared pair. It has two faces
that give the same bits:

* :meth:`Scorer.node` builds the tree for one pair of values;
* :meth:`Scorer.matrix` scores every pair of two collections at once, vectorized
  for primitives and for objects (grouped by key set), used as the cost matrix
  of list and scope alignment.

Conventions (documented in ``docs/schema.md``):

* a map's key term averages key similarities over its slots (matched pairs,
  unmatched gold keys, unmatched candidate keys); an unmatched slot scores 0 and
  keeps its property's ``valueWeight`` (undeclared keys weigh 1);
* an identifier field is worth 1 whenever both records have it; a reference
  scores 1 iff the candidate value is the image of the gold value under the
  scope's bijection and exists among the candidate's ids (two nulls agree);
* ``align`` lists are matched on a canonical order of their elements (sorted by
  canonical JSON), so permuting a list never changes its score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .assignment import max_weight_matching, monotone_matching
from .blocking import blocks
from .comparators import (
    BUILTIN_COMPARATORS,
    DEFAULT_FOR_KIND,
    MEMO_LIMIT,
    Comparator,
    ComparatorRegistry,
    canonical_json,
    id_key,
    value_kind,
)
from .errors import ComparatorError, InputError
from .kinds import NodeKind, Status
from .options import Limits
from .pointer import join
from .schema import ANY, SchemaNode, concrete

__all__ = ["MatchNode", "Scorer", "canonical_json", "key_denominator", "map_score",
           "power_of_two_scale"]

_PRIMITIVE_KINDS = frozenset({"string", "number", "boolean"})
# Unordered lists with more gold x candidate pairs than this are aligned from their
# positive pairs when those can be found by equality (oa_core.sparse): 8 MB of dense
# scores. Below it the dense matrix is kept (the explorer draws it).
SPARSE_FROM_CELLS = 1_000_000
# The JSON Pointers of the gold and the candidate values of a matrix, where a scope's
# record array below them is paired by pointer (Scorer.record_pairs); else None.
Paths = tuple[Sequence[str], Sequence[str]] | None


def _accumulate(terms: Iterable[Any]) -> Any:
    # Left-to-right addition that works on floats and arrays alike (builtin
    # sum() is compensated on Python >= 3.12, numpy's is not).
    total: Any = 0.0
    for term in terms:
        # in place once total is an array of our own (made by the first array sum);
        # the same bits as total + term, one matrix fewer alive
        total += term
    return total


def power_of_two_scale(weights: Sequence[float]) -> list[float]:
    """Weights divided by the power of two that brings the largest into [1, 2).

    Ratios of weights are all that matter, and dividing by a power of two is exact:
    sums of ``weights`` that would overflow (two weights of 1e308) or vanish
    (5e-324) become ordinary numbers, while ordinary weights give the same bits.

    >>> power_of_two_scale([1e308, 1e308])
    [1.1125369292536007, 1.1125369292536007]
    >>> power_of_two_scale([3.0, 1.0])
    [1.5, 0.5]
    >>> power_of_two_scale([1.0, 0.5])
    [1.0, 0.5]
    """
    largest = max(weights, default=0.0)
    if largest <= 0.0:
        return [float(w) for w in weights]
    exponent = math.frexp(largest)[1] - 1
    return [math.ldexp(float(w), -exponent) for w in weights]


def key_denominator(gold_keys: int, candidate_keys: int) -> int:
    """The paper's d = max(n, m) of the key term s_key = (1/d) sum K_ij (matched pairs).

    >>> key_denominator(2, 3)
    3
    """
    return max(gold_keys, candidate_keys)


def map_score(key_scores: Sequence[Any], value_scores: Iterable[Any],
              weights: Sequence[float], key_importance: float,
              value_importance: float, key_slots: int) -> Any:
    """Eq. (dict) of the paper over slots: floats in, float out; arrays in, array out.

    ``key_scores`` are the key similarities of the slots (0 for unmatched keys) and
    ``key_slots`` is the paper's d = max(n, m); the value term averages the slots'
    values by weight (spec notes: matched pairs, unmatched gold and candidate keys).

    ``value_scores`` may be a generator: each slot's value (a whole score matrix in
    the matrix form) is then computed, weighted and added before the next is made,
    so only the running sum is held. Weights and the two importances are scaled by
    :func:`power_of_two_scale` (exact) so that no sum overflows.

    >>> map_score([1.0, 0.0], [1.0, 0.0], [3.0, 1.0], 0.0, 1.0, 2)
    0.75
    >>> map_score([1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0], 1.0, 0.0, 2)
    0.5
    """
    slots = len(weights)
    if slots == 0:
        return 1.0
    weights = power_of_two_scale(weights)
    key_importance, value_importance = power_of_two_scale([key_importance, value_importance])
    s_key = _accumulate(key_scores) / key_slots
    total_weight = _accumulate(weights)
    if total_weight > 0:
        s_val = _accumulate(w * v for w, v in zip(weights, value_scores, strict=True)) / (
            total_weight)
    else:
        s_val = 1.0
    return (key_importance * s_key + value_importance * s_val) / (
        key_importance + value_importance)


@dataclass(eq=False, slots=True)
class MatchNode:
    """One compared pair (or one unmatched element) of the match tree.

    ``weight`` is the node's share in its parent's score and ``effective_weight``
    the product of shares up to the root; for map slots ``key_weight`` and
    ``key_score`` describe the key term. A parent's score is
    ``sum(c.weight * c.score + c.key_weight * (c.key_score or 0) for c in children)``.
    """

    kind: NodeKind
    status: Status
    label: str  # for display only: never parsed (see gold_key / candidate_key)
    gold_path: str | None
    candidate_path: str | None
    schema_path: str
    gold: Any = None
    candidate: Any = None
    score: float = 0.0
    weight: float = 0.0
    key_weight: float = 0.0
    key_score: float | None = None
    effective_weight: float = 0.0
    key_effective_weight: float = 0.0
    comparator: str | None = None
    similarity: float | None = None
    threshold: float | None = None
    order: str | None = None  # sequences: "align", "fixed", "scope"
    scope: str | None = None
    expected: Any = None  # refs: the candidate id the gold reference maps to
    gold_key: str | None = None  # map slots: the key on each side (None where absent)
    candidate_key: str | None = None
    children: list[MatchNode] = field(default_factory=list)
    schema: SchemaNode | None = field(default=None, repr=False)  # the node it was scored by
    matrix: np.ndarray | None = None
    pairs: list[tuple[int, int]] = field(default_factory=list)

    @property
    def contribution(self) -> float:
        """What this node adds to the root score."""
        return self.effective_weight * self.score + self.key_effective_weight * (
            self.key_score or 0.0)

    @property
    def deficit(self) -> float:
        """What this node costs the root score (its repair operations' deltas)."""
        return self.effective_weight * (1.0 - self.score) + self.key_effective_weight * (
            1.0 - (self.key_score or 0.0))

    @property
    def path(self) -> str:
        """The gold pointer if the node exists in gold, else the candidate pointer."""
        return self.gold_path if self.gold_path is not None else (self.candidate_path or "")

    def iter_nodes(self) -> Iterator[MatchNode]:
        """This node and all below it, depth first, parents first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def to_dict(self) -> dict[str, Any]:
        """The subtree as plain JSON-ready data (without matrices)."""
        return {
            "kind": self.kind, "status": self.status, "label": self.label,
            "gold_path": self.gold_path, "candidate_path": self.candidate_path,
            "schema_path": self.schema_path, "score": self.score, "weight": self.weight,
            "effective_weight": self.effective_weight, "key_score": self.key_score,
            "key_weight": self.key_weight, "comparator": self.comparator,
            "similarity": self.similarity, "deficit": self.deficit,
            "children": [c.to_dict() for c in self.children],
        }


def _node_kind(schema: SchemaNode, value: Any) -> NodeKind:
    if schema.id_scope is not None:
        return NodeKind.ID
    if schema.ref is not None:
        return NodeKind.REF
    kind = value_kind(value)
    if kind == "object":
        return NodeKind.MAP
    if kind == "array":
        return NodeKind.SEQUENCE
    return NodeKind.NULL if kind == "null" else NodeKind.LEAF


def _comparator_for(registry: ComparatorRegistry, schema: SchemaNode,
                    kind: str) -> Comparator | None:
    """The comparator of a leaf for values of ``kind``: the schema's own where it
    compares that kind (a node of several types may name a number comparator),
    else the kind's default."""
    if schema.comparator is not None:
        comparator = registry.get(schema.comparator)
        if kind in comparator.kinds:
            return comparator
        if schema.type != "any":
            return None  # a value of the wrong type: a type mismatch
    default = DEFAULT_FOR_KIND.get(kind)
    return registry.get(default) if default is not None else None


def _comparator_pointer(schema: SchemaNode, keyword: str) -> str:
    return join(schema.pointer, keyword)


class Scorer:
    """Scores values under a schema, given the referential state.

    Parameters
    ----------
    comparators : ComparatorRegistry
    bijections : dict scope -> {id_key(gold id): id_key(candidate id) or None}
    candidate_ids : dict scope -> set of id_key of the candidate's ids
    unresolved : frozenset of str
        Scopes whose references count as matching (while bijections are derived).
    record_pairs : dict records-array schema pointer -> (scope, {gold record pointer:
        candidate record pointer})
        In the main pass, a scope's record arrays are paired by its bijection.
    limits : Limits
    """

    def __init__(self, comparators: ComparatorRegistry, *,
                 bijections: dict[str, dict[Any, Any]] | None = None,
                 candidate_ids: dict[str, set[Any]] | None = None,
                 unresolved: frozenset[str] = frozenset(),
                 record_pairs: dict[str, tuple[str, dict[str, str]]] | None = None,
                 limits: Limits | None = None) -> None:
        self.comparators = comparators
        self.bijections = bijections or {}
        self.candidate_ids = candidate_ids or {}
        self.unresolved = unresolved
        self.record_pairs = record_pairs or {}
        self.limits = limits or Limits()
        self._scores: dict[tuple[int, int, int, str, str],
                           tuple[float, Any, Any, SchemaNode]] = {}
        self._holding: dict[SchemaNode, bool] = {}
        self._key_slots: dict[tuple[Any, ...], list[tuple[str | None, str | None, float]]] = {}

    def holds_paired_records(self, schema: SchemaNode) -> bool:
        """Whether a record array paired by pointer (``record_pairs``) is ``schema`` or
        below it: the score of two values under it then depends on where they are
        (a record array inside another array, or inside an object that is an item of
        one, is met again for every pair of the outer list's matrix)."""
        if not self.record_pairs:
            return False
        found = self._holding.get(schema)
        if found is None:
            found = self._holding[schema] = any(
                node.pointer in self.record_pairs for node in schema.walk())
        return found

    # -- single pairs ------------------------------------------------------------
    def node(self, gold: Any, candidate: Any, schema: SchemaNode, gold_path: str,
             candidate_path: str, label: str = "") -> MatchNode:
        """Align and score one gold value against one candidate value."""
        schema = concrete(schema, gold, candidate)
        node = MatchNode(_node_kind(schema, gold if gold is not None else candidate),
                         Status.MATCHED, label, gold_path, candidate_path, schema.pointer, gold,
                         candidate, schema=schema)
        if schema.id_scope is not None:
            node.scope, node.score = schema.id_scope, 1.0
        elif schema.ref is not None:
            self._score_ref(node, gold, candidate, schema)
        elif gold is None or candidate is None:
            node.kind = NodeKind.NULL
            if gold is None and candidate is None:
                node.score = 1.0
            else:
                node.status, node.score = Status.NULL_MISMATCH, schema.null_score
        elif schema.type == "object":
            if isinstance(gold, dict) and isinstance(candidate, dict):
                self._score_map(node, gold, candidate, schema)
            else:
                node.status = Status.TYPE_MISMATCH
        elif schema.type == "array":
            if isinstance(gold, list) and isinstance(candidate, list):
                self._score_sequence(node, gold, candidate, schema)
            else:
                node.status = Status.TYPE_MISMATCH
        else:
            self._score_leaf(node, gold, candidate, schema)
        return node

    def _score_ref(self, node: MatchNode, gold: Any, candidate: Any,
                   schema: SchemaNode) -> None:
        node.scope = schema.ref
        node.score, node.status, node.expected = self.ref_score(gold, candidate, schema)

    def ref_score(self, gold: Any, candidate: Any,
                  schema: SchemaNode) -> tuple[float, Status, Any]:
        """A reference's score, status, and the candidate id the gold one maps to
        (None when it maps to none or is not looked up)."""
        scope = schema.ref
        assert scope is not None
        if scope in self.unresolved:
            return 1.0, Status.MATCHED, None
        if gold is None or candidate is None:
            if gold is None and candidate is None:
                return 1.0, Status.MATCHED, None
            return schema.null_score, Status.NULL_MISMATCH, None
        bijection = self.bijections.get(scope, {})
        existing = self.candidate_ids.get(scope, set())
        gold_key, cand_key = id_key(gold), id_key(candidate)
        if gold_key is None or gold_key not in bijection:
            # A dangling gold reference agrees only with a dangling candidate one.
            return 0.0 if cand_key in existing else 1.0, Status.MATCHED, None
        expected = bijection[gold_key]
        ok = expected is not None and cand_key == expected and expected in existing
        return 1.0 if ok else 0.0, Status.MATCHED, None if expected is None else expected[1]

    def _score_leaf(self, node: MatchNode, gold: Any, candidate: Any,
                    schema: SchemaNode) -> None:
        gold_kind, cand_kind = value_kind(gold), value_kind(candidate)
        comparator = _comparator_for(self.comparators, schema, gold_kind)
        node.comparator = comparator.name if comparator is not None else schema.comparator
        node.threshold = schema.threshold
        if comparator is None or gold_kind != cand_kind:
            node.status = Status.TYPE_MISMATCH
            return
        try:
            similarity = comparator.scalar(gold, candidate)
        except ComparatorError as exc:
            raise exc.at(_comparator_pointer(schema, "score")) from exc.__cause__
        node.similarity = similarity
        node.score = similarity if similarity >= schema.threshold else 0.0

    def key_slots(self, gold_keys: Sequence[str], candidate_keys: Sequence[str],
                  schema: SchemaNode) -> list[tuple[str | None, str | None, float]]:
        """Pair an object's keys by the key comparator alone (Hungarian).

        Returns slots ``(gold key, candidate key, key similarity)`` in canonical
        order: matched pairs by gold key, then unmatched gold keys, then unmatched
        candidate keys (similarity 0).
        """
        golds, cands = sorted(gold_keys), sorted(candidate_keys)
        cache_key = (tuple(golds), tuple(cands), schema.key_score, schema.key_threshold)
        # built-in key comparators are pure: their slots are kept by the schema's
        # registry for every later comparison (a metric pairs the same key sets again
        # and again); a custom one's only for this scorer
        cache = (self.comparators.memo if schema.key_score in BUILTIN_COMPARATORS
                 else self._key_slots)
        slots = cache.get(cache_key)
        if slots is not None:
            return slots
        try:
            similarity = self.comparators.get(schema.key_score).matrix(golds, cands)
        except ComparatorError as exc:
            raise exc.at(_comparator_pointer(schema, "keyScore")) from exc.__cause__
        similarity[similarity < schema.key_threshold] = 0.0
        pairs = max_weight_matching(similarity)
        matched_g = {i for i, _ in pairs}
        matched_c = {j for _, j in pairs}
        slots = [(golds[i], cands[j], float(similarity[i, j])) for i, j in pairs]
        slots += [(g, None, 0.0) for i, g in enumerate(golds) if i not in matched_g]
        slots += [(None, c, 0.0) for j, c in enumerate(cands) if j not in matched_c]
        if len(cache) >= MEMO_LIMIT:
            cache.clear()  # a bound on memory, not an LRU: misses only cost time
        cache[cache_key] = slots
        return slots

    @staticmethod
    def _slot_schema(schema: SchemaNode, gold_key: str | None,
                     candidate_key: str | None) -> tuple[SchemaNode, float]:
        # A matched pair is scored under the gold key's schema: the repair renames
        # the candidate key to the gold key, so the repaired document is scored the
        # same way (and the gold is the reference).
        key = gold_key if gold_key is not None else candidate_key
        assert key is not None
        return schema.property_schema(key), schema.property_weight(key)

    def _score_map(self, node: MatchNode, gold: dict[str, Any], candidate: dict[str, Any],
                   schema: SchemaNode) -> None:
        slots = self.key_slots(list(gold), list(candidate), schema)
        children: list[MatchNode] = []
        weights: list[float] = []
        for gold_key, cand_key, key_similarity in slots:
            sub, weight = self._slot_schema(schema, gold_key, cand_key)
            if gold_key is not None and cand_key is not None:
                label = gold_key if gold_key == cand_key else f"{gold_key} ~ {cand_key}"
                child = self.node(gold[gold_key], candidate[cand_key], sub,
                                  join(node.gold_path or "", gold_key),
                                  join(node.candidate_path or "", cand_key), label)
            elif gold_key is not None:
                child = self._unmatched(gold[gold_key], sub, Status.MISSING, gold_key,
                                        join(node.gold_path or "", gold_key), None)
            else:
                assert cand_key is not None
                child = self._unmatched(candidate[cand_key], sub, Status.EXCESS, cand_key,
                                        None, join(node.candidate_path or "", cand_key))
            child.gold_key, child.candidate_key = gold_key, cand_key
            child.key_score = key_similarity
            children.append(child)
            weights.append(weight)
        d = key_denominator(len(gold), len(candidate))
        node.score = float(map_score([c.key_score for c in children],
                                     [c.score for c in children], weights,
                                     schema.key_importance, schema.value_importance, d))
        weights = power_of_two_scale(weights)
        total_weight = math.fsum(weights)
        key_importance, value_importance = power_of_two_scale(
            [schema.key_importance, schema.value_importance])
        importance = key_importance + value_importance
        # The key term's deficit: (1 - K) / d per matched pair, and what the d - k
        # matched pairs cannot reach shared by the u unmatched keys (u >= d - k).
        matched = sum(c.gold_key is not None and c.candidate_key is not None for c in children)
        unmatched = len(children) - matched
        for child, weight in zip(children, weights, strict=True):
            value_share = weight / total_weight if total_weight > 0 else 0.0
            child.weight = value_importance / importance * value_share
            key_share = (1.0 / d if child.gold_key is not None and child.candidate_key is not None
                         else (d - matched) / (d * unmatched))
            child.key_weight = key_importance / importance * key_share
        node.children = children

    def _unmatched(self, value: Any, schema: SchemaNode, status: Status, label: str,
                   gold_path: str | None, candidate_path: str | None) -> MatchNode:
        schema = concrete(schema, value, value)
        return MatchNode(_node_kind(schema, value), status, label, gold_path, candidate_path,
                         schema.pointer, value if gold_path is not None else None,
                         value if candidate_path is not None else None, score=0.0,
                         schema=schema)

    def _score_sequence(self, node: MatchNode, gold: list[Any], candidate: list[Any],
                        schema: SchemaNode) -> None:
        node.order = schema.order
        if not gold and not candidate:
            node.score = 1.0
            return
        arity = len(schema.prefix_items)
        has_tail = arity > 0 and schema.items is not None
        if arity == 0:
            node.score = self._score_tail(node, gold, candidate, schema, 0, 1.0)
            return
        positions = arity if has_tail else max(len(gold), len(candidate))
        prefix: list[tuple[MatchNode, float]] = []
        for k in range(positions):
            if k >= len(gold) and k >= len(candidate):
                continue
            sub = schema.item_schema(k)
            weight = schema.prefix_weights[k] if k < arity else 1.0
            gold_path, cand_path = join(node.gold_path or "", k), join(
                node.candidate_path or "", k)
            if k < len(gold) and k < len(candidate):
                child = self.node(gold[k], candidate[k], sub, gold_path, cand_path, str(k))
            elif k < len(gold):
                child = self._unmatched(gold[k], sub, Status.MISSING, str(k), gold_path, None)
                child.score = sub.null_score
            else:
                child = self._unmatched(candidate[k], sub, Status.EXCESS, str(k), None,
                                        cand_path)
                child.score = sub.null_score
            prefix.append((child, weight))
        scaled = power_of_two_scale([w for _, w in prefix])
        prefix = [(c, w) for (c, _), w in zip(prefix, scaled, strict=True)]
        total = math.fsum(w for _, w in prefix)
        s_pre = math.fsum(w * c.score for c, w in prefix) / total if total > 0 else 1.0
        prefix_importance, rest_importance = power_of_two_scale(
            [schema.prefix_importance, schema.rest_importance])
        share = (prefix_importance / (prefix_importance + rest_importance)
                 if has_tail else 1.0)
        for child, weight in prefix:
            child.weight = share * (weight / total if total > 0 else 0.0)
        node.children = [c for c, _ in prefix]
        if not has_tail:
            node.score = s_pre
            return
        s_rest = self._score_tail(node, gold[arity:], candidate[arity:], schema, arity,
                                  1.0 - share)
        node.score = (prefix_importance * s_pre + rest_importance * s_rest) / (
            prefix_importance + rest_importance)

    def _tail_pairs(self, node: MatchNode, gold: list[Any], candidate: list[Any],
                    schema: SchemaNode, item: SchemaNode, offset: int) -> list[tuple[int, int]]:
        paired = self.record_pairs.get(schema.pointer) if schema.items is not None else None
        if paired is not None:
            scope, pairs_by_pointer = paired
            node.order, node.scope = "scope", scope
            cand_index = {join(node.candidate_path or "", offset + j): j
                          for j in range(len(candidate))}
            pairs = []
            for i in range(len(gold)):
                target = pairs_by_pointer.get(join(node.gold_path or "", offset + i))
                if target is not None and target in cand_index:
                    pairs.append((i, cand_index[target]))
            # items that are not records (an untyped record schema admits them) are
            # aligned among themselves, unordered like the records of a scope
            rest_g = [i for i, g in enumerate(gold) if not isinstance(g, dict)]
            rest_c = [j for j, p in enumerate(candidate) if not isinstance(p, dict)]
            if rest_g and rest_c:
                extra, _ = self._solve(node, [gold[i] for i in rest_g],
                                       [candidate[j] for j in rest_c], schema, item,
                                       ordered=False)
                pairs += [(rest_g[a], rest_c[b]) for a, b in extra]
            return sorted(pairs)
        # A scope's records not paired yet (a scope still being resolved) are
        # unordered like the records of any scope.
        records = any(p.id_scope is not None for p in item.properties.values())
        paths = None
        if self.holds_paired_records(item):
            paths = ([join(node.gold_path or "", offset + i) for i in range(len(gold))],
                     [join(node.candidate_path or "", offset + j)
                      for j in range(len(candidate))])
        pairs, node.matrix = self._solve(node, gold, candidate, schema, item,
                                         ordered=False if records else None, paths=paths)
        return pairs

    def _solve(self, node: MatchNode, gold: list[Any], candidate: list[Any],
               schema: SchemaNode, item: SchemaNode, *, ordered: bool | None = None,
               paths: Paths = None) -> tuple[list[tuple[int, int]], np.ndarray | None]:
        """Pair the elements of two lists by their scores (``ordered``: the schema's
        order when None; ``paths``: the elements' pointers, see :meth:`matrix`); the
        pairs and the score matrix (None when a long list was aligned from its
        positive pairs only: see :mod:`oa_core.sparse`, or block by block and is
        long: see :mod:`oa_core.blocking`)."""
        in_order = (schema.order == "fixed") if ordered is None else ordered
        if in_order or not schema.block_by:
            return self._solve_whole(node, gold, candidate, item, in_order=in_order,
                                     paths=paths)
        pairs: list[tuple[int, int]] = []
        whole = (np.zeros((len(gold), len(candidate)))
                 if len(gold) * len(candidate) <= SPARSE_FROM_CELLS else None)
        for block in blocks(gold, candidate, schema.block_by):
            if not (block.gold and block.candidate):
                continue
            found, matrix = self._solve_whole(
                node, [gold[i] for i in block.gold], [candidate[j] for j in block.candidate],
                item, in_order=False, paths=None if paths is None else (
                    [paths[0][i] for i in block.gold], [paths[1][j] for j in block.candidate]))
            pairs += [(block.gold[a], block.candidate[b]) for a, b in found]
            if whole is not None and matrix is not None:
                whole[np.ix_(block.gold, block.candidate)] = matrix
            elif matrix is None:
                whole = None
        return sorted(pairs), whole

    def _solve_whole(self, node: MatchNode, gold: list[Any], candidate: list[Any],
                     item: SchemaNode, *, in_order: bool, paths: Paths = None
                     ) -> tuple[list[tuple[int, int]], np.ndarray | None]:
        """:meth:`_solve` of one list, or of one block of it."""
        cells = len(gold) * len(candidate)
        if not in_order and cells > SPARSE_FROM_CELLS:
            pairs = self._solve_sparse(node, gold, candidate, item)
            if pairs is not None:
                return pairs, None
        if cells > self.limits.max_matrix_cells:
            raise InputError(node.candidate_path or "", f"comparing {len(gold)} gold with "
                             f"{len(candidate)} candidate elements needs {cells:,} scores, over "
                             f"the limit of {self.limits.max_matrix_cells:,}",
                             fix="raise Limits.max_matrix_cells if the memory is there "
                             "(8 bytes a score), or split the list")
        similarity = self.matrix(gold, candidate, item, paths)
        if in_order:
            return monotone_matching(similarity), similarity
        gold_order = sorted(range(len(gold)), key=lambda i: canonical_json(gold[i]))
        cand_order = sorted(range(len(candidate)), key=lambda j: canonical_json(candidate[j]))
        permuted = similarity[np.ix_(gold_order, cand_order)]
        return sorted((gold_order[i], cand_order[j])
                      for i, j in max_weight_matching(permuted)), similarity

    def _solve_sparse(self, node: MatchNode, gold: list[Any], candidate: list[Any],
                      item: SchemaNode) -> list[tuple[int, int]] | None:
        """:meth:`_solve` of an unordered list from its positive pairs, when they can
        be found without scoring every pair (None otherwise). The same optimum
        (total and number of pairs, hence the same score); the canonical order of
        the elements is kept, so permuting a list changes nothing."""
        from .sparse import max_weight_matching_sparse, positive_scores

        found = positive_scores(self, gold, candidate, item)
        if found is None:
            return None
        rows, cols, values = found
        if values.size > self.limits.max_matrix_cells:
            raise InputError(node.candidate_path or "", f"comparing {len(gold)} gold with "
                             f"{len(candidate)} candidate elements needs {values.size:,} "
                             f"positive scores, over the limit of "
                             f"{self.limits.max_matrix_cells:,}", fix="raise "
                             "Limits.max_matrix_cells if the memory is there, or split "
                             "the list")
        gold_order = sorted(range(len(gold)), key=lambda i: canonical_json(gold[i]))
        cand_order = sorted(range(len(candidate)), key=lambda j: canonical_json(candidate[j]))
        gold_rank = np.empty(len(gold), dtype=np.int64)
        gold_rank[gold_order] = np.arange(len(gold))
        cand_rank = np.empty(len(candidate), dtype=np.int64)
        cand_rank[cand_order] = np.arange(len(candidate))
        pairs = max_weight_matching_sparse(gold_rank[rows], cand_rank[cols], values,
                                           (len(gold), len(candidate)))
        return sorted((gold_order[i], cand_order[j]) for i, j in pairs)

    def _score_tail(self, node: MatchNode, gold: list[Any], candidate: list[Any],
                    schema: SchemaNode, offset: int, share: float) -> float:
        item = schema.items if schema.items is not None else ANY
        pairs = self._tail_pairs(node, gold, candidate, schema, item, offset)
        matched: dict[int, MatchNode] = {}
        used_c: set[int] = set()
        for i, j in pairs:
            child = self.node(gold[i], candidate[j], item,
                              join(node.gold_path or "", offset + i),
                              join(node.candidate_path or "", offset + j), str(offset + i))
            if child.score > 0:
                matched[i] = child
                used_c.add(j)
        node.pairs = [(offset + i, offset + j) for i, j in pairs if i in matched]
        missing = {i: self._unmatched(gold[i], item, Status.MISSING, str(offset + i),
                                      join(node.gold_path or "", offset + i), None)
                   for i in range(len(gold)) if i not in matched}
        excess = [self._unmatched(candidate[j], item, Status.EXCESS, str(offset + j), None,
                                  join(node.candidate_path or "", offset + j))
                  for j in range(len(candidate)) if j not in used_c]
        slots = len(matched) + (0 if schema.ignore_missing else len(missing)) + (
            0 if schema.ignore_excess else len(excess))
        score = math.fsum(c.score for c in matched.values()) / slots if slots else 1.0
        for child in matched.values():
            child.weight = share / slots
        for child in missing.values():
            child.weight = 0.0 if schema.ignore_missing else share / slots
        for child in excess:
            child.weight = 0.0 if schema.ignore_excess else share / slots
        by_gold = {**matched, **missing}
        node.children.extend([by_gold[i] for i in sorted(by_gold)] + excess)
        return score

    # -- whole collections ---------------------------------------------------------
    def matrix(self, golds: Sequence[Any], candidates: Sequence[Any],
               schema: SchemaNode, paths: Paths = None) -> np.ndarray:
        """Scores of every gold-candidate pair, equal bit for bit to :meth:`node`.

        ``paths`` are the values' JSON Pointers (gold's, candidate's): a scope's record
        array below ``schema`` is paired by them (``record_pairs``), so without them
        such values would be scored as if at the root. Ignored elsewhere.
        """
        n, m = len(golds), len(candidates)
        if paths is not None and not self.holds_paired_records(schema):
            paths = None
        if n == 0 or m == 0 or schema.id_scope is not None or (
                schema.ref is not None and schema.ref in self.unresolved):
            return np.full((n, m), 1.0 if schema.id_scope or schema.ref else 0.0)
        rows = [i for i, g in enumerate(golds) if g is not None]
        cols = [j for j, p in enumerate(candidates) if p is not None]
        block = self._present_matrix([golds[i] for i in rows], [candidates[j] for j in cols],
                                     schema, None if paths is None else (
                                         [paths[0][i] for i in rows],
                                         [paths[1][j] for j in cols]))
        if len(rows) == n and len(cols) == m:
            return block  # no nulls: spare a copy of a possibly large matrix
        out = np.full((n, m), schema.null_score)
        gold_null = np.ones(n, dtype=bool)
        gold_null[rows] = False
        cand_null = np.ones(m, dtype=bool)
        cand_null[cols] = False
        out[np.ix_(gold_null, cand_null)] = 1.0
        out[np.ix_(rows, cols)] = block
        return out

    def _present_matrix(self, golds: list[Any], candidates: list[Any],
                        schema: SchemaNode, paths: Paths) -> np.ndarray:
        if not golds or not candidates:
            return np.zeros((len(golds), len(candidates)))
        if schema.ref is not None:
            return self._ref_matrix(golds, candidates, schema.ref)
        if schema.inferred and not all(isinstance(v, dict if schema.type == "object" else list)
                                       for v in (*golds, *candidates)):
            return self._pairwise_matrix(golds, candidates, schema, paths)
        if schema.type == "object" or (schema.type == "any" and all(
                isinstance(v, dict) for v in (*golds, *candidates))):
            return self._object_matrix(golds, candidates,
                                       schema if schema.type == "object"
                                       else concrete(schema, golds[0], candidates[0]), paths)
        if schema.is_primitive or (schema.type == "any" and all(
                value_kind(v) in _PRIMITIVE_KINDS for v in (*golds, *candidates))):
            return self._leaf_matrix(golds, candidates, schema)
        return self._pairwise_matrix(golds, candidates, schema, paths)

    def _pairwise_matrix(self, golds: Sequence[Any], candidates: Sequence[Any],
                         schema: SchemaNode, paths: Paths) -> np.ndarray:
        gold_paths, cand_paths = paths if paths is not None else (
            [""] * len(golds), [""] * len(candidates))
        return np.array([[self._pair_score(g, p, schema, gp, cp)
                          for p, cp in zip(candidates, cand_paths, strict=True)]
                         for g, gp in zip(golds, gold_paths, strict=True)],
                        dtype=np.float64).reshape(len(golds), len(candidates))

    def _pair_score(self, gold: Any, candidate: Any, schema: SchemaNode, gold_path: str,
                    candidate_path: str) -> float:
        """The score of one pair, remembered for this scorer's lifetime.

        Nested lists are scored once for the cost matrix of their parent and again
        when the match tree is built; without the memo each level of nesting doubles
        the work. The key is the identity of the two values and of the schema node:
        the documents are not changed while a scorer lives, and the memo keeps the
        values alive, so an identity is never reused for another value. The pointers
        are part of it: they are "" unless a record array paired by pointer is below
        (see :meth:`matrix`), and then the score depends on them.
        """
        key = (id(gold), id(candidate), id(schema), gold_path, candidate_path)
        found = self._scores.get(key)
        if found is None:
            found = (self.node(gold, candidate, schema, gold_path, candidate_path).score, gold,
                     candidate, schema)
            self._scores[key] = found
        return found[0]

    def _ref_matrix(self, golds: Sequence[Any], candidates: Sequence[Any],
                    scope: str) -> np.ndarray:
        bijection = self.bijections.get(scope, {})
        existing = self.candidate_ids.get(scope, set())
        dangling, unmatched = -3, -1
        table: dict[Any, int] = {}
        expected = np.empty(len(golds), dtype=np.int64)
        for i, g in enumerate(golds):
            key = id_key(g)
            if key is None or key not in bijection:
                expected[i] = dangling
            else:
                target = bijection[key]
                expected[i] = (table.setdefault(target, len(table))
                               if target is not None and target in existing else unmatched)
        actual = np.fromiter(
            (table.setdefault(k, len(table)) if (k := id_key(p)) in existing else dangling
             for p in candidates), dtype=np.int64, count=len(candidates))
        out = np.empty((expected.size, actual.size), dtype=np.float64)
        np.equal(expected[:, None], actual[None, :], out=out)  # no boolean matrix first
        return out

    def _leaf_matrix(self, golds: Sequence[Any], candidates: Sequence[Any],
                     schema: SchemaNode) -> np.ndarray:
        n, m = len(golds), len(candidates)
        out: np.ndarray | None = None
        gold_kinds = [value_kind(g) for g in golds]
        cand_kinds = [value_kind(p) for p in candidates]
        kinds: Iterable[str] = _PRIMITIVE_KINDS
        present = set(gold_kinds)
        if len(present) == 1 and present == set(cand_kinds):
            # one kind on both sides: the loop below would find its block only (every
            # other kind has no row; its comparator is looked up with the same name)
            kinds = present & _PRIMITIVE_KINDS
        for kind in sorted(kinds):
            comparator = _comparator_for(self.comparators, schema, kind)
            if comparator is None:
                continue
            rows = [i for i, k in enumerate(gold_kinds) if k == kind]
            cols = [j for j, k in enumerate(cand_kinds) if k == kind]
            if not rows or not cols:
                continue
            try:
                block = comparator.matrix([golds[i] for i in rows],
                                          [candidates[j] for j in cols])
            except ComparatorError as exc:
                raise exc.at(_comparator_pointer(schema, "score")) from exc.__cause__
            if schema.threshold > 0.0:  # similarities are >= 0: nothing is below 0
                block[block < schema.threshold] = 0.0
            if len(rows) == n and len(cols) == m:
                return block  # one kind on both sides: the block is the matrix, uncopied
            if out is None:
                out = np.zeros((n, m), dtype=np.float64)
            out[np.ix_(rows, cols)] = block
        return out if out is not None else np.zeros((n, m), dtype=np.float64)

    def _object_matrix(self, golds: Sequence[Any], candidates: Sequence[Any],
                       schema: SchemaNode, paths: Paths) -> np.ndarray:
        shape = (len(golds), len(candidates))
        # made when a second key set shows up: with one key set on each side the
        # block is the matrix, and a zero matrix beside it would double the memory
        out: np.ndarray | None = None
        gold_groups = _group_by_keys(golds)
        cand_groups = _group_by_keys(candidates)
        for gold_keys, rows in gold_groups.items():
            for cand_keys, cols in cand_groups.items():
                key_slots = self.key_slots(gold_keys, cand_keys, schema)
                slots = [(gold_key, cand_key, *self._slot_schema(schema, gold_key, cand_key))
                         for gold_key, cand_key, _ in key_slots]
                key_scores = [similarity for *_, similarity in key_slots]
                value_scores = (  # lazily: one slot matrix alive at a time
                    self.matrix([golds[i][gold_key] for i in rows],
                                [candidates[j][cand_key] for j in cols], sub,
                                None if paths is None or not self.holds_paired_records(sub)
                                else ([join(paths[0][i], gold_key) for i in rows],
                                      [join(paths[1][j], cand_key) for j in cols]))
                    if gold_key is not None and cand_key is not None else 0.0
                    for gold_key, cand_key, sub, _ in slots)
                block = _map_matrix(key_scores, value_scores, [w for *_, w in slots],
                                    schema.key_importance, schema.value_importance,
                                    key_denominator(len(gold_keys), len(cand_keys)),
                                    (len(rows), len(cols)))
                if (len(rows) == len(golds) and len(cols) == len(candidates)
                        and isinstance(block, np.ndarray) and block.shape == shape):
                    return block  # one key set on each side: the block is the matrix
                if out is None:
                    out = np.zeros(shape, dtype=np.float64)
                out[np.ix_(rows, cols)] = block
        return out if out is not None else np.zeros(shape, dtype=np.float64)


def _owned(value: Any, shape: tuple[int, int]) -> bool:
    """Whether ``value`` is a float64 matrix of ``shape`` that may be overwritten."""
    return (isinstance(value, np.ndarray) and value.dtype == np.float64
            and value.shape == shape and value.flags.writeable)


def _map_matrix(key_scores: Sequence[float], value_scores: Iterable[Any],
                weights: Sequence[float], key_importance: float, value_importance: float,
                key_slots: int, shape: tuple[int, int]) -> Any:
    """:func:`map_score` of float key scores and slot matrices, in place.

    The slot matrices are :meth:`Scorer.matrix` results, made for this sum and used
    once, so each is weighted in its own buffer and added into the first one; the
    result is that buffer. The operations are map_score's, operand for operand
    (``w * v``, ``0.0 + t``, ``total + t``, ``/ total_weight``, ``vi * s_val``,
    ``ki * s_key + ...``, ``/ (ki + vi)``; IEEE addition and multiplication are
    commutative), so the bits are the same, but at most two matrices are alive
    instead of five: for a 10,000-record scope, 1.6 GB instead of 4.

    Parameters
    ----------
    key_scores : sequence of float
    value_scores : iterable of float or ndarray
        Consumed lazily; an array of ``shape`` and dtype float64 is overwritten (any
        other value is combined as map_score would).
    weights, key_importance, value_importance, key_slots
        As for :func:`map_score`.
    shape : (int, int)
        The shape of the block being scored.
    """
    scaled = power_of_two_scale(weights)
    if not _accumulate(scaled) > 0 or any(isinstance(k, np.ndarray) for k in key_scores):
        # no slot matrix is made (no weight) or the key term is a matrix: as written
        return map_score(key_scores, value_scores, weights, key_importance,
                         value_importance, key_slots)
    k_imp, v_imp = power_of_two_scale([key_importance, value_importance])
    s_key = _accumulate(key_scores) / key_slots
    total_weight = _accumulate(scaled)
    total: Any = 0.0
    for weight, value in zip(scaled, value_scores, strict=True):
        # weight * value, in the slot matrix's own buffer when it has one
        term = (np.multiply(value, weight, out=value) if _owned(value, shape)
                else weight * value)
        if isinstance(total, np.ndarray):
            total += term
        elif isinstance(term, np.ndarray) and term is value:
            total = np.add(term, total, out=term)  # total + term: total is a float here
        else:
            total = total + term
        del value, term  # the slot's matrix is free before the next one is made
    if not isinstance(total, np.ndarray) or not _owned(total, shape):
        s_val = total / total_weight
        return (k_imp * s_key + v_imp * s_val) / (k_imp + v_imp)
    total /= total_weight  # s_val
    total *= v_imp
    np.add(total, k_imp * s_key, out=total)
    total /= k_imp + v_imp
    return total


def _group_by_keys(values: Sequence[Any]) -> dict[tuple[str, ...], list[int]]:
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, value in enumerate(values):
        if isinstance(value, dict):
            groups.setdefault(tuple(sorted(value)), []).append(index)
    return groups
