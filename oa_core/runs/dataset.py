"""Evaluation datasets: gold documents, one or more runs of predictions, one schema.

A model or a prompt produces one output per gold document; a **run** is those
outputs, a **dataset** the golds, the runs and the schema they are scored with. This
module reads the three accepted shapes into a :class:`Dataset` whose runs are lines
of ``oa batch`` input (``{"id", "gold", "candidate"|"prediction"}``), and scores a
run with :func:`oa_core.runs.batch.iter_batch` into a :class:`ScoredRun` (pandas tables
of the pairs, their repair operations and their field observations).

Accepted inputs
---------------
*pairs*
    an ``oa batch`` input file: one ``{"gold", "candidate"}`` or ``{"gold",
    "prediction"}`` object per line (an ``"id"`` is kept); each file is one run.
*golds + predictions*
    a golds JSONL (``{"id": ..., "gold": {...}}`` per line, or the bare gold
    document) and one predictions JSONL per run (``{"id": ..., "prediction": "raw
    text"}`` or ``{"id": ..., "candidate": {...}}``, a bare JSON string of raw text,
    or the bare candidate document). Lines are joined by ``id`` when both files
    carry ids, else by position.
*a folder*
    ``schema.json`` with either ``golds.jsonl`` and the runs (``runs/*.jsonl`` or
    the other ``*.jsonl`` files), or pairs files only. A ``dataset.json`` manifest
    may name the files, the runs and how the data was made (see
    ``docs/datasets.md``).

One bad line never costs the others: a line that is not JSON, a prediction for an
id the golds do not have, a repeated id... each becomes a :class:`BadLine` (file,
line, JSON Pointer, message, fix) and the rest load. A gold with no prediction is
scored as an empty prediction (0, its status ``empty``) and noted.

Examples
--------
>>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
>>> golds = '{"id": "a", "gold": {"city": "Paris"}}\\n{"id": "b", "gold": {"city": "Rome"}}'
>>> fenced = json.dumps({"id": "b", "prediction": '```json\\n{"city": "Roma"}\\n```'})
>>> run = fenced + '\\n{oops'
>>> data = join_runs(schema, ("golds.jsonl", golds), {"v1": ("v1.jsonl", run)})
>>> [bad.render() for bad in data.bad_lines]  # doctest: +NORMALIZE_WHITESPACE
['v1.jsonl line 2 at (root): invalid JSON at line 1, column 2: Expecting property name
  enclosed in double quotes (fix: give one JSON object per line)',
 'v1.jsonl at /id: no prediction for gold id "a": scored as an empty prediction (0)
  (fix: add a line with this id to the run)']
>>> scored = score_run(data, "v1")
>>> scored.frame[["id", "score", "status"]].to_dict("records")
[{'id': 'a', 'score': 0.0, 'status': 'empty'}, {'id': 'b', 'score': 0.833..., 'status': 'ok'}]
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import sys
import time
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, OAError
from ..jsonio import jsonl_lines, loads
from ..schema import Schema
from .batch import BatchOptions, BatchResult, iter_batch
from .output_format import classify, cut_off, describe

__all__ = [
    "MANIFEST",
    "BadLine",
    "Dataset",
    "RunInput",
    "ScoredRun",
    "code_fingerprint",
    "cut_off",
    "from_files",
    "is_results",
    "join_runs",
    "load_folder",
    "load_scored",
    "pairs_run",
    "results_run",
    "score_run",
    "store_scored",
    "stored_name",
]

MANIFEST = "dataset.json"
_JSONL = (".jsonl", ".ndjson")


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that could not be used (the others load).

    Attributes
    ----------
    file : str
        The file's name.
    line : int
        Its line number from 1 (0: about the file as a whole).
    pointer : str
        JSON Pointer into that line's JSON value ("" for the whole line).
    message : str
    fix : str
    """

    file: str
    line: int
    pointer: str
    message: str
    fix: str = ""

    def render(self) -> str:
        """The problem in one line of text."""
        where = f"{self.file} line {self.line}" if self.line else self.file
        text = f"{where} at {self.pointer or '(root)'}: {self.message}"
        return f"{text} (fix: {self.fix})" if self.fix else text

    def to_dict(self) -> dict[str, Any]:
        """The problem as JSON-ready data."""
        return {"file": self.file, "line": self.line, "pointer": self.pointer,
                "message": self.message, "fix": self.fix}


@dataclass(slots=True)
class RunInput:
    """One run: its pair lines and where each came from.

    Attributes
    ----------
    name : str
        The run's name (``"A"``, ``"gpt-x prompt 2"``).
    file : str
        The file it was read from.
    lines : list of str
        ``oa batch`` input lines. A pairs file is kept as is, blank lines included, so
        the line numbers of scoring errors are the file's; a joined run has one line
        per gold, in the golds' order.
    joined : bool
        Made by joining golds and predictions (:func:`join_runs`).
    results : bool
        The lines are ``oa batch`` *output* records (already scored: no documents, so
        no field observations and no pair to open); see :func:`results_run`.
    numbers : list of int
        The source line of each pair in ``file`` (0: no prediction for that gold).
    """

    name: str
    file: str
    lines: list[str]
    joined: bool = False
    numbers: list[int] = field(default_factory=list)
    results: bool = False

    def __post_init__(self) -> None:
        if not self.joined:
            self.numbers = [n for n, text in enumerate(self.lines, 1) if text.strip()]

    def __len__(self) -> int:
        return len(self.numbers)

    def pair_line(self, row: int) -> str:
        """The ``row``-th pair (from 0) as JSON text."""
        return self.lines[row] if self.joined else self.lines[self.numbers[row] - 1]


@dataclass(slots=True)
class Dataset:
    """Golds, runs and a schema.

    Attributes
    ----------
    name : str
        A short name (a folder name, ``"upload"``).
    schema : Any
        The OA schema as JSON data (valid: checked when the dataset is made).
    runs : dict of str to RunInput
        In the order given.
    bad_lines : list of BadLine
        Problems found while reading and joining (scoring may add more per run).
    title, description : str
    about : dict
        How the data was made (generator, seed, script), from the manifest.
    """

    name: str
    schema: Any
    runs: dict[str, RunInput]
    bad_lines: list[BadLine] = field(default_factory=list)
    title: str = ""
    description: str = ""
    about: dict[str, Any] = field(default_factory=dict)
    _keys: dict[tuple[str, str], str] = field(default_factory=dict, init=False, repr=False,
                                              compare=False)

    def run_key(self, run: str, options: BatchOptions | None = None) -> str:
        """A content hash of one run's scoring input (schema, lines, options).

        Computed once per run and options: the explorer asks for it on every rerun, and
        hashing a 100,000-line run takes a while (a run's lines are never changed).
        """
        memo = (run, repr(options or BatchOptions()))
        if memo not in self._keys:
            self._keys[memo] = self._run_key(run, options)
        return self._keys[memo]

    def _run_key(self, run: str, options: BatchOptions | None) -> str:
        digest = hashlib.sha256()
        digest.update(json.dumps(self.schema, sort_keys=True, ensure_ascii=False).encode())
        digest.update(repr(options or BatchOptions()).encode())
        for text in self.runs[run].lines:
            digest.update(text.encode("utf-8", "surrogatepass") + b"\n")
        return digest.hexdigest()[:20]

    def bad_lines_of(self, run: str) -> list[BadLine]:
        """The bad lines of one run's file and of the files all runs share (golds)."""
        own = {r.file for r in self.runs.values()}
        return [bad for bad in self.bad_lines
                if bad.file == self.runs[run].file or bad.file not in own]

    def pair(self, run: str, row: int) -> dict[str, Any]:
        """The ``row``-th pair of ``run`` as a dict (``id``, ``gold``, ``candidate`` or
        ``prediction``); :class:`InputError` if that line is not a JSON object."""
        if self.runs[run].results:
            raise InputError("", "an oa batch output line holds scores, not documents",
                             fix="load the pairs file that was scored to open its pairs",
                             document="options")
        item = loads(self.runs[run].pair_line(row), document="options")
        if not isinstance(item, dict):
            raise InputError("", "this line is not a JSON object", document="options")
        return item

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from ..notebook.runs import dataset_html

        return dataset_html(self)


def _schema(value: Any, source: str) -> Any:
    try:
        Schema.parse(value)
    except OAError as exc:
        raise type(exc)(exc.pointer, f"{source}: {exc.message}", fix=exc.fix,
                        document=exc.document) from None
    return value


def pairs_run(name: str, file: str, text: str) -> RunInput:
    """A run read from an ``oa batch`` pairs file (its lines are checked when scored).

    >>> pairs_run("A", "p.jsonl", '{"gold": 1, "candidate": 1}\\n\\n[2]').numbers
    [1, 3]
    """
    return RunInput(name, file, jsonl_lines(text))


def results_run(name: str, file: str, text: str) -> RunInput:
    """A run read from ``oa batch`` output (one scored record per line, no documents).

    Big outputs open fast: nothing is aligned again.

    >>> run = results_run("r", "out.jsonl", '{"index": 0, "score": 0.5, "ops": []}')
    >>> run.results, len(run)
    (True, 1)
    """
    return RunInput(name, file, jsonl_lines(text), results=True)


def is_results(text: str) -> bool:
    """Whether a JSONL text is ``oa batch`` output (its first record has a ``score`` or an
    ``error`` and no ``gold``).

    >>> is_results('{"index": 0, "score": 1.0, "ops": []}'), is_results('{"gold": 1}')
    (True, False)
    """
    first = next((line for line in jsonl_lines(text) if line.strip()), "")
    try:
        item = json.loads(first)
    except ValueError:
        return False
    return isinstance(item, dict) and "gold" not in item and ("score" in item or
                                                              "error" in item)


def _lines(file: str, text: str, bad: list[BadLine]) -> list[tuple[int, Any]]:
    values: list[tuple[int, Any]] = []
    for number, line in enumerate(jsonl_lines(text), 1):
        if not line.strip():
            continue
        try:
            values.append((number, loads(line, document="options")))
        except OAError as exc:
            bad.append(BadLine(file, number, exc.pointer, exc.message,
                               "give one JSON object per line"))
    return values


def _gold(value: Any) -> tuple[Any, Any]:
    """(id or None, gold document) of a golds line."""
    if isinstance(value, dict) and "gold" in value and set(value) <= {"id", "gold", "text"}:
        return value.get("id"), value["gold"]
    return None, value


def _prediction(value: Any) -> tuple[Any, dict[str, Any]]:
    """(id or None, the pair's candidate side) of a predictions line."""
    if isinstance(value, dict):
        sides = [key for key in ("prediction", "candidate") if key in value]
        if len(sides) == 1 and set(value) <= {"id", "prediction", "candidate", "meta"}:
            return value.get("id"), {sides[0]: value[sides[0]]}
    if isinstance(value, str):
        return None, {"prediction": value}
    return None, {"candidate": value}


def _key(identifier: Any) -> str:
    return identifier if isinstance(identifier, str) else json.dumps(identifier)


def join_runs(schema: Any, golds: tuple[str, str], runs: Mapping[str, tuple[str, str]], *,
              name: str = "dataset") -> Dataset:
    """A dataset from a golds JSONL and one predictions JSONL per run.

    Parameters
    ----------
    schema : dict
        The OA schema as JSON data.
    golds : (file name, text)
    runs : mapping of run name to (file name, text)
    name : str

    Returns
    -------
    Dataset
        Lines are joined by ``id`` when every gold has one and the run's lines do too,
        else by position; every line that cannot be used is a :class:`BadLine`.

    Raises
    ------
    SchemaError
        When the schema is invalid.
    InputError
        When the golds file holds no usable line.
    """
    _schema(schema, "schema")
    bad: list[BadLine] = []
    gold_file, gold_text = golds
    gold_values = _lines(gold_file, gold_text, bad)
    gold_items: list[tuple[int, Any, Any]] = [(n, *_gold(v)) for n, v in gold_values]
    if not gold_items:
        raise InputError("", f"{gold_file}: holds no usable gold line",
                         fix="write one gold per line: {\"id\": ..., \"gold\": {...}}",
                         document="gold")
    by_id = all(identifier is not None for _, identifier, _ in gold_items)
    golds_by_key: dict[str, tuple[int, Any, Any]] = {}
    if by_id:
        for number, identifier, gold in gold_items:
            key = _key(identifier)
            if key in golds_by_key:
                bad.append(BadLine(gold_file, number, "/id", f"repeated gold id {key!r} "
                                   f"(first on line {golds_by_key[key][0]}): ignored",
                                   "give every gold its own id"))
                continue
            golds_by_key[key] = (number, identifier, gold)
    dataset = Dataset(name, schema, {}, bad)
    for run, (file, text) in runs.items():
        dataset.runs[run] = _join_one(run, file, _lines(file, text, bad), gold_items,
                                      golds_by_key if by_id else None, bad)
    return dataset


def _join_one(run: str, file: str, values: list[tuple[int, Any]],
              gold_items: list[tuple[int, Any, Any]],
              golds_by_key: dict[str, tuple[int, Any, Any]] | None,
              bad: list[BadLine]) -> RunInput:
    predictions = [(number, *_prediction(value)) for number, value in values]
    joined: dict[str, tuple[int, dict[str, Any]]] = {}  # gold key -> (line, side)
    if golds_by_key is not None and predictions and all(
            identifier is not None for _, identifier, _ in predictions):
        for number, identifier, side in predictions:
            key = _key(identifier)
            if key not in golds_by_key:
                bad.append(BadLine(file, number, "/id", f"no gold has the id {key!r}: "
                                   "ignored", "use the ids of the golds file"))
            elif key in joined:
                bad.append(BadLine(file, number, "/id", f"repeated id {key!r} (first on "
                                   f"line {joined[key][0]}): ignored",
                                   "give one prediction per gold"))
            else:
                joined[key] = (number, side)
        order = list(golds_by_key.items())
    else:  # by position
        if len(predictions) != len(gold_items):
            bad.append(BadLine(file, 0, "", f"{len(predictions)} predictions for "
                               f"{len(gold_items)} golds, joined by position",
                               "give each line an \"id\" matching the golds' to join by id"))
        order = [(_key(identifier) if identifier is not None else f"#{position + 1}",
                  (number, identifier, gold))
                 for position, (number, identifier, gold) in enumerate(gold_items)]
        joined = {key: (number, side) for (key, _), (number, _, side)
                  in zip(order, predictions, strict=False)}
    lines: list[str] = []
    numbers: list[int] = []
    for key, (_, identifier, gold) in order:
        number, side = joined.get(key, (0, {"prediction": ""}))
        if number == 0:
            shown = json.dumps(identifier) if identifier is not None else key
            bad.append(BadLine(file, 0, "/id", f"no prediction for gold id {shown}: scored "
                               "as an empty prediction (0)",
                               "add a line with this id to the run"))
        pair = {"id": identifier if identifier is not None else key, "gold": gold, **side}
        lines.append(json.dumps(pair, ensure_ascii=False))
        numbers.append(number)
    return RunInput(run, file, lines, joined=True, numbers=numbers)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError("", f"cannot read {path.name}: {exc}",
                         fix="give readable UTF-8 files", document="options") from None


def from_files(files: Mapping[str, str], *, name: str = "upload",
               manifest: Mapping[str, Any] | None = None) -> Dataset:
    """A dataset from named file texts (an upload, or a folder's files).

    Parameters
    ----------
    files : mapping of file name to text
        A schema (``*.json``, or the manifest's), and JSONL files: ``golds*.jsonl`` /
        ``gold*.jsonl`` (then every other JSONL file is a run of predictions), or
        pairs files only (each one run).
    name : str
    manifest : mapping, optional
        ``schema``, ``golds``, ``runs`` (run name -> file), ``pairs`` (run name ->
        file), ``title``, ``description``, ``generated``.

    Raises
    ------
    InputError
        When there is no schema, or a named file is missing.
    SchemaError
        When the schema is invalid.

    >>> files = {"schema.json": '{"type": "object"}',
    ...          "b.jsonl": '{"gold": {"a": 1}, "candidate": {"a": 1}}'}
    >>> list(from_files(files).runs)
    ['b']
    """
    manifest = dict(manifest or {})

    def text(file: str, what: str) -> str:
        if file not in files:
            raise InputError("", f"the {what} file {file!r} is missing",
                             fix=f"add {file} (or fix {MANIFEST})", document="options")
        return files[file]

    schemas = [f for f in files if f.lower().endswith((".json", ".jsonc")) and f != MANIFEST]
    schema_file = manifest.get("schema") or ("schema.json" if "schema.json" in files else
                                             schemas[0] if len(schemas) == 1 else None)
    if schema_file is None:
        raise InputError("", "no schema: give exactly one .json file (the OA schema)"
                         if not schemas else f"several .json files ({', '.join(schemas)}): "
                         "which is the schema?", fix="name the schema schema.json",
                         document="schema")
    try:
        schema = loads(text(schema_file, "schema"), document="schema")
    except OAError as exc:
        raise type(exc)(exc.pointer, f"{schema_file}: {exc.message}", fix=exc.fix,
                        document="schema") from None
    jsonl = sorted(f for f in files if f.lower().endswith(_JSONL))
    golds = manifest.get("golds") or next(
        (f for f in jsonl if Path(f).name.lower().startswith("gold")), None)
    if golds:
        runs = manifest.get("runs") or {Path(f).stem: f for f in jsonl if f != golds}
        dataset = join_runs(schema, (golds, text(golds, "golds")),
                            {run: (f, text(f, "predictions")) for run, f in runs.items()},
                            name=name)
    else:
        _schema(schema, schema_file)
        pairs = manifest.get("pairs") or {Path(f).stem: f for f in jsonl}
        if not pairs:
            raise InputError("", "no JSONL file: give a pairs file, or golds and "
                             "predictions", fix="add the .jsonl files", document="options")
        dataset = Dataset(name, schema, {})
        for run, f in pairs.items():
            body = text(f, "pairs")
            if not body.strip():  # an empty run: said, and left out
                dataset.bad_lines.append(BadLine(f, 0, "", "the file holds no line: no run",
                                                 "give one pair per line"))
                continue
            dataset.runs[run] = (results_run if is_results(body) else pairs_run)(run, f, body)
        if not dataset.runs:
            raise InputError("", "every JSONL file is empty", fix="give one pair per line",
                             document="options")
    dataset.title = str(manifest.get("title", ""))
    dataset.description = str(manifest.get("description", ""))
    dataset.about = dict(manifest.get("generated") or {})
    return dataset


def load_folder(folder: str | Path) -> Dataset:
    """A dataset from a folder (see the module notes; ``dataset.json`` is optional).

    Raises
    ------
    InputError
        When the folder does not exist or holds no schema or no JSONL file.
    SchemaError
        When the schema is invalid.

    >>> data = load_folder("sample_data/datasets/org2graph_runs")
    >>> list(data.runs), len(data.runs["A"])
    (['A', 'B'], 320)
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError("", f"{root} is not a folder",
                         fix="give a folder holding schema.json and JSONL files",
                         document="options")
    manifest: dict[str, Any] = {}
    if (root / MANIFEST).is_file():
        try:
            manifest = json.loads(_read(root / MANIFEST))
        except ValueError as exc:
            raise InputError("", f"{root / MANIFEST}: invalid JSON: {exc}",
                             fix="fix the manifest, or remove it", document="options") from None
        if not isinstance(manifest, dict):
            raise InputError("", f"{root / MANIFEST} must be a JSON object",
                             fix="fix the manifest, or remove it", document="options")
    names = [p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in (
        ".json", ".jsonc", *_JSONL) and p.name != MANIFEST]
    files = {p.relative_to(root).as_posix(): _read(p) for p in sorted(names)}
    return from_files(files, name=root.name, manifest=manifest)


# --------------------------------------------------------------------------- scoring


@dataclass(slots=True)
class ScoredRun:
    """One run scored: a table of pairs, of their repair operations and fields.

    Attributes
    ----------
    name : str
    frame : pandas.DataFrame
        One row per pair, in input order: ``row`` (0..n-1), ``id`` (text), ``score``
        (NaN when the line was not scored), ``deficit``, ``ops`` (repair operations),
        ``top_op`` (the biggest one, in words), ``top_kind``, ``top_path``, ``status``
        (the raw output's format status, :data:`oa_core.runs.output_format.STATUSES`:
        ``ok``, ``prose``, ``cut off``, ``refused``, ``not JSON``, ``empty``, or
        ``error`` for a line not scored), ``problem`` (what the status means for the
        pair, or why it was not scored) and ``line`` (the source line, 0 if none).
    ops : pandas.DataFrame
        Every repair operation with a positive delta: ``row``, ``pattern`` (path with
        indices as ``*``), ``kind``, ``delta``.
    fields : pandas.DataFrame
        Every field observation (:mod:`oa_core.runs.fields`): ``row``, ``pattern``,
        ``outcome``, ``similarity``.
    records : list of dict
        The ``oa batch`` output record of each pair.
    seconds : float
        Wall time of the scoring.
    stored : bool
        Read back from a run cache on disk (:func:`load_scored`), not scored here.
    """

    name: str
    frame: pd.DataFrame
    ops: pd.DataFrame
    fields: pd.DataFrame
    records: list[dict[str, Any]]
    seconds: float = 0.0
    stored: bool = False

    @property
    def scores(self) -> np.ndarray:
        """The scores of the scored pairs (errors left out)."""
        values = self.frame["score"].to_numpy(dtype=float)
        return values[~np.isnan(values)]

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from ..notebook.runs import run_html

        return run_html(self)


def _display_id(record: dict[str, Any], row: int) -> str:
    if "id" not in record or record["id"] is None:
        return f"#{row + 1}"
    return _key(record["id"])


def _result(file: str, number: int, text: str) -> BatchResult:
    """One ``oa batch`` output record as a :class:`BatchResult` (its written ops only)."""
    from .batch import path_pattern

    try:
        record = json.loads(text)
        if not isinstance(record, dict):
            raise ValueError(f"a record must be a JSON object, got {type(record).__name__}")
        if "error" in record:
            error = record["error"] if isinstance(record["error"], dict) else {}
            return BatchResult(record, error=str(error.get("message", "not scored")))
        score = float(record["score"])
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score {score} is not in [0, 1]")
        ops = record.get("ops") or []
        stats = tuple((path_pattern(str(op["path"])), str(op["kind"]), float(op["delta"]))
                      for op in ops if float(op["delta"]) > 0.0)
        return BatchResult({**record, "score": score}, stats)
    except (ValueError, KeyError, TypeError) as exc:
        message = f"not an oa batch output record: {exc}"
        return BatchResult({"error": {"line": number, "pointer": "", "message": message}},
                           error=f"{file} line {number}: {message}")


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean",
               type(None): "null", int: "number", float: "number"}


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _top_op(op: Mapping[str, Any]) -> str:
    """The biggest repair operation in words: ``kind at path``, and for a type mismatch
    the two types (``type-mismatch at (root): array for object``), as the kind alone
    does not say what was wrong."""
    text = f"{op['kind']} at {op['path'] or '(root)'}"
    if str(op["kind"]) == "type-mismatch" and "gold" in op and "candidate" in op:
        text += f": {_json_type(op['candidate'])} for {_json_type(op['gold'])}"
    return text


def _format_statuses(dataset: Dataset, run: str, frame: pd.DataFrame) -> None:
    """Set the format status (:mod:`oa_core.runs.output_format`) of every raw prediction that
    was read: a score alone does not say that the JSON came from inside prose or from a
    cut-off answer, nor why nothing was read."""
    source = dataset.runs[run]
    statuses = frame["status"].to_numpy(dtype=object).copy()
    problems = frame["problem"].to_numpy(dtype=object).copy()
    for row in range(len(frame)):
        if statuses[row] == "error" or '"prediction"' not in source.pair_line(row):
            continue  # a candidate given as JSON has no format of its own
        try:
            prediction = dataset.pair(run, row).get("prediction")
        except OAError:
            continue
        if not isinstance(prediction, str):
            continue
        status = classify(prediction, parsed=statuses[row] == "ok")
        if status == "not JSON" and problems[row]:
            continue  # the parse error says more than the general sentence
        statuses[row] = status
        problems[row] = describe(status)
    frame["status"] = statuses
    frame["problem"] = problems


def build_run(name: str, results: list[BatchResult], numbers: list[int] | None = None,
              seconds: float = 0.0) -> ScoredRun:
    """A :class:`ScoredRun` from the results of :func:`oa_core.runs.batch.iter_batch`.

    ``numbers`` maps each pair to its source line (joined runs), for error rows.
    """
    rows: list[dict[str, Any]] = []
    op_rows: list[tuple[int, str, str, float]] = []
    field_rows: list[tuple[int, str, str, float]] = []
    for row, result in enumerate(results):
        record = result.record
        score = record.get("score", np.nan)
        ops = record.get("ops") or []
        top = ops[0] if ops else None
        status, problem, line = "ok", "", 0
        if result.error is not None:
            error = record.get("error") or {}
            status, line = "error", int(error.get("line") or 0)
            pointer = error.get("pointer") or ""
            problem = error.get("message", "") + (f" (at {pointer})" if pointer else "")
        elif "parse_error" in record:  # no JSON read (the raw text refines it)
            problem = record["parse_error"].get("message", "")
            status = "empty" if problem.startswith("the model output is empty") else "not JSON"
        if numbers is not None and row < len(numbers) and (line or status != "ok"):
            line = numbers[row]
        rows.append({"row": row, "id": _display_id(record, row), "score": score,
                     "deficit": 1.0 - score if score == score else np.nan,
                     "ops": len(result.op_stats),
                     "top_op": _top_op(top) if top else "",
                     "top_kind": top["kind"] if top else "",
                     "top_path": top["path"] if top else "",
                     "status": status, "problem": problem, "line": line})
        op_rows += [(row, pattern, kind, delta) for pattern, kind, delta in result.op_stats]
        field_rows += [(row, *item) for item in result.fields]
    frame = pd.DataFrame(rows, columns=["row", "id", "score", "deficit", "ops", "top_op",
                                        "top_kind", "top_path", "status", "problem", "line"])
    frame = frame.astype({"row": "int64", "score": "float64", "deficit": "float64",
                          "ops": "int64", "line": "int64"})
    ops_frame = pd.DataFrame(op_rows, columns=["row", "pattern", "kind", "delta"])
    fields_frame = pd.DataFrame(field_rows, columns=["row", "pattern", "outcome", "similarity"])
    return ScoredRun(name, frame, ops_frame.astype({"row": "int64", "delta": "float64"}),
                     fields_frame.astype({"row": "int64", "similarity": "float64"}),
                     [r.record for r in results], seconds)


@contextlib.contextmanager
def _workers_without_main() -> Iterator[None]:
    """Worker processes started in this block do not run the caller's ``__main__``.

    A worker made by ``spawn`` or a fork server first runs the parent's main script
    again (as ``__mp_main__``), so that objects pickled from ``__main__`` resolve. The
    scoring workers need nothing from it (their code is in :mod:`oa_core.runs.batch`), and
    in the explorer that script is the Streamlit app, which Streamlit installs as
    ``__main__``: each worker would import Streamlit, plotly and the app and draw its
    sidebar in bare mode before scoring a pair. An empty stand-in (no ``__file__``, no
    ``__spec__``) tells them there is no main to run.
    """
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = saved


def score_run(dataset: Dataset, run: str, *, options: BatchOptions | None = None,
              workers: int = 1, schema: Any = None,
              progress: Callable[[int, int], None] | None = None,
              start_method: str | None = None) -> ScoredRun:
    """Score one run of a dataset (field observations included).

    Parameters
    ----------
    dataset : Dataset
    run : str
        One of ``dataset.runs``.
    options : BatchOptions, optional
        ``fields`` is set whatever is given.
    workers : int
        Worker processes (1 scores in this process).
    schema : dict, optional
        Score with this schema instead of the dataset's (run-level schema tuning).
    progress : callable, optional
        ``progress(done, total)``, called as the pairs are scored.
    start_method : str, optional
        How the worker processes start (see :func:`oa_core.runs.batch.iter_batch`).

    Raises
    ------
    SchemaError
        When ``schema`` is invalid.
    """
    source = dataset.runs[run]
    if source.results:
        start = time.perf_counter()
        read = [_result(source.file, number, source.lines[number - 1])
                for number in source.numbers]
        if progress is not None:
            progress(len(read), len(read))
        return build_run(run, read, seconds=time.perf_counter() - start)
    options = replace(options or BatchOptions(), fields=True)
    total = len(source)
    start = time.perf_counter()
    results: list[BatchResult] = []
    with _workers_without_main() if workers > 1 else contextlib.nullcontext():
        for result in iter_batch(source.lines, dataset.schema if schema is None else schema,
                                 options=options, workers=workers, name=source.file,
                                 start_method=start_method):
            results.append(result)
            if progress is not None:
                progress(len(results), total)
    scored = build_run(run, results, source.numbers if source.joined else None,
                       time.perf_counter() - start)
    _format_statuses(dataset, run, scored.frame)
    return scored


# --------------------------------------------------------------------------- run cache


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of everything a score depends on besides its input: the source of
    ``oa_core`` and the versions of Python, numpy, scipy and pandas.

    A stored run is reused only under the same fingerprint, so an edit of the scoring
    code never shows scores it would no longer give.
    """
    import scipy

    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent  # all of oa_core, not only runs/
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(f"{sys.version}|{np.__version__}|{scipy.__version__}|{pd.__version__}"
                  .encode())
    return digest.hexdigest()[:20]


def stored_name(key: str) -> str:
    """The file name of a scored run in a run cache: its content key and the code's
    :func:`code_fingerprint`."""
    return f"run-{hashlib.sha256((key + code_fingerprint()).encode()).hexdigest()[:32]}.pickle"


def store_scored(folder: Path, key: str, scored: ScoredRun, *, keep: int = 32) -> None:
    """Write a scored run into the run cache ``folder`` (the ``keep`` newest are kept).

    The folder is made readable by its owner only; the file is written whole, then
    renamed, so a reader never sees half of it. A cache that cannot be written is
    skipped: it only saves time.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = folder / stored_name(key)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        with partial.open("wb") as out:
            pickle.dump(scored, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, target)
        runs = sorted(folder.glob("run-*.pickle"), key=lambda p: p.stat().st_mtime)
        for old in runs[:-keep] if keep > 0 else runs:
            old.unlink(missing_ok=True)
    except OSError:
        return


def load_scored(folder: Path, key: str) -> ScoredRun | None:
    """The scored run stored under ``key`` by this code (:func:`store_scored`), or None.

    The cache holds pickles, which can run code when read: keep it in a folder only
    its owner can write (the default one is made so).
    """
    path = folder / stored_name(key)
    started = time.perf_counter()
    try:
        with path.open("rb") as source:
            scored = pickle.load(source)
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file is not a stored run: forget it
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    if not isinstance(scored, ScoredRun):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept longest
    scored.stored = True
    scored.seconds = time.perf_counter() - started
    return scored
