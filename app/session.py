"""The explorer's session state: the loaded trio, edits, fixes, options and errors.

Everything that must survive a page switch lives in plain (non-widget) keys of
``st.session_state``; widgets are bound to them with :func:`bind`, because
Streamlit drops a widget's own key when the user leaves its page.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import oa_core
from oa_core.errors import OAError
from oa_core.jsonio import loads
from oa_core.pointer import split
from oa_core.schema import Schema

from .examples import DEFAULT_EXAMPLE, DOCUMENTS, Example, list_examples

TRIO = "oa.trio"
ERRORS = "oa.load_errors"
QUERY_SEEN = "oa.query_example"
SCHEMA_EDITS = "oa.schema_edits"
FIXES = "oa.applied_fixes"
WL_MODE = "oa.wl_mode"
WL_LAMBDA = "oa.wl_lambda"
WL_MODES = ("tie_break", "blend", "none")


@dataclass
class Trio:
    """The documents being compared.

    Parameters
    ----------
    source : str
        The bundled example's name, or ``"custom"`` for uploaded/pasted input.
    gold, candidate, schema : Any
        Parsed JSON values; ``candidate`` is the one the user started from.
    files : dict
        document -> where its text came from.
    schema_file, candidate_file : str or None
        The chosen variants of a bundled example.
    origins : dict
        document -> (how it came, name): ``("example", folder name)``,
        ``("upload", file name)`` or ``("paste", "")``; see :func:`provenance`.
    """

    source: str
    gold: Any
    candidate: Any
    schema: Any
    files: dict[str, str] = field(default_factory=dict)
    schema_file: str | None = None
    candidate_file: str | None = None
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadError:
    """A problem with one input, shown in the page.

    Parameters
    ----------
    document : str
        "gold", "candidate", "schema" or "example".
    source : str
        Where the text came from (file name, "pasted text", example path).
    message : str
        What is wrong, with line/column when it is a syntax error.
    pointer : str
        JSON Pointer of the problem ("" for the whole document).
    fix : str
        What to do about it.
    """

    document: str
    source: str
    message: str
    pointer: str = ""
    fix: str = ""


def canonical(value: Any) -> str:
    """Deterministic JSON text of a value (the cache key of an input)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def error_from(exc: OAError, source: str) -> LoadError:
    """A :class:`LoadError` from an ``oa_core`` input or schema error."""
    return LoadError(exc.document, source, exc.message, exc.pointer, exc.fix)


def parse_trio(texts: dict[str, tuple[str, str | bytes]], fallback: Trio | None,
               origins: dict[str, tuple[str, str]] | None = None,
               ) -> tuple[Trio | None, list[LoadError]]:
    """Parse gold, candidate and schema texts into a :class:`Trio`.

    Parameters
    ----------
    texts : dict
        document -> (source label, text); a document missing here is taken
        from ``fallback``.
    fallback : Trio or None
        The current trio.
    origins : dict, optional
        document -> (how it came, name) of the given texts (see ``Trio.origins``);
        by default ``("upload", source label)``.

    Returns
    -------
    trio : Trio or None
        None when any document is missing or invalid.
    errors : list of LoadError
    """
    values: dict[str, Any] = {}
    errors: list[LoadError] = []
    files: dict[str, str] = {}
    came: dict[str, tuple[str, str]] = {}
    for document in DOCUMENTS:
        if document in texts:
            source, text = texts[document]
            files[document] = source
            came[document] = (origins or {}).get(document, ("upload", source))
            try:
                values[document] = loads(text, document=document)  # type: ignore[arg-type]
            except OAError as exc:
                errors.append(error_from(exc, source))
        elif fallback is not None:
            values[document] = copy.deepcopy(getattr(fallback, document))
            files[document] = fallback.files.get(document, "current")
            came[document] = fallback.origins.get(document) or (
                ("example", fallback.source) if fallback.source != "custom"
                else ("upload", files[document]))
        else:
            errors.append(LoadError(document, "(none)", f"no {document} document given",
                                    fix=f"upload or paste the {document} JSON"))
    if "schema" in values:
        try:
            Schema.parse(values["schema"])
        except OAError as exc:
            errors.append(error_from(exc, files.get("schema", "schema")))
    if errors:
        return None, errors
    return Trio("custom", values["gold"], values["candidate"], values["schema"], files,
                origins=came), []


def provenance(trio: Trio) -> tuple[str, bool]:
    """Where each document of ``trio`` came from, in words, and whether it is a mix.

    Returns
    -------
    text : str
        Documents grouped by origin, e.g. ``"gold: pasted; candidate and schema: from
        running_example"`` (plain text: escape it for Markdown).
    mixed : bool
        True when some documents, but not all, are a bundled example's: the user
        gave only part of the trio and the rest silently stayed from the example.

    Examples
    --------
    >>> trio = Trio("custom", 1, 2, 3, origins={"gold": ("paste", ""),
    ...     "candidate": ("example", "running_example"),
    ...     "schema": ("example", "running_example")})
    >>> provenance(trio)
    ('gold: pasted; candidate and schema: from running_example', True)
    """
    groups: dict[str, list[str]] = {}
    kinds = set()
    for document in DOCUMENTS:
        kind, name = trio.origins.get(document, ("upload", trio.files.get(document, "?")))
        kinds.add(kind == "example")
        label = {"example": f"from {name}", "paste": "pasted"}.get(kind, name)
        groups.setdefault(label, []).append(document)
    text = "; ".join(f"{_and(documents)}: {label}" for label, documents in groups.items())
    return text, kinds == {True, False}


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


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


def set_trio(trio: Trio) -> None:
    """Make ``trio`` current; drop schema edits, applied fixes and load errors."""
    state = st.session_state
    state[TRIO] = trio
    state[SCHEMA_EDITS] = {}
    state[FIXES] = []
    state[ERRORS] = []


def select_example(name: str, schema_file: str | None = None,
                   candidate_file: str | None = None) -> None:
    """Load a bundled example (or record why it cannot be loaded).

    Parameters
    ----------
    name : str
        The example's folder name.
    schema_file, candidate_file : str, optional
        Which schema and candidate variant (files relative to the folder).
    """
    examples = list_examples()
    example = next((e for e in examples if e.name == name), None)
    if example is None:
        known = ", ".join(e.name for e in examples) or "none"
        st.session_state[ERRORS] = [LoadError("example", f"?example={name}",
                                              f"there is no bundled example {name!r}",
                                              fix=f"use one of: {known}")]
        return
    trio, errors = load_example(example, schema_file, candidate_file)
    if trio is None:
        st.session_state[ERRORS] = errors
        return
    set_trio(trio)


def init() -> None:
    """Fill the session defaults; honour ``?example=`` when it changes."""
    state = st.session_state
    state.setdefault(ERRORS, [])
    state.setdefault(SCHEMA_EDITS, {})
    state.setdefault(FIXES, [])
    state.setdefault(WL_MODE, "tie_break")
    state.setdefault(WL_LAMBDA, 0.5)
    requested = st.query_params.get("example")
    if requested and requested != state.get(QUERY_SEEN):
        state[QUERY_SEEN] = requested
        select_example(requested)
    if TRIO not in state:
        names = [e.name for e in list_examples()]
        if names:
            earlier = list(state[ERRORS])  # e.g. an unknown ?example=, kept in view
            select_example(DEFAULT_EXAMPLE if DEFAULT_EXAMPLE in names else names[0])
            state[ERRORS] = earlier + state[ERRORS]


def trio() -> Trio | None:
    """The current trio (None before anything loaded)."""
    value: Trio | None = st.session_state.get(TRIO)
    return value


def current_candidate() -> Any:
    """The candidate with every applied fix."""
    fixes: list[dict[str, Any]] = st.session_state.get(FIXES, [])
    if fixes:
        return fixes[-1]["after"]
    current = trio()
    return None if current is None else current.candidate


def schema_edits() -> dict[str, Any]:
    """Schema edits: JSON Pointer of a keyword -> its new value."""
    edits: dict[str, Any] = st.session_state.setdefault(SCHEMA_EDITS, {})
    return edits


def edited_schema() -> Any:
    """The schema with the tuning edits applied (the schema every page scores with)."""
    current = trio()
    if current is None:
        return None
    return apply_edits(current.schema, schema_edits())


def apply_edits(schema: Any, edits: dict[str, Any]) -> Any:
    """A copy of ``schema`` with ``edits`` (keyword pointer -> value) written in.

    Parameters
    ----------
    schema : dict
        The original schema.
    edits : dict
        RFC 6901 pointer of a keyword (its parent objects must exist) -> value.
    """
    result = copy.deepcopy(schema)
    for pointer, value in edits.items():
        *parents, last = split(pointer)
        target = result
        for token in parents:
            target = target[int(token)] if isinstance(target, list) else target[token]
        target[last] = copy.deepcopy(value)
    return result


def bind(name: str, default: Any, *, options: Sequence[Any] | None = None,
         bounds: tuple[float, float] | None = None) -> dict[str, Any]:
    """Widget keyword arguments that keep a widget's value in a persistent key.

    Parameters
    ----------
    name : str
        The non-widget session key that holds the value across pages.
    default : Any
        Its value on first use (and when the stored one is no longer valid).
    options : sequence, optional
        The widget's choices; a stored value not among them is reset to ``default``.
    bounds : (low, high), optional
        A numeric widget's range; the widget shows the stored value clipped into
        it (the stored value itself is kept for when the range grows again).

    Returns
    -------
    dict
        ``key``/``on_change``/``args`` to pass to the widget (give no ``value``).
    """
    state = st.session_state
    if name not in state or (options is not None and state[name] not in options):
        state[name] = default
    value = state[name]
    if bounds is not None:  # clip what the widget shows, keep the user's choice
        value = min(max(value, bounds[0]), bounds[1])
    widget_key = f"w.{name}"
    state[widget_key] = value
    return {"key": widget_key, "on_change": _copy_widget, "args": (widget_key, name)}


def _copy_widget(widget_key: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget_key]


def apply_fix(op: Any, score_before: float) -> None:
    """Apply one repair operation to the current candidate (undoable).

    Parameters
    ----------
    op : oa_core.RepairOp
        The operation (its JSON Patch is written into a copy of the candidate).
    score_before : float
        The score before the fix, to report the move.
    """
    before = current_candidate()
    after = oa_core.apply_ops(before, [op])
    st.session_state.setdefault(FIXES, []).append({
        "message": op.message, "kind": op.kind, "delta": op.delta,
        "score_before": score_before, "before": before, "after": after})


def undo_fix() -> None:
    """Drop the last applied fix."""
    fixes: list[dict[str, Any]] = st.session_state.get(FIXES, [])
    if fixes:
        fixes.pop()
