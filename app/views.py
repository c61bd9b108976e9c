"""Small page sections shared by several views."""

from __future__ import annotations

import streamlit as st

from oa_core import Alignment, Diagnostic

from .text import md_escape


def score_header(alignment: Alignment) -> None:
    """Score, deficit and diagnostic counts as metrics."""
    columns = st.columns(4)
    columns[0].metric("Score", f"{alignment.score:.2f}", help=f"exactly {alignment.score!r}")
    columns[1].metric("Deficit", f"{1.0 - alignment.score:.2f}",
                      help="1 − score: what the repair operations can recover")
    columns[2].metric("Warnings", len(alignment.warnings))
    columns[3].metric("Schema violations", len(alignment.violations),
                      help="JSON Schema checks of the candidate (they do not change the score)")


def _diagnostic_text(diagnostic: Diagnostic) -> str:
    where = md_escape(diagnostic.pointer or "(root)")
    return (f"**{md_escape(diagnostic.code)}** in the {md_escape(diagnostic.document)} at "
            f"{where}: {md_escape(diagnostic.message)}")


def diagnostics(alignment: Alignment) -> None:
    """The alignment's warnings and the candidate's schema violations."""
    for diagnostic in alignment.warnings:
        st.warning(_diagnostic_text(diagnostic), icon=":material/warning:")
    for diagnostic in alignment.violations:
        st.error(_diagnostic_text(diagnostic), icon=":material/block:")
    if not alignment.warnings and not alignment.violations:
        st.success("No warnings; the candidate satisfies the schema.",
                   icon=":material/check_circle:")
