"""The explorer's evaluation dataset: which one is open, its runs scored (cached), and
opening one pair of it in the single-pair views.

State (all in the URL, see :mod:`app.session`):

- ``dataset``: a bundled dataset (``sample_data/datasets/index.json``), the folder
  given to ``oa explore --dataset DIR`` (its folder name), or ``upload-HASH`` for
  uploaded files (in this server's memory, like an uploaded trio);
- ``run`` and ``run_b``: the run shown, and the one compared with it;
- ``pair``: ``[dataset, run, id]`` of the pair open in Overview, Match tree,
  Referential alignment and Feedback (so a link to a pair reproduces it).

Scoring a run uses :func:`oa_core.runs.dataset.score_run` in worker processes with a
progress bar, and is cached by the content hash of the run, the schema and the
options: a rerun or a page switch never rescores, and a run scored before by the same
code is read back from the run cache on disk (:func:`app.runs.prescore.cache_folder`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from oa_core.errors import OAError
from oa_core.jsonio import extract_json
from oa_core.runs import runstats
from oa_core.runs.batch import BatchOptions
from oa_core.runs.dataset import (
    Dataset,
    ScoredRun,
    from_files,
    load_folder,
    load_scored,
    score_run,
    store_scored,
)

from .. import session
from ..examples import SAMPLE_DIR
from ..text import md_escape
from .prescore import cache_folder, cache_key
from .prescore import wait as wait_prescored
from .workers import LOCAL_ENV, START_METHOD, warm_workers, workers_for
from .workers import SMALL_RUN as SMALL_RUN  # the Dataset page says how a run was scored
from .workers import WORKERS as WORKERS

DATASET = "oa.dataset"
RUN = "oa.run"
RUN_B = "oa.run_b"
ERRORS = "oa.ds_errors"
UPLOAD_PREFIX = "upload-"
DATASETS_DIR = SAMPLE_DIR / "datasets"
_SCORED_KEPT = 12

if os.environ.get(LOCAL_ENV):  # `oa explore --dataset DIR`: a run will be scored soon
    warm_workers()  # (app/main.py has started it already)


@dataclass(frozen=True)
class Entry:
    """A dataset the sidebar offers.

    Parameters
    ----------
    name : str
        Its ``?dataset=`` value.
    title, description : str
    folder : Path
    """

    name: str
    title: str
    description: str
    folder: Path


def entries() -> list[Entry]:
    """The bundled datasets, then the one of ``oa explore --dataset`` (if any)."""
    found: list[Entry] = []
    index = DATASETS_DIR / "index.json"
    if index.is_file():
        for item in json.loads(index.read_text(encoding="utf-8")):
            found.append(Entry(item["id"], item.get("title", item["id"]),
                               item.get("description", ""), DATASETS_DIR / item["id"]))
    local = os.environ.get(LOCAL_ENV)
    if local:  # named by its folder; it hides a bundled dataset of the same name
        folder = Path(local).resolve()
        found = [e for e in found if e.name != folder.name]
        found.append(Entry(folder.name, f"{folder.name} (from --dataset)", str(folder), folder))
    return found


@st.cache_resource(show_spinner=False)
def _uploads() -> dict[str, Dataset]:
    """Uploaded datasets by content hash (``?dataset=upload-HASH``)."""
    return {}


@st.cache_resource(max_entries=8, show_spinner="Reading the dataset…")
def _folder(path: str, stamp: float) -> Dataset:
    return load_folder(path)


@st.cache_resource(show_spinner=False)
def _scored() -> OrderedDict[str, ScoredRun]:
    """Scored runs by content hash (the newest last; a few are kept)."""
    return OrderedDict()


def add_upload(files: dict[str, str]) -> str:
    """Make a dataset of uploaded files; its ``?dataset=`` name.

    Raises
    ------
    oa_core.OAError
        When the files do not make a dataset (no schema, invalid schema...).
    """
    digest = hashlib.sha256(json.dumps(sorted(files.items())).encode("utf-8", "surrogatepass"))
    name = UPLOAD_PREFIX + digest.hexdigest()[:12]
    store = _uploads()
    if name not in store:
        store[name] = from_files(files, name=name)
    return name


def load(name: str) -> Dataset | None:
    """The dataset named ``name`` (None, with the reason shown, when it cannot load)."""
    if not name:
        return None
    if name.startswith(UPLOAD_PREFIX):
        found = _uploads().get(name)
        return found
    warm_workers()
    entry = next((e for e in entries() if e.name == name), None)
    if entry is None:
        st.error(f"There is no dataset named “{md_escape(name)}”: pick one in the sidebar.",
                 icon=":material/warning:")
        return None
    try:
        stamp = max((p.stat().st_mtime for p in entry.folder.rglob("*") if p.is_file()),
                    default=0.0)
        return _folder(str(entry.folder), stamp)
    except OAError as exc:
        show_error(exc, f"load the dataset {name}")
        return None


def show_error(exc: OAError, what: str) -> None:
    """An ``oa_core`` error in the page: where, what, and the fix."""
    text = (f"**Could not {md_escape(what)}.** In the {md_escape(exc.document)} at "
            f"{md_escape(exc.pointer or '(root)')}: {md_escape(exc.message)}")
    if exc.fix:
        text += f"\n\nFix: {md_escape(exc.fix)}"
    st.error(text, icon=":material/warning:")


def current() -> tuple[Dataset | None, str]:
    """The open dataset and its name; says in the page what to do when there is none."""
    name = st.session_state.get(DATASET) or ""
    data = load(name)
    if data is None and not name:
        st.info("Open an evaluation dataset in the sidebar (**Evaluation dataset**): a "
                "bundled one, or upload a schema with a pairs file, or golds and "
                "predictions.", icon=":material/dataset:")
    return data, name


def run_names(data: Dataset) -> list[str]:
    """The dataset's runs, in order."""
    return list(data.runs)


def chosen_run(data: Dataset, key: str = RUN, *, other: bool = False) -> str:
    """The run stored under ``key`` (the first, or the second for ``other``, if unset)."""
    names = run_names(data)
    value = st.session_state.get(key)
    if value in names:
        return str(value)
    return names[1] if other and len(names) > 1 else names[0]


@dataclass(frozen=True)
class OpenedRun:
    """What a run-level page shows: the dataset, its name, the chosen run, its scores."""

    data: Dataset
    name: str
    run: str
    scored: ScoredRun


def opened_run() -> OpenedRun:
    """The open dataset's chosen run, scored; stops the page (having said why) when
    there is no dataset or the run cannot be scored."""
    data, name = current()
    if data is None:
        st.stop()
    run = chosen_run(data)
    result = scored(data, run)
    if result is None:
        st.stop()
    return OpenedRun(data, name, run, result)


def progress_text(run: str, done: int, total: int, seconds: float) -> str:
    """What a progress bar says while ``run`` scores: pairs done, rate and time left."""
    text = f"Scoring run {md_escape(run)}: {done}/{total} pairs"
    if done == 0 or seconds <= 0:  # no rate yet (worker processes starting)
        return text
    rate = done / seconds
    return f"{text} · {rate:.0f} pairs/s · ETA {(total - done) / rate:.1f} s"


def scored_key(data: Dataset, run: str, schema: Any = None) -> str:
    """The cache key of ``run`` scored with ``schema`` (None: the dataset's own)."""
    key = cache_key(data, run)
    if schema is None:
        return key
    return key + hashlib.sha256(session.canonical(schema).encode()).hexdigest()[:12]


def stored(data: Dataset, run: str, key: str) -> ScoredRun | None:
    """The run scored under ``key`` if this server or the run cache on disk has it."""
    store = _scored()
    if key in store:
        store.move_to_end(key)
        return store[key]
    folder = None if data.runs[run].results else cache_folder()
    found = load_scored(folder, key) if folder is not None else None
    if found is not None:
        _keep(store, key, found)
    return found


def remember(data: Dataset, run: str, key: str, result: ScoredRun) -> None:
    """Keep a run scored under ``key`` (in this server, and in the run cache on disk)."""
    _keep(_scored(), key, result)
    folder = None if data.runs[run].results else cache_folder()
    if folder is not None:
        store_scored(folder, key, result)


def scored(data: Dataset, run: str, *, schema: Any = None) -> ScoredRun | None:
    """One run scored (cached by content; a progress bar while it scores).

    A run that ``oa explore --dataset`` is scoring ahead (:mod:`app.runs.prescore`) is not
    scored again: the bar shows that scoring's progress until its result is stored.

    Parameters
    ----------
    data : Dataset
    run : str
    schema : dict, optional
        Score with this schema instead of the dataset's (run-level tuning).

    Returns
    -------
    ScoredRun or None
        None, with the error shown, when the schema is invalid.
    """
    key = scored_key(data, run, schema)
    found = stored(data, run, key)
    if found is not None:
        return found
    folder = None if data.runs[run].results else cache_folder()  # results read fast
    total = len(data.runs[run])
    bar = st.progress(0.0, text=progress_text(run, 0, total, 0.0))

    def show(done: int, count: int, seconds: float) -> None:
        bar.progress(done / max(count, 1), text=progress_text(run, done, count, seconds))

    if folder is not None and schema is None:
        found = wait_prescored(folder, key, show)
        if found is not None:
            bar.empty()
            _keep(_scored(), key, found)
            return found
    started = time.perf_counter()
    last = [0.0]

    def progress(done: int, count: int) -> None:
        now = time.perf_counter()
        if done == count or now - last[0] > 0.1:
            last[0] = now
            show(done, count, now - started)

    try:
        result = score_run(data, run, options=BatchOptions(), workers=workers_for(total),
                           schema=schema, progress=progress, start_method=START_METHOD)
    except OAError as exc:
        bar.empty()
        show_error(exc, f"score run {run}")
        return None
    bar.empty()
    remember(data, run, key, result)
    return result


def _keep(store: OrderedDict[str, ScoredRun], key: str, result: ScoredRun) -> None:
    store[key] = result
    while len(store) > _SCORED_KEPT:
        store.popitem(last=False)


@st.cache_resource(max_entries=16, show_spinner=False)
def _summary(key: str, _run: ScoredRun) -> dict[str, Any]:
    return runstats.summary(_run)


def summary(data: Dataset, run: str, scored_run: ScoredRun) -> dict[str, Any]:
    """:func:`oa_core.runs.runstats.summary` of a run, cached (its bootstrap takes a while on
    100,000 pairs)."""
    return _summary(data.run_key(run), scored_run)


# --------------------------------------------------------------------------- pairs


def pair_label(name: str, run: str, identifier: str) -> str:
    """How a dataset pair is named in the sidebar and file names."""
    return f"{name} · run {run} · {identifier}"


def open_pair(data: Dataset, name: str, run: str, row: int, identifier: str) -> bool:
    """Load one pair of a run as the explorer's trio (the single-pair views show it).

    Returns
    -------
    bool
        False when the pair cannot be opened (a bad line, or a prediction with no
        JSON); the reason is then in the page's load errors.
    """
    label = pair_label(name, run, identifier)
    try:
        item = data.pair(run, row)
        gold = item["gold"]
        candidate = item["candidate"] if "candidate" in item else extract_json(
            str(item.get("prediction", "")))
    except (OAError, KeyError) as exc:
        message = exc.message if isinstance(exc, OAError) else f"no {exc} in this line"
        st.session_state[session.ERRORS] = [session.LoadError(
            "pair", label, f"this pair cannot be opened: {message}",
            fix="pick a pair whose output holds JSON (refused, not JSON and empty ones have "
                "none)")]
        return False
    trio = session.Trio("custom", gold, candidate, data.schema,
                        files={d: f"{label} ({d})" for d in ("gold", "candidate", "schema")},
                        origins={d: ("dataset", label) for d in ("gold", "candidate", "schema")},
                        pair=(name, run, identifier))
    session.set_trio(trio)
    return True


def raw_text(data: Dataset, run: str, row: int) -> str:
    """What the model wrote for one pair (or the line itself when it is not a pair)."""
    source = data.runs[run]
    try:
        item = data.pair(run, row)
    except OAError:  # a bad line: its text is all there is
        return source.pair_line(row) if not source.results else "(no document in a results file)"
    return str(item.get("prediction", "")) if "prediction" in item else source.pair_line(row)


def excerpt(text: str, limit: int = 3000) -> str:
    """``text`` in at most about ``limit`` characters: its start and its end (where a
    cut-off output stops), with how much was left out between them.

    >>> excerpt("a" * 10 + "b" * 10, 10)
    'aaaaa\\n… 10 characters left out …\\nbbbbb'
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… {len(text) - 2 * half:,} characters left out …\n{text[-half:]}"


@dataclass(frozen=True)
class PairOutput:
    """What the model wrote for an opened pair, and its format status.

    Attributes
    ----------
    status : str
        :data:`oa_core.runs.output_format.STATUSES`.
    problem : str
        What the status means for the pair ("" when ok).
    raw : str
        The raw model text ("" when the pair gave its candidate as JSON).
    """

    status: str
    problem: str
    raw: str


def pair_output(name: str, run: str, identifier: str) -> PairOutput | None:
    """The format status and raw output of the pair ``identifier`` of a dataset's run
    (None when the dataset, run or pair is not there)."""
    data = load(name)
    if data is None or run not in data.runs or data.runs[run].results:
        return None
    result = scored(data, run)
    if result is None:
        return None
    rows = result.frame.index[result.frame["id"] == identifier].tolist()
    if not rows:
        return None
    row = int(rows[0])
    try:
        prediction = data.pair(run, row).get("prediction")
    except OAError:
        prediction = None
    record = result.frame.iloc[row]
    return PairOutput(str(record["status"]), str(record["problem"]),
                      prediction if isinstance(prediction, str) else "")


def restore_pair(text: str) -> bool:
    """Reopen the pair of a ``?pair=[dataset, run, id]`` link (False if it is gone)."""
    try:
        name, run, identifier = json.loads(text)
    except (ValueError, TypeError):
        return False
    data = load(str(name)) if isinstance(name, str) else None
    if data is None or run not in data.runs:
        return False
    result = scored(data, run)
    if result is None:
        return False
    rows = result.frame.index[result.frame["id"] == str(identifier)].tolist()
    if not rows:
        return False
    st.session_state[DATASET], st.session_state[RUN] = name, run
    return open_pair(data, name, run, int(rows[0]), str(identifier))
