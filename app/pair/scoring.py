"""Cached calls into :mod:`oa_core` for the pages, with errors shown in the page.

Alignments are cached on the canonical JSON text of gold, candidate and schema
plus the options, so a widget change that returns to an earlier setting costs
nothing. :func:`align_soon` never waits: it starts an alignment in a background thread
and says so until it is done (the Schema tuning page keeps its previous result on
screen meanwhile); a page asking for the same alignment with :func:`align` waits for
that thread's result rather than aligning twice. ``st.cache_resource`` is used rather
than ``st.cache_data`` because an :class:`oa_core.Alignment` holds the parsed schema
(with comparator closures), which cannot be pickled; the cached objects are only read,
never mutated.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

import oa_core
from oa_core import Alignment, OAError
from oa_core.schema import Schema

from .. import session, views
from ..text import md_escape


@dataclass(frozen=True)
class Scored:
    """An alignment and what it cost to compute.

    Parameters
    ----------
    alignment : oa_core.Alignment
    seconds : float
        Wall time of the (uncached) ``oa_core.align`` call.
    """

    alignment: Alignment
    seconds: float


@st.cache_resource(max_entries=32, show_spinner=False)
def parsed_schema(schema: str) -> Schema:
    """The parsed form of a schema, by its canonical JSON text (only read, never changed).

    A parse costs about 1 ms once its meta-schema check is remembered
    (:mod:`oa_core.metaschema`), paid twice (alignment, sidebar warnings) by every pair
    opened from a dataset, whose pairs all share one schema. Raises
    :class:`oa_core.OAError` for a bad schema.
    """
    return Schema.parse(json.loads(schema))


Key = tuple[str, str, str, str, float]  # canonical gold, candidate, schema; WL options
PENDING: Literal["pending"] = "pending"  # what align_soon returns while it aligns
_KEPT = 32  # background alignments remembered once done
_LOCK = threading.Lock()


def _compute(key: Key, parsed: Schema) -> Scored | OAError:
    # A refusal is returned (and cached) too: it can take as long as an alignment to
    # reach (a limit met deep in the documents), and every rerun would pay it again.
    gold, candidate, _, wl_mode, wl_lambda = key
    start = time.perf_counter()
    options = oa_core.AlignOptions(wl_mode=oa_core.WLMode(wl_mode), wl_blend_lambda=wl_lambda)
    try:
        alignment = oa_core.align(json.loads(gold), json.loads(candidate), parsed, options)
    except OAError as exc:
        return exc
    return Scored(alignment, time.perf_counter() - start)


@st.cache_resource(show_spinner=False)
def _background() -> tuple[ThreadPoolExecutor, dict[Key, Future[Scored | OAError]]]:
    """One thread for background alignments (this server's), and them by key."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="oa-align"), {}


@st.cache_resource(max_entries=96, show_spinner=False)
def _align(gold: str, candidate: str, schema: str, wl_mode: str,
           wl_lambda: float) -> Scored | OAError:
    key = (gold, candidate, schema, wl_mode, wl_lambda)
    with _LOCK:
        started = _background()[1].get(key)
    if started is not None and not started.cancelled():
        return started.result()  # aligned (or aligning) in the background: not twice
    try:
        parsed = parsed_schema(schema)
    except OAError as exc:
        return exc
    return _compute(key, parsed)


def align_soon(gold: Any, candidate: Any, schema: Any, *, wl_mode: str = "tie_break",
               wl_lambda: float = 0.5, wait: float = 0.4,
               superseded: Key | None = None) -> tuple[Key, Scored | Literal["pending"]]:
    """:func:`align` without blocking the page: the alignment runs in a background
    thread, and this returns :data:`PENDING` when it is not done within ``wait`` seconds
    (call again, e.g. from a polling fragment, for its result). The default wait lets a
    quick alignment show at once: polling, then a rerun of the page, costs more than
    0.4 s in the browser.

    Parameters
    ----------
    superseded : key, optional
        The key of an earlier call whose result is no longer wanted: dropped if it has
        not started yet (an edit made while the previous one still waits).

    Returns
    -------
    key : tuple
        The alignment's key (pass it as ``superseded`` later).
    result : Scored or "pending"

    Raises
    ------
    oa_core.OAError
        On unusable input (the schema is checked before the thread starts).
    """
    key: Key = (session.canonical(gold), session.canonical(candidate),
                session.canonical(schema), wl_mode, float(wl_lambda))
    executor, running = _background()
    with _LOCK:
        if superseded is not None and superseded != key:
            old = running.get(superseded)
            if old is not None and old.cancel():
                del running[superseded]
        future = running.get(key)
        if future is None:
            future = executor.submit(_compute, key, parsed_schema(key[2]))
            running[key] = future
            for done in [k for k, f in running.items() if f.done()][:-_KEPT]:
                del running[done]
    try:
        result = future.result(timeout=wait)
    except TimeoutError:
        return key, PENDING
    if isinstance(result, OAError):
        raise result.with_traceback(None)
    return key, result


def is_ready(key: Key) -> bool:
    """Whether the background alignment of ``key`` (see :func:`align_soon`) is done (or
    was never started here)."""
    with _LOCK:
        future = _background()[1].get(key)
    return future is None or future.done()


def align(gold: Any, candidate: Any, schema: Any, *, wl_mode: str = "tie_break",
          wl_lambda: float = 0.5) -> Scored:
    """Align (cached) three JSON values.

    Raises
    ------
    oa_core.OAError
        On unusable input, with the document and JSON Pointer of the problem.
    """
    result = _align(session.canonical(gold), session.canonical(candidate),
                    session.canonical(schema), wl_mode, float(wl_lambda))
    if isinstance(result, OAError):
        raise result.with_traceback(None)
    return result


def show_error(exc: OAError, what: str = "score these documents") -> None:
    """Show an ``oa_core`` error in the page: document, pointer, message, fix."""
    where = md_escape(exc.pointer or "(root)")
    trio = session.trio()
    source = trio.files.get(exc.document) if trio is not None else None
    document = exc.document + (f" ({md_escape(source)})" if source else "")
    text = f"**Could not {what}.** In the {document} at {where}: {md_escape(exc.message)}"
    if exc.fix:
        text += f"\n\nFix: {md_escape(exc.fix)}"
    st.error(text, icon=":material/warning:")
    views.full_values(exc.values, f"error.{exc.document}")


def current(*, wl_mode: str | None = None, schema: Any = None,
            candidate: Any = None) -> Scored | None:
    """Align the session's documents (with the schema edits and applied fixes).

    Parameters
    ----------
    wl_mode : str, optional
        Overrides the session's WL mode.
    schema, candidate : Any, optional
        Override the session's (edited) schema or (fixed) candidate.

    Returns
    -------
    Scored or None
        None when nothing is loaded or ``oa_core`` rejected the input; the
        reason is then shown in the page.
    """
    trio = session.trio()
    if trio is None:
        st.info("Load a bundled example or your own documents in the sidebar.")
        return None
    state = st.session_state
    try:
        return align(trio.gold,
                     session.current_candidate() if candidate is None else candidate,
                     session.edited_schema() if schema is None else schema,
                     wl_mode=wl_mode or state.get(session.WL_MODE, "tie_break"),
                     wl_lambda=state.get(session.WL_LAMBDA, 0.5))
    except OAError as exc:
        show_error(exc)
        return None


def timing_caption(scored: Scored, started: float) -> None:
    """A caption with the alignment time and this page run's time so far."""
    st.caption(f"Alignment computed in {scored.seconds * 1000:.1f} ms (cached afterwards); "
               f"this view rendered in {(time.perf_counter() - started) * 1000:.0f} ms.")
