"""The explorer's session state: the loaded trio, edits, fixes, options and errors.

Everything that must survive a page switch lives in plain (non-widget) keys of
``st.session_state``; widgets are bound to them with :func:`bind`, because
Streamlit drops a widget's own key when the user leaves its page.

Every choice is also in the URL, so a refresh keeps the view and a copied link shows
it to someone else (see :func:`sync_url` and :func:`restore_from_url`):

- ``example``, ``schema``, ``candidate``: the bundled example and its variants (a
  variant only when it is not the example's first);
- ``trio``: uploaded or pasted documents cannot live in a URL; ``trio`` names them in
  this server's memory (a hash of their content), so a refresh keeps them while the
  explorer runs; a link to them opened elsewhere reproduces the options only;
- ``edits``: the schema edits as compact JSON (``{"pointer": value}``);
- ``fixes``: the applied fixes as compact JSON, the JSON Patch of each;
- every option bound with :func:`bind` (and ``wl_mode``/``wl_lambda``): the session
  name without its ``oa.`` prefix, only when it differs from its default.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import oa_core
from oa_core.errors import OAError
from oa_core.jsonio import extract_json, loads
from oa_core.pointer import split
from oa_core.schema import Schema

from .examples import DEFAULT_EXAMPLE, DOCUMENTS, Example, list_examples

TRIO = "oa.trio"
ERRORS = "oa.load_errors"
SCHEMA_EDITS = "oa.schema_edits"
FIXES = "oa.applied_fixes"
WL_MODE = "oa.wl_mode"
WL_LAMBDA = "oa.wl_lambda"
WL_MODES = tuple(mode.value for mode in oa_core.WLMode)
JSONL = "oa.jsonl"  # the values of the last multi-line JSONL input (for a line picker)
URL_READ = "oa.url_read"  # the session has read the URL it was opened with
URL_PENDING = "oa.url_pending"  # options of that URL no widget has bound yet
BOUND = "oa.bound"  # session name -> default of every option bound to a widget
# URL parameters of the trio itself (not options)
TRIO_PARAMS = ("example", "schema", "candidate", "trio", "edits", "fixes", "pair")
# options every page scores with, restored from the URL before any page runs
GLOBAL_OPTIONS: dict[str, tuple[Any, tuple[Any, ...] | None]] = {
    WL_MODE: ("tie_break", WL_MODES), WL_LAMBDA: (0.5, None)}
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_PAIR_KEYS = frozenset({"id", "gold", "candidate", "prediction", "schema"})


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
        ``("upload", file name)``, ``("paste", "")`` or ``("dataset", pair label)``;
        see :func:`provenance`.
    pair : (str, str, str) or None
        ``(dataset, run, id)`` when the trio is a pair of an evaluation dataset
        (:mod:`app.dataset_state`); the URL then names it as ``pair``.
    """

    source: str
    gold: Any
    candidate: Any
    schema: Any
    files: dict[str, str] = field(default_factory=dict)
    schema_file: str | None = None
    candidate_file: str | None = None
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)
    pair: tuple[str, str, str] | None = None


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


def read_values(document: str, source: str, text: str | bytes,
                ) -> tuple[list[tuple[str, Any]], LoadError | None]:
    """The JSON values of one input, each with a label saying where it came from.

    Parameters
    ----------
    document : str
        The document the input was given as ("gold", "candidate" or "schema").
    source : str
        Its file name or label; a ``.jsonl``/``.ndjson`` name is read one value per
        non-blank line (labelled ``"NAME line N"``), anything else as one JSON/JSONC value.
    text : str or bytes

    Returns
    -------
    values : list of (label, value)
        Empty when there is an error.
    error : LoadError or None

    Examples
    --------
    >>> read_values("gold", "p.jsonl", '{"a": 1}\\n\\n[2]\\n')
    ([('p.jsonl line 1', {'a': 1}), ('p.jsonl line 3', [2])], None)
    >>> read_values("gold", "p.jsonl", '{"a": 1}\\n{"b" 2}')[1].source
    'p.jsonl line 2'
    """
    if not source.lower().endswith(JSONL_SUFFIXES):
        try:
            return [(source, loads(text, document=document))], None  # type: ignore[arg-type]
        except OAError as exc:
            return [], error_from(exc, source)
    lines: list[str | bytes] = list(text.splitlines())
    values: list[tuple[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        label = f"{source} line {number}"
        try:
            values.append((label, loads(line, document=document)))  # type: ignore[arg-type]
        except OAError as exc:
            return [], error_from(exc, label)
    if not values:
        return [], LoadError(document, source, "this JSONL file holds no JSON value",
                             fix="give one JSON value per line")
    return values, None


def is_bundle(value: Any) -> bool:
    """Whether ``value`` is a whole trio or a pair rather than one document.

    A bundle is an object with ``gold`` and ``candidate`` (or ``prediction``, raw model
    text), optionally ``schema`` and ``id``, and no other key: the explorer's
    "Current trio (JSON)" download, or a line of an ``oa batch`` JSONL file.

    Examples
    --------
    >>> is_bundle({"gold": {}, "candidate": {}, "schema": {}}), is_bundle({"gold": 1})
    (True, False)
    >>> is_bundle({"gold": 1, "candidate": 2, "note": "x"})
    False
    """
    return (isinstance(value, dict) and "gold" in value
            and ("candidate" in value or "prediction" in value) and set(value) <= _PAIR_KEYS)


def documents_of(document: str, value: Any) -> dict[str, Any]:
    """The documents one input value gives: every document of a bundle, else ``document``.

    Raises
    ------
    oa_core.OAError
        When a bundle's ``prediction`` holds no JSON value.
    """
    if not is_bundle(value):
        return {document: value}
    found = {name: value[name] for name in DOCUMENTS if name in value}
    if "candidate" not in found:
        prediction = value["prediction"]
        found["candidate"] = (extract_json(prediction) if isinstance(prediction, str)
                              else prediction)
    return found


def parse_trio(texts: dict[str, tuple[str, str | bytes]], fallback: Trio | None,
               origins: dict[str, tuple[str, str]] | None = None,
               ) -> tuple[Trio | None, list[LoadError]]:
    """Parse gold, candidate and schema texts into a :class:`Trio`.

    Parameters
    ----------
    texts : dict
        document -> (source label, text); a document missing here is taken
        from ``fallback``. A text holding a whole trio (``{"gold", "candidate",
        "schema"}``, as the explorer downloads it) or a pair (a line of an ``oa batch``
        JSONL file) gives all its documents, whichever document it was given as; a
        document given on its own wins over one from a bundle. A JSONL text gives its
        first value.
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
    errors: list[LoadError] = []
    alone: dict[str, tuple[Any, str, tuple[str, str]]] = {}
    bundled: dict[str, tuple[Any, str, tuple[str, str]]] = {}
    for document, (source, text) in texts.items():
        origin = (origins or {}).get(document, ("upload", source))
        values, error = read_values(document, source, text)
        if error is not None:
            errors.append(error)
            continue
        label, value = values[0]
        try:
            found = documents_of(document, value)
        except OAError as exc:
            errors.append(error_from(exc, label))
            continue
        target = alone if len(found) == 1 and document in found else bundled
        for name, item in found.items():
            target[name] = (item, label, origin)
    given = {**bundled, **alone}
    values_: dict[str, Any] = {}
    files: dict[str, str] = {}
    came: dict[str, tuple[str, str]] = {}
    for document in DOCUMENTS:
        if document in given:
            values_[document], files[document], came[document] = given[document]
        elif any(error.document == document for error in errors):
            continue
        elif fallback is not None:
            values_[document] = copy.deepcopy(getattr(fallback, document))
            files[document] = fallback.files.get(document, "current")
            came[document] = fallback.origins.get(document) or (
                ("example", fallback.source) if fallback.source != "custom"
                else ("upload", files[document]))
        else:
            errors.append(LoadError(document, "(none)", f"no {document} document given",
                                    fix=f"upload or paste the {document} JSON"))
    if "schema" in values_:
        try:
            Schema.parse(values_["schema"])
        except OAError as exc:
            errors.append(error_from(exc, files.get("schema", "schema")))
    if errors:
        return None, errors
    return Trio("custom", values_["gold"], values_["candidate"], values_["schema"], files,
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


def init() -> None:
    """Fill the session defaults; on a session's first run, restore it from the URL."""
    state = st.session_state
    state.setdefault(ERRORS, [])
    state.setdefault(SCHEMA_EDITS, {})
    state.setdefault(FIXES, [])
    state.setdefault(BOUND, {})
    if URL_READ not in state:
        state[URL_READ] = True
        restore_from_url(st.query_params.to_dict())
    for name, (default, options) in GLOBAL_OPTIONS.items():
        _restore_option(name, default, options)
        if name not in state or (options is not None and state[name] not in options):
            state[name] = default
        state[BOUND][name] = default
    if TRIO not in state:
        _load_default()


def _load_default() -> None:
    """Load the default example (keeping the errors already shown)."""
    state = st.session_state
    names = [e.name for e in list_examples()]
    if names:
        earlier = list(state.get(ERRORS, []))  # e.g. an unknown ?example=, kept in view
        select_example(DEFAULT_EXAMPLE if DEFAULT_EXAMPLE in names else names[0])
        state[ERRORS] = earlier + state[ERRORS]


# ---------------------------------------------------------------- the URL


def url_name(name: str) -> str:
    """The URL parameter of a session option: its name without the ``oa.`` prefix."""
    return name.removeprefix("oa.")


def encode(value: Any) -> str:
    """A session value as URL parameter text (see :func:`decode`).

    Examples
    --------
    >>> encode(True), encode(3), encode(0.25), encode("blend"), encode([1, "a"])
    ('true', '3', '0.25', 'blend', '[1,"a"]')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value)
    return canonical(value)


_INTEGER = re.compile(r"[+-]?\d{1,18}")


def decode(text: str, default: Any, options: Sequence[Any] | None = None,
           ) -> tuple[bool, Any]:
    """A URL parameter's value, typed like ``default`` (or one of ``options``).

    Returns
    -------
    ok : bool
        False when ``text`` is not a valid value (it is then ignored).
    value : Any

    Examples
    --------
    >>> decode("true", False), decode("3", 1), decode("0.5", 0.0), decode("x", 1)
    ((True, True), (True, 3), (True, 0.5), (False, None))
    >>> decode("nan", 0.0), decode("b", "a", ["a", "b"]), decode("c", "a", ["a", "b"])
    ((False, None), (True, 'b'), (False, None))
    """
    if options is not None:
        for option in options:
            if encode(option) == text:
                return True, option
        return False, None
    if isinstance(default, bool):
        flags = {"true": True, "1": True, "false": False, "0": False}
        return (True, flags[text]) if text in flags else (False, None)
    if isinstance(default, int):
        return (True, int(text)) if _INTEGER.fullmatch(text) else (False, None)
    if isinstance(default, float):
        try:
            number = float(text)
        except ValueError:
            return False, None
        return (True, number) if math.isfinite(number) else (False, None)
    if isinstance(default, str):
        return True, text
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def _restore_option(name: str, default: Any, options: Sequence[Any] | None) -> None:
    """Take ``name``'s value from the opening URL the first time it is bound."""
    state = st.session_state
    pending: dict[str, str] = state.get(URL_PENDING) or {}
    param = url_name(name)
    if param in pending:
        ok, value = decode(pending.pop(param), default, options)
        if ok:
            state[name] = value


@st.cache_resource(show_spinner=False)
def _trio_store() -> dict[str, Trio]:
    """Uploaded/pasted trios by content hash, in this server's memory (for ``?trio=``)."""
    return {}


_STORE_SIZE = 64


def remember(trio: Trio) -> str:
    """Keep a custom trio in the server's memory; the key naming it in the URL."""
    key = hashlib.sha256(canonical([trio.gold, trio.candidate, trio.schema]).encode()
                         ).hexdigest()[:16]
    store = _trio_store()
    if key not in store:
        while len(store) >= _STORE_SIZE:
            store.pop(next(iter(store)))
        store[key] = copy.deepcopy(trio)
    return key


def url_params() -> dict[str, str]:
    """The URL parameters that reproduce the current state (see the module notes)."""
    state = st.session_state
    params: dict[str, str] = {}
    current = trio()
    if current is not None:
        if current.pair is not None:  # a dataset's pair: reopened from the dataset
            params["pair"] = canonical(list(current.pair))
        elif current.source == "custom":
            params["trio"] = remember(current)
        else:
            params["example"] = current.source
            example = next((e for e in list_examples() if e.name == current.source), None)
            if example is not None:
                if current.schema_file not in (None, example.schemas[0].file):
                    params["schema"] = str(current.schema_file)
                if current.candidate_file not in (None, example.candidates[0].file):
                    params["candidate"] = str(current.candidate_file)
    edits = state.get(SCHEMA_EDITS) or {}
    if edits:
        params["edits"] = canonical(edits)
    fixes = state.get(FIXES) or []
    if fixes:
        params["fixes"] = canonical([fix.get("patch", []) for fix in fixes])
    for name, default in (state.get(BOUND) or {}).items():
        if name in state and state[name] != default:
            params[url_name(name)] = encode(state[name])
    for param, text in (state.get(URL_PENDING) or {}).items():
        params.setdefault(param, text)  # options of a page not opened yet
    return params


def sync_url() -> None:
    """Write the state into the URL (on every run: a page switch drops the parameters).

    Parameters this module does not manage (none of :data:`TRIO_PARAMS`, no bound
    option) are kept as they are.
    """
    state = st.session_state
    managed = {*TRIO_PARAMS, *(url_name(name) for name in state.get(BOUND) or {})}
    current = st.query_params.to_dict()
    wanted = {key: value for key, value in current.items() if key not in managed}
    wanted.update(url_params())
    if wanted != current:
        st.query_params.from_dict(wanted)


def restore_from_url(query: dict[str, str]) -> None:
    """Restore a new session from the URL it was opened with (invalid values ignored).

    The trio first (``trio`` or ``example`` with its variants), then the schema
    ``edits``, the WL options and the ``fixes`` (replayed in order); every other
    parameter waits in :data:`URL_PENDING` until the widget of its option is bound.
    """
    state = st.session_state
    state[URL_PENDING] = {key: value for key, value in query.items()
                          if key not in TRIO_PARAMS}
    if query.get("pair"):
        from .dataset_state import restore_pair  # the dataset layer sits on this one

        if not restore_pair(query["pair"]):
            state[ERRORS] = [LoadError(
                "documents", f"?pair={query['pair']}",
                "this link names a pair of an evaluation dataset that is not available",
                fix="open the dataset in the sidebar and pick the pair again")]
    elif query.get("trio"):
        stored = _trio_store().get(query["trio"])
        if stored is not None:
            set_trio(copy.deepcopy(stored))
        else:
            state[ERRORS] = [LoadError(
                "documents", f"?trio={query['trio']}",
                "this link names uploaded or pasted documents, and a link does not carry "
                "documents: only the explorer that loaded them (while it runs) has them",
                fix="load the documents again (a downloaded “Current trio (JSON)” loads "
                    "back as a trio); the link's options are applied")]
    elif query.get("example"):
        select_example(query["example"], query.get("schema"), query.get("candidate"))
    if TRIO not in state:
        _load_default()
    if TRIO not in state:
        return
    _restore_edits(query.get("edits"))
    for name, (default, options) in GLOBAL_OPTIONS.items():
        _restore_option(name, default, options)
        state.setdefault(name, default)
    _restore_fixes(query.get("fixes"))


def _restore_edits(text: str | None) -> None:
    if not text:
        return
    try:
        edits = json.loads(text)
        if not isinstance(edits, dict) or not all(isinstance(k, str) for k in edits):
            return
        Schema.parse(apply_edits(trio().schema, edits))  # type: ignore[union-attr]
    except (ValueError, LookupError, TypeError, OAError):
        return
    st.session_state[SCHEMA_EDITS] = edits


def _restore_fixes(text: str | None) -> None:
    """Replay the fixes of a URL: each patch is the patch of an op of the feedback then."""
    if not text:
        return
    try:
        patches = json.loads(text)
    except ValueError:
        return
    if not isinstance(patches, list):
        return
    state = st.session_state
    current = trio()
    for patch in patches:
        try:
            alignment = oa_core.align(current.gold, current_candidate(),  # type: ignore[union-attr]
                                      edited_schema(), wl_mode=state[WL_MODE],
                                      wl_blend_lambda=state[WL_LAMBDA])
        except OAError:
            return
        ops = oa_core.render_feedback(alignment, top_k=10**6).ops
        op = next((op for op in ops if op.patch and op.patch == patch), None)
        if op is None:
            return  # no longer an op of this trio: the rest is ignored
        apply_fix(op, alignment.score)


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


def bundle(current: Trio, fixes: Sequence[dict[str, Any]], edits: dict[str, Any]
           ) -> dict[str, Any]:
    """The trio as the pages score it: gold, the candidate with ``fixes`` applied and the
    schema with ``edits`` (what "Current trio (JSON)" downloads)."""
    return {"gold": current.gold,
            "candidate": fixes[-1]["after"] if fixes else current.candidate,
            "schema": apply_edits(current.schema, edits)}


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

    Notes
    -----
    The value is also in the URL (parameter ``name`` without ``oa.``, only when it is
    not ``default``): a new session opened on that URL starts from it, decoded with the
    type of ``default`` (or matched against ``options``); an invalid value is ignored.
    """
    state = st.session_state
    if name not in state:
        _restore_option(name, default, options)
    if name not in state or (options is not None and state[name] not in options):
        state[name] = default
    state.setdefault(BOUND, {})[name] = default
    value = state[name]
    if bounds is not None:  # clip what the widget shows, keep the user's choice
        value = min(max(value, bounds[0]), bounds[1])
    widget_key = f"w.{name}"
    state[widget_key] = value
    return {"key": widget_key, "on_change": _copy_widget, "args": (widget_key, name)}


def _copy_widget(widget_key: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget_key]
    sync_url()  # a widget in a fragment reruns only the fragment, not main.py's sync


def changed() -> None:
    """Call after changing the state in a callback: writes the URL at once.

    ``main.py`` writes the URL on every full run; a widget inside ``st.fragment``
    reruns only its fragment, so its callback (or the fragment) calls this.
    """
    sync_url()


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
        "score_before": score_before, "before": before, "after": after,
        "patch": copy.deepcopy(op.patch)})
    sync_url()


def undo_fix() -> None:
    """Drop the last applied fix."""
    fixes: list[dict[str, Any]] = st.session_state.get(FIXES, [])
    if fixes:
        fixes.pop()
    sync_url()


# ---------------------------------------------------------------- warnings


def undeclared_keys(gold: Any, schema: Any, limit: int = 8) -> list[tuple[str, str]]:
    """Keys of ``gold`` that the schema (JSON, or already a parsed :class:`Schema`) does
    not declare where it declares properties.

    An object schema with ``properties`` and no ``additionalProperties`` lists its
    keys; a gold key outside that list is compared with default settings, which is
    often a typo or a schema written for another document.

    Returns
    -------
    list of (key, JSON Pointer of its first occurrence in the gold)
        At most ``limit`` distinct keys, in document order.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
    ...     "type": "object", "properties": {"x": {"type": "string"}}}}}}
    >>> undeclared_keys({"a": [{"x": "1"}, {"y": 2}], "b": 3}, schema)
    [('b', '/b'), ('y', '/a/1/y')]
    """
    from oa_core.pointer import join

    try:
        root = (schema if isinstance(schema, Schema) else Schema.parse(schema)).root
    except OAError:
        return []
    found: dict[str, str] = {}
    stack: list[tuple[Any, Any, str]] = [(gold, root, "")]
    while stack and len(found) < limit:
        value, node, pointer = stack.pop()
        children: list[tuple[Any, Any, str]] = []
        if isinstance(value, dict):
            declares = bool(node.properties) and node.additional is None
            for key, item in value.items():
                if declares and key not in node.properties:
                    found.setdefault(key, join(pointer, key))
                children.append((item, node.property_schema(key), join(pointer, key)))
        elif isinstance(value, list):
            children = [(item, node.item_schema(k), join(pointer, str(k)))
                        for k, item in enumerate(value)]
        stack.extend(reversed(children))
    ordered = sorted(found.items(), key=lambda kv: (kv[1].count("/"), kv[1]))
    return ordered[:limit]


def all_keys(value: Any) -> set[str]:
    """Every object key anywhere in a JSON value.

    Examples
    --------
    >>> sorted(all_keys({"a": [{"b": 1}], "c": {"d": None}}))
    ['a', 'b', 'c', 'd']
    """
    keys: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return keys


def trio_warnings(gold: Any, candidate: Any, schema: Any) -> list[str]:
    """Likely mistakes in a trio, as plain sentences (escape them for Markdown).

    Examples
    --------
    >>> trio_warnings({"a": 1}, {"b": 1}, {"type": "object"})[0][:44]
    'The gold and the candidate share no keys at '
    """
    warnings: list[str] = []
    gold_keys, candidate_keys = all_keys(gold), all_keys(candidate)
    if gold_keys and candidate_keys and not gold_keys & candidate_keys:
        warnings.append(
            "The gold and the candidate share no keys at all: is one of them the wrong "
            "document? (A whole trio file now loads as a trio, whichever uploader takes it.)")
    undeclared = undeclared_keys(gold, schema)
    if undeclared:
        listed = ", ".join(f"“{key}” (at {pointer})" for key, pointer in undeclared)
        warnings.append(
            f"The gold has keys the schema does not declare: {listed}. They are compared "
            "with default settings (weight 1); is the schema meant for this gold?")
    return warnings
