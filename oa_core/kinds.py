"""The closed vocabularies of the library: WL modes, match-node kinds and statuses,
repair-operation kinds.

Each is a :class:`~enum.StrEnum`, so a member *is* its JSON string: results
serialise exactly as before (``"type-mismatch"``), and code compares against the
members instead of repeating loose strings.

Examples
--------
>>> NodeKind.MAP == "map"
True
>>> WLMode("blend") is WLMode.BLEND
True
>>> [kind.value for kind in OpKind][:3]
['primitive-value', 'missing-key', 'extraneous-key']
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["NodeKind", "OpKind", "Status", "TieRule", "WLMode"]


class WLMode(StrEnum):
    """How reference structure enters scope alignment."""

    TIE_BREAK = "tie_break"  # the paper's default: structure only breaks exact ties
    BLEND = "blend"  # (1 - lambda) * C + lambda * [colours equal]
    NONE = "none"  # the paper's ablation: no structure (ties may follow positions)


class NodeKind(StrEnum):
    """What a match-tree node compares."""

    MAP = "map"
    SEQUENCE = "sequence"
    LEAF = "leaf"
    ID = "id"
    REF = "ref"
    NULL = "null"


class Status(StrEnum):
    """How a match-tree node's two sides relate."""

    MATCHED = "matched"
    MISSING = "missing"  # in the gold only
    EXCESS = "excess"  # in the candidate only
    TYPE_MISMATCH = "type-mismatch"
    NULL_MISMATCH = "null-mismatch"


class OpKind(StrEnum):
    """Kinds of repair operation (see :mod:`oa_core.feedback`)."""

    PRIMITIVE_VALUE = "primitive-value"
    MISSING_KEY = "missing-key"
    EXTRANEOUS_KEY = "extraneous-key"
    KEY_RENAME = "key-rename"
    MISSING_LIST_ITEM = "missing-list-item"
    EXTRANEOUS_LIST_ITEM = "extraneous-list-item"
    MOVE_LIST_ITEM = "move-list-item"  # wl_mode="none" only: records paired by position
    WRONG_REFERENCE = "wrong-reference"
    UNRESOLVED_REFERENCE = "unresolved-reference"
    TYPE_MISMATCH = "type-mismatch"
    NULL_VALUE = "null-value"
    SUBTREE = "subtree"
    ID_VALUE = "id-value"  # a record's id that no reference can reach (null, repeated)
    SCHEMA_VIOLATION = "schema-violation"  # strict mode only


class TieRule(StrEnum):
    """What decided the pairing of one scope record (reported in warnings)."""

    ATTRIBUTES = "attributes"  # the records' own score, C
    COLOUR = "colour"  # the paper's bonus: equal stable WL colours
    DEPTH = "depth"  # the share of refinement rounds with equal colours
    CONTENT = "content"  # the documented content rule (no structure left)
    POSITION = "position"  # wl_mode="none" only: twins paired by list order
