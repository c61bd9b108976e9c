"""Loading a bundled example (``sample_data/``) as the current trio."""

from __future__ import annotations

import streamlit as st

from ..examples import DEFAULT_EXAMPLE, DOCUMENTS, Example, list_examples
from .current import ERRORS, set_trio
from .inputs import LoadError, Trio, parse_trio

__all__ = ["load_default", "load_example", "select_example"]


def load_example(example: Example, schema_file: str | None = None,
                 candidate_file: str | None = None) -> tuple[Trio | None, list[LoadError]]:
    """Read and parse a bundled example (its first schema and candidate by default)."""
    files = {"gold": example.gold_path(),
             "schema": example.folder / (schema_file or example.schemas[0].file),
             "candidate": example.folder / (candidate_file or example.candidates[0].file)}
    texts: dict[str, tuple[str, str | bytes]] = {}
    for document, path in files.items():
        label = f"sample_data/{example.name}/{path.relative_to(example.folder)}"
        try:
            texts[document] = (label, path.read_bytes())
        except OSError as exc:
            return None, [LoadError("example", label, exc.strerror or str(exc),
                                    fix="restore the example's files")]
    trio, errors = parse_trio(texts, None)
    if trio is not None:
        trio.source = example.name
        trio.schema_file = str(files["schema"].relative_to(example.folder))
        trio.candidate_file = str(files["candidate"].relative_to(example.folder))
        trio.origins = {document: ("example", example.name) for document in DOCUMENTS}
    return trio, errors



def select_example(name: str, schema_file: str | None = None,
                   candidate_file: str | None = None) -> bool:
    """Load a bundled example (or record why it cannot be loaded).

    Parameters
    ----------
    name : str
        The example's folder name.
    schema_file, candidate_file : str, optional
        Which schema and candidate variant (files relative to the folder); one the
        example does not list is ignored (its first variant is used).

    Returns
    -------
    bool
        Whether the example is now loaded.
    """
    examples = list_examples()
    example = next((e for e in examples if e.name == name), None)
    if example is None:
        known = ", ".join(e.name for e in examples) or "none"
        st.session_state[ERRORS] = [LoadError("example", f"?example={name}",
                                              f"there is no bundled example {name!r}",
                                              fix=f"use one of: {known}")]
        return False
    if schema_file not in {v.file for v in example.schemas}:
        schema_file = None
    if candidate_file not in {v.file for v in example.candidates}:
        candidate_file = None
    trio, errors = load_example(example, schema_file, candidate_file)
    if trio is None:
        st.session_state[ERRORS] = errors
        return False
    set_trio(trio)
    return True


def load_default() -> None:
    """Load the default example (keeping the errors already shown)."""
    state = st.session_state
    names = [e.name for e in list_examples()]
    if names:
        earlier = list(state.get(ERRORS, []))  # e.g. an unknown ?example=, kept in view
        select_example(DEFAULT_EXAMPLE if DEFAULT_EXAMPLE in names else names[0])
        state[ERRORS] = earlier + state[ERRORS]
