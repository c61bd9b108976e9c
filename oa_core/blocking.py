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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _engine
from .build import selected_engine
from .comparators import canonical_json, value_kind

__all__ = ["Block", "block_key", "blocks"]

_MISSING = ("missing",)


def block_key(item: Any, properties: Sequence[str]) -> tuple[Any, ...]:
    """A hashable key, equal for items whose ``properties`` hold equal values.

    >>> block_key({"n": 1}, ["n"]) == block_key({"n": 1.0}, ["n"])
    True
    >>> block_key({"n": 1}, ["n"]) == block_key({"n": True}, ["n"])
    False
    """
    if not isinstance(item, dict):
        return tuple(_MISSING for _ in properties)
    key: list[tuple[Any, ...]] = []
    for name in properties:
        if name not in item:
            key.append(_MISSING)
            continue
        value = item[name]
        kind = value_kind(value)
        # numbers stay numbers: 1 == 1.0 and they hash alike
        key.append((kind, canonical_json(value)) if kind in ("object", "array")
                   else (kind, value))
    return tuple(key)


def _number_text(value: int | float) -> str:
    """The same text for equal numbers (1 and 1.0), whichever one a block kept."""
    # int | float, not float: an integer beyond float must arrive as itself (a
    # compiled build, see setup.py, would convert an argument annotated float).
    try:
        as_float = float(value)
    except OverflowError:  # an integer beyond float: equal only to itself
        return str(value)
    return repr(as_float) if as_float == value else str(value)


def _order(key: tuple[Any, ...]) -> str:
    """A sort text of a key that does not depend on which item a block met first."""
    return canonical_json([[part[0], _number_text(part[1])] if part[0] == "number"
                           else list(part) for part in key])


@dataclass(slots=True)
class Block:
    """One block: the positions of its gold and candidate items, in list order."""

    gold: list[int] = field(default_factory=list)
    candidate: list[int] = field(default_factory=list)


def blocks(golds: Sequence[Any], candidates: Sequence[Any],
           properties: Sequence[str]) -> list[Block]:
    """The blocks of two lists, in the order of their keys (not of the items'
    positions, so that permuting a list permutes only the positions inside blocks).

    Under ``OA_ENGINE=rust`` the blocks come from ``align/blocks.rs``, except where a
    value is one only Python keys (a NaN, a subclass of a JSON type, deep nesting).
    """
    if selected_engine() == "rust":
        keyed = _engine.blocks(golds, candidates, list(properties))
        if keyed is not None:
            return [Block(gold, candidate) for gold, candidate in keyed]
    found: dict[tuple[Any, ...], Block] = {}
    for i, item in enumerate(golds):
        found.setdefault(block_key(item, properties), Block()).gold.append(i)
    for j, item in enumerate(candidates):
        found.setdefault(block_key(item, properties), Block()).candidate.append(j)
    return [found[key] for key in sorted(found, key=_order)]
