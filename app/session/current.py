"""The current trio and the session keys of what is loaded, edited and fixed.

Everything that must survive a page switch lives in plain (non-widget) keys of
``st.session_state``.
"""

from __future__ import annotations

import streamlit as st

from .inputs import Trio

__all__ = ["ERRORS", "FIXES", "JSONL", "SCHEMA_EDITS", "TRIO", "set_trio", "trio"]

TRIO = "oa.trio"
ERRORS = "oa.load_errors"
SCHEMA_EDITS = "oa.schema_edits"
FIXES = "oa.applied_fixes"
JSONL = "oa.jsonl"  # the values of the last multi-line JSONL input (for a line picker)


def trio() -> Trio | None:
    """The current trio (None before anything loaded)."""
    value: Trio | None = st.session_state.get(TRIO)
    return value


def set_trio(trio: Trio) -> None:
    """Make ``trio`` current; drop schema edits, applied fixes and load errors."""
    state = st.session_state
    state[TRIO] = trio
    state[SCHEMA_EDITS] = {}
    state[FIXES] = []
    state[ERRORS] = []
