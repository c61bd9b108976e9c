"""Schema edits and applied fixes: the schema and candidate every page scores.

:func:`apply_fix` and :func:`undo_fix` change the state only; a caller outside a full
run (a callback in a fragment) writes the URL with :func:`app.session.url.changed`.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from typing import Any

import streamlit as st

import oa_core
from oa_core.pointer import split

from .current import FIXES, SCHEMA_EDITS, trio
from .inputs import Trio, canonical

__all__ = ["apply_edits", "apply_fix", "bundle", "current_candidate", "edited_schema",
           "patch_digest", "schema_edits", "undo_fix"]


def current_candidate() -> Any:
    """The candidate with every applied fix."""
    fixes: list[dict[str, Any]] = st.session_state.get(FIXES, [])
    if fixes:
        return fixes[-1]["after"]
    current = trio()
    return None if current is None else current.candidate


def bundle(current: Trio, fixes: Sequence[dict[str, Any]], edits: dict[str, Any]
           ) -> dict[str, Any]:
    """The trio as the pages score it: gold, the candidate with ``fixes`` applied and the
    schema with ``edits`` (what "Current trio (JSON)" downloads)."""
    return {"gold": current.gold,
            "candidate": fixes[-1]["after"] if fixes else current.candidate,
            "schema": apply_edits(current.schema, edits)}


def schema_edits() -> dict[str, Any]:
    """Schema edits: JSON Pointer of a keyword -> its new value."""
    edits: dict[str, Any] = st.session_state.setdefault(SCHEMA_EDITS, {})
    return edits


def edited_schema() -> Any:
    """The schema with the tuning edits applied (the schema every page scores with)."""
    current = trio()
    if current is None:
        return None
    return apply_edits(current.schema, schema_edits())


def apply_edits(schema: Any, edits: dict[str, Any]) -> Any:
    """A copy of ``schema`` with ``edits`` (keyword pointer -> value) written in.

    Parameters
    ----------
    schema : dict
        The original schema.
    edits : dict
        RFC 6901 pointer of a keyword (its parent objects must exist) -> value.
    """
    result = copy.deepcopy(schema)
    for pointer, value in edits.items():
        *parents, last = split(pointer)
        target = result
        for token in parents:
            target = target[int(token)] if isinstance(target, list) else target[token]
        target[last] = copy.deepcopy(value)
    return result


def apply_fix(op: Any, score_before: float) -> None:
    """Apply one repair operation to the current candidate (undoable).

    Parameters
    ----------
    op : oa_core.RepairOp
        The operation (its JSON Patch is written into a copy of the candidate).
    score_before : float
        The score before the fix, to report the move.
    """
    before = current_candidate()
    after = oa_core.apply_ops(before, [op])
    st.session_state.setdefault(FIXES, []).append({
        "message": op.message, "kind": op.kind, "delta": op.delta,
        "score_before": score_before, "before": before, "after": after,
        "patch": copy.deepcopy(op.patch)})


def patch_digest(patch: Any) -> str:
    """A short name of a fix's JSON Patch: what a link carries instead of the patch,
    whose values can be a whole document.

    Examples
    --------
    >>> patch_digest([{"op": "replace", "path": "/period/1", "value": 2025}])
    '72cde2962842'
    """
    return hashlib.sha256(canonical(patch).encode()).hexdigest()[:12]


def undo_fix() -> None:
    """Drop the last applied fix."""
    fixes: list[dict[str, Any]] = st.session_state.get(FIXES, [])
    if fixes:
        fixes.pop()
