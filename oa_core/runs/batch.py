"""Scoring many gold/candidate pairs: the engine of ``oa batch``.

Each input line is one JSON object: ``{"gold": ..., "candidate": ...}`` (parsed
JSON) or ``{"gold": ..., "prediction": "raw model text"}`` (the JSON is taken out
of the text with :func:`oa_core.jsonio.extract_json`); an ``"id"`` is copied to the
output. :func:`iter_batch` scores the lines, in one process, several, or on a Dask
cluster (``client=``, see :mod:`oa_core.runs.cluster`), and yields one :class:`BatchResult`
per line in input order; :func:`summarize` aggregates them; :func:`score_pairs` returns
the records of a batch as a pandas DataFrame.

One line never costs the others: a line that is bad input gets an ``error``, a
prediction with no usable JSON scores 0 with a ``parse_error``, and an unexpected
exception while scoring a line is reported for that line as an internal error.

Examples
--------
>>> import json
>>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
>>> lines = [json.dumps({"id": "a", "gold": {"city": "Paris"}, "candidate": {"city": "Paris"}}),
...          json.dumps({"gold": {"city": "Paris"}, "prediction": "no idea"}),
...          '{"gold": ']
>>> results = list(iter_batch(lines, schema))
>>> results[0].record
{'index': 0, 'id': 'a', 'score': 1.0, 'ops': []}
>>> results[1].record["score"], results[1].record["parse_error"]["pointer"]
(0.0, '/prediction')
>>> results[2].record["error"]["line"], results[2].error.splitlines()[0][:66]
(3, '<pairs> line 3 (pairs) at (root): invalid JSON: the text ends at l')
>>> print(summarize(results).render())
pairs: 2 scored, 1 failed, 1 unparsable predictions
score: mean 0.5000  p10 0.1000  p50 0.5000  p90 0.9000
"""

from __future__ import annotations

import functools
import itertools
import json
import multiprocessing
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .._engine import dump_plain_json
from ..aligner import align
from ..errors import InputError, OAError
from ..feedback import Feedback, feedback, render_feedback
from ..jsonio import JsonlLines, extract_json, loads_pair_line
from ..options import AlignOptions
from ..report import describe_error, printable
from ..schema import Schema
from .fields import gold_only, observe
from .pool import RunError, WorkerLost, ordered_answers

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BatchBlock",
    "BatchOptions",
    "BatchResult",
    "BatchSummary",
    "BatchTally",
    "LineOutcome",
    "RunError",
    "WorkerLost",
    "iter_batch",
    "iter_batch_blocks",
    "path_pattern",
    "record_text",
    "score_line",
    "score_pairs",
    "summarize",
]


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How each pair is scored (the same for every worker).

    Attributes
    ----------
    top_k : int
        Repair operations written per pair.
    min_delta : float
        Operations recovering less are not written.
    align_options : AlignOptions
        Passed to :func:`oa_core.align`; its ``limits`` also bound the reading of
        each line and prediction.
    fields : bool
        Also record each pair's field observations (:mod:`oa_core.runs.fields`), for
        field metrics (``oa batch --field-metrics``).

    >>> BatchOptions(top_k=3, align_options=AlignOptions(wl_mode="none")).align_options.wl_mode
    <WLMode.NONE: 'none'>
    >>> try:
    ...     BatchOptions(top_k=-1)
    ... except InputError as err:
    ...     print(err.message)
    top_k must be a non-negative integer, got -1
    """

    top_k: int = 5
    min_delta: float = 0.0
    align_options: AlignOptions = field(default_factory=AlignOptions)
    fields: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 0:
            raise InputError("/top_k", f"top_k must be a non-negative integer, got "
                             f"{self.top_k!r}", fix="pass top_k=5", document="options")
        delta = self.min_delta
        if isinstance(delta, bool) or not isinstance(delta, int | float) or not (
                0.0 <= delta <= 1.0):
            raise InputError("/min_delta", f"min_delta must be in [0, 1], got {delta!r}",
                             fix="pass a number between 0 and 1", document="options")
        object.__setattr__(self, "align_options", AlignOptions.coerce(self.align_options))


_OutcomeFields = tuple[float | None, bool, tuple[tuple[str, str, float], ...], str | None,
                       bool, tuple[tuple[str, str, float], ...]]
"""A :class:`LineOutcome`'s fields, in its order."""


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The outcome of one input line.

    Attributes
    ----------
    record : dict
        The output line: ``index``, ``id`` (when the input has one), ``score`` and
        ``ops`` (the top repair operations); ``parse_error`` (pointer, message,
        fix) when the raw prediction held no usable JSON (score 0); ``error``
        (line, document, pointer, message, fix) when the line itself is bad (no
        score), or (line, ``internal: true``, message) when scoring it failed
        unexpectedly.
    op_stats : tuple of (str, str, float)
        ``(path pattern, op kind, delta)`` of every operation (for the summary).
    error : str or None
        Why the line was not scored, with file, line and pointer.
    internal : bool
        The line was not scored because of an unexpected exception (a bug).
    fields : tuple of (str, str, float)
        The pair's field observations (:func:`oa_core.runs.fields.observe`) when
        ``BatchOptions.fields`` is set; a prediction with no usable JSON gives its
        gold's values as missing.
    """

    record: dict[str, Any]
    op_stats: tuple[tuple[str, str, float], ...] = ()
    error: str | None = None
    internal: bool = False
    fields: tuple[tuple[str, str, float], ...] = ()

    @property
    def score(self) -> float | None:
        """The pair's score (0 for an unparsable prediction); None when not scored."""
        return self.record.get("score")

    @property
    def unparsable(self) -> bool:
        """The raw prediction held no usable JSON."""
        return "parse_error" in self.record

    def outcome(self) -> LineOutcome:
        """What :func:`summarize` reads of this result."""
        return LineOutcome._make(self._outcome_fields())

    def _outcome_fields(self) -> _OutcomeFields:
        """:meth:`outcome`'s fields, as a worker process sends them: a plain tuple
        pickles in a third of a named tuple's time, and is read back in half."""
        return (self.score, self.unparsable, self.op_stats, self.error, self.internal,
                self.fields)


class LineOutcome(NamedTuple):
    """What :func:`summarize` reads of one line's result (:class:`BatchBlock`).

    Attributes
    ----------
    score : float or None
        The pair's score; None when the line was not scored.
    unparsable : bool
        The raw prediction held no usable JSON (it scores 0).
    op_stats, error, internal, fields
        As in :class:`BatchResult`.
    """

    score: float | None
    unparsable: bool
    op_stats: tuple[tuple[str, str, float], ...] = ()
    error: str | None = None
    internal: bool = False
    fields: tuple[tuple[str, str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class BatchBlock:
    """Consecutive results as ``oa batch`` writes them (:func:`iter_batch_blocks`).

    Attributes
    ----------
    text : str
        Each result's record as one line of JSON (:func:`record_text`), each line
        ended by a line feed.
    outcomes : tuple of LineOutcome
        What :func:`summarize` reads of each, in the same order.
    """

    text: str
    outcomes: tuple[LineOutcome, ...]

    @classmethod
    def of(cls, results: Sequence[BatchResult]) -> BatchBlock:
        """The block of ``results``."""
        return cls(_records_text(results), tuple(result.outcome() for result in results))


def _records_text(results: Sequence[BatchResult]) -> str:
    """The records of ``results`` as ``oa batch`` writes them, a line each."""
    return "".join([record_text(result.record) + "\n" for result in results])


def record_text(record: dict[str, Any]) -> str:
    """A result record as one line of JSON, as ``oa batch`` writes it: UTF-8 text as it
    is, a lone surrogate escaped, and a value JSON has no type for as its ``str()``.

    >>> record_text({"index": 0, "id": "é", "score": 1.0, "ops": []})
    '{"index": 0, "id": "é", "score": 1.0, "ops": []}'
    """
    text = dump_plain_json(record, None)  # the engine writes plain values in one pass
    if text is None:
        text = printable(json.dumps(record, ensure_ascii=False, default=str))
    return text


_INDEX_SEGMENT = re.compile(r"(?<=/)\d+(?=/|$)")


def path_pattern(pointer: str) -> str:
    """A JSON Pointer with its array indices replaced by ``*``.

    >>> path_pattern("/people/5/name")
    '/people/*/name'
    >>> path_pattern("")
    '(root)'
    """
    return _INDEX_SEGMENT.sub("*", pointer) if pointer else "(root)"


_SHAPE = ('write {"gold": ..., "candidate": ...} or {"gold": ..., "prediction": "raw '
          'model text"}')


def score_line(schema: Schema, options: BatchOptions, name: str, index: int, number: int,
               text: str) -> BatchResult:
    """Score one JSONL line; every problem is reported in the result, none raised.

    Parameters
    ----------
    schema : Schema
    options : BatchOptions
    name : str
        The input's name, for messages (``pairs.jsonl``).
    index : int
        The pair's index (non-blank lines counted from 0).
    number : int
        The line number (from 1), for messages.
    text : str
        The line.

    >>> schema = Schema.parse({"type": "object"})
    >>> print(score_line(schema, BatchOptions(), "p.jsonl", 0, 1, "[1]").error)
    p.jsonl line 1 (pairs) at (root): a line must be a JSON object, got list
      fix: write {"gold": ..., "candidate": ...} or {"gold": ..., "prediction": "raw model text"}
    """
    return _score_lines(schema, options, name, ((index, number, text),))[0]


_Task = tuple[int, int, str]
"""A pair line to score: its index, its line number and its text."""

_PHASE_LINES = 8
"""Lines read before their pairs are scored (:func:`_score_lines`)."""


def _score_lines(schema: Schema, options: BatchOptions, name: str,
                 tasks: Sequence[_Task]) -> list[BatchResult]:
    """:func:`score_line` of each task, in three passes: the lines are read, their
    pairs scored, then the results recorded. Each step runs faster a few lines at a time
    than between two others (the caches hold one step's code at a time: a pair's
    scoring costs about 4% more CPU when reading a line comes between two), so callers
    give a few lines at a time (:data:`_PHASE_LINES`)."""
    records = [{"index": index} for index, _, _ in tasks]
    numbers = [number for _, number, _ in tasks]
    read = [_guarded(_read_pair, record, options, name, number, text)
            for record, (_, number, text) in zip(records, tasks, strict=True)]
    scored = [pair if isinstance(pair, BatchResult) else
              _guarded(_score_pair, record, options, name, number, schema, pair)
              for record, number, pair in zip(records, numbers, read, strict=True)]
    return [done if isinstance(done, BatchResult) else
            _guarded(_recorded, record, options, name, number, done)
            for record, number, done in zip(records, numbers, scored, strict=True)]


_Step = TypeVar("_Step")


def _guarded(step: Callable[..., _Step], record: dict[str, Any], options: BatchOptions,
             name: str, number: int, *args: Any) -> _Step | BatchResult:
    """``step(record, options, name, number, *args)``; an exception from it (a bug) is
    that line's internal error, and the other lines go on."""
    try:
        return step(record, options, name, number, *args)
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        kept: dict[str, Any] = {key: record[key] for key in ("index", "id") if key in record}
        kept["error"] = {"line": number, "internal": True, "message": message}
        return BatchResult(kept, error=f"{name} line {number}: {message}", internal=True)


def _bad(record: dict[str, Any], name: str, number: int, err: OAError, prefix: str = "",
         document: str = "") -> BatchResult:
    """The line is bad input: not scored, its error recorded."""
    document = document or err.document
    record["error"] = {"line": number, "document": document, "pointer": prefix + err.pointer,
                       "message": err.message, "fix": err.fix}
    return BatchResult(record, error=describe_error(err, f"{name} line {number}", prefix,
                                                    document))


def _malformed(record: dict[str, Any], name: str, number: int, pointer: str, message: str,
               fix: str) -> BatchResult:
    """The line is not a pair as ``oa batch`` reads one."""
    return _bad(record, name, number, InputError(pointer, message, fix=fix), document="pairs")


def _unparsable(record: dict[str, Any], options: BatchOptions, gold: Any,
                err: OAError) -> BatchResult:
    """The raw prediction holds no usable JSON: the model's fault, so it scores 0."""
    where = f"at {err.pointer}: " if err.pointer else ""
    record.update(score=0.0, ops=[], parse_error={
        "pointer": "/prediction", "message": where + err.message, "fix": err.fix})
    return BatchResult(record, fields=gold_only(gold) if options.fields else ())


_Pair = tuple[Any, Any, str, bool]
"""A line read: the gold, the candidate, the candidate's pointer prefix in the line, and
whether the candidate came from a raw prediction."""


def _read_pair(record: dict[str, Any], options: BatchOptions, name: str, number: int,
               text: str) -> _Pair | BatchResult:
    """The pair of a line, or the line's result when it cannot be scored."""
    limits = options.align_options.limits
    try:
        item = loads_pair_line(text, limits=limits)
    except OAError as exc:  # a problem inside the gold or candidate is that document's
        document = exc.pointer.split("/", 2)[1] if exc.pointer.startswith("/") else ""
        return _bad(record, name, number, exc,
                    document=document if document in ("gold", "candidate") else "pairs")
    if not isinstance(item, dict):
        return _malformed(record, name, number, "",
                          f"a line must be a JSON object, got {type(item).__name__}", _SHAPE)
    if "id" in item:
        record["id"] = item["id"]
    sides = [key for key in ("candidate", "prediction") if key in item]
    if "gold" not in item or len(sides) != 1:
        return _malformed(record, name, number, "", 'a line needs "gold" and exactly one of '
                          '"candidate" (JSON) or "prediction" (raw model text)', _SHAPE)
    if sides[0] == "candidate":
        return item["gold"], item["candidate"], "/candidate", False
    if not isinstance(item["prediction"], str):
        return _malformed(record, name, number, "/prediction", '"prediction" must be a '
                          "string of raw model text", 'put parsed JSON under "candidate"')
    try:
        candidate = extract_json(item["prediction"], limits=limits)
    except OAError as exc:
        return _unparsable(record, options, item["gold"], exc)
    return item["gold"], candidate, "", True  # pointers into a prediction are its own


_Scored = tuple[Feedback, tuple[tuple[str, str, float], ...]]
"""A pair's feedback and its field observations (none unless they are asked for)."""


def _score_pair(record: dict[str, Any], options: BatchOptions, name: str, number: int,
                schema: Schema, pair: _Pair) -> _Scored | BatchResult:
    """The feedback of a pair read from its line, or the line's result when the pair
    cannot be scored."""
    gold, candidate, candidate_prefix, prediction = pair
    observed: tuple[tuple[str, str, float], ...] = ()
    try:
        if options.fields:  # the alignment itself is needed for the field observations
            alignment = align(gold, candidate, schema, options.align_options)
            result = render_feedback(alignment, top_k=options.top_k,
                                     min_delta=options.min_delta, style="compact")
            observed = observe(alignment)
        else:
            result = feedback(gold, candidate, schema, top_k=options.top_k,
                              min_delta=options.min_delta, style="compact",
                              options=options.align_options)
    except OAError as exc:
        if prediction and exc.document == "candidate":  # JSON, but not usable (too deep...)
            return _unparsable(record, options, gold, exc)
        return _bad(record, name, number, exc,
                    {"gold": "/gold", "candidate": candidate_prefix}.get(exc.document, ""))
    return result, observed


def _recorded(record: dict[str, Any], options: BatchOptions, name: str, number: int,
              scored: _Scored) -> BatchResult:
    """A scored pair as its line's result: the score and the repair operations shown in
    the record, every operation's path pattern, kind and delta for the summary."""
    result, observed = scored
    record.update(score=result.score, ops=[op.to_dict() for op in result.shown])
    stats = tuple((_pattern(op.path), str(op.kind), op.delta) for op in result.ops
                  if op.delta > 0.0)
    return BatchResult(record, stats, fields=observed)


_pattern = functools.lru_cache(maxsize=4096)(path_pattern)
""":func:`path_pattern`, remembered: the same paths come back pair after pair."""


_Fields = tuple[dict[str, Any], tuple[tuple[str, str, float], ...], str | None, bool,
                tuple[tuple[str, str, float], ...]]


_Phases = Iterator[list[BatchResult]]
"""A job's results, a phase (:data:`_PHASE_LINES` lines) at a time."""


# A worker's answer goes back as plain tuples: pickling a slotted dataclass costs twice
# as much.
def _work(phases: _Phases) -> list[_Fields]:
    return [(result.record, result.op_stats, result.error, result.internal, result.fields)
            for results in phases for result in results]


def _work_block(phases: _Phases) -> tuple[str, list[_OutcomeFields]]:
    # one str for all the records pickles for a fraction of their dicts, and the command
    # writes it at once; each phase's records become text as soon as they are scored
    texts: list[str] = []
    outcomes: list[_OutcomeFields] = []
    for results in phases:
        texts.append(_records_text(results))
        outcomes += [result._outcome_fields() for result in results]
    return "".join(texts), outcomes


_Work = TypeVar("_Work")
_Job = tuple[Callable[[_Phases], _Work], int, int, Sequence[_Task]]
"""``work`` on the results of the tasks ``start:stop`` of the run, given with the job
or, when empty, made from the lines of the process doing it (a forked worker's are its
parent's)."""

_Run = tuple[Schema, BatchOptions, str, Sequence[str], Sequence[int]]
"""What a process scoring jobs holds: the schema, options, input name, lines and the
positions of the pairs among them."""

_WORKER: _Run | None = None


def _init_worker(raw_schema: Any, options: BatchOptions, name: str, lines: Sequence[str],
                 filled: Sequence[int]) -> None:
    global _WORKER  # one parsed schema per worker process (a forked one inherits it)
    _WORKER = (Schema.parse(raw_schema), options, name, lines, filled)


def _run_job(job: _Job[_Work]) -> _Work:
    """A job done in a worker process."""
    assert _WORKER is not None, "the worker was not initialised"
    return _done(job, _WORKER)


def _done(job: _Job[_Work], run: _Run) -> _Work:
    """A job's answer. Its lines are read (decoded) a phase at a time, just before they
    are scored, and ``work`` takes each phase's results as they come: a job's 128 lines
    and results held at once no longer fit in the core's cache, which cost 5-9 us a
    pair."""
    work, start, stop, given = job
    schema, options, name, lines, filled = run
    count = len(given) if given else min(stop, len(filled)) - start

    def phases() -> _Phases:
        for first in range(0, count, _PHASE_LINES):
            last = min(count, first + _PHASE_LINES)
            tasks = (given[first:last] if given
                     else _tasks(lines, filled, start + first, start + last))
            yield _score_lines(schema, options, name, tasks)

    return work(phases())


def _filled(lines: Sequence[str]) -> Sequence[int]:
    """The positions of the lines that are not blank (the pairs)."""
    if isinstance(lines, JsonlLines):  # without decoding the lines
        return lines.filled()
    return [position for position, text in enumerate(lines) if text.strip()]


def _tasks(lines: Sequence[str], filled: Sequence[int], start: int,
           stop: int) -> list[_Task]:
    """(index, line number, text) of the pairs ``start:stop``, the lines read now: a run
    holds its input as it was given (a file's bytes, for ``oa batch``) and each line is
    made only when it is scored."""
    return [(index, position + 1, lines[position])
            for index, position in enumerate(filled[start:stop], start)]


def _pooled(work: Callable[[_Phases], _Work], lines: Sequence[str],
            filled: Sequence[int], schema: Schema, raw_schema: Any, options: BatchOptions,
            name: str, workers: int, start_method: str | None) -> Iterator[_Work]:
    """``work`` of the tasks, a job of consecutive ones at a time, done by ``workers``
    processes; the jobs' answers in input order."""
    # Jobs of up to 128 lines: each costs a pipe's round trip and a pickle, and eight
    # jobs a process still balance the load.
    size = max(1, min(128, len(filled) // (workers * 8)))
    context = multiprocessing.get_context(start_method)
    run: _Run = (schema, options, name, lines, filled)
    # A forked worker inherits the initializer's arguments without pickling: it gets the
    # parsed schema and every line, and each job need only say which lines are its own.
    # Other workers get the raw schema to parse, and their lines with each job.
    forked = context.get_start_method() == "fork"
    jobs: Iterator[_Job[_Work]] = (
        (work, start, start + size, () if forked else
         _tasks(lines, filled, start, start + size))
        for start in range(0, len(filled), size))
    if not forked:
        return ordered_answers(_run_job, jobs, workers=workers, context=context,
                               initializer=_init_worker,
                               initargs=(raw_schema, options, name, (), ()))
    # Forked, this process is one of the workers: between its workers' answers it does
    # jobs of its own, which spares a process (its start, its copies of this one's
    # pages) and the answers' trips. A forked worker's jobs are a few bytes each: three
    # wait in each pipe, so that none runs dry while this process is busy with a job.
    return ordered_answers(_run_job, jobs, workers=workers, context=context,
                           initializer=_init_worker, initargs=run, in_flight=3,
                           here=functools.partial(_done, run=run))


def iter_batch(lines: Sequence[str], raw_schema: Any, *, options: BatchOptions | None = None,
               workers: int = 1, name: str = "<pairs>", client: Any = None,
               chunk_size: int | None = None, start_method: str | None = None,
               schema: Schema | None = None) -> Iterator[BatchResult]:
    """Score every pair line, in input order, with one or more processes or on Dask.

    Parameters
    ----------
    lines : sequence of str
        The JSONL lines (blank lines are skipped; line numbers count them). A
        :class:`~oa_core.jsonio.JsonlLines` is read a line at a time, by the process
        scoring it.
    raw_schema : dict
        The OA schema as JSON data; each worker parses it once.
    options : BatchOptions, optional
    workers : int
        Processes scoring: 1 is this one alone; with more, forked workers and this
        one (which also collects their answers), or as many spawned workers.
    name : str
        The input's name, for error messages.
    client : distributed.Client, optional
        Score on this Dask cluster instead (``workers`` is then unused); see
        :func:`oa_core.runs.cluster.iter_batch_dask`. The results are the same.
    chunk_size : int, optional
        Lines per Dask task (default: automatic).
    start_method : str, optional
        How worker processes start (``"fork"``, ``"forkserver"``, ``"spawn"``; default:
        the platform's). A multi-threaded caller such as a web server should not fork.
    schema : Schema, optional
        ``raw_schema`` already parsed (``Schema.parse(raw_schema)``), so that it is not
        parsed again here; forked workers share it (a parsed schema cannot be pickled:
        spawned workers and Dask workers parse ``raw_schema`` once each).

    Yields
    ------
    BatchResult
        One per non-blank line, in input order whatever ``workers`` or ``client`` is.

    Raises
    ------
    SchemaError
        When the schema is invalid (before any line is scored).
    ClusterError
        When the Dask cluster is lost mid-run (:mod:`oa_core.runs.cluster`).
    WorkerLost
        When a worker process ends before answering (killed, out of memory).
    """
    return _results(lines, raw_schema, options, workers, name, client, chunk_size,
                    start_method, schema, _work, _results_of_fields, _as_they_are)


def iter_batch_blocks(lines: Sequence[str], raw_schema: Any, *,
                      options: BatchOptions | None = None, workers: int = 1,
                      name: str = "<pairs>", client: Any = None, chunk_size: int | None = None,
                      start_method: str | None = None,
                      schema: Schema | None = None) -> Iterator[BatchBlock]:
    """:func:`iter_batch`'s results as ``oa batch`` writes them (the same arguments): a
    block of consecutive lines at a time, in input order.

    A worker process sends a block back as the text of its records and what the summary
    reads of each, which costs it and this process less than the records' values.

    >>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    >>> line = json.dumps({"gold": {"city": "Paris"}, "candidate": {"city": "Rome"}})
    >>> print(*(block.text for block in iter_batch_blocks([line], schema)), end="")
    {"index": 0, "score": 0.0, "ops": [{"kind": "primitive-value", ...}]}
    >>> summarize(outcome for block in iter_batch_blocks([line], schema)
    ...           for outcome in block.outcomes).count
    1
    """
    return _results(lines, raw_schema, options, workers, name, client, chunk_size,
                    start_method, schema, _work_block, _block_of_fields, _as_block)


def _block_of_fields(answer: tuple[str, list[_OutcomeFields]]) -> tuple[BatchBlock]:
    text, fields = answer
    return (BatchBlock(text, tuple(map(LineOutcome._make, fields))),)


def _as_block(results: list[BatchResult]) -> tuple[BatchBlock]:
    return (BatchBlock.of(results),)


def _results_of_fields(answer: list[_Fields]) -> list[BatchResult]:
    return [BatchResult(*fields) for fields in answer]


def _as_they_are(results: list[BatchResult]) -> list[BatchResult]:
    return results


_Result = TypeVar("_Result")


def _results(lines: Sequence[str], raw_schema: Any, options: BatchOptions | None,
             workers: int, name: str, client: Any, chunk_size: int | None,
             start_method: str | None, schema: Schema | None,
             work: Callable[[_Phases], _Work],
             from_worker: Callable[[_Work], Iterable[_Result]],
             local: Callable[[list[BatchResult]], Iterable[_Result]]) -> Iterator[_Result]:
    """:func:`iter_batch` and :func:`iter_batch_blocks`: ``work`` makes the answer to a
    job from its results (in whichever process does it) and ``from_worker`` takes the
    answer apart; the results of a few consecutive lines scored one job at a time here
    (one process, or Dask) are given to ``local``."""
    options = options or BatchOptions()
    schema = schema or Schema.parse(raw_schema)
    filled = _filled(lines)
    if client is not None:
        from .cluster import iter_batch_dask  # Dask is optional
        results = iter_batch_dask(_tasks(lines, filled, 0, len(filled)), raw_schema,
                                  client=client, options=options, name=name,
                                  chunk_size=chunk_size)
        while chunk := list(itertools.islice(results, _PHASE_LINES)):
            yield from local(chunk)
    elif workers <= 1 or len(filled) <= 1:
        for start in range(0, len(filled), _PHASE_LINES):
            yield from local(_score_lines(schema, options, name,
                                          _tasks(lines, filled, start, start + _PHASE_LINES)))
    else:
        for answer in _pooled(work, lines, filled, schema, raw_schema, options, name,
                              workers, start_method):
            yield from from_worker(answer)


COLUMNS = ("index", "id", "score", "ops", "parse_error", "error")
"""The columns of :func:`score_pairs`, the keys of a result record."""


def score_pairs(pairs: Iterable[str | bytes | Any], schema: Any, *,
                options: BatchOptions | None = None, client: Any = None, workers: int = 1,
                name: str = "<pairs>", chunk_size: int | None = None) -> pd.DataFrame:
    """Score many pairs; one DataFrame row per pair, in input order.

    Parameters
    ----------
    pairs : iterable of str or dict
        JSONL lines (blank ones skipped, as in a file) or pair objects
        (``{"gold": ..., "candidate"|"prediction": ..., "id": ...}``), mixed freely.
    schema : dict
        The OA schema as JSON data.
    options : BatchOptions, optional
    client : distributed.Client, optional
        Score on this Dask cluster (the rows are the same as without it).
    workers : int
        Local processes when there is no ``client``.
    name : str
        The input's name, for error messages.
    chunk_size : int, optional
        Lines per Dask task.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``index`` (int), ``id``, ``score`` (float; NaN when
        the line was not scored), ``ops`` (list of dicts), ``parse_error`` and ``error``
        (dicts, as in the ``oa batch`` records; None when absent).
        ``frame.attrs["summary"]`` is :meth:`BatchSummary.to_dict` of the run.

    Raises
    ------
    SchemaError
        When the schema is invalid.

    >>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    >>> frame = score_pairs([{"id": "a", "gold": {"city": "Paris"},
    ...                       "candidate": {"city": "Paris"}}, '{"gold": '], schema)
    >>> frame[["index", "id", "score"]].to_dict("records")
    [{'index': 0, 'id': 'a', 'score': 1.0}, {'index': 1, 'id': None, 'score': nan}]
    >>> frame.attrs["summary"]["failed"]
    1
    """
    import numpy as np
    import pandas as pd

    lines: list[str] = []
    refused: dict[int, str] = {}  # position in ``lines`` -> why the pair is not JSON data
    for item in pairs:
        if isinstance(item, str):
            lines.append(item)
            continue
        try:
            lines.append(item.decode("utf-8") if isinstance(item, bytes)
                         else json.dumps(item, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as exc:  # not JSON data: that pair's error
            refused[len(lines)] = f"{type(exc).__name__}: {exc}"
            lines.append("null")
    results = list(iter_batch(lines, schema, options=options, workers=workers, name=name,
                              client=client, chunk_size=chunk_size))
    if refused:
        numbers = [n for n, text in enumerate(lines) if text.strip()]  # index -> position
        for result_index, position in enumerate(numbers):
            if position in refused:
                results[result_index] = BatchResult(
                    {"index": result_index, "error": {
                        "line": position + 1, "document": "pairs", "pointer": "",
                        "message": f"the pair is not JSON data ({refused[position]})",
                        "fix": "give JSON data (dicts, lists, str, finite numbers, bool, "
                               "None) or a JSONL line"}},
                    error=f"{name} line {position + 1} (pairs): the pair is not JSON data "
                          f"({refused[position]})")
    records = [result.record for result in results]
    frame = pd.DataFrame({
        "index": pd.Series([r["index"] for r in records], dtype="int64"),
        "id": pd.Series([r.get("id") for r in records], dtype=object),
        "score": pd.Series([r.get("score", np.nan) for r in records], dtype="float64"),
        **{key: pd.Series([r.get(key) for r in records], dtype=object)
           for key in ("ops", "parse_error", "error")}}, columns=list(COLUMNS))
    frame.attrs["summary"] = summarize(results).to_dict()
    return frame


@dataclass(slots=True)
class BatchSummary:
    """Aggregate of a batch run.

    Attributes
    ----------
    count : int
        Pairs scored (including unparsable predictions, which score 0).
    failed : int
        Lines not scored: bad input, or an internal error.
    unparsable : int
        Raw predictions that held no usable JSON value.
    internal : int
        Lines not scored because of an unexpected exception (included in
        ``failed``).
    scores : list of float
    patterns : list of dict
        ``{"path", "kind", "count", "loss"}`` per (path pattern, op kind), most
        frequent first; ``loss`` is the summed delta divided by ``count`` of pairs
        scored (the mean score it costs per pair).
    """

    count: int = 0
    failed: int = 0
    unparsable: int = 0
    internal: int = 0
    scores: list[float] = field(default_factory=list)
    patterns: list[dict[str, Any]] = field(default_factory=list)

    def quantiles(self) -> dict[str, float | None]:
        """Mean and the 10th, 50th and 90th percentiles of the scores."""
        if not self.scores:
            return {"mean": None, "p10": None, "p50": None, "p90": None}
        import numpy as np  # once a run, at its end: the command starts without numpy

        data = np.asarray(self.scores, dtype=float)
        p10, p50, p90 = (float(q) for q in np.quantile(data, [0.1, 0.5, 0.9]))
        return {"mean": float(np.mean(data)), "p10": p10, "p50": p50, "p90": p90}

    def to_dict(self, top: int = 10) -> dict[str, Any]:
        """The summary as JSON-ready data (the ``top`` most frequent patterns)."""
        return {"count": self.count, "failed": self.failed, "unparsable": self.unparsable,
                "internal": self.internal, **self.quantiles(),
                "patterns": self.patterns[:top]}

    def render(self, top: int = 10) -> str:
        """The summary as text."""
        stats = self.quantiles()
        first = (f"pairs: {self.count} scored, {self.failed} failed, "
                 f"{self.unparsable} unparsable predictions")
        lines = [first + (f", {self.internal} internal errors" if self.internal else "")]
        if stats["mean"] is not None:
            lines.append("score: " + "  ".join(f"{name} {value:.4f}"
                                                for name, value in stats.items()
                                                if value is not None))
        if self.patterns:
            shown = self.patterns[:top]
            width = max(len("path"), *(len(p["path"]) for p in shown))
            kind_width = max(len("op kind"), *(len(p["kind"]) for p in shown))
            lines.append(f"most frequent repair operations (top {len(shown)} of "
                         f"{len(self.patterns)}):")
            lines.append(f"  {'path':<{width}}  {'op kind':<{kind_width}}  {'count':>6}  "
                         f"{'mean loss':>9}")
            lines += [f"  {p['path']:<{width}}  {p['kind']:<{kind_width}}  {p['count']:>6}  "
                      f"{p['loss']:>9.4f}" for p in shown]
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """The repair-operation patterns as a DataFrame, the counts and quantiles in
        its ``attrs["summary"]`` (:func:`oa_core.notebook.runs.summary_frame`)."""
        from ..notebook.runs import summary_frame

        return summary_frame(self)

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from ..notebook.runs import batch_summary_html

        return batch_summary_html(self)


class BatchTally:
    """A batch run's summary, counted one result at a time (what :func:`summarize` does
    over all of them): a run of millions of lines keeps only their scores.

    >>> tally = BatchTally()
    >>> tally.add(LineOutcome(0.5, False, (("/a", "missing-key", 0.5),)))
    >>> tally.add(LineOutcome(None, False, error="bad line"))
    >>> summary = tally.summary()
    >>> summary.count, summary.failed, summary.patterns[0]["loss"]
    (1, 1, 0.5)
    """

    __slots__ = ("_patterns", "_summary")

    def __init__(self) -> None:
        self._summary = BatchSummary()
        # (path pattern, op kind) -> [count, summed delta], summed in input order
        self._patterns: dict[tuple[str, str], list[Any]] = {}

    def add(self, result: BatchResult | LineOutcome) -> None:
        """Count one line's result."""
        self.add_all((result,))

    def add_all(self, results: Iterable[BatchResult | LineOutcome]) -> None:
        """Count the results of consecutive lines (a block's), in order."""
        summary, patterns = self._summary, self._patterns
        scores = summary.scores
        for result in results:
            score = result.score
            if result.error is not None or score is None:  # scored, or has an error
                summary.failed += 1
                summary.internal += result.internal
                continue
            summary.count += 1
            scores.append(score)
            summary.unparsable += result.unparsable
            for pattern, kind, delta in result.op_stats:
                seen = patterns.get((pattern, kind))
                if seen is None:
                    patterns[pattern, kind] = [1, delta]
                else:
                    seen[0] += 1
                    seen[1] += delta

    def summary(self) -> BatchSummary:
        """The summary of the results counted so far."""
        patterns, count = self._patterns, self._summary.count
        ranked = sorted(patterns, key=lambda k: (-patterns[k][0], -patterns[k][1], k))
        return replace(self._summary, scores=list(self._summary.scores), patterns=[
            {"path": path, "kind": kind, "count": patterns[path, kind][0],
             "loss": patterns[path, kind][1] / max(count, 1)} for path, kind in ranked])


def summarize(results: Iterable[BatchResult | LineOutcome]) -> BatchSummary:
    """Count, score quantiles and the op kinds per path pattern of a batch run."""
    tally = BatchTally()
    tally.add_all(results)
    return tally.summary()
