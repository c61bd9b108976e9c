"""What-if questions a notebook asks of one comparison: what if this weight were
different (:func:`with_weight`, :func:`sensitivity`, :func:`moved_nodes`,
:func:`moved_pairs`), and what if these repair operations were applied
(:func:`rescore`). The widgets of :mod:`oa_core.notebook.widgets` call these; they work
without ipywidgets.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> gold, candidate, schema = load("gold"), load("candidate"), load("schema")
>>> pointer = "/properties/agenda/valueWeight"
>>> dict(weight_paths(schema))[pointer]
1.0
>>> before = oa_core.align(gold, candidate, schema)
>>> after = oa_core.align(gold, candidate, with_weight(schema, pointer, 2.0))
>>> round(after.score, 4), moved_nodes(before, after)["path"][0]
(0.7119, '/agenda')
>>> fixed = rescore(before, oa_core.repair_ops(before))
>>> fixed.score
1.0
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..aligner import Alignment, align
from ..errors import InputError
from ..feedback import RepairOp, apply_ops
from ..pointer import join, split

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["moved_nodes", "moved_pairs", "rescore", "sensitivity", "weight_paths",
           "with_weight"]

_TOLERANCE = 1e-12
_NESTED = ("items", "additionalProperties")
_LISTED = ("prefixItems", "anyOf", "oneOf", "allOf")
_NAMED = ("properties", "$defs", "definitions")


def weight_paths(schema: Mapping[str, Any]) -> list[tuple[str, float]]:
    """Every weight of a raw OA schema with its value, in document order: each
    property's ``valueWeight`` (1 where not declared), and the ``keyImportance``,
    ``valueImportance`` and ``prefixWeights`` entries that are declared.

    Returns
    -------
    list of (JSON Pointer, value)
        Pointers into the schema, for :func:`with_weight`.
    """
    found: list[tuple[str, float]] = []

    def walk(node: Any, pointer: str) -> None:
        if not isinstance(node, Mapping):
            return
        for name in ("keyImportance", "valueImportance"):
            if isinstance(node.get(name), int | float):
                found.append((join(pointer, name), float(node[name])))
        weights = node.get("prefixWeights")
        if isinstance(weights, list):
            found.extend((join(pointer, "prefixWeights", k), float(w))
                         for k, w in enumerate(weights) if isinstance(w, int | float))
        for key in _NESTED:
            walk(node.get(key), join(pointer, key))
        for key in _LISTED:
            if isinstance(node.get(key), list):
                for k, sub in enumerate(node[key]):
                    walk(sub, join(pointer, key, k))
        for key in _NAMED:
            if isinstance(node.get(key), Mapping):
                for name, sub in node[key].items():
                    where = join(pointer, key, name)
                    if key == "properties" and isinstance(sub, Mapping):
                        weight = sub.get("valueWeight", 1.0)
                        if isinstance(weight, int | float):
                            found.append((join(where, "valueWeight"), float(weight)))
                    walk(sub, where)

    walk(schema, "")
    return found


def with_weight(schema: Mapping[str, Any], pointer: str, value: float) -> dict[str, Any]:
    """A deep copy of ``schema`` with the weight at ``pointer`` set to ``value``.

    Raises
    ------
    InputError
        ``pointer`` names no place of the schema a weight can be written to.
    """
    edited = copy.deepcopy(dict(schema))
    tokens = split(pointer)
    target: Any = edited
    try:
        for token in tokens[:-1]:
            target = target[int(token)] if isinstance(target, list) else target[token]
        last = tokens[-1]
        if isinstance(target, list):
            target[int(last)] = value
        elif isinstance(target, dict):
            target[last] = value
        else:
            raise TypeError(type(target).__name__)
    except (KeyError, IndexError, ValueError, TypeError):
        raise InputError(pointer, "no weight can be written there",
                         fix="pick a pointer from weight_paths(schema)",
                         document="schema") from None
    return edited


def _contributions(alignment: Alignment) -> dict[tuple[str | None, str | None], Any]:
    return {(node.gold_path, node.candidate_path): node
            for node in alignment.tree.iter_nodes()}


def moved_nodes(before: Alignment, after: Alignment) -> pd.DataFrame:
    """The match-tree nodes whose contribution to the score changed, the biggest
    change first: ``path``, ``before``, ``after``, ``change`` (NaN where the node is
    only in one of the trees: the pairing changed there)."""
    import pandas as pd

    old, new = _contributions(before), _contributions(after)
    rows = []
    for key in [*old, *(k for k in new if k not in old)]:
        a = old[key].contribution if key in old else math.nan
        b = new[key].contribution if key in new else math.nan
        if math.isnan(a) or math.isnan(b) or abs(b - a) > _TOLERANCE:
            node = old.get(key) or new[key]
            rows.append({"path": node.path or "(root)", "kind": str(node.kind),
                         "before": a, "after": b, "change": b - a})
    frame = pd.DataFrame(rows, columns=["path", "kind", "before", "after", "change"])
    order = frame["change"].abs().fillna(math.inf).sort_values(ascending=False,
                                                                kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def moved_pairs(before: Alignment, after: Alignment) -> list[tuple[str, Any, Any, Any]]:
    """The scope records paired differently: ``(scope, gold id, candidate id before,
    candidate id after)``."""
    out = []
    for scope, mapping in before.bijections.items():
        other = after.bijections.get(scope, {})
        out += [(scope, gold_id, partner, other.get(gold_id))
                for gold_id, partner in mapping.items() if other.get(gold_id) != partner]
    return out


def sensitivity(gold: Any, candidate: Any, schema: Mapping[str, Any], *,
                factor: float = 2.0, **options: Any) -> pd.DataFrame:
    """The score with each weight multiplied by ``factor`` (one at a time; a weight
    of 0 is set to 1 instead).

    Returns
    -------
    pandas.DataFrame
        ``weight`` (pointer), ``value``, ``new value``, ``score``, ``new score``,
        ``change``; the biggest change first (ties in schema order).
    """
    import pandas as pd

    base = align(gold, candidate, schema, **options).score
    rows = []
    for pointer, value in weight_paths(schema):
        changed = value * factor if value else 1.0
        new = align(gold, candidate, with_weight(schema, pointer, changed), **options).score
        rows.append({"weight": pointer, "value": value, "new value": changed,
                     "score": base, "new score": new, "change": new - base})
    frame = pd.DataFrame(rows, columns=["weight", "value", "new value", "score",
                                        "new score", "change"])
    order = frame["change"].abs().sort_values(ascending=False, kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def rescore(alignment: Alignment, ops: Sequence[RepairOp]) -> Alignment:
    """The alignment of the candidate with ``ops`` applied, under the same schema and
    options (:func:`~oa_core.feedback.apply_ops`)."""
    return align(alignment.gold, apply_ops(alignment.candidate, ops), alignment.schema,
                 alignment.options)
