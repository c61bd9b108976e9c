"""The ``oa`` command line: score, feedback, explain, batch and explore.

Every command that compares documents takes a gold file, a candidate file and an
OA schema (``--schema``). Files may be JSON, JSONC (comments, trailing commas) or
JSONL; ``-`` reads standard input (once per command). Exit codes:

* 0 -- success;
* 2 -- bad input: the message names the file, the document and the JSON Pointer
  (and the line of a JSONL file), and says how to fix it; never a traceback;
* 1 -- an unexpected internal error, reported in one line (``--debug`` shows the
  traceback).

Examples
--------
>>> import io, contextlib
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     code = main(["score", "sample_data/running_example/gold.json",
...                  "sample_data/running_example/candidate.json",
...                  "--schema", "sample_data/running_example/schema.json"])
>>> code, out.getvalue().strip()
(0, '0.7678571428571429')
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

import numpy as np

from .aligner import WL_MODES, Alignment, align
from .errors import Diagnostic, InputError, OAError
from .feedback import feedback, load_templates
from .jsonio import extract_json, loads
from .matchtree import MatchNode
from .schema import Schema

__all__ = [
    "BadInput",
    "BatchOptions",
    "BatchResult",
    "BatchSummary",
    "app_entry",
    "build_parser",
    "explain_table",
    "iter_batch",
    "main",
    "path_pattern",
    "summarize",
]

STDIN = "-"
_JSONL_SUFFIXES = (".jsonl", ".ndjson")


# --------------------------------------------------------------------------- errors


class BadInput(Exception):
    """Bad input found by the command line; its text names the file and pointer.

    Parameters
    ----------
    text : str
        The complete message (without the ``oa: error:`` prefix).
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _describe(err: OAError, source: str, prefix: str = "", document: str = "") -> str:
    """Render a library error for a human: file, document, pointer, message, fix."""
    pointer = prefix + err.pointer
    text = f"{source} ({document or err.document}) at {pointer or '(root)'}: {err.message}"
    return f"{text}\n  fix: {err.fix}" if err.fix else text


def _display(path: str) -> str:
    return "<stdin>" if path == STDIN else path


# --------------------------------------------------------------------------- colors


@dataclass(frozen=True, slots=True)
class _Painter:
    """ANSI colors, or plain text when disabled."""

    enabled: bool

    def __call__(self, text: str, *codes: str) -> str:
        if not self.enabled or not codes:
            return text
        return f"\033[{';'.join(codes)}m{text}\033[0m"


_GREEN, _YELLOW, _RED, _MAGENTA, _CYAN, _BOLD, _DIM = "32", "33", "31", "35", "36", "1", "2"


def _painter(mode: str, stream: TextIO) -> _Painter:
    """Colors for ``stream``: ``auto`` means a TTY and no ``NO_COLOR`` variable."""
    if mode == "always":
        return _Painter(True)
    if mode == "never" or os.environ.get("NO_COLOR"):
        return _Painter(False)
    isatty = getattr(stream, "isatty", None)
    return _Painter(bool(isatty and isatty()))


# --------------------------------------------------------------------------- reading


class _Reader:
    """Reads the files named on the command line; standard input at most once."""

    def __init__(self) -> None:
        self._stdin_used = False

    def text(self, path: str, what: str) -> str:
        """The text of ``path`` (``-`` is standard input).

        Raises
        ------
        BadInput
            When the file cannot be read.
        """
        if path == STDIN:
            if self._stdin_used:
                raise BadInput(f"{what}: standard input ('-') can be used for one file only")
            self._stdin_used = True
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else (
                sys.stdin.read().encode("utf-8"))
        else:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise BadInput(f"{path} ({what}): cannot read the file: "
                               f"{exc.strerror or exc}") from None
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise BadInput(f"{_display(path)} ({what}): not UTF-8 text (byte {exc.start})"
                           "\n  fix: save the file as UTF-8") from None

    def values(self, path: str, document: str) -> list[tuple[str, Any]]:
        """The JSON values of a JSON, JSONC or JSONL file, each with its source label.

        A ``.jsonl``/``.ndjson`` file is read line by line; any other file as one
        JSON(C) value, or line by line when it is not one value but every non-blank
        line is.
        """
        text = self.text(path, document)
        name = _display(path)
        if path.lower().endswith(_JSONL_SUFFIXES):
            return _jsonl_values(text, name, document)
        try:
            return [(name, loads(text, document=document))]  # type: ignore[arg-type]
        except OAError as exc:
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) > 1:
                try:
                    return _jsonl_values(text, name, document)
                except BadInput:
                    pass
            raise BadInput(_describe(exc, name)) from None


def _jsonl_values(text: str, name: str, document: str) -> list[tuple[str, Any]]:
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        source = f"{name} line {number}"
        try:
            values.append((source, loads(line, document=document)))  # type: ignore[arg-type]
        except OAError as exc:
            raise BadInput(_describe(exc, source)) from None
    if not values:
        raise BadInput(f"{name} ({document}): the file holds no JSON value"
                       "\n  fix: write one JSON value per line")
    return values


def _one_value(reader: _Reader, path: str, document: str, hint: str) -> tuple[str, Any]:
    values = reader.values(path, document)
    if len(values) != 1:
        raise BadInput(f"{_display(path)} ({document}): holds {len(values)} JSON values, "
                       f"expected one\n  fix: {hint}")
    return values[0]


def _load_schema(reader: _Reader, path: str) -> tuple[str, Schema]:
    source, raw = _one_value(reader, path, "schema", "give one schema object")
    try:
        return source, Schema.parse(raw)
    except OAError as exc:
        raise BadInput(_describe(exc, source)) from None


@dataclass(slots=True)
class _Pair:
    gold_source: str
    gold: Any
    candidate_source: str
    candidate: Any
    schema_source: str
    schema: Schema

    def source(self, document: str) -> str:
        return {"gold": self.gold_source, "candidate": self.candidate_source,
                "schema": self.schema_source}.get(document, "command-line options")


def _load_pairs(reader: _Reader, args: argparse.Namespace, *, many: bool) -> list[_Pair]:
    """Gold, candidate and schema of a pair command (JSONL files: several pairs)."""
    schema_source, schema = _load_schema(reader, args.schema)
    golds = reader.values(args.gold, "gold")
    candidates = reader.values(args.candidate, "candidate")
    if not many and (len(golds) > 1 or len(candidates) > 1):
        name, count = (args.gold, len(golds)) if len(golds) > 1 else (
            args.candidate, len(candidates))
        raise BadInput(f"{_display(name)}: holds {count} JSON values; `oa {args.command}` "
                       "compares one pair\n  fix: use `oa batch` for many pairs")
    if len(golds) != len(candidates):
        raise BadInput(f"{_display(args.gold)} holds {len(golds)} JSON values but "
                       f"{_display(args.candidate)} holds {len(candidates)}"
                       "\n  fix: give one candidate per gold, line by line")
    return [_Pair(gs, g, cs, c, schema_source, schema)
            for (gs, g), (cs, c) in zip(golds, candidates, strict=True)]


def _align_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"wl_mode": args.wl_mode, "wl_blend_lambda": args.wl_lambda, "strict": args.strict}


def _diagnostic_line(diag: Diagnostic, pair: _Pair) -> str:
    return (f"{pair.source(diag.document)} ({diag.document}) at {diag.pointer or '(root)'}: "
            f"[{diag.code}] {diag.message}")


def _report_diagnostics(alignment: Alignment, pair: _Pair, quiet: bool) -> None:
    if quiet:
        return
    for kind, diags in (("warning", alignment.warnings), ("violation", alignment.violations)):
        for diag in diags:
            print(f"oa: {kind}: {_diagnostic_line(diag, pair)}", file=sys.stderr)


# --------------------------------------------------------------------------- score


def _align_pair(pair: _Pair, options: Mapping[str, Any]) -> Alignment:
    try:
        return align(pair.gold, pair.candidate, pair.schema, **options)
    except OAError as exc:
        raise BadInput(_describe(exc, pair.source(exc.document))) from None


def _cmd_score(args: argparse.Namespace, reader: _Reader) -> int:
    for pair in _load_pairs(reader, args, many=True):
        alignment = _align_pair(pair, _align_options(args))
        _report_diagnostics(alignment, pair, args.quiet)
        if args.json:
            print(json.dumps(alignment.to_dict(), ensure_ascii=False, default=str))
        else:
            print(repr(alignment.score))
    return 0


# --------------------------------------------------------------------------- feedback


def _cmd_feedback(args: argparse.Namespace, reader: _Reader) -> int:
    templates = None
    if args.templates:
        try:
            templates = load_templates(args.templates)
        except OAError as exc:
            raise BadInput(_describe(exc, args.templates)) from None
    (pair,) = _load_pairs(reader, args, many=False)
    try:
        result = feedback(pair.gold, pair.candidate, pair.schema, top_k=args.top_k,
                          min_delta=args.min_delta, style=args.style, templates=templates,
                          describe_refs=args.describe_refs, **_align_options(args))
    except OAError as exc:  # an "options" error here is about a template
        source = args.templates if exc.document == "options" and args.templates else (
            pair.source(exc.document))
        raise BadInput(_describe(exc, source)) from None
    print(result.text)
    return 0


# --------------------------------------------------------------------------- explain


def _walk(node: MatchNode, depth: int, max_depth: int | None,
          only_imperfect: bool) -> Iterator[tuple[int, MatchNode]]:
    if only_imperfect and node.deficit <= 0.0 and depth > 0:
        return
    yield depth, node
    if max_depth is None or depth < max_depth:
        for child in node.children:
            yield from _walk(child, depth + 1, max_depth, only_imperfect)


def _short(value: Any, width: int = 32) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _node_path(node: MatchNode) -> str:
    """The node's pointer, with the candidate's where it ends differently (a moved item)."""
    path = node.path or "(root)"
    if (node.gold_path is not None and node.candidate_path is not None
            and node.gold_path.rpartition("/")[2] != node.candidate_path.rpartition("/")[2]):
        path += f" ~ {node.candidate_path or '(root)'}"
    return path


def _node_values(node: MatchNode) -> str:
    if node.kind in ("map", "sequence") and node.status == "matched":
        return ""
    if node.status == "missing":
        return _short(node.gold)
    if node.status == "excess":
        return "+ " + _short(node.candidate)
    return f"{_short(node.gold)} → {_short(node.candidate)}"


def _status_color(node: MatchNode) -> tuple[str, ...]:
    if node.status in ("missing", "excess"):
        return (_RED,)
    if node.status != "matched":
        return (_MAGENTA,)
    return (_GREEN,) if node.score >= 1.0 else (_YELLOW,)


def explain_table(alignment: Alignment, paint: _Painter, *, max_depth: int | None = None,
                  only_imperfect: bool = False) -> str:
    """The match tree as an indented table (one row per node).

    Parameters
    ----------
    alignment : Alignment
        What :func:`oa_core.align` returned.
    paint : _Painter
        Colors (or none).
    max_depth : int, optional
        Deepest level shown (the root is level 0).
    only_imperfect : bool
        Hide the subtrees that cost nothing.
    """
    header = ("path", "kind", "status", "score", "eff. weight", "deficit", "gold → candidate")
    rows = []
    for depth, node in _walk(alignment.tree, 0, max_depth, only_imperfect):
        cells = ("  " * depth + _node_path(node), node.kind, node.status, f"{node.score:.4f}",
                 f"{node.effective_weight:.4f}", f"{node.deficit:.4f}", _node_values(node))
        rows.append((cells, node))
    widths = [max(len(h), *(len(cells[i]) for cells, _ in rows)) for i, h in enumerate(header)]
    numeric = {3, 4, 5}

    def line(cells: Sequence[str], colors: Sequence[tuple[str, ...]]) -> str:
        out = []
        for i, (cell, color) in enumerate(zip(cells, colors, strict=True)):
            padded = cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            out.append(paint(padded, *color))
        return "  ".join(out).rstrip()

    lines = [line(header, [(_BOLD,)] * len(header))]
    for cells, node in rows:
        status = _status_color(node)
        deficit = (_RED,) if node.deficit > 0.0 else (_DIM,)
        perfect = (_DIM,) if node.deficit <= 0.0 else ()
        lines.append(line(cells, [perfect, (_CYAN,), status, status, perfect, deficit, ()]))
    return "\n".join(lines)


def _cmd_explain(args: argparse.Namespace, reader: _Reader) -> int:
    (pair,) = _load_pairs(reader, args, many=False)
    alignment = _align_pair(pair, _align_options(args))
    paint = _painter(args.color, sys.stdout)
    print(paint(f"score {alignment.score:.4f}", _BOLD)
          + f"  deficit {alignment.deficit:.4f}  ({pair.gold_source} vs "
          f"{pair.candidate_source})")
    print(explain_table(alignment, paint, max_depth=args.max_depth,
                        only_imperfect=args.only_imperfect))
    for name, mapping in alignment.bijections.items():
        pairs = ", ".join(f"{_short(g)}→{_short(c)}" for g, c in mapping.items())
        print(f"scope {name}: {pairs}")
    for title, diags in (("warnings", alignment.warnings),
                         ("violations", alignment.violations)):
        if diags:
            print(paint(f"{title}:", _BOLD))
            for diag in diags:
                print(f"  {_diagnostic_line(diag, pair)}")
    return 0


# --------------------------------------------------------------------------- batch


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How ``oa batch`` scores each pair (the same for every worker).

    Attributes
    ----------
    top_k : int
        Repair operations written per pair.
    min_delta : float
        Operations recovering less are not written.
    wl_mode, wl_blend_lambda, strict
        Passed to :func:`oa_core.align`.
    """

    top_k: int = 5
    min_delta: float = 0.0
    wl_mode: str = "tie_break"
    wl_blend_lambda: float = 0.5
    strict: bool = False


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The outcome of one input line.

    Attributes
    ----------
    record : dict
        The output line: ``index``, ``id`` (when the input has one), ``score`` and
        ``ops`` (the top repair operations); ``parse_error`` (pointer, message,
        fix) when the raw prediction held no JSON (score 0); ``error`` (line,
        document, pointer, message, fix) when the line itself is bad (no score).
    op_stats : tuple of (str, str, float)
        ``(path pattern, op kind, delta)`` of every operation (for the summary).
    error : str or None
        Why the line is bad input, with file, line and pointer.
    """

    record: dict[str, Any]
    op_stats: tuple[tuple[str, str, float], ...] = ()
    error: str | None = None


_INDEX_SEGMENT = re.compile(r"(?<=/)\d+(?=/|$)")


def path_pattern(pointer: str) -> str:
    """A JSON Pointer with its array indices replaced by ``*``.

    >>> path_pattern("/people/5/name")
    '/people/*/name'
    >>> path_pattern("")
    '(root)'
    """
    return _INDEX_SEGMENT.sub("*", pointer) if pointer else "(root)"


def _score_line(schema: Schema, options: BatchOptions, name: str, index: int, number: int,
                text: str) -> BatchResult:
    """Score one JSONL line; every problem is reported, none raised."""
    source = f"{name} line {number}"
    record: dict[str, Any] = {"index": index}

    def bad(err: OAError, prefix: str = "", document: str = "") -> BatchResult:
        document = document or err.document
        record["error"] = {"line": number, "document": document,
                           "pointer": prefix + err.pointer, "message": err.message,
                           "fix": err.fix}
        return BatchResult(record, error=_describe(err, source, prefix, document))

    def malformed(pointer: str, message: str, fix: str) -> BatchResult:
        return bad(InputError(pointer, message, fix=fix), document="pairs")

    try:
        item = loads(text, document="options")
    except OAError as exc:
        return bad(exc, document="pairs")
    shape = ('write {"gold": ..., "candidate": ...} or {"gold": ..., "prediction": "raw '
             'model text"}')
    if not isinstance(item, dict):
        return malformed("", f"a line must be a JSON object, got {type(item).__name__}", shape)
    if "id" in item:
        record["id"] = item["id"]
    sides = [key for key in ("candidate", "prediction") if key in item]
    if "gold" not in item or len(sides) != 1:
        return malformed("", 'a line needs "gold" and exactly one of "candidate" (JSON) '
                         'or "prediction" (raw model text)', shape)
    if sides == ["prediction"]:
        if not isinstance(item["prediction"], str):
            return malformed("/prediction", '"prediction" must be a string of raw model '
                             "text", 'put parsed JSON under "candidate"')
        try:
            candidate = extract_json(item["prediction"])
        except OAError as exc:  # the model's fault: it scores 0
            record.update(score=0.0, ops=[], parse_error={
                "pointer": "/prediction", "message": exc.message, "fix": exc.fix})
            return BatchResult(record)
        candidate_prefix = ""  # pointers into the parsed prediction are its own
    else:
        candidate = item["candidate"]
        candidate_prefix = "/candidate"
    try:
        result = feedback(item["gold"], candidate, schema, top_k=options.top_k,
                          min_delta=options.min_delta, style="compact",
                          wl_mode=options.wl_mode, wl_blend_lambda=options.wl_blend_lambda,
                          strict=options.strict)
    except OAError as exc:
        return bad(exc, {"gold": "/gold", "candidate": candidate_prefix}.get(exc.document, ""))
    record.update(score=result.score, ops=[op.to_dict() for op in result.shown])
    stats = tuple((path_pattern(op.path), op.kind, op.delta) for op in result.ops
                  if op.delta > 0.0)
    return BatchResult(record, stats)


_WORKER: tuple[Schema, BatchOptions, str] | None = None


def _init_worker(raw_schema: Any, options: BatchOptions, name: str) -> None:
    global _WORKER  # one parsed schema per worker process
    _WORKER = (Schema.parse(raw_schema), options, name)


def _work(task: tuple[int, int, str]) -> BatchResult:
    assert _WORKER is not None, "the worker was not initialised"
    schema, options, name = _WORKER
    return _score_line(schema, options, name, *task)


def iter_batch(lines: Sequence[str], raw_schema: Any, *, options: BatchOptions | None = None,
               workers: int = 1, name: str = "<pairs>") -> Iterator[BatchResult]:
    """Score every pair line, in input order, with one or more processes.

    Parameters
    ----------
    lines : sequence of str
        The JSONL lines (blank lines are skipped; line numbers count them).
    raw_schema : dict
        The OA schema as JSON data; each worker parses it once.
    options : BatchOptions, optional
    workers : int
        Processes to use (1 scores in this process).
    name : str
        The input's name, for error messages.

    Yields
    ------
    BatchResult
        One per non-blank line, in input order whatever ``workers`` is.
    """
    options = options or BatchOptions()
    tasks = [(index, number, text) for index, (number, text) in enumerate(
        (n, t) for n, t in enumerate(lines, 1) if t.strip())]
    if workers <= 1 or len(tasks) <= 1:
        schema = Schema.parse(raw_schema)
        for task in tasks:
            yield _score_line(schema, options, name, *task)
        return
    chunksize = max(1, min(32, len(tasks) // (workers * 8)))
    with multiprocessing.get_context().Pool(
            workers, initializer=_init_worker, initargs=(raw_schema, options, name)) as pool:
        yield from pool.imap(_work, tasks, chunksize=chunksize)


@dataclass(slots=True)
class BatchSummary:
    """Aggregate of a batch run.

    Attributes
    ----------
    count : int
        Pairs scored (including unparsable predictions, which score 0).
    failed : int
        Lines that were bad input (not scored).
    unparsable : int
        Raw predictions that held no JSON value.
    scores : list of float
    patterns : list of dict
        ``{"path", "kind", "count", "loss"}`` per (path pattern, op kind), most
        frequent first; ``loss`` is the summed delta divided by ``count`` of pairs
        scored (the mean score it costs per pair).
    """

    count: int = 0
    failed: int = 0
    unparsable: int = 0
    scores: list[float] = field(default_factory=list)
    patterns: list[dict[str, Any]] = field(default_factory=list)

    def quantiles(self) -> dict[str, float | None]:
        """Mean and the 10th, 50th and 90th percentiles of the scores."""
        if not self.scores:
            return {"mean": None, "p10": None, "p50": None, "p90": None}
        data = np.asarray(self.scores, dtype=float)
        p10, p50, p90 = (float(q) for q in np.quantile(data, [0.1, 0.5, 0.9]))
        return {"mean": float(np.mean(data)), "p10": p10, "p50": p50, "p90": p90}

    def to_dict(self, top: int = 10) -> dict[str, Any]:
        """The summary as JSON-ready data (the ``top`` most frequent patterns)."""
        return {"count": self.count, "failed": self.failed, "unparsable": self.unparsable,
                **self.quantiles(), "patterns": self.patterns[:top]}

    def render(self, top: int = 10) -> str:
        """The summary as text."""
        stats = self.quantiles()
        lines = [f"pairs: {self.count} scored, {self.failed} failed, "
                 f"{self.unparsable} unparsable predictions"]
        if stats["mean"] is not None:
            lines.append("score: mean {mean:.4f}  p10 {p10:.4f}  p50 {p50:.4f}  "
                         "p90 {p90:.4f}".format(**stats))
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


def summarize(results: Sequence[BatchResult]) -> BatchSummary:
    """Count, score quantiles and the op kinds per path pattern of a batch run."""
    summary = BatchSummary()
    counts: dict[tuple[str, str], int] = {}
    losses: dict[tuple[str, str], float] = {}
    for result in results:
        if result.error is not None:
            summary.failed += 1
            continue
        summary.count += 1
        summary.scores.append(result.record["score"])
        summary.unparsable += "parse_error" in result.record
        for pattern, kind, delta in result.op_stats:
            counts[pattern, kind] = counts.get((pattern, kind), 0) + 1
            losses[pattern, kind] = losses.get((pattern, kind), 0.0) + delta
    ranked = sorted(counts, key=lambda k: (-counts[k], -losses[k], k))
    summary.patterns = [{"path": path, "kind": kind, "count": counts[path, kind],
                         "loss": losses[path, kind] / max(summary.count, 1)}
                        for path, kind in ranked]
    return summary


class _Progress:
    """A plain-text progress bar on standard error."""

    def __init__(self, total: int, stream: TextIO, *, redraw: bool) -> None:
        self.total = total
        self.stream = stream
        self.redraw = redraw  # a TTY redraws one line; elsewhere, a line per second
        self.start = self.last = time.monotonic()
        self.done = 0

    def update(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if done < self.total and now - self.last < (0.1 if self.redraw else 1.0):
            return
        self.last = now
        width = 30
        filled = int(width * done / self.total) if self.total else width
        rate = done / max(now - self.start, 1e-9)
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} pairs "
                f"{rate:7.1f} pairs/s")
        if self.redraw:
            self.stream.write("\r" + text + ("\n" if done >= self.total else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _cmd_batch(args: argparse.Namespace, reader: _Reader) -> int:
    workers = args.workers or os.cpu_count() or 1
    _, schema_value = _one_value(reader, args.schema, "schema", "give one schema object")
    try:
        Schema.parse(schema_value)
    except OAError as exc:
        raise BadInput(_describe(exc, _display(args.schema))) from None
    name = _display(args.pairs)
    lines = reader.text(args.pairs, "pairs").splitlines()
    options = BatchOptions(top_k=args.top_k, min_delta=args.min_delta, wl_mode=args.wl_mode,
                           wl_blend_lambda=args.wl_lambda, strict=args.strict)
    total = sum(1 for line in lines if line.strip())
    show = args.progress or (sys.stderr.isatty() and not args.quiet)
    progress = _Progress(total, sys.stderr, redraw=sys.stderr.isatty()) if show else None
    results = []
    try:
        out = sys.stdout if args.output == STDIN else open(  # noqa: SIM115 - closed below
            args.output, "w", encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"{args.output} (output): cannot write the file: "
                       f"{exc.strerror or exc}") from None
    try:
        for result in iter_batch(lines, schema_value, options=options, workers=workers,
                                 name=name):
            out.write(json.dumps(result.record, ensure_ascii=False, default=str) + "\n")
            results.append(result)
            if progress:
                progress.update(len(results))
    finally:
        if out is not sys.stdout:
            out.close()
    summary = summarize(results)
    report = sys.stderr if args.output == STDIN else sys.stdout
    if args.json:
        print(json.dumps(summary.to_dict(args.summary_top), ensure_ascii=False), file=report)
    else:
        print(summary.render(args.summary_top), file=report)
    errors = [r.error for r in results if r.error is not None]
    for error in errors[:10]:
        print(f"oa: error: {error}", file=sys.stderr)
    if len(errors) > 10:
        print(f"oa: error: ... and {len(errors) - 10} more bad lines", file=sys.stderr)
    return 2 if errors else 0


# --------------------------------------------------------------------------- explore


def app_entry() -> Path:
    """Where the explorer's entry script should be: ``app/main.py`` beside ``oa_core``."""
    return Path(__file__).resolve().parent.parent / "app" / "main.py"


def _cmd_explore(args: argparse.Namespace, reader: _Reader) -> int:
    entry = app_entry()
    if not entry.is_file():
        print(f"oa: error: the explorer is not installed: {entry} does not exist\n"
              "  fix: run `oa explore` from a source checkout of Object Aligner Explorer",
              file=sys.stderr)
        return 1
    if importlib.util.find_spec("streamlit") is None:
        print("oa: error: the explorer needs streamlit, which is not installed\n"
              "  fix: pip install 'streamlit>=1.67,<2'", file=sys.stderr)
        return 1
    url = f"http://127.0.0.1:{args.port}/"
    if args.example:
        sample = entry.parent.parent / "sample_data" / args.example
        if not sample.is_dir():
            known = sorted(p.name for p in sample.parent.iterdir() if p.is_dir()) if (
                sample.parent.is_dir()) else []
            raise BadInput(f"--example: there is no bundled example {args.example!r}"
                           f"\n  fix: pick one of {', '.join(known) or '(none found)'}")
        url += f"?example={quote(args.example)}"
    command = [sys.executable, "-m", "streamlit", "run", str(entry),
               "--server.address", "127.0.0.1", "--server.port", str(args.port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    print(f"Object Aligner Explorer: {url}  (Ctrl-C stops it)", file=sys.stderr)
    return _run_child(command)


def _run_child(command: list[str]) -> int:
    """Run ``command`` in the foreground; stop it too when ``oa`` is terminated."""
    child = subprocess.Popen(command)

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGTERM, previous)
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()


# --------------------------------------------------------------------------- parser


def _port(text: str) -> int:
    port = int(text)
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port must be in 1..65535, got {port}")
    return port


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``oa``."""
    parser = argparse.ArgumentParser(
        prog="oa", description="Object Aligner: schema-driven similarity of JSON documents.",
        epilog="Files may be JSON, JSONC or JSONL; '-' reads standard input. Exit codes: "
               "0 ok, 1 internal error, 2 bad input.")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--schema", "-s", required=True, metavar="SCHEMA",
                        help="the OA schema (JSON or JSONC)")
    common.add_argument("--wl-mode", choices=WL_MODES, default="tie_break",
                        help="how reference structure enters scope alignment")
    common.add_argument("--wl-lambda", type=_fraction, default=0.5, metavar="L",
                        help="weight of structure in blend mode (default 0.5)")
    common.add_argument("--strict", action="store_true",
                        help="any schema violation of the candidate scores 0")
    common.add_argument("--quiet", "-q", action="store_true",
                        help="do not print warnings and schema violations")
    pair = argparse.ArgumentParser(add_help=False, parents=[common])
    pair.add_argument("gold", help="the gold document ('-' for standard input)")
    pair.add_argument("candidate", help="the candidate document ('-' for standard input)")

    score = sub.add_parser("score", parents=[pair], help="print the score",
                           description="Print the OA score (one line per pair of a JSONL "
                                       "file).")
    score.add_argument("--json", action="store_true", help="print the full alignment as JSON")
    score.set_defaults(run=_cmd_score)

    fb = sub.add_parser("feedback", parents=[pair], help="print ranked repair feedback",
                        description="Print deterministic, ranked optimizer feedback.")
    fb.add_argument("--top-k", "-k", type=_count, default=5, metavar="K",
                    help="operations shown (default 5)")
    fb.add_argument("--min-delta", type=_fraction, default=0.0, metavar="D",
                    help="hide operations recovering less than D")
    fb.add_argument("--style", choices=("text", "compact", "json"), default="text")
    fb.add_argument("--templates", metavar="FILE", help="template overrides (TOML or JSON)")
    fb.add_argument("--describe-refs", action="store_true",
                    help="describe wrong references' targets by their properties")
    fb.set_defaults(run=_cmd_feedback)

    explain = sub.add_parser("explain", parents=[pair], help="print the match tree",
                             description="Print the match tree as an indented table.")
    explain.add_argument("--max-depth", type=_count, default=None, metavar="N",
                         help="deepest level shown (the root is 0)")
    explain.add_argument("--only-imperfect", action="store_true",
                         help="hide subtrees that cost nothing")
    explain.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                         help="ANSI colors (auto: on a terminal without NO_COLOR)")
    explain.set_defaults(run=_cmd_explain)

    batch = sub.add_parser(
        "batch", parents=[common], help="score many pairs from a JSONL file",
        description="Score one pair per JSONL line: {\"gold\": ..., \"candidate\": ...} or "
                    "{\"gold\": ..., \"prediction\": \"raw model text\"} (an \"id\" is "
                    "copied). Writes one JSON line per pair, in input order, then a "
                    "summary.")
    batch.add_argument("pairs", help="the JSONL file of pairs ('-' for standard input)")
    batch.add_argument("--output", "-o", default=STDIN, metavar="OUT",
                       help="where to write the result lines (default: standard output)")
    batch.add_argument("--workers", "-j", type=_count, default=1, metavar="N",
                       help="worker processes (0: one per CPU; default 1)")
    batch.add_argument("--top-k", "-k", type=_count, default=5, metavar="K",
                       help="repair operations written per pair (default 5)")
    batch.add_argument("--min-delta", type=_fraction, default=0.0, metavar="D",
                       help="omit operations recovering less than D")
    batch.add_argument("--progress", action="store_true",
                       help="show progress even when standard error is not a terminal")
    batch.add_argument("--summary-top", type=_count, default=10, metavar="N",
                       help="(path, op kind) rows in the summary (default 10)")
    batch.add_argument("--json", action="store_true", help="print the summary as JSON")
    batch.set_defaults(run=_cmd_batch)

    explore = sub.add_parser("explore", help="start the visual explorer (Streamlit)",
                             description="Start the Streamlit explorer on 127.0.0.1.")
    explore.add_argument("--port", "-p", type=_port, default=8501)
    explore.add_argument("--example", metavar="NAME",
                         help="open a bundled example (a folder of sample_data/)")
    explore.set_defaults(run=_cmd_explore)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``oa`` with ``argv`` (default: the process arguments); return the exit code.

    Parameters
    ----------
    argv : sequence of str, optional

    Returns
    -------
    int
        0 on success, 2 on bad input, 1 on an internal error (130 on Ctrl-C).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error (argparse already printed it)
        return exc.code if isinstance(exc.code, int) else 2
    run: Callable[[argparse.Namespace, _Reader], int] = args.run
    try:
        return run(args, _Reader())
    except BadInput as exc:
        print(f"oa: error: {exc.text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("oa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `oa batch ... | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        print(f"oa: internal error: {type(exc).__name__}: {exc} (rerun with --debug for "
              "the traceback; please report it)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
