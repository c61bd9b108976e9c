"""Overview: the score, the deficit, diagnostics and the aligned side-by-side diff.

The diff is a fragment: hiding perfect subtrees, searching and stepping through the
mismatches redraw only the diff, and its HTML is cached on the documents' content.
"""

import time
from typing import Any

import streamlit as st

from app import session, views
from app.pair import scoring
from app.pair.diff_table import STATUS_MARKS, diff_html, diff_rows, mark, mismatches, search
from app.text import md_escape
from oa_core.errors import preview_json

MISMATCH = "oa.ov_mismatch"  # 0-based index of the current mismatch, -1 for none
SCROLL = "oa.ov_scroll"  # bumped by a navigation click: scroll the diff to the mismatch
# A fixed script (no document text in it): bring the current mismatch into view.
_SCROLL_JS = """<script>/* {nonce} */
window.__oaScroll = (window.__oaScroll || 0) + 1;
requestAnimationFrame(() => requestAnimationFrame(() => {{
  const row = document.getElementById("oa-current");
  if (row) row.scrollIntoView({{block: "center"}});
}}));
</script>"""


@st.cache_data(max_entries=64, show_spinner=False)
def _table(key: str, hide: bool, query: str, focus: int, _tree: Any) -> tuple[str, int]:
    """The diff's HTML and the number of search hits (cached on content and view)."""
    tree = _tree
    found = mismatches(tree)
    node = found[focus] if 0 <= focus < len(found) else None
    rows = diff_rows(tree, hide_perfect=hide, query=query, focus=node)
    return diff_html(rows), len(search(tree, query)) if query.strip() else 0


def _step(count: int, by: int) -> None:
    current = st.session_state.get(MISMATCH, -1)
    if current < 0 or current >= count:
        current = -1 if by > 0 else 0
    st.session_state[MISMATCH] = (current + by) % count
    st.session_state[SCROLL] = st.session_state.get(SCROLL, 0) + 1


def _describe(node: Any) -> str:
    """One Markdown line on a mismatch: where, what, both values, what it costs."""
    parts = [f"{md_escape(node.path or '/')}: {STATUS_MARKS[mark(node)]}"]
    for side, path, value in (("gold", node.gold_path, node.gold),
                              ("candidate", node.candidate_path, node.candidate)):
        if path is not None:
            parts.append(f"{side} {md_escape(preview_json(value, 80))}")
    parts.append(f"score {views.fmt_score(node.score)}, costs {views.fmt_score(node.deficit)}")
    return " · ".join(parts)


@st.fragment
def diff_section(key: str, alignment: Any) -> None:
    tree = alignment.tree
    found = mismatches(tree)
    if st.session_state.get(MISMATCH, -1) >= len(found):
        st.session_state[MISMATCH] = -1
    hide_col, search_col = st.columns([1, 2], vertical_alignment="bottom")
    hide = hide_col.toggle("Hide perfect subtrees", **session.bind("oa.hide_perfect", True),
                           help="Leave out every part of the documents that scores 1")
    query = search_col.text_input("Search by path or value", placeholder="e.g. /entities/4 "
                                  "or decoder", **session.bind("oa.ov_search", ""))
    current = st.session_state.get(MISMATCH, -1)
    prev_col, next_col, where_col = st.columns([1.4, 1.4, 4], vertical_alignment="center")
    prev_col.button("Previous mismatch", icon=":material/arrow_upward:", key="ov.prev",
                    on_click=_step, args=(len(found), -1), disabled=not found,
                    width="stretch")
    next_col.button("Next mismatch", icon=":material/arrow_downward:", key="ov.next",
                    on_click=_step, args=(len(found), 1), disabled=not found,
                    width="stretch")
    if not found:
        where_col.markdown("No mismatches: the candidate matches the gold.")
    elif current < 0:
        where_col.markdown(f"**{len(found)} mismatch{'es' * (len(found) != 1)}**; "
                           "step through them with the buttons.")
    else:
        where_col.markdown(f"**Mismatch {current + 1} of {len(found)}:** "
                           + _describe(found[current]))
    html, hits = _table(key, hide, query, current, tree)
    if query.strip():
        st.caption(f"{hits} node{'s' * (hits != 1)} match “{md_escape(query.strip())}” "
                   "(shown with their parents; perfect ones too)." if hits else
                   f"Nothing matches “{md_escape(query.strip())}”.")
    st.html(html)
    nonce = st.session_state.get(SCROLL, 0)
    if current >= 0 and nonce:
        st.html(_SCROLL_JS.format(nonce=nonce), unsafe_allow_javascript=True)


started = time.perf_counter()
st.title("Overview")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
views.score_header(alignment)
views.diagnostics(alignment)
views.source_text(session.trio())
st.subheader("Gold and candidate, aligned")
inputs = views.current_inputs()
diff_section(views.content_key(*inputs) if inputs else "", alignment)
scoring.timing_caption(scored, started)
