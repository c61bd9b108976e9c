"""Schema tuning: a widget for every weight, comparator, threshold and order; live rescoring."""

import json
import time

import pandas as pd
import streamlit as st

from app import schema_widgets, scoring, session, sidebar, views
from app.text import md_inline
from oa_core import OAError, Schema

SEARCH = "oa.tune_search"
SENSITIVITY_AT = "oa.sensitivity_at"  # canonical JSON of the schema the slopes were taken at
SENSITIVE_SHOWN = 10
AUTO_SECONDS = 1.0  # compute the slopes unasked when they should take less than this

st.title("Schema tuning")
trio = session.trio()
if trio is None:
    scoring.current()
    st.stop()
try:
    original_schema = Schema.parse(trio.schema)
except OAError as exc:
    scoring.show_error(exc, "parse the schema")
    st.stop()
st.markdown("Change any scoring setting below: the documents are rescored at once with the "
            "edited schema, which every other page then uses too. A • marks an edited knob.")


@st.cache_data(max_entries=32, show_spinner="Rescoring once per weight…")
def _sensitivity(gold: str, candidate: str, schema: str, wl_mode: str,
                 wl_lambda: float) -> list[dict]:
    return schema_widgets.sensitivity(json.loads(gold), json.loads(candidate),
                                      json.loads(schema),
                                      {"wl_mode": wl_mode, "wl_blend_lambda": wl_lambda})


def sensitive_settings(seconds: float) -> None:
    """The weights that move the score most per unit (taken at the original schema, or at
    the edited one on request)."""
    state = st.session_state
    assert trio is not None
    original_text = session.canonical(trio.schema)
    edited_text = session.canonical(session.edited_schema())
    at = state.get(SENSITIVITY_AT)
    if at not in (original_text, edited_text):
        at = original_text
    st.subheader("Most sensitive settings")
    weights = sum(1 for _, knobs in schema_widgets.grouped_knobs(original_schema)
                  for knob in knobs if knob.kind == "weight")
    estimate = 2 * weights * seconds
    if estimate >= AUTO_SECONDS and not state.get("oa.sensitivity_asked"):
        st.caption(f"Rescoring twice per weight ({weights} weights) takes about "
                   f"{estimate:.0f} s on documents this size.")
        if st.button("Compute the most sensitive settings"):
            state["oa.sensitivity_asked"] = True
            st.rerun()
        return
    rows = _sensitivity(session.canonical(trio.gold),
                        session.canonical(session.current_candidate()), at,
                        state.get(session.WL_MODE, "tie_break"),
                        float(state.get(session.WL_LAMBDA, 0.5)))
    where = "the original schema" if at == original_text and session.schema_edits() \
        else "the current settings"
    st.caption(f"How much the score moves per +1 of each weight, at {where} (finite "
               f"differences of ±{schema_widgets.WEIGHT_STEP}, each a rescoring). Weights "
               "are relative: raising one lowers the share of its siblings.")
    if at != edited_text and st.button("Recompute at the edited settings"):
        state[SENSITIVITY_AT] = edited_text
        st.rerun()
    frame = pd.DataFrame.from_records(rows[:SENSITIVE_SHOWN],
                                      columns=["setting", "value", "score per +1", "pointer"])
    st.dataframe(frame, hide_index=True, column_config={
        "value": st.column_config.NumberColumn(format="%.3f"),
        "score per +1": st.column_config.NumberColumn(format="%+.4f")})
    if len(rows) > SENSITIVE_SHOWN:
        st.caption(f"The {SENSITIVE_SHOWN} largest of {len(rows)} weights.")


def _reset_edits() -> None:
    session.schema_edits().clear()
    session.changed()


@st.fragment
def tuning() -> None:
    """Scores, where they moved, the sensitive settings, every knob and the edited schema.

    A fragment: a knob reruns only this, not the sidebar and the rest of the app (a
    full rerun was most of a weight change's time in the browser). What else shows
    the edits follows: the URL is written by the knob's callback, the sidebar's
    downloads read the session when clicked, and when the sidebar's count of edits
    is no longer right the whole page reruns at once.
    """
    if st.session_state.get(sidebar.EDITS_SHOWN) != len(session.schema_edits()):
        st.rerun()
    started = time.perf_counter()
    assert trio is not None
    original = scoring.current(schema=trio.schema)
    edited = scoring.current()
    if original is not None and edited is not None:
        columns = st.columns(3)
        columns[0].metric("Score with the edited schema", f"{edited.alignment.score:.4f}",
                          **(views.score_change(edited.alignment.score,
                                                original.alignment.score)
                             if session.schema_edits() else {}))
        columns[1].metric("Score with the original schema", f"{original.alignment.score:.4f}")
        columns[2].metric("Edited settings", len(session.schema_edits()))
        moved = schema_widgets.moved_nodes(original.alignment.tree, edited.alignment.tree,
                                           session.schema_edits())
        with st.expander(f"Where the score moved ({len(moved)})", expanded=bool(moved)):
            if moved:
                st.caption("Nodes whose own score changed or whose settings you edited, one "
                           "row per schema node (list items together); weights that only "
                           "shifted because a sibling's weight changed are left out.")
                st.dataframe(moved, hide_index=True, column_config={
                    name: st.column_config.NumberColumn(format="%.4f")
                    for name in ("score before", "score after", "contribution Δ")})
            else:
                st.caption("No node changed its score.")
        sensitive_settings(original.seconds)

    st.subheader("Settings")
    groups = schema_widgets.grouped_knobs(original_schema)
    search_column, reset_column = st.columns([3, 1], vertical_alignment="bottom")
    with search_column:
        query = st.text_input("Search settings", placeholder="e.g. agenda threshold",
                              help="words of a path, a keyword or a type, in any order",
                              **session.bind(SEARCH, ""))
    with reset_column:
        st.button("Reset all edits", on_click=_reset_edits, disabled=not session.schema_edits())
    found = schema_widgets.search(groups, query)
    total = sum(len(knobs) for _, knobs in groups)
    if query.strip():
        shown = sum(len(knobs) for _, knobs in found)
        st.caption(f"{shown} of {total} settings match “{md_inline(query)}”."
                   if found else f"No setting matches “{md_inline(query)}”.")
    searching = bool(query.strip())
    for node, knobs in found:
        title = f"{md_inline(schema_widgets.readable(node.pointer))}  ·  {node.type}"
        if searching:  # every match is shown
            section, is_open = st.expander(title, expanded=True), True
        else:
            # Lazy: a closed section sends no widgets (a schema has dozens of sections, and
            # their widgets were most of this page's weight in the browser); opening one
            # reruns this fragment with its widgets. Knob values live in the schema edits.
            section = st.expander(title, expanded=node.pointer == "",
                                  key=schema_widgets.section_key(node.pointer),
                                  on_change="rerun")
            is_open = bool(section.open)
        with section:
            if is_open:
                columns = st.columns(3)
                for index, knob in enumerate(knobs):
                    with columns[index % 3]:
                        schema_widgets.render_knob(knob, node)

    st.subheader("Edited schema")
    edited_json = json.dumps(session.edited_schema(), ensure_ascii=False, indent=2)
    st.download_button("Download the edited schema", edited_json,
                       file_name="schema.edited.json", mime="application/json")
    with st.expander("Show it", key="w.tune_show_schema", on_change="rerun") as shown:
        if shown.open:
            st.code(edited_json, language="json")
    if edited is not None:
        scoring.timing_caption(edited, started)


tuning()
