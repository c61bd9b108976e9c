"""Run-level schema tuning: the schema's knobs (the Schema tuning widgets' settings)
applied to every pair of a run; the edits live in ``oa.run_edits`` (in the URL)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from oa_core.schema import Schema, SchemaNode

from . import session
from .schema_widgets import Knob, current_value, grouped_knobs, readable, search, set_knob
from .text import md_inline

EDITS = "oa.run_edits"
SEARCH = "oa.rt_search"


def edits() -> dict[str, Any]:
    """The run's schema edits (pointer -> value), kept in the URL as ``run_edits``."""
    session.bind(EDITS, {})  # no widget: this registers the key for the URL
    value = st.session_state.get(EDITS)
    if not isinstance(value, dict):
        value = {}
        st.session_state[EDITS] = value
    return value


def _on_change(knob: Knob, defaults: list[float] | None) -> None:
    current = dict(edits())
    set_knob(current, knob, st.session_state[f"rt:{knob.widget_key}"], defaults)
    st.session_state[EDITS] = current
    session.changed()


def _knob(knob: Knob, node: SchemaNode, chosen: dict[str, Any]) -> None:
    key = f"rt:{knob.widget_key}"
    value = current_value(knob, chosen)
    st.session_state[key] = value
    defaults = list(node.prefix_weights) if knob.index is not None else None
    label = md_inline(knob.label) + (" •" if value != knob.default else "")
    common: dict[str, Any] = {"key": key, "on_change": _on_change, "args": (knob, defaults),
                              "help": f"{md_inline(knob.pointer)} (original: "
                                      f"{md_inline(str(knob.default))})"}
    if knob.kind == "weight":
        st.number_input(label, min_value=0.0, step=0.25, format="%.3f", **common)
    elif knob.kind == "unit":
        st.slider(label, min_value=0.0, max_value=1.0, step=0.01, **common)
    elif knob.kind in ("comparator", "order"):
        options = list(knob.options) + ([value] if value not in knob.options else [])
        st.selectbox(label, options, **common)
    else:
        st.checkbox(label, **common)


def knobs(schema: Schema) -> None:
    """Every knob of the schema, grouped by node, with a search box."""
    query = st.text_input("Search the settings", placeholder="e.g. people weight",
                          **session.bind(SEARCH, ""))
    chosen = edits()
    groups = search(grouped_knobs(schema), query)
    if not groups:
        st.info("No setting matches the search.")
    for node, found in groups:
        edited = any(k.key in chosen for k in found)
        with st.expander(f"{md_inline(readable(node.pointer))} ({node.type})"
                         + (" •" if edited else ""), expanded=edited):
            columns = st.columns(3)
            for k, knob in enumerate(found):
                with columns[k % 3]:
                    _knob(knob, node, chosen)


def reset() -> None:
    """Drop every run-level edit."""
    st.session_state[EDITS] = {}
    session.changed()
