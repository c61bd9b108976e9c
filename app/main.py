"""Entry script of the Object Aligner explorer: ``streamlit run app/main.py``.

Sets up the page, the session state (restored from the URL on a session's first run)
and the sidebar, runs the selected view from ``pages/``, and writes the state back into
the URL on every run (a page switch drops the parameters; this puts them back).
"""

from __future__ import annotations

import gc
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run` puts only app/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.runtime.scriptrunner_utils.exceptions import StopException  # noqa: E402

from app import session, sidebar  # noqa: E402

PAGES = (
    ("overview.py", "Overview", ":material/compare:", "overview"),
    ("match_tree.py", "Match tree", ":material/account_tree:", "match-tree"),
    ("referential.py", "Referential alignment", ":material/hub:", "referential"),
    ("feedback.py", "Feedback", ":material/build:", "feedback"),
    ("schema_tuning.py", "Schema tuning", ":material/tune:", "schema-tuning"),
    # a whole evaluation run (app/dataset_state.py); a row opens the views above
    ("dataset.py", "Dataset", ":material/table_view:", "dataset"),
    ("error_patterns.py", "Error patterns", ":material/grid_on:", "error-patterns"),
    ("field_metrics.py", "Field metrics", ":material/fact_check:", "field-metrics"),
    ("compare_runs.py", "Compare runs", ":material/compare_arrows:", "compare-runs"),
    ("run_tuning.py", "Run tuning", ":material/tune:", "run-tuning"),
)

# a local favicon: a ":material/...:" page icon would be fetched from a font CDN
st.set_page_config(page_title="Object Aligner Explorer",
                   page_icon=str(ROOT / "static" / "favicon.svg"), layout="wide")


@st.cache_resource(show_spinner=False)
def _freeze_startup_heap() -> bool:
    """Once per server: move everything alive now (the loaded libraries: Streamlit,
    plotly, pandas, numpy, oa_core) out of the garbage collector's sight.

    Python's full collections otherwise walk those millions of objects: 100-200 ms
    each, a few times a minute, in the middle of whatever the user just did. They
    live as long as the server anyway.
    """
    gc.freeze()
    return True


# The browser loads plotly (Streamlit's 4.7 MB chart chunk) when a page first draws a
# chart: about 1.1 s of the first Match tree or Referential visit (1.9 s -> 0.75 s
# measured, fresh profile, load 3.6). Once per session, when the browser has been idle
# a while after the first page, import that chunk ahead: the later import by Streamlit
# gets the same module. The script is fixed text; only the chunk's file name is put in.
_PRELOAD_JS = """<script>
(() => {{
  const index = document.querySelector('script[src*="/static/js/index."]');
  if (!index || window.__oaPlotlyPreload) return;
  window.__oaPlotlyPreload = true;
  const url = new URL("{chunk}", index.src).href;
  setTimeout(() => (window.requestIdleCallback || setTimeout)(() => import(url)), 3000);
}})();
</script>"""
PRELOADED = "oa.plotly_preloaded"


@st.cache_resource(show_spinner=False)
def _plotly_chunk() -> str | None:
    """The file name of Streamlit's plotly chunk (None if this Streamlit has none)."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(folder.glob("PlotlyChart.*.js"))
    return found[0].name if found and re.fullmatch(r"[\w.-]+", found[0].name) else None


def _preload_plotly() -> None:
    """Send the preload script until a run of this session has completed with it (a
    run cut short, e.g. by the ``/`` redirect, may never reach the browser)."""
    chunk = _plotly_chunk()
    if chunk is None or st.session_state.get(PRELOADED):
        return
    with st.sidebar:
        st.html(_PRELOAD_JS.format(chunk=chunk), unsafe_allow_javascript=True)


_freeze_startup_heap()
session.init()
pages = [st.Page(ROOT / "pages" / file, title=title, icon=icon, url_path=url)
         for file, title, icon, url in PAGES]


def _root() -> None:
    """Send ``/`` to the first view, so every view has its own URL (``/overview`` too)."""
    st.switch_page(pages[0], query_params=st.query_params.to_dict())


navigation = st.navigation([*pages, st.Page(_root, title=PAGES[0][1], url_path="",
                                            default=True, visibility="hidden")])
sidebar.render()
_preload_plotly()
session.sync_url()
sidebar.show_errors()
sidebar.show_warnings()
try:
    navigation.run()
except StopException:  # st.stop() in a page: its options are still worth keeping
    session.sync_url()
    st.session_state[PRELOADED] = True
    raise
session.sync_url()
st.session_state[PRELOADED] = True  # this run reached the end: the browser has it
