"""Blocking: the opt-in split of an unordered list into blocks paired on their own.

``"blockBy": "role"`` (or a list of property names) on an ``order: "align"`` array
of objects lets an item be paired only with an item of the other side whose values
of those properties are equal. Each block (the gold and candidate items sharing one
combination of values) is then paired by the usual rules, on its own: the score
matrix, the WL agreement matrices and the assignment are made per block, so memory
and time follow the largest block, not the whole list (what makes scopes of
100,000 records feasible on one machine).

Blocking can change the optimum: two items in different blocks are never paired,
however well they score. It is therefore never the default, and a schema without
``blockBy`` is aligned exactly as before. It gives the unblocked optimum whenever
every pair the unblocked pairing would choose shares its block, e.g. when the
blocking property is compared ``exact`` and weighs so much that a pair across
blocks always loses.

Equal values: strings equal as text, numbers equal as numbers (1 and 1.0 share a
block, ``true`` and 1 do not), booleans and null by themselves, objects and arrays
by their canonical JSON text. An item without the property, or that is not an
object, is in the block of items without it.

Examples
--------
>>> golds = [{"role": "a", "n": 1}, {"role": "b", "n": 2}, {"n": 3}]
>>> cands = [{"role": "b"}, {"role": "a"}, {"role": "c"}]
>>> [(block.gold, block.candidate) for block in blocks(golds, cands, ("role",))]
[([2], []), ([0], [1]), ([1], [0]), ([], [2])]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _engine
from .errors import InputError

__all__ = ["Block", "blocks"]


@dataclass(slots=True)
class Block:
    """One block: the positions of its gold and candidate items, in list order."""

    gold: list[int] = field(default_factory=list)
    candidate: list[int] = field(default_factory=list)


def _plain(item: Any, properties: Sequence[str]) -> Any:
    """``item`` reduced to its ``properties``, each value as plain JSON (a subclass of
    a JSON type as its base type): what the engine keys."""
    if not isinstance(item, dict):
        return None
    return {name: json.loads(json.dumps(item[name])) for name in properties if name in item}


def blocks(golds: Sequence[Any], candidates: Sequence[Any],
           properties: Sequence[str]) -> list[Block]:
    """The blocks of two lists, in the order of their keys (not of the items'
    positions, so that permuting a list permutes only the positions inside blocks).

    The grouping is Rust's (``crates/oa-engine/src/align/blocks.rs``).

    Raises
    ------
    InputError
        Where a blocking value is one the engine does not key: a NaN, an integer
        beyond the float range, a value nested deeper than 100 levels.
    """
    names = list(properties)
    keyed = _engine.blocks(golds, candidates, names)
    if keyed is None:  # a subclass of a JSON type: as plain JSON
        keyed = _engine.blocks([_plain(g, names) for g in golds],
                               [_plain(c, names) for c in candidates], names)
    if keyed is None:
        raise InputError("", f"a value of the blockBy properties {names} cannot be keyed "
                         "(a NaN, an integer beyond the float range, or "
                         "nested deeper than 100 levels)",
                         fix="block by a finite, flatter property")
    return [Block(gold, candidate) for gold, candidate in keyed]
