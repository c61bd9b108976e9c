"""Referential alignment: WL refinement on the gold|candidate reference graph of a scope."""

import time

import streamlit as st

from app import pyvis_graph, scoring, session, views, wl_graph
from app.scope_views import (
    RULE_HELP,
    TWIN_LIMIT,
    bijection_frame,
    class_table_html,
    default_scope,
    graph_pairs,
    round_markdown,
    scope_matrix,
    signature_frame,
    tie_groups,
    tie_markdown,
    twin_markdown,
    twins,
    vertex_captions,
    vertex_names,
)
from app.text import md_inline
from app.tree_views import heatmap, matrix_html

ROUND = "oa.wl_round"
PLAYING = "oa.wl_playing"
PLAY_SECONDS = 1.0  # one WL round per second while playing
FOCUS = "oa.graph_focus"
FOCUS_RECORD = "oa.focus_record"
FOCUS_HOPS = "oa.focus_hops"
CLASSES_OPEN = "w.wl_classes_open"  # the round's class table expander
SIGNATURES_OPEN = "w.wl_signatures_open"  # the round's signature table expander
GRAPH_CONFIG = {"displayModeBar": False}  # no toolbar in the Tab order before the controls

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


def _step(delta: int, last: int) -> None:
    st.session_state[PLAYING] = False
    st.session_state[ROUND] = min(max(st.session_state.get(ROUND, last) + delta, 0), last)


def _stop() -> None:
    st.session_state[PLAYING] = False


def graph_section(last: int) -> None:
    """Round controls, the graph and the round's tables (a fragment: redrawn alone)."""
    state = st.session_state
    assert trace is not None
    if state.get(PLAYING):  # a tick of the player: one round further, stop at the end
        if state.pop("oa.wl_play_started", False):
            pass  # the run that started playing shows round 0 first
        elif state.get(ROUND, last) < last:
            state[ROUND] = state.get(ROUND, last) + 1
        if state[ROUND] >= last:
            state[PLAYING] = False
            state["oa.wl_play_done"] = True
    slider_column, back, forward, play = st.columns([8, 1, 1, 1],
                                                    vertical_alignment="bottom")
    with slider_column:
        binding = session.bind(ROUND, last, bounds=(0, last))
        binding["on_change"] = _chain(binding["on_change"], _stop)
        round_index = st.slider("WL round (0 = start, last = stable)", 0, max(1, last),
                                disabled=last == 0, **binding)
    back.button("◀ Back", on_click=_step, args=(-1, last), disabled=round_index <= 0,
                help="the round before", use_container_width=True)
    forward.button("Next ▶", on_click=_step, args=(1, last), disabled=round_index >= last,
                   help="the next round", use_container_width=True)
    if state.get(PLAYING):
        play.button("⏸ Pause", on_click=_stop, use_container_width=True,
                    help="stop at this round")
    elif play.button("▶ Play", disabled=last == 0, use_container_width=True,
                     help="step through every round from round 0, one a second"):
        state[ROUND] = 0
        state[PLAYING] = True
        state["oa.wl_play_started"] = True
        st.rerun()  # the whole page, so the player's timer starts
    if state.pop("oa.wl_play_done", False):
        st.rerun()  # the whole page, so the player's timer stops

    display = wl_graph.stable_classes(trace.rounds)
    summaries = wl_graph.summarize_rounds(display)
    summary = summaries[round_index]
    names = vertex_names(alignment, scope, trace)
    pairs = graph_pairs(alignment, trace, scope)
    view_column, pairs_column = st.columns([2, 1])
    with view_column:
        graph_views = {"plotly": "static (plotly)", "pyvis": "interactive (drag & zoom)"}
        view = st.radio("Graph", list(graph_views), horizontal=True,
                        format_func=graph_views.get,
                        help="interactive: drag the vertices, scroll to zoom, hover for "
                             "names and classes",
                        **session.bind("oa.graph_view", "plotly", options=list(graph_views)))
    with pairs_column:
        show_pairs = st.toggle("Show the bijection as gray links",
                               **session.bind("oa.show_pairs", True))
    shown = focus_controls(names)
    sub = trace if shown is None else wl_graph.subgraph(trace, shown)
    old = list(range(len(trace.vertices))) if shown is None else shown
    sub_names = {k: names[v] for k, v in enumerate(old)}
    sub_display = [[r[v] for v in old] for r in display]
    changed = {k for k, v in enumerate(old) if v in set(summary.split)}
    captions = vertex_captions(alignment, scope, trace)
    sub_captions = {k: captions[v] for k, v in enumerate(old) if v in captions}
    drawing = (sub, wl_graph.layout(sub, pairs), sub_display[round_index], pairs, sub_names)
    if view == "pyvis":
        pyvis_graph.render(*drawing, captions=sub_captions, show_pairs=show_pairs,
                           changed=changed)
    else:
        st.plotly_chart(wl_graph.figure(*drawing, captions=sub_captions,
                                        show_pairs=show_pairs, changed=changed),
                        key="wl_graph", config=GRAPH_CONFIG)
    st.markdown(round_markdown(trace, names, summary, last + 1))
    if summary.split:
        st.caption("Outlined in red, with its class number in bold: what this round "
                   "recolored. Class numbers are printed on the vertices, so two classes "
                   "never hide behind similar colors.")
    # Lazy (on_change="rerun"): a closed table costs nothing on each round step.
    with st.expander("Classes in this round", key=CLASSES_OPEN, on_change="rerun") as section:
        if section.open:
            st.html(class_table_html(trace, display[round_index], names, summary.split,
                                     only=shown))
    with st.expander("How this round was computed (signatures)", key=SIGNATURES_OPEN,
                     on_change="rerun") as section:
        if not section.open:
            return
        st.caption("A record's new class is decided by its class in the round before and "
                   "the multiset of its references (its role, the reference's exact "
                   "fields, the other end's class); equal signatures get the same class on "
                   "both sides.")
        views.table(signature_frame(trace, display, round_index, names, only=shown),
                    "signatures", wrap=["references (classes of the round before)"])


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


def _chain(*callbacks):  # type: ignore[no-untyped-def]
    def run(*args):  # type: ignore[no-untyped-def]
        callbacks[0](*args)
        for callback in callbacks[1:]:
            callback()
    return run


if trace is None:
    st.info("No WL refinement was run for this scope (see the warnings on the Overview).")
else:
    last_round = len(trace.rounds) - 1
    shape = f"{scope}|{len(trace.rounds)}|{len(trace.vertices)}|{len(trace.edges)}"
    if st.session_state.get("oa.wl_round_graph") != shape:  # another graph: its stable round
        st.session_state["oa.wl_round_graph"] = shape
        st.session_state[ROUND] = last_round
        st.session_state[PLAYING] = False
    ticking = st.session_state.get(PLAYING, False) and last_round > 0
    st.fragment(graph_section, run_every=PLAY_SECONDS if ticking else None)(last_round)

found = twins(alignment, scope)
st.subheader("Twins that only structure separated")
if not found:
    st.caption(f"In {mode} mode no pair of this scope had to be decided by structure.")
for twin in found[:TWIN_LIMIT]:
    st.info(twin_markdown(twin), icon=":material/call_split:")
if len(found) > TWIN_LIMIT:
    st.caption(f"… and {len(found) - TWIN_LIMIT} more twins; the bijection table below "
               "marks every pair decided by structure.")

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
