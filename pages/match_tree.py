"""Match tree: every compared pair with its weights, where the deficit lives, score matrices.

The table and the matrix are fragments (their widgets redraw only themselves); the
icicle, the table and the matrices are cached on the documents' content.
"""

import time
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import session, views
from app.pair import scoring, tree_views
from app.pair.scope_views import scope_matrix

ORDER_LABELS = {"deficit": "Largest deficit first", "tree": "Document order (as a tree)"}


@st.cache_resource(max_entries=32, show_spinner=False)
def _icicle(key: str, _tree: Any) -> go.Figure:
    return tree_views.icicle(_tree)


@st.cache_data(max_entries=128, show_spinner=False)
def _frame(key: str, focus: str, depth: int, imperfect: bool, order: str,
           _tree: Any) -> pd.DataFrame:
    return tree_views.tree_frame(tree_views.find(_tree, focus), depth=depth,
                                 imperfect_only=imperfect, order=order)


@st.cache_resource(max_entries=32, show_spinner=False)
def _matrices(key: str, _alignment: Any) -> dict[str, tree_views.MatrixView]:
    out = {f"scope {name}": scope_matrix(_alignment, name) for name in _alignment.scopes}
    out.update({view.title: view for view in tree_views.sequence_views(_alignment.tree)})
    return out


@st.cache_resource(max_entries=64, show_spinner=False)
def _heatmap(key: str, title: str, _view: tree_views.MatrixView) -> go.Figure:
    return tree_views.heatmap(_view)


@st.fragment
def table_section(key: str, tree: Any) -> None:
    paths = [node.path for node in tree_views.containers(tree)]
    left, middle, right = st.columns([2, 1, 1])
    focus = left.selectbox("Start at", paths, format_func=lambda p: p or "/ (root)",
                           **session.bind("oa.tree_focus", "", options=paths))
    depth = middle.slider("Levels to expand", 1, 8, **session.bind("oa.tree_depth", 2))
    imperfect = right.toggle("Only nodes with a deficit",
                             **session.bind("oa.tree_imperfect", False))
    order = st.radio("Rows", list(ORDER_LABELS), format_func=ORDER_LABELS.get,
                     horizontal=True,
                     **session.bind("oa.tree_order", "deficit", options=list(ORDER_LABELS)))
    frame = _frame(key, focus, depth, imperfect, order, tree)
    views.table(frame, "tree", formats=dict.fromkeys(tree_views.NUMBER_COLUMNS, "%.4f"),
                hints=tree_views.COLUMN_HINTS, pinned={"path": 16, "deficit": 5.5},
                key="tree_table")
    st.caption("Path and deficit stay in view when the table scrolls sideways; "
               "— marks a number that does not apply (a container has no similarity) "
               "or a side the node is absent from.")


@st.fragment
def matrix_section(key: str, alignment: Any) -> None:
    matrices = _matrices(key, alignment)
    if not matrices:
        st.caption("No list with more than one candidate pairing in these documents.")
        return
    titles = list(matrices)
    chosen = st.selectbox("List or scope", titles,
                          **session.bind("oa.tree_matrix", titles[0], options=titles))
    table = tree_views.matrix_html(matrices[chosen])
    if table is not None:  # a small matrix: a table, far cheaper to draw than plotly
        st.html(table)
    else:
        st.plotly_chart(_heatmap(key, chosen, matrices[chosen]), key="matrix",
                        config=views.PLOTLY_CONFIG)
    st.caption("Rows are gold items, columns candidate items; boxes mark the chosen pairs.")


started = time.perf_counter()
st.title("Match tree")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
tree = alignment.tree
inputs = views.current_inputs()
key = views.content_key(*inputs) if inputs else ""
st.markdown(f"Score **{views.fmt_score(alignment.score)}**, deficit "
            f"**{views.fmt_score(1 - alignment.score)}**. A node's *contribution* is "
            "effective weight × score (plus its key term); its *deficit* is what fixing it "
            "would recover. Deficits of siblings add up to their parent's.")

st.subheader("Where the deficit lives")
st.plotly_chart(_icicle(key, tree), key="icicle", config=views.PLOTLY_CONFIG)
st.caption("Each tile: the node, its deficit (−) and its score; the area is the deficit. "
           "Click a tile to zoom in, the top bar to zoom out.")

st.subheader("The tree as a table")
table_section(key, tree)

st.subheader("Score matrices")
matrix_section(key, alignment)
scoring.timing_caption(scored, started)
