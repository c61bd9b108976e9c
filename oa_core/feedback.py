"""Deterministic, ranked optimizer feedback: repair operations and their text.

Every imperfect leaf and every structural mismatch of the match tree becomes a
:class:`RepairOp` whose ``delta`` is the score it recovers: its effective weight
times ``1 - score`` (paper, section "Optimizer feedback"). Over the whole tree the
deltas add up to ``1 - score``.

Operation kinds (:class:`~oa_core.kinds.OpKind`): ``primitive-value``,
``missing-key``, ``extraneous-key``, ``key-rename``, ``missing-list-item``,
``extraneous-list-item``, ``move-list-item`` (``wl_mode="none"`` only, delta 0: the
ablation pairs look-alike records by their positions, so the items of an
order-agnostic list that holds a scope's records are put in the gold's order, and
its missing items inserted at their gold places; without it the other repairs,
which assume the pairing found, could make records twins that the positions then
pair otherwise), ``wrong-reference``, ``unresolved-reference``,
``type-mismatch``, ``null-value``, ``subtree`` (a matched object or list below the
root that scores 0 is replaced whole rather than edited piece by piece),
``id-value`` (a paired record whose id no reference can reach: null, not a string
or number, or repeated; its delta is 0, the references that need it carry the
loss) and, in strict mode, ``schema-violation`` (one per violation; together they
recover the score the violations zeroed, in equal shares).

Paths are RFC 6901 pointers into the document they name: the gold for missing and
replaced values, the candidate for extraneous ones; a missing element of an
``align`` list is reported at the list. Each op carries a JSON Patch valid on the
original candidate by itself; :func:`apply_ops` applies any set of ops at once.

Examples
--------
>>> import json
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> fb = feedback(load("gold"), load("candidate"), load("schema"))
>>> print(fb.text.splitlines()[0])
The prediction scored 0.77 (deficit 0.23). Top 5 of 5 fix locations:
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
import string
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .aligner import Alignment, _repair_inputs, _RepairInputs
from .comparators import id_key, is_number, value_kind
from .errors import InputError, preview_json
from .kinds import NodeKind, OpKind, Status, WLMode
from .matchtree import deficit as node_deficit
from .nodetable import MatchRows, child_values, tree_rows
from .pointer import join, resolve, split
from .schema import ANY, Schema, SchemaNode, concrete

__all__ = ["DEFAULT_TEMPLATES", "OP_KINDS", "Feedback", "RepairOp", "apply_ops", "feedback",
           "load_templates", "render_feedback", "repair_ops"]

OP_KINDS = tuple(kind.value for kind in OpKind)
_STRUCTURAL = frozenset({OpKind.MISSING_KEY, OpKind.EXTRANEOUS_KEY, OpKind.KEY_RENAME,
                         OpKind.MISSING_LIST_ITEM, OpKind.EXTRANEOUS_LIST_ITEM,
                         OpKind.MOVE_LIST_ITEM})

DEFAULT_TEMPLATES: Mapping[str, str] = MappingProxyType({
    "header": "The prediction scored {score:.2f} (deficit {deficit:.2f}). "
              "Top {shown} of {total} fix locations:",
    "perfect": "The prediction scored {score:.2f}: it matches the gold; nothing to fix.",
    "primitive-value": "{path}: expected {gold}, got {candidate}. Fixing this recovers "
                       "+{delta:.3f}.",
    "missing-key": "{path}: missing key {key} (expected {gold}). Adding it recovers "
                   "+{delta:.3f}.",
    "extraneous-key": "{path}: unexpected key {key} with {candidate}. Removing it recovers "
                      "+{delta:.3f}.",
    "key-rename": "{path}: key {candidate_key} should be named {gold_key}. Renaming it "
                  "recovers +{delta:.3f}.",
    "missing-list-item": "{path}: missing list item {gold}. Adding it recovers +{delta:.3f}.",
    "missing-list-item.unordered": "{path}: list is missing item {gold}. Adding it recovers "
                                   "+{delta:.3f}.",
    "extraneous-list-item": "{path}: extraneous list item {candidate}. Removing it recovers "
                            "+{delta:.3f}.",
    "move-list-item": "{path}: list item {candidate} belongs at position {gold_index}, as in "
                      "the gold (with WL off records are paired by position).",
    "wrong-reference": "{path}: reference {candidate} points to the wrong {scope} record; "
                       "expected {target}. Fixing this recovers +{delta:.3f}.",
    "unresolved-reference": "{path}: reference {candidate} points to no {scope} record; "
                            "expected {target}. Fixing this recovers +{delta:.3f}.",
    "type-mismatch": "{path}: expected {gold_type} {gold}, got {candidate_type} {candidate}. "
                     "Replacing it recovers +{delta:.3f}.",
    "null-value": "{path}: expected {gold}, got {candidate}. Fixing this recovers "
                  "+{delta:.3f}.",
    "subtree": "{path}: the whole value is wrong; expected {gold}. Replacing it recovers "
               "+{delta:.3f}.",
    "id-value": "{path}: the id {candidate} cannot be referenced; set it to {target}.",
    "schema-violation": "{path}: {message} In strict mode any schema violation scores 0; "
                        "fixing the violations recovers +{delta:.3f}.",
    "focus": "Focus on {kind} errors — they account for {pct:.0f}% of the deficit shown.",
    "spread": "The deficit is spread across multiple issue types ({kinds}).",
})

# the kinds and statuses as plain strings (a node table's columns hold them so; a
# member of their StrEnum equals its string): compared at every row of every tree
_MAP, _SEQUENCE, _LEAF, _ID, _REF = (NodeKind.MAP.value, NodeKind.SEQUENCE.value,
                                     NodeKind.LEAF.value, NodeKind.ID.value, NodeKind.REF.value)
_CONTAINERS = (_MAP, _SEQUENCE)
_PRIMITIVES = (_LEAF, NodeKind.NULL.value, _ID)
_MATCHED, _TYPE_MISMATCH, _NULL_MISMATCH = (Status.MATCHED.value, Status.TYPE_MISMATCH.value,
                                            Status.NULL_MISMATCH.value)
_ABSENT = (Status.MISSING.value, Status.EXCESS.value)
# what the repairs read: an alignment, or feedback()'s inputs made without the rest
_Aligned = Alignment | _RepairInputs
_MAX_SHOWN_VALUE = 160


@dataclass(slots=True)
class RepairOp:
    """One edit that brings the candidate closer to the gold.

    Attributes
    ----------
    kind : OpKind
        One of :data:`OP_KINDS` (a ``str``).
    path : str
        Where to report it (see the module notes).
    gold_path, candidate_path : str or None
        Pointers into gold and candidate (None when absent there).
    gold, candidate : any
        The values on each side (None when absent).
    delta : float
        Score recovered by this op alone.
    value : any
        What the op writes into the candidate (gold ids translated to the
        candidate's ids); None for removals.
    patch : list of dict
        JSON Patch (RFC 6902) doing this op on the original candidate.
    message : str
        The rendered line (without its number).
    """

    kind: OpKind
    path: str
    gold_path: str | None
    candidate_path: str | None
    gold: Any
    candidate: Any
    delta: float
    value: Any = None
    patch: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # where apply_ops edits: the candidate container and, for insertions, the
    # original candidate index to insert after (-1: at the front; None: at the end)
    container: str | None = None
    anchor: int | None = None
    rank_key: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The public fields, for JSON output. The values are the op's own (not copied:
        a deep copy of every gold and candidate value cost more than rendering the op)."""
        # written out: a third of the time of a loop over the names (oa batch writes
        # every shown op); the test suite holds them to the dataclass's public fields
        return {"kind": self.kind, "path": self.path, "gold_path": self.gold_path,
                "candidate_path": self.candidate_path, "gold": self.gold,
                "candidate": self.candidate, "delta": self.delta, "value": self.value,
                "patch": self.patch, "message": self.message}


@dataclass(slots=True)
class Feedback:
    """Rendered feedback: the score, every op ranked, the ones shown, the text."""

    score: float
    deficit: float
    ops: list[RepairOp]
    shown: list[RepairOp]
    text: str
    synthesis: str

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "deficit": self.deficit, "text": self.text,
                "synthesis": self.synthesis, "shown": [op.to_dict() for op in self.shown],
                "ops": [op.to_dict() for op in self.ops]}

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from .notebook.feedback import feedback_html

        return feedback_html(self)


VALUE_STYLES = ("python", "json")


def _show(value: Any, values: str = "python") -> str:
    """A value as the feedback text shows it: Python literals (the paper's figure) or
    JSON, cut to a readable length (:func:`~oa_core.errors.preview_json`)."""
    return preview_json(value, _MAX_SHOWN_VALUE, python=values == "python")


def _show_key(key: str) -> str:
    return preview_json(key, _MAX_SHOWN_VALUE, python=True)


class _Translator:
    """Writes gold values in the candidate's identifier space.

    A gold record with no candidate counterpart keeps its id when the candidate
    does not use it, else gets a fresh one; references are mapped through the
    bijections extended by these new ids. A gold reference that dangles (no gold
    record has its id) is written as a value that dangles in the repaired candidate
    too: its own value unless a record will have that id, else a fresh one.
    """

    def __init__(self, alignment: _Aligned) -> None:
        self.schema = alignment.schema
        self.mapping: dict[str, dict[Any, Any]] = {}
        self.taken: dict[str, set[tuple[str, Any]]] = {}
        self.dangling: dict[str, dict[Any, Any]] = {}
        for scope, bijection in alignment.bijections.items():
            candidate_ids = alignment.scopes[scope].candidate_ids
            taken = {key for c in candidate_ids if (key := id_key(c)) is not None}
            # past every number in use: made only when a fresh one is needed (rarely)
            next_number: int | None = None
            # keyed by the gold ids themselves, not their id keys: a bijection's ids
            # identify (strings and numbers), and two such ids are equal exactly when
            # their keys are
            extended: dict[Any, Any] = dict(bijection)
            for gold_id, cand_id in bijection.items():
                if cand_id is not None:
                    continue
                fresh: Any = gold_id
                while id_key(fresh) in taken:
                    if value_kind(gold_id) == "number":
                        if next_number is None:
                            next_number = _past_numbers(candidate_ids, bijection)
                        fresh, next_number = next_number, next_number + 1
                    else:
                        fresh = f"{fresh}_new"
                fresh_key = id_key(fresh)
                assert fresh_key is not None  # a gold id, or one made after it
                taken.add(fresh_key)
                extended[gold_id] = fresh
            self.mapping[scope] = extended
            self.taken[scope] = taken
            self.dangling[scope] = {}

    def target(self, scope: str, gold_id: Any) -> Any:
        key = id_key(gold_id)
        if key is None:
            return gold_id
        mapped = self.mapping.get(scope, {})
        if gold_id in mapped:
            return mapped[gold_id]
        return self.dangling_value(scope, gold_id)

    def dangling_value(self, scope: str, gold_id: Any) -> Any:
        """A value no record of the repaired candidate has (for a dangling gold ref)."""
        taken = self.taken.get(scope)
        key = id_key(gold_id)
        if taken is None or key is None or key not in taken:
            return gold_id
        chosen: Any = self.dangling[scope].get(key)
        if chosen is None:
            chosen = gold_id
            while id_key(chosen) in taken or chosen in self.dangling[scope].values():
                chosen = (chosen + 1) if is_number(chosen) else f"{chosen}_dangling"
            self.dangling[scope][key] = chosen
        return chosen

    def resolves(self, scope: str, value: Any) -> bool:
        """Whether ``value`` will name a record of the repaired candidate."""
        key = id_key(value)
        return key is not None and key in self.taken.get(scope, set())

    def translate(self, value: Any, node: SchemaNode) -> Any:
        node = concrete(node, value, value)
        if value is None:
            return None
        if node.id_scope is not None:
            return self.target(node.id_scope, value)
        if node.ref is not None:
            return self.target(node.ref, value)
        if isinstance(value, dict):
            return {k: self.translate(v, node.property_schema(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.translate(v, node.item_schema(i)) for i, v in enumerate(value)]
        return value


def _past_numbers(candidate_ids: Sequence[Any], bijection: Mapping[Any, Any]) -> int:
    """The first integer past every number among a scope's candidate ids and the gold
    ids of its bijection: where fresh numeric ids start."""
    numbers = [c for c in candidate_ids if is_number(c)]
    numbers += [g for g in bijection if is_number(g)]
    return math.floor(max(numbers, default=0)) + 1


def _describe_target(alignment: _Aligned, scope: str, gold_id: Any, values: str) -> str:
    """The gold record a reference should reach, by its properties."""
    decl = alignment.schema.scopes[scope]
    wanted = id_key(gold_id)
    for pointer, record_id in zip(alignment.scopes[scope].gold_paths,
                                  alignment.scopes[scope].gold_ids, strict=True):
        if wanted is not None and id_key(record_id) == wanted:
            record = resolve(alignment.gold, pointer)
            props = ", ".join(f"{k} {_show(v, values)}" for k, v in record.items()
                              if k != decl.id_field and not isinstance(v, dict | list))
            return f"the {scope} with {props}" if props else f"the {scope} record {pointer}"
    return f"{scope} {_show(gold_id, values)}"


class _Collector:
    """The repair operations of a match tree's rows (:class:`~oa_core.nodetable.MatchRows`),
    made in one pass over the rows in preorder: the order of a walk down the tree."""

    def __init__(self, alignment: _Aligned, rows: MatchRows, describe_refs: bool,
                 values: str) -> None:
        self.alignment = alignment
        self.rows = rows
        self.describe_refs = describe_refs
        self.values = values
        self.translator = _Translator(alignment)
        self.ops: list[RepairOp] = []
        self.order = 0
        # wl_mode="none" pairs look-alike records by position: the repairs keep the
        # gold's order where records are (a perfect candidate needs nothing)
        self.by_position = (alignment.options.wl_mode == WLMode.NONE
                            and rows.score[0] < 1.0)
        self.holding: dict[str, bool] = {}
        # per reordered list (candidate pointer): gold index -> the original candidate
        # index its item follows (-1: the front)
        self.anchors: dict[str, dict[int, int]] = {}
        self.children: list[list[int]] | None = None  # per row, made when a reorder asks

    def schema_of(self, row: int) -> SchemaNode:
        schema = self.rows.schema[row]
        return schema if schema is not None else ANY

    def deficit(self, row: int) -> float:
        """What the row costs the root score (:attr:`MatchNode.deficit`)."""
        rows = self.rows
        return node_deficit(rows.effective_weight[row], rows.score[row],
                            rows.key_effective_weight[row], rows.key_score[row])

    def reach(self, row: int, parent: int) -> None:
        """Derive a node table row's values and effective weights from its parent's, as
        :func:`~oa_core.nodetable.match_tree` does (a tree's rows hold their own)."""
        rows = self.rows
        if rows.steps is None:
            return
        gold_index, candidate_index, weight, key_weight = rows.steps
        rows.gold[row], rows.candidate[row] = child_values(
            rows.gold[parent], rows.candidate[parent], rows.gold_key[row], gold_index[row],
            rows.candidate_key[row], candidate_index[row])
        above = rows.effective_weight[parent]
        rows.effective_weight[row] = above * weight[row]
        rows.key_effective_weight[row] = above * key_weight[row]

    def add(self, op: RepairOp) -> None:
        op.rank_key = (self.order,)
        self.order += 1
        self.ops.append(op)

    def violations(self) -> None:
        """Strict mode: the violations zeroed the score; fixing them recovers it."""
        violations = self.alignment.violations
        if not (self.alignment.options.strict and violations):
            return
        share = self.rows.score[0] / len(violations)
        for violation in violations:
            self.add(RepairOp(OpKind.SCHEMA_VIOLATION, violation.pointer, None,
                              violation.pointer, None, None, share,
                              details={"message": violation.message.rstrip(".") + "."}))

    def walk(self) -> None:
        """Every row's repairs, in preorder. A row is read when its parent's children
        are gone through (a container neither perfect nor replaced whole), unless it is
        a perfect leaf under its own key (the common case: nothing read but its kind,
        status, score and keys; a leaf has no children, and one in a list has no keys)."""
        rows = self.rows
        parents, kinds, statuses, scores = rows.parent, rows.kind, rows.status, rows.score
        gold_keys, candidate_keys = rows.gold_key, rows.candidate_key
        childless_rows = rows.childless
        opened = [False] * len(parents)  # whether the walk goes through a row's children
        for row, parent in enumerate(parents):
            kind, score = kinds[row], scores[row]
            gold_key, candidate_key = gold_keys[row], candidate_keys[row]
            if kind == _LEAF and score >= 1.0 and statuses[row] == _MATCHED and (
                    gold_key == candidate_key):
                continue
            in_map = False
            if parent is not None:
                if not opened[parent]:
                    continue
                in_map = kinds[parent] == _MAP
                self.reach(row, parent)
            status = statuses[row]
            if status in _ABSENT:
                assert parent is not None  # the root is matched
                self.structural(row, parent)
                continue
            if (in_map and gold_key is not None and candidate_key is not None
                    and gold_key != candidate_key):
                assert parent is not None
                self.rename(row, parent)
            if kind == _ID:
                self.identifier(row)
            elif kind == _REF and score >= 1.0:
                self.keep_dangling(row)
            childless = childless_rows[row]
            if score >= 1.0 and childless:
                continue
            if status == _TYPE_MISMATCH:
                self.replace(row, OpKind.TYPE_MISMATCH)
            elif status == _NULL_MISMATCH:
                self.replace(row, OpKind.NULL_VALUE)
            elif parent is not None and kind in _CONTAINERS and score == 0.0 and not childless:
                self.replace(row, OpKind.SUBTREE)
            elif kind == _REF:
                self.reference(row)
            elif kind in _PRIMITIVES:
                if score < 1.0:
                    self.replace(row, OpKind.PRIMITIVE_VALUE)
            else:
                if kind == _SEQUENCE and self.by_position:
                    self.reorder(row)
                opened[row] = True

    def holds_records(self, row: int) -> bool:
        """Whether a list's items are, or hold, a scope's records."""
        schema = self.schema_of(row)
        if self.rows.order[row] == "scope":
            return True
        if schema.items is None:
            return False
        found = self.holding.get(schema.pointer)
        if found is None:
            records = {decl.records.pointer for decl in self.alignment.schema.scopes.values()}
            found = self.holding[schema.pointer] = any(
                n.pointer in records for n in schema.items.walk())
        return found

    def children_of(self, row: int) -> list[int]:
        if self.children is None:
            self.children = [[] for _ in self.rows.parent]
            for child, parent in enumerate(self.rows.parent):
                if parent is not None:
                    self.children[parent].append(child)
        return self.children[row]

    def reorder(self, row: int) -> None:
        """Move the paired items of an order-agnostic list holding records into the
        gold's order (the longest run already in it stays) and place its missing
        items at their gold positions: the repaired list is the gold's, in order."""
        rows = self.rows
        container = rows.candidate_path[row]
        if (rows.order[row] not in ("align", "scope") or container is None
                or self.schema_of(row).prefix_items or not self.holds_records(row)):
            return
        pairs = rows.pairs[row]
        partner = dict(pairs)
        stay = _in_order(pairs)
        anchors: dict[int, int] = {}
        last = -1
        gold_items = sorted((int(rows.label[c]), c) for c in self.children_of(row)
                            if rows.status[c] != Status.EXCESS)
        for gold_index, child in gold_items:
            if gold_index in stay:
                last = partner[gold_index]
                continue
            anchors[gold_index] = last
            candidate_path = rows.candidate_path[child]
            if gold_index not in partner or candidate_path is None:
                continue
            index = partner[gold_index]
            self.reach(child, row)
            gold_path = rows.gold_path[child]
            self.add(RepairOp(OpKind.MOVE_LIST_ITEM, gold_path or "", gold_path,
                              candidate_path, rows.gold[child], rows.candidate[child], 0.0,
                              None, [{"op": "move", "from": candidate_path,
                                      "path": join(container, _move_target(index, last))}],
                              details={"gold_index": gold_index, "index": index},
                              container=container, anchor=last))
        self.anchors[container] = anchors

    def identifier(self, row: int) -> None:
        """A paired record's id that is not the image of the gold's id (null, repeated,
        not an identifier): references to the record need it changed."""
        rows = self.rows
        gold, candidate = rows.gold[row], rows.candidate[row]
        candidate_path, scope = rows.candidate_path[row], rows.scope[row]
        if gold is None or candidate_path is None or scope is None:
            return
        value = self.translator.target(scope, gold)
        wanted = id_key(value)
        if wanted is not None and id_key(candidate) == wanted:
            return
        self.add(RepairOp(OpKind.ID_VALUE, candidate_path, rows.gold_path[row],
                          candidate_path, gold, candidate, 0.0, value,
                          [{"op": "replace", "path": candidate_path, "value": value}],
                          details={"target": _show(value, self.values)},
                          container=candidate_path))

    def keep_dangling(self, row: int) -> None:
        """A gold reference that dangles agrees with a candidate one that dangles; if
        the repairs give some record the candidate's value, it must change (delta 0)."""
        rows = self.rows
        scope = rows.scope[row] or ""
        gold, candidate = rows.gold[row], rows.candidate[row]
        bijection = self.alignment.bijections.get(scope)
        if (bijection is None or gold is None or candidate is None
                or gold in bijection or not self.translator.resolves(scope, candidate)):
            return
        value = self.translator.target(scope, gold)
        gold_path, candidate_path = rows.gold_path[row], rows.candidate_path[row]
        self.add(RepairOp(OpKind.UNRESOLVED_REFERENCE, gold_path or "", gold_path,
                          candidate_path, gold, candidate, 0.0, value,
                          [{"op": "replace", "path": candidate_path, "value": value}],
                          details={"scope": scope, "target": _show(value, self.values)},
                          container=candidate_path))

    def replace(self, row: int, kind: OpKind) -> None:
        rows = self.rows
        gold, candidate = rows.gold[row], rows.candidate[row]
        gold_path, candidate_path = rows.gold_path[row], rows.candidate_path[row]
        value = self.translator.translate(gold, self.schema_of(row))
        details = {"gold_type": value_kind(gold), "candidate_type": value_kind(candidate)}
        self.add(RepairOp(kind, gold_path or "", gold_path, candidate_path, gold, candidate,
                          rows.effective_weight[row] * (1.0 - rows.score[row]), value,
                          [{"op": "replace", "path": candidate_path, "value": value}],
                          details=details, container=candidate_path))

    def reference(self, row: int) -> None:
        rows = self.rows
        scope = rows.scope[row] or ""
        gold, candidate = rows.gold[row], rows.candidate[row]
        value = self.translator.target(scope, gold)
        existing = self.alignment.scopes[scope].candidate_ids if scope in self.alignment.scopes \
            else []
        wanted = id_key(candidate)
        kind = (OpKind.WRONG_REFERENCE if wanted is not None and any(
            id_key(c) == wanted for c in existing) else OpKind.UNRESOLVED_REFERENCE)
        target = (_describe_target(self.alignment, scope, gold, self.values)
                  if self.describe_refs else _show(value, self.values))
        gold_path, candidate_path = rows.gold_path[row], rows.candidate_path[row]
        self.add(RepairOp(kind, gold_path or "", gold_path, candidate_path, gold, candidate,
                          rows.effective_weight[row] * (1.0 - rows.score[row]), value,
                          [{"op": "replace", "path": candidate_path, "value": value}],
                          details={"scope": scope, "target": target},
                          container=candidate_path))

    def rename(self, row: int, parent: int) -> None:
        rows = self.rows
        gold_key, cand_key = rows.gold_key[row], rows.candidate_key[row]
        candidate_path = rows.candidate_path[row]
        assert gold_key is not None and cand_key is not None
        assert candidate_path is not None
        container = rows.candidate_path[parent]
        self.add(RepairOp(OpKind.KEY_RENAME, candidate_path, rows.gold_path[row],
                          candidate_path, gold_key, cand_key,
                          rows.key_effective_weight[row] * (1.0 - (rows.key_score[row] or 0.0)),
                          gold_key, [{"op": "move", "from": candidate_path,
                                      "path": join(container or "", gold_key)}],
                          details={"gold_key": _show_key(gold_key),
                                   "candidate_key": _show_key(cand_key)},
                          container=container))

    def structural(self, row: int, parent: int) -> None:
        rows = self.rows
        container = rows.candidate_path[parent] or ""
        delta = self.deficit(row)
        gold_path, candidate_path = rows.gold_path[row], rows.candidate_path[row]
        in_map = rows.kind[parent] == _MAP
        if rows.status[row] == Status.EXCESS:
            if in_map:
                candidate_key = rows.candidate_key[row]
                assert candidate_key is not None
                self.add(RepairOp(OpKind.EXTRANEOUS_KEY, candidate_path or "", None,
                                  candidate_path, None, rows.candidate[row], delta, None,
                                  [{"op": "remove", "path": candidate_path}],
                                  details={"key": _show_key(candidate_key)},
                                  container=container))
            else:
                self.add(RepairOp(OpKind.EXTRANEOUS_LIST_ITEM, candidate_path or "", None,
                                  candidate_path, None, rows.candidate[row], delta, None,
                                  [{"op": "remove", "path": candidate_path}],
                                  details={"index": int(rows.label[row])},
                                  container=container))
            return
        gold = rows.gold[row]
        value = self.translator.translate(gold, self.schema_of(row))
        if in_map:
            gold_key = rows.gold_key[row]
            assert gold_key is not None
            path = join(container, gold_key)
            self.add(RepairOp(OpKind.MISSING_KEY, gold_path or "", gold_path, None, gold,
                              None, delta, value, [{"op": "add", "path": path, "value": value}],
                              details={"key": _show_key(gold_key)}, container=container))
            return
        gold_index = int(rows.label[row])
        unordered = rows.order[parent] in ("align", "scope")
        placed = self.anchors.get(container, {}).get(gold_index)
        if placed is not None:  # a list reordered for wl_mode="none"
            anchor = placed
            path = join(container, anchor + 1)
        elif unordered:
            anchor = None
            path = join(container, "-")
        else:
            anchor = _anchor(rows.pairs[parent], rows.candidate[parent], gold_index,
                             self.schema_of(parent))
            path = join(container, "-" if anchor is None else anchor + 1)
        self.add(RepairOp(OpKind.MISSING_LIST_ITEM,
                          (rows.gold_path[parent] or "") if unordered else (gold_path or ""),
                          gold_path, None, gold, None, delta, value,
                          [{"op": "add", "path": path, "value": value}],
                          details={"unordered": unordered, "gold_index": gold_index},
                          container=container, anchor=anchor))


def _in_order(pairs: Sequence[tuple[int, int]]) -> set[int]:
    """The gold indices of a longest run of ``pairs`` (gold, candidate) whose candidate
    indices increase with the gold ones (the one patience sorting finds).

    >>> sorted(_in_order([(0, 2), (1, 0), (2, 1), (3, 3)]))
    [1, 2, 3]
    """
    ranked = sorted(pairs)
    tails: list[int] = []  # per run length, the position in ranked of its smallest end
    before = [-1] * len(ranked)
    for k, (_, j) in enumerate(ranked):
        low, high = 0, len(tails)
        while low < high:
            mid = (low + high) // 2
            if ranked[tails[mid]][1] < j:
                low = mid + 1
            else:
                high = mid
        before[k] = tails[low - 1] if low else -1
        if low == len(tails):
            tails.append(k)
        else:
            tails[low] = k
    run: set[int] = set()
    k = tails[-1] if tails else -1
    while k >= 0:
        run.add(ranked[k][0])
        k = before[k]
    return run


def _move_target(index: int, anchor: int) -> int:
    """Where a JSON Patch ``move`` of item ``index`` puts it to follow the original
    item ``anchor`` (-1: the front): the path is read after the removal.

    >>> _move_target(5, -1), _move_target(5, 2), _move_target(1, 3)
    (0, 3, 3)
    """
    return anchor + 1 if anchor < index else anchor


def _anchor(pairs: Sequence[tuple[int, int]], candidate: Any, gold_index: int,
            schema: SchemaNode) -> int | None:
    """The original candidate index after which a missing gold element of a list
    (its pairs and candidate value) belongs (-1: at the front; None: at the end, for a
    position the candidate lacks)."""
    arity = len(schema.prefix_items)
    if arity and schema.items is None:  # compared position by position: it is past the end
        return None
    before = [j for i, j in pairs if i < gold_index]
    if before:
        return max(before)
    if gold_index < arity or not isinstance(candidate, list) or len(candidate) < arity:
        # Past a short candidate's end: after the missing prefix positions, which
        # go to the end too (inserted in gold order).
        return None
    return arity - 1


def repair_ops(alignment: Alignment, *, describe_refs: bool = False,
               templates: Mapping[str, str] | None = None,
               values: str = "python") -> list[RepairOp]:
    """Every repair operation of an alignment, ranked by (-delta, path, kind).

    ``values`` says how messages write values: ``"python"`` (the paper's figure,
    ``{'id': 6}``) or ``"json"`` (``{"id": 6}``).
    """
    return _ranked_ops(alignment, describe_refs, _template_table(templates), values)


def _ranked_ops(alignment: _Aligned, describe_refs: bool, table: Mapping[str, str],
                values: str) -> list[RepairOp]:
    """:func:`repair_ops` given the checked template table."""
    if values not in VALUE_STYLES:
        raise InputError("/values", f"values must be python or json, got {values!r}",
                         fix="pass values='json' for JSON text", document="options")
    rows = (alignment.rows if isinstance(alignment, _RepairInputs)
            else tree_rows(alignment.tree))
    collector = _Collector(alignment, rows, describe_refs, values)
    collector.violations()
    collector.walk()
    for op in collector.ops:
        op.message = _render_op(op, table, values)
    return sorted(collector.ops, key=lambda op: (-op.delta, op.path, op.kind, op.rank_key))


# Every field a template may name, and the widest format width or precision allowed
# (a template like "{delta:999999999}" would otherwise ask for a gigabyte of padding).
_TEMPLATE_FIELDS = frozenset({
    "path", "kind", "delta", "gold", "candidate", "key", "scope", "target", "gold_type",
    "candidate_type", "gold_key", "candidate_key", "message", "score", "deficit", "shown",
    "total", "pct", "kinds", "unordered", "gold_index", "index"})
_MAX_FORMAT_WIDTH = 200
_WIDTHS = re.compile(r"\d+")


def _template_table(overrides: Mapping[str, str] | None) -> Mapping[str, str]:
    """:data:`DEFAULT_TEMPLATES` with ``overrides``, which are checked first (the
    defaults are checked by the tests, not at every call)."""
    if not overrides:
        return DEFAULT_TEMPLATES  # read-only, and valid (tested)
    _check_templates(overrides)
    return {**DEFAULT_TEMPLATES, **overrides}


def _check_templates(table: Mapping[str, str]) -> None:
    """Refuse templates that name unknown fields or ask for huge widths."""
    for name, text in table.items():
        if not isinstance(text, str):
            raise InputError(f"/{name}", f"template {name!r} must be a string, got "
                             f"{type(text).__name__}", fix="write the template as text",
                             document="options")
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as exc:
            raise InputError(f"/{name}", f"template {name!r} cannot be read: {exc}",
                             fix="balance the braces ({{ and }} write literal braces)",
                             document="options") from None
        for _, field_name, spec, _ in parts:
            if field_name is None:
                continue
            base = re.split(r"[.\[]", field_name, maxsplit=1)[0]
            if base not in _TEMPLATE_FIELDS or "{" in (spec or ""):
                raise InputError(f"/{name}", f"template {name!r} names unknown field "
                                 f"{field_name!r}", fix="use only: "
                                 + ", ".join(sorted(_TEMPLATE_FIELDS)), document="options")
            if any(int(w) > _MAX_FORMAT_WIDTH for w in _WIDTHS.findall(spec or "")):
                raise InputError(f"/{name}", f"template {name!r} asks for a width or "
                                 f"precision over {_MAX_FORMAT_WIDTH} in {{{field_name}:"
                                 f"{spec}}}", fix=f"use at most {_MAX_FORMAT_WIDTH}",
                                 document="options")


def _format(table: Mapping[str, str], name: str, /, **fields: Any) -> str:
    """Fill one template; a broken template is an InputError naming it."""
    return _filled(table, name, fields)


def _filled(table: Mapping[str, str], name: str, fields: Mapping[str, Any]) -> str:
    """:func:`_format` given its fields as a mapping (read as they are, not copied)."""
    try:
        return table[name].format_map(fields)
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        raise InputError(f"/{name}", f"template {name!r} cannot be filled: {exc!r}",
                         fix="use only the documented {fields} and format specs",
                         document="options") from None


@functools.lru_cache(maxsize=256)
def _named(template: str) -> frozenset[str]:
    """The fields ``template`` names (by their base name), or every field when it cannot
    be read (filling it then names the error)."""
    try:
        return frozenset(re.split(r"[.\[]", name, maxsplit=1)[0]
                         for _, name, _, _ in string.Formatter().parse(template)
                         if name is not None)
    except ValueError:
        return _TEMPLATE_FIELDS


def _render_op(op: RepairOp, table: Mapping[str, str], values: str) -> str:
    key: str = op.kind
    if op.kind == OpKind.MISSING_LIST_ITEM and op.details.get("unordered") and (
            "missing-list-item.unordered" in table):
        key = "missing-list-item.unordered"
    # a value is written out only where the template shows it (most show one side)
    named = _named(table[key]) if key in table else _TEMPLATE_FIELDS
    # every detail the collector writes is a str or an int (a bool among them), so all
    # of them may be named; the ones an op lacks read as empty
    fields = {"path": op.path or "(root)", "kind": op.kind, "delta": op.delta,
              "gold": _show(op.gold, values) if "gold" in named else "",
              "candidate": _show(op.candidate, values) if "candidate" in named else "",
              "key": "", "scope": "", "target": "", **op.details}
    return _filled(table, key, fields)


def _synthesis(shown: Sequence[RepairOp], table: Mapping[str, str]) -> str:
    if not shown:
        return ""
    totals: dict[str, float] = {}
    for op in shown:
        totals[op.kind] = totals.get(op.kind, 0.0) + op.delta
    total = math.fsum(totals.values())
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    kind, top = ranked[0]
    if total > 0 and top / total >= 0.6:
        return _format(table, "focus", kind=kind, pct=100.0 * top / total)
    return _format(table, "spread", kinds=", ".join(k for k, _ in ranked[:3]))


def render_feedback(alignment: Alignment, *, top_k: int = 5, min_delta: float = 0.0,
                    style: str = "text", templates: Mapping[str, str] | None = None,
                    describe_refs: bool = False, values: str = "python") -> Feedback:
    """Rank the repair operations of an alignment and render them.

    Parameters
    ----------
    top_k : int
        How many operations to show (the rest stay in ``.ops``).
    min_delta : float
        Operations recovering less are not shown; operations recovering nothing
        are never shown.
    style : {"text", "compact", "json"}
    templates : mapping, optional
        Overrides of :data:`DEFAULT_TEMPLATES` (see :func:`load_templates`).
    describe_refs : bool
        Name the intended target of a wrong reference by its properties.
    values : {"python", "json"}
        How values are written: Python literals as in the paper's figure (default),
        or JSON.
    """
    _check_rendering(top_k, min_delta, style, describe_refs)
    return _rendered(alignment, top_k, min_delta, style, _template_table(templates),
                     describe_refs, values)


def _check_rendering(top_k: int, min_delta: float, style: str, describe_refs: bool) -> None:
    """Refuse :func:`render_feedback`'s bad options (``values`` is checked with the
    operations)."""
    if style not in ("text", "compact", "json"):
        raise InputError("/style", f"style must be text, compact or json, got {style!r}",
                         fix="pick one of text, compact, json", document="options")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise InputError("/top_k", f"top_k must be a non-negative integer, got {top_k!r}",
                         fix="pass top_k=5 for example", document="options")
    if not is_number(min_delta) or not math.isfinite(min_delta) or min_delta < 0:
        raise InputError("/min_delta", f"min_delta must be a non-negative number, got "
                         f"{min_delta!r}", fix="pass min_delta=0.01 for example",
                         document="options")
    if not isinstance(describe_refs, bool):
        raise InputError("/describe_refs", f"describe_refs must be true or false, got "
                         f"{describe_refs!r}", fix="pass describe_refs=True or False",
                         document="options")


def _rendered(alignment: _Aligned, top_k: int, min_delta: float, style: str,
              table: Mapping[str, str], describe_refs: bool, values: str) -> Feedback:
    """:func:`render_feedback` given checked arguments and template table."""
    ops = _ranked_ops(alignment, describe_refs, table, values)
    eligible = [op for op in ops if op.delta > 0 and op.delta >= min_delta]
    shown = eligible[:top_k]
    synthesis = _synthesis(shown, table)
    score = alignment.score
    if style == "json":
        text = ""
    elif not eligible:
        text = _format(table, "perfect", score=score, deficit=1.0 - score) if all(
            op.delta <= 0 for op in ops) else _format(table, "header", score=score,
                                                      deficit=1.0 - score, shown=0, total=0)
    elif style == "compact":
        text = "\n".join([f"score {score:.4f}"] + [
            f"{op.path or '(root)'} {op.kind} +{op.delta:.3f}" for op in shown])
    else:
        lines = [_format(table, "header", score=score, deficit=1.0 - score, shown=len(shown),
                         total=len(eligible))]
        lines += [f"{n}. {op.message}" for n, op in enumerate(shown, 1)]
        if synthesis:
            lines.append(synthesis)
        text = "\n".join(lines)
    result = Feedback(score, 1.0 - score, ops, shown, text, synthesis)
    if style == "json":
        result.text = json.dumps(result.to_dict(), ensure_ascii=False, default=str)
    return result


def feedback(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str, *,
             top_k: int = 5, min_delta: float = 0.0, style: str = "text",
             templates: Mapping[str, str] | None = None, describe_refs: bool = False,
             values: str = "python", **align_options: Any) -> Feedback:
    """Align, score and render ranked feedback in one call (see :func:`render_feedback`).

    ``gold`` may be a :class:`~oa_core.aligner.PreparedGold`, as for :func:`align`.
    """
    # align()'s alignment without what only its reader sees (traces, matrices,
    # warnings, violations outside strict mode): the same repairs, and feedback never
    # shows the alignment
    inputs = _repair_inputs(gold, candidate, schema, **align_options)
    _check_rendering(top_k, min_delta, style, describe_refs)
    return _rendered(inputs, top_k, min_delta, style, _template_table(templates),
                     describe_refs, values)


def load_templates(path: str | Path) -> dict[str, str]:
    """Read template overrides from a TOML or JSON file (a table of kind = template)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, ValueError) as exc:
        raise InputError("", f"cannot read templates from {path}: {exc}",
                         fix="give a TOML or JSON table of kind = template",
                         document="options") from None
    if not isinstance(data, dict):
        raise InputError("", f"templates in {path} must be a table of kind = template",
                         fix="write a TOML table or a JSON object", document="options")
    unknown = sorted(set(data) - set(DEFAULT_TEMPLATES))
    if unknown or not all(isinstance(v, str) for v in data.values()):
        raise InputError(f"/{unknown[0]}" if unknown else "",
                         "templates must map known keys to strings"
                         + (f"; unknown: {', '.join(unknown)}" if unknown else ""),
                         fix="known keys: " + ", ".join(DEFAULT_TEMPLATES), document="options")
    return data


def apply_ops(candidate: Any, ops: Sequence[RepairOp]) -> Any:
    """Apply repair operations (all pointers refer to the original candidate).

    Replacements go first, then container edits deepest first, so that no edit
    moves what a later one points at. Returns a new document.
    """
    document = copy.deepcopy(candidate)
    structural: dict[str, list[RepairOp]] = {}
    for op in ops:
        if not op.patch:  # a strict-mode violation: fixed by the other ops
            continue
        if op.kind in _STRUCTURAL:
            structural.setdefault(op.container or "", []).append(op)
        elif op.candidate_path == "":
            document = copy.deepcopy(op.value)
        elif op.candidate_path is not None:
            tokens = split(op.candidate_path)
            parent = resolve(document, join("", *tokens[:-1]))
            key: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
            parent[key] = copy.deepcopy(op.value)
    for container in sorted(structural, key=lambda p: (-len(split(p)), p)):
        target = resolve(document, container)
        edits = structural[container]
        if isinstance(target, dict):
            _edit_map(target, edits)
        else:
            target[:] = _edit_list(target, edits)
    return document


def _edit_map(target: dict[str, Any], edits: Sequence[RepairOp]) -> None:
    # Renames happen at once (a -> b while b -> c must not clobber b).
    moving = {}
    for op in edits:
        if op.kind == "extraneous-key":
            target.pop(split(op.candidate_path or "")[-1], None)
        elif op.kind == "key-rename":
            moving[op.value] = target.pop(split(op.candidate_path or "")[-1])
    target.update(moving)
    for op in edits:
        if op.kind == "missing-key":
            target[split(op.gold_path or "")[-1]] = copy.deepcopy(op.value)


def _edit_list(items: list[Any], edits: Sequence[RepairOp]) -> list[Any]:
    removed = {int(split(op.candidate_path or "")[-1]) for op in edits
               if op.kind in (OpKind.EXTRANEOUS_LIST_ITEM, OpKind.MOVE_LIST_ITEM)}
    inserts: dict[int | None, list[RepairOp]] = {}
    for op in edits:
        if op.kind in (OpKind.MISSING_LIST_ITEM, OpKind.MOVE_LIST_ITEM):
            inserts.setdefault(op.anchor, []).append(op)
    for group in inserts.values():
        group.sort(key=lambda o: o.details["gold_index"])

    def placed(anchor: int | None) -> list[Any]:
        # a moved item is the candidate's own, its inner repairs already made
        return [items[o.details["index"]] if o.kind == OpKind.MOVE_LIST_ITEM
                else copy.deepcopy(o.value) for o in inserts.get(anchor, [])]

    result = placed(-1)
    for index, item in enumerate(items):
        if index not in removed:
            result.append(item)
        result.extend(placed(index))
    result.extend(placed(None))
    return result
