"""Referential alignment: WL refinement on the gold|candidate reference graph of a scope."""

import time

import streamlit as st

from app import pyvis_graph, scoring, session, views, wl_graph
from app.scope_views import (
    TWIN_LIMIT,
    bijection_frame,
    class_table_html,
    default_scope,
    round_markdown,
    scope_matrix,
    signature_frame,
    twin_markdown,
    twins,
    vertex_captions,
    vertex_names,
)
from app.text import md_inline
from app.tree_views import heatmap

started = time.perf_counter()
st.title("Referential alignment")
st.markdown(
    "Identifiers are arbitrary: two correct extractions may number the same records "
    "differently. Object Aligner pairs the records of each **scope** by everything *except* "
    "their id (the similarity matrix C below), reads a **bijection** gold id → candidate id "
    "off the optimal assignment, and scores every reference through it. When two records "
    "have identical attributes (**twins**), their rows in C tie; a joint 1-WL color "
    "refinement over the disjoint union of both reference graphs then tells them apart by "
    "**structure**: each round recolors a record from its own color and the colors of the "
    "records it references or is referenced by, with one shared color table for both sides, "
    "so equal colors are comparable across gold and candidate.")

modes = {mode: scored for mode in session.WL_MODES
         if (scored := scoring.current(wl_mode=mode)) is not None}
if len(modes) < len(session.WL_MODES):
    st.stop()
alignments = {mode: scored.alignment for mode, scored in modes.items()}
scopes = list(alignments["tie_break"].scopes)
if not scopes:
    st.info("This schema declares no identifier scope (`idScope`), so there is nothing to "
            "align referentially. Try the running example.")
    st.stop()

left, right = st.columns([2, 1])
with left:
    mode = st.radio("WL mode", session.WL_MODES, horizontal=True,
                    format_func={"tie_break": "tie-break (default)", "blend": "blend",
                                 "none": "none (WL off)"}.get,
                    help="tie-break: structure only breaks exact ties in C; blend: mixes "
                         "structure into C at weight λ; none: ties go to the first optimal "
                         "assignment", **session.bind(session.WL_MODE, "tie_break"))
    if mode == "blend":
        st.slider("blend λ", 0.0, 1.0, step=0.05, **session.bind(session.WL_LAMBDA, 0.5))
with right:
    scope = st.selectbox("Scope", scopes, **session.bind(
        "oa.scope", default_scope(alignments["tie_break"]), options=scopes))
alignment = alignments[mode]
columns = st.columns(len(alignments))
for column, (name, other) in zip(columns, alignments.items(), strict=True):
    change = {} if name == mode else views.score_change(other.score, alignment.score, mode)
    column.metric(f"Score with {name}", f"{other.score:.4f}", **change)

trace = alignment.wl.get(scope)
st.subheader(f"Reference graph of scope “{md_inline(scope)}”")
if trace is None and scope in alignments["tie_break"].wl:
    trace = alignments["tie_break"].wl[scope]
    st.caption("WL is off in this mode: the colors are what tie-break mode computes, shown "
               "for comparison; the bijection (gray links) did not use them.")
if trace is None:
    st.info("No WL refinement was run for this scope (see the warnings on the Overview).")
else:
    rounds = len(trace.rounds)
    round_index = st.slider("WL round (0 = start, last = stable)", 0, max(1, rounds - 1),
                            **session.bind("oa.wl_round", rounds - 1,
                                           bounds=(0, rounds - 1)),
                            disabled=rounds == 1)
    display = wl_graph.stable_classes(trace.rounds)
    summary = wl_graph.summarize_rounds(display)[round_index]
    names = vertex_names(alignment, scope, trace)
    bijection = alignment.bijections[scope]
    view_column, pairs_column = st.columns([2, 1])
    with view_column:
        views = {"plotly": "static (plotly)", "pyvis": "interactive (drag & zoom)"}
        view = st.radio("Graph", list(views), horizontal=True, format_func=views.get,
                        help="interactive: drag the vertices, scroll to zoom, hover for "
                             "names and classes", **session.bind("oa.graph_view", "plotly",
                                                                  options=list(views)))
    with pairs_column:
        show_pairs = st.toggle("Show the bijection as gray links",
                               **session.bind("oa.show_pairs", True))
    drawing = (trace, wl_graph.layout(trace, bijection), display[round_index], bijection,
               names)
    captions = vertex_captions(alignment, scope, trace)
    if view == "pyvis":
        pyvis_graph.render(*drawing, captions=captions, show_pairs=show_pairs)
    else:
        st.plotly_chart(wl_graph.figure(*drawing, captions=captions, show_pairs=show_pairs),
                        key="wl_graph")
    st.markdown(round_markdown(trace, names, summary, rounds))
    with st.expander("Classes in this round", expanded=False):
        st.html(class_table_html(trace, display[round_index], names))
    with st.expander("How this round was computed (signatures)", expanded=False):
        st.caption("A record's new class is decided by its class in the round before and "
                   "the sorted multiset of its references (direction, relation, exact edge "
                   "label, neighbour's class); equal signatures get the same class on both "
                   "sides.")
        st.dataframe(signature_frame(trace, display, round_index, names), hide_index=True)

found = twins(alignment, scope)
st.subheader("Twins that only structure separated")
if not found:
    st.caption(f"In {mode} mode no pair of this scope had to be decided by structure.")
for twin in found[:TWIN_LIMIT]:
    st.info(twin_markdown(twin), icon=":material/call_split:")
if len(found) > TWIN_LIMIT:
    st.caption(f"… and {len(found) - TWIN_LIMIT} more twins; the bijection table below "
               "marks every pair decided by structure.")

st.subheader("Bijection")
st.dataframe(bijection_frame(alignments, scope, mode), hide_index=True,
             column_config={"C (attributes)": st.column_config.NumberColumn(format="%.3f")})
st.subheader("Record similarity C")
st.caption("Each cell scores a gold record against a candidate record with the id masked; "
           "boxes mark the chosen pairs. Equal rows are twins.")
st.plotly_chart(heatmap(scope_matrix(alignment, scope)), key="scope_matrix")
scoring.timing_caption(modes[mode], started)
