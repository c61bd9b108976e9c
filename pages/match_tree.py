"""Match tree: every compared pair with its weights, where the deficit lives, score matrices."""

import time

import streamlit as st

from app import scoring, session, tree_views
from app.scope_views import scope_matrix

started = time.perf_counter()
st.title("Match tree")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
tree = alignment.tree
st.markdown(f"Score **{alignment.score:.4f}**, deficit **{1 - alignment.score:.4f}**. "
            "A node's *contribution* is effective weight × score (plus its key term); its "
            "*deficit* is what fixing it would recover. Deficits of siblings add up to "
            "their parent's.")

st.subheader("Where the deficit lives")
st.plotly_chart(tree_views.icicle(tree), key="icicle")

st.subheader("The tree as a table")
paths = [node.path for node in tree_views.containers(tree)]
left, middle, right = st.columns([2, 1, 1])
focus = left.selectbox("Start at", paths, format_func=lambda p: p or "/ (root)",
                       **session.bind("oa.tree_focus", "", options=paths))
depth = middle.slider("Levels to expand", 1, 8, **session.bind("oa.tree_depth", 2))
imperfect = right.toggle("Only nodes with a deficit", **session.bind("oa.tree_imperfect", False))
frame = tree_views.tree_frame(tree_views.find(tree, focus), depth=depth,
                              imperfect_only=imperfect)
number = st.column_config.NumberColumn(format="%.4f")
st.dataframe(frame, hide_index=True, column_config={
    name: number for name in ("similarity", "score", "weight", "effective weight",
                              "contribution", "deficit")})

st.subheader("Score matrices")
views = {f"scope {name}": scope_matrix(alignment, name) for name in alignment.scopes}
views.update({view.title: view for view in tree_views.sequence_views(tree)})
if views:
    titles = list(views)
    chosen = st.selectbox("List or scope", titles,
                          **session.bind("oa.tree_matrix", titles[0], options=titles))
    st.plotly_chart(tree_views.heatmap(views[chosen]), key="matrix")
    st.caption("Rows are gold items, columns candidate items; boxes mark the chosen pairs.")
else:
    st.caption("No list with more than one candidate pairing in these documents.")
scoring.timing_caption(scored, started)
