"""Schema tuning: a widget for every weight, comparator, threshold and order; live rescoring."""

import json
import time

import streamlit as st

from app import schema_widgets, scoring, session, views
from app.text import md_inline
from oa_core import OAError, Schema

started = time.perf_counter()
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
original = scoring.current(schema=trio.schema)
edited = scoring.current()
if original is not None and edited is not None:
    columns = st.columns(3)
    columns[0].metric("Score with the edited schema", f"{edited.alignment.score:.4f}",
                      **(views.score_change(edited.alignment.score, original.alignment.score)
                         if session.schema_edits() else {}))
    columns[1].metric("Score with the original schema", f"{original.alignment.score:.4f}")
    columns[2].metric("Edited settings", len(session.schema_edits()))
    moved = schema_widgets.moved_nodes(original.alignment.tree, edited.alignment.tree)
    with st.expander(f"Nodes that moved ({len(moved)})", expanded=bool(moved)):
        if moved:
            st.dataframe(moved, hide_index=True)
        else:
            st.caption("No node changed its score or weight.")

st.subheader("Settings")
st.button("Reset all edits", on_click=session.schema_edits().clear,
          disabled=not session.schema_edits())
for node, knobs in schema_widgets.grouped_knobs(original_schema):
    title = f"{md_inline(schema_widgets.readable(node.pointer))}  ·  {node.type}"
    with st.expander(title, expanded=node.pointer == ""):
        columns = st.columns(3)
        for index, knob in enumerate(knobs):
            with columns[index % 3]:
                schema_widgets.render_knob(knob, node)

st.subheader("Edited schema")
edited_json = json.dumps(session.edited_schema(), ensure_ascii=False, indent=2)
st.download_button("Download the edited schema", edited_json, file_name="schema.edited.json",
                   mime="application/json")
with st.expander("Show it"):
    st.code(edited_json, language="json")
if edited is not None:
    scoring.timing_caption(edited, started)
