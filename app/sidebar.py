"""The sidebar: choose an example or load your own documents, see edits, download."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from oa_core.errors import OAError

from . import session, views
from .examples import DOCUMENTS, list_examples
from .pair import scoring
from .runs import dataset_sidebar
from .text import md_escape, md_inline

_EXAMPLE_WIDGET = "w.example"
_SCHEMA_WIDGET = "w.example.schema"
_CANDIDATE_WIDGET = "w.example.candidate"
_UPLOAD = "w.upload.{}"
_PASTE = "w.paste.{}"
_LINE_WIDGET = "w.jsonl_line"
# How many schema edits the sidebar shows: a page whose knobs live in a fragment (Schema
# tuning) reruns the whole app when its edits no longer match this count.
EDITS_SHOWN = "oa.sidebar_edits_shown"


def _on_example() -> None:
    name = st.session_state.get(_EXAMPLE_WIDGET)
    if name:
        session.select_example(name)
        st.session_state[session.JSONL] = None


def _on_variant() -> None:
    trio = session.trio()
    if trio is not None:
        session.select_example(trio.source, st.session_state.get(_SCHEMA_WIDGET),
                               st.session_state.get(_CANDIDATE_WIDGET))


def _load(texts: dict[str, tuple[str, str | bytes]],
          origins: dict[str, tuple[str, str]]) -> None:
    """Replace the given documents (the others stay), or record why they cannot be."""
    trio, errors = session.parse_trio(texts, session.trio(), origins)
    if trio is None:
        st.session_state[session.ERRORS] = errors
        return
    session.set_trio(trio)


def _on_upload(document: str) -> None:
    """Load an uploaded file as soon as the server has it (removing one loads nothing).

    A whole trio (the "Current trio (JSON)" download) loads as a trio in any uploader;
    a JSONL file loads its first line and offers a picker of its lines.
    """
    upload = st.session_state.get(_UPLOAD.format(document))
    if upload is None:
        return
    data = upload.getvalue()
    lines = None
    if upload.name.lower().endswith(session.JSONL_SUFFIXES):
        values, error = session.read_values(document, upload.name, data)
        if error is not None:
            st.session_state[session.ERRORS] = [error]
            return
        if len(values) > 1:
            lines = {"document": document, "name": upload.name, "values": values}
    st.session_state[session.JSONL] = lines
    _load({document: (upload.name, data)}, {document: ("upload", upload.name)})
    st.session_state[_LINE_WIDGET] = 0


def _on_line() -> None:
    """Load the JSONL line picked in the sidebar."""
    lines = st.session_state.get(session.JSONL)
    index = st.session_state.get(_LINE_WIDGET)
    if not lines or index is None:
        return
    label, value = lines["values"][index]
    _load({lines["document"]: (label, session.canonical(value))},
          {lines["document"]: ("upload", label)})


def _line_label(lines: dict[str, Any], index: int) -> str:
    label, value = lines["values"][index]
    kind = ("trio" if session.is_bundle(value) and "schema" in value
            else "pair" if session.is_bundle(value) else lines["document"])
    name = f" “{value['id']}”" if session.is_bundle(value) and "id" in value else ""
    return f"{label.removeprefix(lines['name']).strip()}: {kind}{name}"


def _on_paste() -> None:
    texts: dict[str, tuple[str, str | bytes]] = {}
    for document in DOCUMENTS:
        pasted = st.session_state.get(_PASTE.format(document)) or ""
        if pasted.strip():
            texts[document] = (f"pasted {document}", pasted)
    if not texts:
        st.session_state[session.ERRORS] = [session.LoadError(
            "input", "sidebar", "nothing pasted",
            fix="paste at least one of gold, candidate, schema (or upload a file)")]
        return
    st.session_state[session.JSONL] = None
    _load(texts, {document: ("paste", "") for document in texts})


def short_title(title: str) -> str:
    """An example's title up to its colon: what the picker shows.

    Examples
    --------
    >>> short_title("Org2Graph: relabelled graph"), short_title("Plain")
    ('Org2Graph', 'Plain')
    """
    return title.partition(":")[0].strip() or title


def _reset_edits() -> None:
    st.session_state[session.SCHEMA_EDITS] = {}


def _reset_fixes() -> None:
    st.session_state[session.FIXES] = []


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _when_clicked(document: str) -> Callable[[], str]:
    """Download data made when the button is clicked, from the session's state then.

    The Schema tuning knobs rerun only their fragment, never this sidebar: data put
    into the button at the sidebar's last run would miss the edits made since. The
    callable runs on a server thread with no script context, so it reads the session's
    state object directly (under its lock).
    """
    ctx = get_script_run_ctx()
    state: Any = ctx.session_state if ctx is not None else st.session_state

    def read(key: str, default: Any) -> Any:
        try:  # the state object has no .get()
            return state[key]
        except KeyError:
            return default

    def data() -> str:
        bundle = session.bundle(state[session.TRIO], read(session.FIXES, []),
                                read(session.SCHEMA_EDITS, {}))
        return _dumps(bundle if document == "trio" else bundle["schema"])

    return data


def render() -> None:
    """Draw the sidebar (example picker, upload/paste, state, downloads)."""
    trio = session.trio()
    examples = list_examples()
    by_name = {e.name: e for e in examples}
    with st.sidebar:
        st.header("Documents")
        source = trio.source if trio is not None else None
        st.session_state[_EXAMPLE_WIDGET] = source if source in by_name else None
        # the picker shows the short name (never cut off), the caption the rest
        st.selectbox("Bundled example", list(by_name), key=_EXAMPLE_WIDGET,
                     format_func=lambda name: short_title(by_name[name].title),
                     placeholder="custom input", on_change=_on_example)
        if source in by_name and trio is not None:
            example = by_name[source]
            subtitle = example.title.partition(":")[2].strip()
            about = " ".join(part for part in (
                f"**{md_inline(subtitle[:1].upper() + subtitle[1:])}.**" if subtitle else "",
                md_inline(example.description)) if part)
            if about:
                st.caption(about)
            for widget, variants, current, label in (
                    (_SCHEMA_WIDGET, example.schemas, trio.schema_file, "Schema"),
                    (_CANDIDATE_WIDGET, example.candidates, trio.candidate_file, "Candidate")):
                if len(variants) > 1:
                    labels = {v.file: v.label for v in variants}
                    st.session_state[widget] = current if current in labels else None
                    # radio buttons wrap long labels, where a select box cuts them off
                    st.radio(label, list(labels), key=widget, format_func=labels.get,
                             on_change=_on_variant)
        elif trio is not None and source == "custom":
            where, mixed = session.provenance(trio)
            if mixed:
                st.info(f"**Mixed documents.** {md_inline(where)}. Upload or paste the "
                        "others too, or pick an example above to start over.",
                        icon=":material/merge:")
            else:
                st.caption(f"Custom input: {md_inline(where)}")
            if trio.pair is None:  # a dataset's pair is named in the link (``pair``)
                st.caption(":material/link: A link to this view names these documents in "
                           "this explorer's memory: a refresh keeps them while it runs, but a "
                           "link does not carry documents, so elsewhere it reproduces the "
                           "options only. To share the documents, download the current trio "
                           "below: it loads back as a trio in any uploader.")
        lines = st.session_state.get(session.JSONL)
        if lines and trio is not None and trio.source == "custom":
            count = len(lines["values"])
            st.selectbox(f"Line of {md_inline(lines['name'])} ({count} values)",
                         range(count), key=_LINE_WIDGET, on_change=_on_line,
                         format_func=lambda k: _line_label(lines, k))
        # a key keeps the expander (open or not) when the elements above it change
        with st.expander("Upload or paste your own", expanded=False, key="w.upload_open"):
            st.caption("JSON or JSONC (comments, trailing commas), or JSONL (one value per "
                       "line: the first loads, then pick a line). A file loads as soon as "
                       "it is uploaded; pasted text when you press the button. Documents "
                       "you do not give keep their current value. A whole trio "
                       "(`{\"gold\", \"candidate\", \"schema\"}`, as downloaded below) "
                       "or a pair (a line of `oa batch` input) loads all its documents, "
                       "whichever box takes it.")
            for document in DOCUMENTS:
                st.file_uploader(f"{document.capitalize()} file",
                                 type=["json", "jsonc", "txt", "jsonl", "ndjson"],
                                 key=_UPLOAD.format(document),
                                 on_change=_on_upload, args=(document,))
                st.text_area(f"…or paste the {document}", key=_PASTE.format(document),
                             height=80)
            st.button("Load the pasted documents", on_click=_on_paste, type="primary",
                      key="w.load_pasted")
        edits = session.schema_edits()
        fixes = st.session_state.get(session.FIXES, [])
        if edits:
            st.info(f"Schema edited ({len(edits)} change{'s' * (len(edits) != 1)}); "
                    "every page scores with the edited schema.")
            st.button("Reset schema edits", on_click=_reset_edits)
        if fixes:
            st.info(f"{len(fixes)} fix{'es' * (len(fixes) != 1)} applied to the candidate.")
            st.button("Undo all fixes", on_click=_reset_fixes)
        st.session_state[EDITS_SHOWN] = len(edits)
        if trio is not None:
            st.subheader("Download")
            st.download_button("Current trio (JSON)", _when_clicked("trio"),
                               file_name=f"{trio.source}-trio.json",
                               mime="application/json", on_click="ignore")
            st.download_button("Edited schema (JSON)", _when_clicked("schema"),
                               file_name=f"{trio.source}-schema.json",
                               mime="application/json", on_click="ignore")
        dataset_sidebar.render()  # evaluation runs: a dataset and its run


def show_errors() -> None:
    """Show the last load errors in the main area (the previous documents stay loaded)."""
    errors: list[session.LoadError] = st.session_state.get(session.ERRORS, [])
    for index, error in enumerate(errors):
        where = f"at {md_escape(error.pointer)}" if error.pointer else "(whole document)"
        lines = [f"**Could not load the {error.document}** from {md_escape(error.source)} "
                 f"{where}:",
                 "", f"{md_escape(error.message)}"]
        if error.fix:
            lines += ["", f"Fix: {md_escape(error.fix)}"]
        if session.trio() is not None:
            lines += ["", "The previously loaded documents are still in use."]
        st.error("\n".join(lines), icon=":material/warning:")
        views.full_values(error.values, f"load.{index}")


@st.cache_data(max_entries=32, show_spinner=False)
def _warnings(gold: str, candidate: str, schema: str) -> list[str]:
    try:  # parsed once per schema (a dataset's pairs share theirs)
        parsed: Any = scoring.parsed_schema(schema)
    except OAError:
        parsed = json.loads(schema)
    return session.trio_warnings(json.loads(gold), json.loads(candidate), parsed)


def show_warnings() -> None:
    """Warn in the main area about a likely mix-up: undeclared gold keys, no shared keys."""
    trio = session.trio()
    if trio is None:
        return
    try:
        texts = (session.canonical(trio.gold), session.canonical(session.current_candidate()),
                 session.canonical(session.edited_schema()))
    except (TypeError, ValueError):
        return
    for warning in _warnings(*texts):
        st.warning(md_escape(warning), icon=":material/help:")
