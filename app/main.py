"""Entry script of the Object Aligner explorer: ``streamlit run app/main.py``.

Sets up the page, the session state and the sidebar, then runs the selected view
from ``pages/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run` puts only app/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import session, sidebar  # noqa: E402

PAGES = (
    ("overview.py", "Overview", ":material/compare:", "overview"),
    ("match_tree.py", "Match tree", ":material/account_tree:", "match-tree"),
    ("referential.py", "Referential alignment", ":material/hub:", "referential"),
    ("feedback.py", "Feedback", ":material/build:", "feedback"),
    ("schema_tuning.py", "Schema tuning", ":material/tune:", "schema-tuning"),
)

# a local favicon: a ":material/...:" page icon would be fetched from a font CDN
st.set_page_config(page_title="Object Aligner Explorer",
                   page_icon=str(ROOT / "static" / "favicon.svg"), layout="wide")
session.init()
navigation = st.navigation([
    st.Page(ROOT / "pages" / file, title=title, icon=icon, url_path=url, default=index == 0)
    for index, (file, title, icon, url) in enumerate(PAGES)])
sidebar.render()
sidebar.show_errors()
navigation.run()
