"""The URL: every choice of the session in the link, and a new session restored from it.

A refresh keeps the view and a copied link shows it to someone else (see
:func:`sync_url` and :func:`restore_from_url`):

- ``example``, ``schema``, ``candidate``: the bundled example and its variants (a
  variant only when it is not the example's first);
- ``trio``: uploaded or pasted documents cannot live in a URL; ``trio`` names them in
  this server's memory (a hash of their content), so a refresh keeps them while the
  explorer runs; a link to them opened elsewhere reproduces the options only;
- ``edits``: the schema edits as compact JSON (``{"pointer": value}``);
- ``fixes``: the applied fixes, each by a digest of its JSON Patch
  (:func:`app.session.edits.patch_digest`, joined by ``.``): a patch can hold a whole
  document (a fix replacing a cut-off output), and a link carries only small state;
- every option bound with :func:`bind` (and ``wl_mode``/``wl_lambda``): the session
  name without its ``oa.`` prefix, only when it differs from its default.

Widgets are bound to persistent keys with :func:`bind`, because Streamlit drops a
widget's own key when the user leaves its page.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Sequence
from typing import Any

import streamlit as st

import oa_core
from oa_core.errors import OAError
from oa_core.schema import Schema

from ..examples import list_examples
from .current import ERRORS, FIXES, SCHEMA_EDITS, TRIO, set_trio, trio
from .edits import apply_edits, apply_fix, current_candidate, edited_schema, patch_digest
from .examples import load_default, select_example
from .inputs import LoadError, Trio, canonical

__all__ = ["BOUND", "GLOBAL_OPTIONS", "TRIO_PARAMS", "URL_PENDING", "URL_READ", "WL_LAMBDA",
           "WL_MODE", "WL_MODES", "bind", "changed", "decode", "encode", "init", "remember",
           "restore_from_url", "restore_option", "sync_url", "url_name", "url_params"]

WL_MODE = "oa.wl_mode"
WL_LAMBDA = "oa.wl_lambda"
WL_MODES = tuple(mode.value for mode in oa_core.WLMode)
URL_READ = "oa.url_read"  # the session has read the URL it was opened with
URL_PENDING = "oa.url_pending"  # options of that URL no widget has bound yet
BOUND = "oa.bound"  # session name -> default of every option bound to a widget
# URL parameters of the trio itself (not options)
TRIO_PARAMS = ("example", "schema", "candidate", "trio", "edits", "fixes", "pair")
FIX_SEPARATOR = "."  # between the fixes' names in ``fixes``
# options every page scores with, restored from the URL before any page runs
GLOBAL_OPTIONS: dict[str, tuple[Any, tuple[Any, ...] | None]] = {
    WL_MODE: ("tie_break", WL_MODES), WL_LAMBDA: (0.5, None)}


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
        load_default()


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


def restore_option(name: str, default: Any, options: Sequence[Any] | None = None) -> None:
    """Take ``name``'s value from the opening URL, once, for an option no widget binds
    (the WL round, which the browser steps and writes into the URL itself)."""
    _restore_option(name, default, options)


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
        params["fixes"] = FIX_SEPARATOR.join(patch_digest(fix.get("patch", []))
                                             for fix in fixes)
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
        from ..runs.dataset_state import restore_pair  # the dataset layer sits on this one

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
        load_default()
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


def _fix_names(text: str) -> list[str]:
    """The fixes a link names: digests of their patches (:func:`patch_digest`), or, in
    links made before, the patches themselves as JSON."""
    if text.lstrip().startswith("["):
        try:
            patches = json.loads(text)
        except ValueError:
            return []
        return [patch_digest(patch) for patch in patches] if isinstance(patches, list) else []
    return text.split(FIX_SEPARATOR)


def _restore_fixes(text: str | None) -> None:
    """Replay the fixes of a URL: each names the patch of an op of the feedback then."""
    if not text:
        return
    state = st.session_state
    current = trio()
    for name in _fix_names(text):
        try:
            alignment = oa_core.align(current.gold, current_candidate(),  # type: ignore[union-attr]
                                      edited_schema(), wl_mode=state[WL_MODE],
                                      wl_blend_lambda=state[WL_LAMBDA])
        except OAError:
            return
        ops = oa_core.render_feedback(alignment, top_k=10**6).ops
        op = next((op for op in ops if op.patch and patch_digest(op.patch) == name), None)
        if op is None:
            return  # no longer an op of this trio: the rest is ignored
        apply_fix(op, alignment.score)


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
