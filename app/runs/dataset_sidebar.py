"""The sidebar's evaluation-dataset section: pick a bundled dataset or upload one,
choose the run, and go back to the table from a pair opened out of it."""

from __future__ import annotations

import streamlit as st

from oa_core.errors import OAError
from oa_core.runs.output_format import FAILURES

from .. import session
from ..text import md_escape, md_inline
from . import dataset_state

_UPLOAD = "w.ds_upload"
_LINK_ERROR = "oa.ds_link_error"  # a dataset the opening link named but this explorer lacks
DATASET_PAGE = dataset_state.SAMPLE_DIR.parent / "pages" / "dataset.py"


def _on_upload() -> None:
    """Make a dataset of the uploaded files as soon as they are all there."""
    uploads = st.session_state.get(_UPLOAD) or []
    if not uploads:
        return
    files: dict[str, str] = {}
    problems: list[str] = []
    for upload in uploads:
        try:  # files are data: read as text, never run
            files[upload.name] = upload.getvalue().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            problems.append(f"{upload.name}: not UTF-8 text (byte {exc.start})")
    if problems:
        st.session_state[dataset_state.ERRORS] = problems
        return
    try:
        name = dataset_state.add_upload(files)
    except OAError as exc:
        fix = f" Fix: {exc.fix}" if exc.fix else ""
        st.session_state[dataset_state.ERRORS] = [
            f"{exc.document} at {exc.pointer or '(root)'}: {exc.message}.{fix}"]
        return
    st.session_state[dataset_state.ERRORS] = []
    st.session_state[dataset_state.DATASET] = name
    st.session_state[dataset_state.RUN] = ""


def _pair_output(name: str, run: str, identifier: str) -> None:
    """The open pair's format status (cut off, prose around the JSON...) and what the
    model wrote: the single-pair views show the JSON read from it, which for a cut-off
    or wrapped output is not the whole story."""
    found = dataset_state.pair_output(name, run, identifier)
    if found is None:
        return
    if found.status in FAILURES:
        st.warning(f"**Output {md_escape(found.status)}:** {md_escape(found.problem)}.",
                   icon=":material/rule:")
    elif found.problem:
        st.caption(f"Output status **{md_escape(found.status)}**: {md_escape(found.problem)}.")
    if found.raw:
        with st.expander(f"What the model wrote ({len(found.raw):,} characters)",
                         key="w.ds_raw_open", expanded=found.status in FAILURES):
            # a scrolling box: the sidebar is narrow, and the output can be long
            st.code(dataset_state.excerpt(found.raw), language=None, wrap_lines=True,
                    height=320 if len(found.raw) > 300 else "content")


def render() -> None:
    """Draw the section (inside ``st.sidebar``)."""
    state = st.session_state
    entries = {e.name: e for e in dataset_state.entries()}
    uploads = list(dataset_state._uploads())
    options = ["", *entries, *uploads]
    st.header("Evaluation dataset")
    trio = session.trio()
    if trio is not None and trio.pair is not None:
        name, run, identifier = trio.pair
        st.page_link(DATASET_PAGE, label="Back to the dataset table",
                     icon=":material/arrow_back:",
                     query_params={k: v for k, v in st.query_params.to_dict().items()
                                   if k != "pair"})
        st.caption(f"Showing pair “{md_inline(identifier)}” of run "
                   f"“{md_inline(run)}” in {md_inline(name)}.")
        _pair_output(name, run, identifier)

    def title(name: str) -> str:
        if not name:
            return "(none)"
        return entries[name].title if name in entries else f"uploaded ({name})"

    asked = (state.get(session.URL_PENDING) or {}).get("dataset")
    if asked and asked not in options:  # the link names a dataset this explorer lacks
        state[_LINK_ERROR] = asked
    if state.get(_LINK_ERROR) and not state.get(dataset_state.DATASET):
        st.error(f"**Could not open the dataset:** the link names the dataset "
                 f"“{md_escape(state[_LINK_ERROR])}”, which this explorer does not have (an "
                 "uploaded dataset lives only in the explorer that received it). Fix: pick a "
                 "dataset below, or upload its files again.", icon=":material/warning:")
    st.selectbox("Dataset", options, format_func=title,
                 **session.bind(dataset_state.DATASET, "", options=options))
    chosen = state.get(dataset_state.DATASET) or ""
    if chosen in entries and entries[chosen].description:
        st.caption(md_inline(entries[chosen].description))
    data = dataset_state.load(chosen) if chosen else None
    if data is not None:
        runs = dataset_state.run_names(data)
        st.selectbox("Run", runs, **session.bind(dataset_state.RUN, runs[0], options=runs))
    with st.expander("Upload a dataset", expanded=False, key="w.ds_upload_open"):
        st.caption("A schema (`.json`) and JSONL files: `oa batch` pairs files (each one "
                   "run), or a `golds.jsonl` and one predictions file per run, joined by "
                   "`id` (or by line). Files are read as data only.")
        st.file_uploader("Dataset files", type=["json", "jsonc", "jsonl", "ndjson"],
                         accept_multiple_files=True, key=_UPLOAD, on_change=_on_upload)
    for problem in state.get(dataset_state.ERRORS) or []:
        st.error(f"**Could not open the dataset:** {md_escape(problem)}",
                 icon=":material/warning:")
