"""The sidebar: choose an example or load your own documents, see edits, download."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from . import session
from .examples import DOCUMENTS, list_examples
from .text import md_escape, md_inline

_EXAMPLE_WIDGET = "w.example"
_SCHEMA_WIDGET = "w.example.schema"
_CANDIDATE_WIDGET = "w.example.candidate"
_UPLOAD = "w.upload.{}"
_PASTE = "w.paste.{}"


def _on_example() -> None:
    name = st.session_state.get(_EXAMPLE_WIDGET)
    if name:
        session.select_example(name)
        st.session_state[session.QUERY_SEEN] = name
        st.query_params["example"] = name


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
    st.session_state[session.QUERY_SEEN] = None
    if "example" in st.query_params:
        del st.query_params["example"]


def _on_upload(document: str) -> None:
    """Load an uploaded file as soon as the server has it (removing one loads nothing)."""
    upload = st.session_state.get(_UPLOAD.format(document))
    if upload is not None:
        _load({document: (upload.name, upload.getvalue())},
              {document: ("upload", upload.name)})


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
    _load(texts, {document: ("paste", "") for document in texts})


def _reset_edits() -> None:
    st.session_state[session.SCHEMA_EDITS] = {}


def _reset_fixes() -> None:
    st.session_state[session.FIXES] = []


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def render() -> None:
    """Draw the sidebar (example picker, upload/paste, state, downloads)."""
    trio = session.trio()
    examples = list_examples()
    by_name = {e.name: e for e in examples}
    with st.sidebar:
        st.header("Documents")
        source = trio.source if trio is not None else None
        st.session_state[_EXAMPLE_WIDGET] = source if source in by_name else None
        st.selectbox("Bundled example", list(by_name), key=_EXAMPLE_WIDGET,
                     format_func=lambda name: by_name[name].title,
                     placeholder="custom input", on_change=_on_example)
        if source in by_name and trio is not None:
            example = by_name[source]
            if example.description:
                st.caption(example.description)
            for widget, variants, current, label in (
                    (_SCHEMA_WIDGET, example.schemas, trio.schema_file, "Schema"),
                    (_CANDIDATE_WIDGET, example.candidates, trio.candidate_file, "Candidate")):
                if len(variants) > 1:
                    labels = {v.file: v.label for v in variants}
                    st.session_state[widget] = current if current in labels else None
                    st.selectbox(label, list(labels), key=widget, format_func=labels.get,
                                 on_change=_on_variant)
        elif trio is not None and source == "custom":
            where, mixed = session.provenance(trio)
            if mixed:
                st.info(f"**Mixed documents.** {md_inline(where)}. Upload or paste the "
                        "others too, or pick an example above to start over.",
                        icon=":material/merge:")
            else:
                st.caption(f"Custom input: {md_inline(where)}")
        with st.expander("Upload or paste your own", expanded=False):
            st.caption("JSON or JSONC (comments, trailing commas). A file loads as soon as "
                       "it is uploaded; pasted text when you press the button. Documents "
                       "you do not give keep their current value.")
            for document in DOCUMENTS:
                st.file_uploader(f"{document.capitalize()} file",
                                 type=["json", "jsonc", "txt"], key=_UPLOAD.format(document),
                                 on_change=_on_upload, args=(document,))
                st.text_area(f"…or paste the {document}", key=_PASTE.format(document),
                             height=80)
            st.button("Load the pasted documents", on_click=_on_paste, type="primary")
        edits = session.schema_edits()
        fixes = st.session_state.get(session.FIXES, [])
        if edits:
            st.info(f"Schema edited ({len(edits)} change{'s' * (len(edits) != 1)}); "
                    "every page scores with the edited schema.")
            st.button("Reset schema edits", on_click=_reset_edits)
        if fixes:
            st.info(f"{len(fixes)} fix{'es' * (len(fixes) != 1)} applied to the candidate.")
            st.button("Undo all fixes", on_click=_reset_fixes)
        if trio is not None:
            st.subheader("Download")
            bundle = {"gold": trio.gold, "candidate": session.current_candidate(),
                      "schema": session.edited_schema()}
            st.download_button("Current trio (JSON)", _dumps(bundle),
                               file_name=f"{trio.source}-trio.json",
                               mime="application/json")
            st.download_button("Edited schema (JSON)", _dumps(session.edited_schema()),
                               file_name=f"{trio.source}-schema.json",
                               mime="application/json")


def show_errors() -> None:
    """Show the last load errors in the main area (the previous documents stay loaded)."""
    errors: list[session.LoadError] = st.session_state.get(session.ERRORS, [])
    for error in errors:
        where = f"at {md_escape(error.pointer)}" if error.pointer else "(whole document)"
        lines = [f"**Could not load the {error.document}** from {md_escape(error.source)} "
                 f"{where}:",
                 "", f"{md_escape(error.message)}"]
        if error.fix:
            lines += ["", f"Fix: {md_escape(error.fix)}"]
        if session.trio() is not None:
            lines += ["", "The previously loaded documents are still in use."]
        st.error("\n".join(lines), icon=":material/warning:")
