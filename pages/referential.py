"""Referential alignment: WL refinement on the gold|candidate reference graph of a scope."""

import time
from dataclasses import replace

import streamlit as st

from app import session, views
from app.pair import pyvis_graph, scoring, wl_graph, wl_stepper
from app.pair.scope_views import (
    RULE_HELP,
    TWIN_LIMIT,
    bijection_frame,
    default_scope,
    graph_pairs,
    pair_stories,
    round_views,
    scope_matrix,
    story_markdown,
    tie_groups,
    tie_markdown,
    vertex_captions,
    vertex_names,
)
from app.pair.tree_views import heatmap, matrix_html
from app.session.url import restore_option
from app.text import md_escape, md_inline

ROUND = "oa.wl_round"  # the round shown first (then the browser steps on its own)
GRAPH_SHAPE = "oa.wl_round_graph"  # the graph ROUND belongs to
FOCUS = "oa.graph_focus"
FOCUS_RECORD = "oa.focus_record"
FOCUS_HOPS = "oa.focus_hops"

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


def graph_section(last: int, follow_url: bool, graph: str) -> None:
    """The graph with its round controls, key, signatures and the pairs' stories."""
    assert trace is not None
    display = wl_graph.stable_classes(trace.rounds)
    names = vertex_names(alignment, scope, trace)
    pairs = graph_pairs(alignment, trace, scope)
    view_column, pairs_column = st.columns([2, 1])
    with view_column:
        graph_views = {"steps": "step through the rounds",
                       "pyvis": "interactive (drag & zoom)"}
        view = st.radio("Graph", list(graph_views), horizontal=True,
                        format_func=graph_views.get,
                        help="step through the rounds: Back, Next and Play recolour the "
                             "graph in the browser; interactive: drag the vertices, scroll "
                             "to zoom, at the round picked with a slider",
                        **session.bind("oa.graph_view", "steps", options=list(graph_views)))
    with pairs_column:
        show_pairs = st.toggle("Show the bijection as gray links",
                               **session.bind("oa.show_pairs", True))
    shown = focus_controls(names)
    sub = trace if shown is None else wl_graph.subgraph(trace, shown)
    old = list(range(len(trace.vertices))) if shown is None else shown
    local = {v: k for k, v in enumerate(old)}
    sub_names = {k: names[v] for k, v in enumerate(old)}
    sub_display = [[r[v] for v in old] for r in display]
    captions = vertex_captions(alignment, scope, trace)
    sub_captions = {k: captions[v] for k, v in enumerate(old) if v in captions}
    positions = wl_graph.layout(sub, pairs)
    rounds = round_views(trace, display, names, only=shown)
    stories = [replace(s, pair=[local[v] for v in s.pair if v in local],
                       rivals=[local[v] for v in s.rivals if v in local])
               for s in pair_stories(alignment, scope, trace)]
    if view == "pyvis":
        round_index = st.slider("WL round (0 = start, last = stable)", 0, max(1, last),
                                disabled=last == 0,
                                **session.bind(ROUND, last, bounds=(0, last)))
        pyvis_graph.render(sub, positions, sub_display[round_index], pairs, sub_names,
                           captions=sub_captions, show_pairs=show_pairs,
                           changed=rounds[round_index].changed)
        st.markdown(md_escape(rounds[round_index].summary))
        for story in stories[:TWIN_LIMIT]:
            st.info(story_markdown(story), icon=":material/call_split:")
    else:
        data = wl_stepper.payload(sub, positions, sub_display, pairs, sub_names, rounds,
                                  captions=sub_captions, show_pairs=show_pairs,
                                  start=st.session_state.get(ROUND, last),
                                  follow_url=follow_url,
                                  theme=st.context.theme.type or "light",
                                  stories=stories[:TWIN_LIMIT], graph=graph)
        st.iframe(wl_stepper.stepper_html(data),
                  height=wl_stepper.frame_height(sub, rounds, len(stories)),
                  alt="WL reference graph, gold left and candidate right: Back, Next and "
                      "Play step through the rounds")
    if len(stories) > TWIN_LIMIT:
        st.caption(f"… and {len(stories) - TWIN_LIMIT} more pairs decided by a tie rule; "
                   "the bijection table below marks every one.")
    if not stories:
        st.caption(f"In {mode} mode no pair of this scope had to be decided by structure.")


def focus_controls(names: dict[int, str]) -> list[int] | None:
    """For big graphs: show one record's neighbourhood (the vertices to draw), or all."""
    assert trace is not None
    records = [v for v, vx in enumerate(trace.vertices)
               if vx.kind == "record" and vx.side == "gold"]
    big = wl_graph.dense(trace)
    if not records or len(trace.vertices) <= 24:
        return None
    choices = {"around": "around one record", "whole": "the whole graph"}
    where, record_column, hops_column = st.columns([2, 3, 1], vertical_alignment="bottom")
    with where:
        focus = st.radio("Show", list(choices), format_func=choices.get, horizontal=True,
                         help="a big graph is a hairball: draw one record's neighbourhood",
                         **session.bind(f"{FOCUS}.{scope}", "around" if big else "whole",
                                        options=list(choices)))
    structural = [i for i, _ in alignment.scopes[scope].structural_pairs]
    by_index = {trace.vertices[v].record_index: v for v in records
                if (trace.vertices[v].scope or scope) == scope}
    first = next((by_index[i] for i in structural if i in by_index), records[0])
    with record_column:
        centre = st.selectbox("Record (gold)", records,
                              format_func=lambda v: names.get(v, str(v)),
                              disabled=focus != "around",
                              **session.bind(f"{FOCUS_RECORD}.{scope}", first,
                                             options=records))
    with hops_column:
        hops = st.number_input("Hops", 1, 6, disabled=focus != "around",
                               help="references to follow from the record",
                               **session.bind(FOCUS_HOPS, 2))
    if focus != "around":
        return None
    shown = wl_graph.neighbourhood_vertices(trace, [int(centre)], int(hops), graph_pairs(
        alignment, trace, scope))
    st.caption(f"Showing {len(shown)} of {len(trace.vertices)} vertices: the records within "
               f"{hops} reference{'s' * (hops != 1)} of the chosen one and their partners; "
               "class numbers are the whole graph's.")
    return shown


if trace is None:
    st.info("No WL refinement was run for this scope (see the warnings on the Overview).")
else:
    last_round = len(trace.rounds) - 1
    shape = f"{mode}|{scope}|{len(trace.rounds)}|{len(trace.vertices)}|{len(trace.edges)}"
    follow = True
    if st.session_state.get(GRAPH_SHAPE) != shape:  # another graph: its stable round...
        follow = GRAPH_SHAPE not in st.session_state  # ...unless a link opened this one
        st.session_state[GRAPH_SHAPE] = shape
        st.session_state[ROUND] = last_round
        if follow:
            restore_option(ROUND, last_round)
            st.session_state[ROUND] = min(max(int(st.session_state[ROUND]), 0), last_round)
    graph_section(last_round, follow, shape)

ties = tie_groups(alignment, scope)
if ties:
    st.subheader("Ties and how they were settled")
    for group in ties:
        (st.warning if group.rule in ("depth", "content") else st.success)(
            tie_markdown(group), icon=":material/balance:")

st.subheader("Bijection")
st.caption("C: attribute score (ids masked); b: 1 when the stable WL colors agree; a: the "
           "share of WL rounds in which the two records share a color. " + RULE_HELP)
table = bijection_frame(alignments, scope, mode)
views.table(table, "bijection",
            formats=dict.fromkeys(("C (attributes)", "b (colour)", "a (depth)"), "%.3f"))
st.subheader("Record similarity C")
st.caption("Each cell scores a gold record against a candidate record with the id masked; "
           "boxes mark the chosen pairs. Equal rows are twins.")
blocked_by = alignment.schema.scopes[scope].records.block_by
if blocked_by:
    st.caption("Paired within blocks of equal " + ", ".join(
        f"“{md_inline(name)}”" for name in blocked_by) + " (`blockBy`): records of "
        "different blocks are never compared, and their cells show 0.")
matrix = scope_matrix(alignment, scope)
table = matrix_html(matrix)
if table is not None:  # a small matrix: a table, far cheaper to draw than plotly
    st.html(table)
else:
    st.plotly_chart(heatmap(matrix), key="scope_matrix", config=views.PLOTLY_CONFIG)
scoring.timing_caption(modes[mode], started)
