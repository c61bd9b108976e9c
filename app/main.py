"""Entry script of the Object Aligner explorer: ``streamlit run app/main.py``.

Sets up the page, the session state (restored from the URL on a session's first run)
and the sidebar, runs the selected view from ``pages/``, and writes the state back into
the URL on every run (a page switch drops the parameters; this puts them back).
"""

from __future__ import annotations

import gc
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run` puts only app/ on the path
    sys.path.insert(0, str(ROOT))

from app.runs import workers  # noqa: E402  (the standard library only)

# `oa explore --dataset DIR`: the scoring workers' fork server starts importing on the
# other core now, while this first run imports the explorer (numpy, scipy, pandas)
workers.warm_if_local_dataset()

import streamlit as st  # noqa: E402
from streamlit.runtime.scriptrunner_utils.exceptions import StopException  # noqa: E402

from app import session, sidebar  # noqa: E402

PAGES = (
    ("overview.py", "Overview", ":material/compare:", "overview"),
    ("match_tree.py", "Match tree", ":material/account_tree:", "match-tree"),
    ("referential.py", "Referential alignment", ":material/hub:", "referential"),
    ("feedback.py", "Feedback", ":material/build:", "feedback"),
    ("schema_tuning.py", "Schema tuning", ":material/tune:", "schema-tuning"),
    # a whole evaluation run (app/runs/dataset_state.py); a row opens the views above
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


# Streamlit's front end loads an element's code (a JavaScript chunk) when a page first
# shows that element. Two kinds are imported ahead, once per session:
#
# - small chunks the views use (the sidebar's page link on a dataset pair, the WL
#   slider, the spinner): as soon as the browser is idle. Fetched on first use, the
#   page link alone put 40-100 ms into the first opening of a dataset pair, on the
#   critical path (a chunk is fetched after the message that needs it arrives);
# - big ones (plotly's 4.7 MB chart chunk, the 1.5 MB code highlighter of Feedback):
#   evaluating plotly's holds the browser's main thread about 0.8 s (measured, idle
#   machine), whenever it happens. On the first chart (Match tree, Referential) that
#   is 0.8 s of the page switch; preloaded right when a long page (a dataset being
#   scored) had just settled, it held up the user's next click (a sort took 0.97 s).
#   So each is imported only after 3 s with no input (pointer, key, wheel) and no
#   change of the page, checked again just before: a click then finds the work done,
#   or (rarely: moving the pointer counts as input) waits out the rest of it.
#
# An import by Streamlit later gets the same module (same URL). The script is fixed
# text; only file names (letters, digits, ".", "_", "-") are put in.
_PRELOAD_JS = """<script>
(() => {{
  const index = document.querySelector('script[src*="/static/js/index."]');
  if (!index || window.__oaPreload) return;
  window.__oaPreload = true;
  const url = name => new URL(name, index.src).href;
  const idle = window.requestIdleCallback || (f => setTimeout(f, 50));
  idle(() => {small}.forEach(name => import(url(name)).catch(() => {{}})));
  const big = {big};
  let last = performance.now();
  const busy = () => {{ last = performance.now(); }};
  const inputs = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart"];
  inputs.forEach(t => addEventListener(t, busy, {{capture: true, passive: true}}));
  const watch = new MutationObserver(busy);
  watch.observe(document.body, {{subtree: true, childList: true, attributes: true,
                                characterData: true}});
  const quiet = () => document.visibilityState === "visible"
    && performance.now() - last >= 3000;
  const next = () => {{
    if (!big.length) {{
      watch.disconnect();
      inputs.forEach(t => removeEventListener(t, busy, {{capture: true}}));
      return;
    }}
    if (!quiet()) return setTimeout(next, 500);
    idle(() => {{
      if (!quiet()) return setTimeout(next, 500);
      const name = big.shift();
      window.__oaPreloaded = (window.__oaPreloaded || []).concat([name]);
      import(url(name)).catch(() => {{}}).finally(() => {{ busy(); setTimeout(next, 500); }});
    }});
  }};
  setTimeout(next, 3000);
}})();
</script>"""
PRELOADED = "oa.chunks_preloaded"
_SMALL_CHUNKS = ("PageLink", "Slider", "Spinner")
_BIG_CHUNKS = ("PlotlyChart", "StreamlitSyntaxHighlighter")


@st.cache_resource(show_spinner=False)
def _chunks() -> tuple[list[str], list[str]]:
    """The file names of the chunks to preload, (small ones, big ones): those of
    :data:`_SMALL_CHUNKS` and :data:`_BIG_CHUNKS` this Streamlit has."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"

    def names(stems: tuple[str, ...]) -> list[str]:
        found = [sorted(folder.glob(f"{stem}.*.js")) for stem in stems]
        return [files[0].name for files in found
                if files and re.fullmatch(r"[\w.-]+", files[0].name)]

    return names(_SMALL_CHUNKS), names(_BIG_CHUNKS)


def _preload_chunks() -> None:
    """Send the preload script until a run of this session has completed with it (a
    run cut short, e.g. by the ``/`` redirect, may never reach the browser)."""
    small, big = _chunks()
    if not (small or big) or st.session_state.get(PRELOADED):
        return
    with st.sidebar:
        st.html(_PRELOAD_JS.format(small=json.dumps(small), big=json.dumps(big)),
                unsafe_allow_javascript=True)


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
_preload_chunks()
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
