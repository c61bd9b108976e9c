"""Run-level schema tuning: the schema's knobs (the Schema tuning widgets' settings)
applied to every pair of a run; the edits live in ``oa.run_edits`` (in the URL).

Rescoring never blocks the page: an edit starts a :class:`Rescoring` in a background
thread (its pairs scored in worker processes), the page keeps showing the last result it
had, with a progress bar, and shows the new one on the first rerun after it is ready
(:func:`progress` polls it). The settings stay usable meanwhile: a further edit starts
its own rescoring, and the page shows whichever is asked for last.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from oa_core.errors import OAError
from oa_core.runs.batch import BatchOptions
from oa_core.runs.dataset import Dataset, ScoredRun, score_run
from oa_core.schema import Schema, SchemaNode

from .. import session
from ..schema_widgets import Knob, current_value, grouped_knobs, readable, search, set_knob
from ..text import md_inline
from . import dataset_state
from .workers import START_METHOD, workers_for

EDITS = "oa.run_edits"
SEARCH = "oa.rt_search"
SHOWN = "oa.rt_shown"  # (key, ScoredRun): the edited run's last result on screen
POLL_S = 0.25
_KEPT = 4  # rescorings remembered (finished ones beyond this are forgotten)


@dataclass
class Rescoring:
    """One run rescored with an edited schema, in a background thread.

    Attributes
    ----------
    key : str
        The scored run's cache key (:func:`app.runs.dataset_state.scored_key`).
    total, done : int
        Pairs to score, and scored so far.
    started : float
        ``time.perf_counter()`` at its start.
    result : ScoredRun or None
        Set when it is done.
    error : OAError or None
        Set when it failed (an invalid schema...).
    """

    key: str
    total: int
    done: int = 0
    started: float = field(default_factory=time.perf_counter)
    result: ScoredRun | None = None
    error: OAError | None = None
    finished: threading.Event = field(default_factory=threading.Event)
    kept: bool = False  # its result handed to the run store (once)

    @property
    def seconds(self) -> float:
        """Seconds since it started."""
        return time.perf_counter() - self.started


@st.cache_resource(show_spinner=False)
def _jobs() -> dict[str, Rescoring]:
    """The rescorings of this server by key (shared by its sessions: the same edit of
    the same run is scored once)."""
    return {}


_LOCK = threading.Lock()


def _score(job: Rescoring, data: Dataset, run: str, schema: Any) -> None:
    def progress(done: int, total: int) -> None:
        job.done = done

    try:
        job.result = score_run(data, run, options=BatchOptions(),
                               workers=workers_for(job.total), schema=schema,
                               progress=progress, start_method=START_METHOD)
    except OAError as exc:
        job.error = exc
    finally:
        job.finished.set()


def rescoring(data: Dataset, run: str, schema: Any) -> Rescoring:
    """The rescoring of ``run`` with ``schema``: done at once when this server or the run
    cache has that result, else started in the background (once per key)."""
    key = dataset_state.scored_key(data, run, schema)
    jobs = _jobs()
    with _LOCK:
        job = jobs.get(key)
        if job is None:
            job = Rescoring(key, len(data.runs[run]))
            found = dataset_state.stored(data, run, key)
            if found is not None:
                job.result, job.done = found, job.total
                job.finished.set()
            else:
                threading.Thread(target=_score, args=(job, data, run, schema),
                                 name="oa-rescore", daemon=True).start()
            jobs[key] = job
            finished = [k for k, j in jobs.items() if j.finished.is_set() and k != key]
            for old in finished[:-_KEPT]:
                del jobs[old]
    if job.result is not None and not job.kept:
        job.kept = True
        dataset_state.remember(data, run, key, job.result)
    return job


def shown(job: Rescoring | None, before: ScoredRun) -> tuple[ScoredRun, bool]:
    """The edited run to show while ``job`` runs: its result once ready, else the last
    result this session showed (the original run at first); and whether it is the
    result asked for. Without a job (no edit), the original run ``before``."""
    if job is None:  # what is on screen now: the next edit keeps it meanwhile
        st.session_state.pop(SHOWN, None)
        return before, True
    if job.result is not None:
        st.session_state[SHOWN] = (job.key, job.result)
        return job.result, True
    last = st.session_state.get(SHOWN)
    return (last[1] if last is not None else before), False


def progress(job: Rescoring, run: str) -> None:
    """A progress bar of ``job`` that polls it, and reruns the page when it is done."""

    @st.fragment(run_every=POLL_S)
    def poll() -> None:
        if job.finished.is_set():
            st.rerun()
        st.progress(job.done / max(job.total, 1),
                    text="Rescoring with the new settings (the previous result stays until "
                         "it is ready): " + dataset_state.progress_text(
                             run, job.done, job.total, job.seconds).removeprefix("Scoring "))

    poll()


def edits() -> dict[str, Any]:
    """The run's schema edits (pointer -> value), kept in the URL as ``run_edits``."""
    session.bind(EDITS, {})  # no widget: this registers the key for the URL
    value = st.session_state.get(EDITS)
    if not isinstance(value, dict):
        value = {}
        st.session_state[EDITS] = value
    return value


def _on_change(knob: Knob, defaults: list[float] | None) -> None:
    current = dict(edits())
    set_knob(current, knob, st.session_state[f"rt:{knob.widget_key}"], defaults)
    st.session_state[EDITS] = current
    session.changed()


def _knob(knob: Knob, node: SchemaNode, chosen: dict[str, Any]) -> None:
    key = f"rt:{knob.widget_key}"
    value = current_value(knob, chosen)
    st.session_state[key] = value
    defaults = list(node.prefix_weights) if knob.index is not None else None
    label = md_inline(knob.label) + (" •" if value != knob.default else "")
    common: dict[str, Any] = {"key": key, "on_change": _on_change, "args": (knob, defaults),
                              "help": f"{md_inline(knob.pointer)} (original: "
                                      f"{md_inline(str(knob.default))})"}
    if knob.kind == "weight":
        st.number_input(label, min_value=0.0, step=0.25, format="%.3f", **common)
    elif knob.kind == "unit":
        st.slider(label, min_value=0.0, max_value=1.0, step=0.01, **common)
    elif knob.kind in ("comparator", "order"):
        options = list(knob.options) + ([value] if value not in knob.options else [])
        st.selectbox(label, options, **common)
    else:
        st.checkbox(label, **common)


def knobs(schema: Schema) -> None:
    """Every knob of the schema, grouped by node, with a search box."""
    query = st.text_input("Search the settings", placeholder="e.g. people weight",
                          **session.bind(SEARCH, ""))
    chosen = edits()
    groups = search(grouped_knobs(schema), query)
    if not groups:
        st.info("No setting matches the search.")
    for node, found in groups:
        edited = any(k.key in chosen for k in found)
        # keyed: an edit adds the • to the label (and elements above it appear), which
        # would otherwise make it a new expander, closing every section the user opened
        with st.expander(f"{md_inline(readable(node.pointer))} ({node.type})"
                         + (" •" if edited else ""), expanded=edited,
                         key=f"w.rt_open:{node.pointer}"):
            columns = st.columns(3)
            for k, knob in enumerate(found):
                with columns[k % 3]:
                    _knob(knob, node, chosen)


def reset() -> None:
    """Drop every run-level edit."""
    st.session_state[EDITS] = {}
    session.changed()
