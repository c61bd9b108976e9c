"""The ``oa`` command line: score, feedback, explain, diff, batch, report (and plug-ins).

A thin front: it parses arguments, reads files, calls the library
(:func:`oa_core.align`, :func:`oa_core.feedback`, :mod:`oa_core.runs.batch`,
:mod:`oa_core.report`) and prints. The options of ``--wl-mode``, ``--wl-lambda`` and
``--strict`` become one :class:`~oa_core.options.AlignOptions`. The terminal views
(``oa diff``, the progress bars of ``oa batch`` and ``oa report``) are drawn by
:mod:`oa_core.terminal`.

Every command warns about the schema's problems (a misspelt keyword) once it has read
it (:func:`oa_core.validation.schema_warnings`). Messages show values as cut JSON;
``--full-values`` adds each message's values whole.

Every command that compares documents takes a gold file, a candidate file and an
OA schema (``--schema``). Files may be JSON, JSONC (comments, trailing commas) or
JSONL; ``-`` reads standard input (once per command). Exit codes:

* 0 -- success;
* 2 -- bad input: the message names the file, the document and the JSON Pointer
  (and the line of a JSONL file), and says how to fix it; never a traceback. An
  input that is not a file (``/dev/zero``) or is over ``Limits.max_input_bytes``,
  and an output that cannot be written (``/dev/full``), are bad input too;
* 1 -- an unexpected internal error, reported in one line (``--debug`` shows the
  traceback); ``oa batch`` reports it for the line it happened on, scores the
  others and exits 1 at the end.

Other packages add commands through the entry point group ``oa_core.commands``: each
entry point is a callable ``register(subparsers)`` that adds one sub-parser whose
default ``run`` is ``run(args) -> int`` (it may raise :class:`BadInput`). This is
how the explorer's ``oa explore`` is installed (``app.launch:register``); the
library itself knows nothing of the explorer. They are looked for only when the command
is none of ``oa``'s own (or for ``--help``).

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
import contextlib
import errno
import gc
import json
import os
import stat
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from . import __version__
from .aligner import WL_MODES, Alignment, align
from .build import describe_build
from .errors import Diagnostic, OAError, preview_json
from .feedback import feedback, load_templates
from .jsonio import JsonlLines, jsonl_lines, loads
from .options import AlignOptions, Limits
from .report import describe_error, diagnostic_line, painter, printable, render_explain
from .runs.batch import (
    BatchBlock,
    BatchOptions,
    BatchTally,
    LineOutcome,
    WorkerLost,
    iter_batch_blocks,
)
from .runs.cluster import ClusterError, dask_client  # imports Dask only when a client is made
from .runs.fields import FieldCounts
from .runs.fields import count as count_fields
from .runs.fields import table as field_table
from .schema import Schema
from .validation import schema_warnings

if TYPE_CHECKING:
    # rich is imported by the commands that draw with it (oa diff, a progress bar)
    from .terminal import ProgressBar

__all__ = ["COMMAND_GROUP", "BadInput", "build_parser", "main"]

STDIN = "-"
COMMAND_GROUP = "oa_core.commands"
"""Entry point group of plug-in commands (``register(subparsers)``)."""
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_CHUNK = 1 << 20
_SHOWN_DIAGNOSTICS = 10  # per kind; then "... and N more"


# --------------------------------------------------------------------------- errors


class BadInput(Exception):
    """Bad input found by the command line; its text names the file and pointer.

    Parameters
    ----------
    text : str
        The complete message (without the ``oa: error:`` prefix).
    values : tuple, optional
        The values the message shows cut, whole (printed with ``--full-values``).
    """

    def __init__(self, text: str, values: tuple[Any, ...] = ()) -> None:
        super().__init__(text)
        self.text = text
        self.values = values


def _bad(exc: OAError, source: str) -> BadInput:
    """A library error as bad input, for a human (see :func:`describe_error`)."""
    return BadInput(describe_error(exc, source), exc.values)


def _display(path: str) -> str:
    return "<stdin>" if path == STDIN else path


_WRITE_FIXES = {
    errno.ENOSPC: "free some space, or write somewhere else",
    errno.EDQUOT: "free some space, or write somewhere else",
    errno.EFBIG: "write somewhere else",
    errno.EACCES: "write to a file you may write to",
    errno.EPERM: "write to a file you may write to",
    errno.EROFS: "write to a writable file system",
    errno.EIO: "write to a regular file",
}


def _write_error(name: str, exc: OSError) -> BadInput:
    """Why writing ``name`` failed: the reason, its errno name and what to do."""
    code = errno.errorcode.get(exc.errno or 0, "")
    reason = (exc.strerror or str(exc)) + (f" ({code})" if code else "")
    fix = _WRITE_FIXES.get(exc.errno or 0, "choose another output")
    return BadInput(f"{name} (output): cannot write the file: {reason}\n  fix: {fix}")


def _emit(text: str, stream: TextIO | None = None, name: str = "<stdout>") -> None:
    """Print ``text`` (lone surrogates escaped); a failed write is bad input."""
    stream = stream or sys.stdout
    try:
        stream.write(printable(text) + "\n")
    except BrokenPipeError:
        raise
    except OSError as exc:
        _discard(stream)
        raise _write_error(name, exc) from None


def _discard(stream: TextIO) -> None:
    """Send what is still buffered for a failing standard stream nowhere."""
    if stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _warn(text: str) -> None:
    with contextlib.suppress(OSError):
        sys.stderr.write(printable(text) + "\n")


def _full_values(values: Sequence[Any]) -> str:
    """The lines ``--full-values`` adds under a message: each value whole, as JSON."""
    return "".join(f"\n  value: {preview_json(value, None)}" for value in values)


def _report(kind: str, diags: Sequence[Diagnostic], source: Callable[[str], str],
            args: argparse.Namespace) -> None:
    """Print warnings or violations on standard error (the first few of many)."""
    if getattr(args, "quiet", False):
        return
    full = getattr(args, "full_values", False)
    for diag in diags[:_SHOWN_DIAGNOSTICS]:
        line = diagnostic_line(diag, source(diag.document))
        _warn(f"oa: {kind}: {line}" + (_full_values(diag.values) if full else ""))
    if len(diags) > _SHOWN_DIAGNOSTICS:
        _warn(f"oa: {kind}: ... and {len(diags) - _SHOWN_DIAGNOSTICS:,} more "
              "(oa score --json lists them all)")


# --------------------------------------------------------------------------- reading


def _not_utf8(path: str, what: str, error: UnicodeDecodeError) -> BadInput:
    return BadInput(f"{_display(path)} ({what}): not UTF-8 text (byte {error.start})"
                    "\n  fix: save the file as UTF-8")


class _Reader:
    """Reads the files named on the command line; standard input at most once.

    A file must be a regular file or a pipe (not a device such as ``/dev/zero``);
    at most ``limits.max_input_bytes`` are read (per line for a JSONL pairs file).
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._stdin_used = False

    def _bytes(self, path: str, what: str, *, per_line: bool, at_once: bool = False) -> bytes:
        limit = self.limits.max_input_bytes
        if path == STDIN:
            if self._stdin_used:
                raise BadInput(f"{what}: standard input ('-') can be used for one file only")
            self._stdin_used = True
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream without bytes underneath
                data = sys.stdin.read().encode("utf-8")
                self._check_size(len(data), path, what, per_line=per_line)
                return data
            return self._read(stream, path, what, per_line=per_line)
        try:
            info = os.stat(path)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                kind = ("a directory" if stat.S_ISDIR(info.st_mode) else
                        "a character device" if stat.S_ISCHR(info.st_mode) else
                        "a block device" if stat.S_ISBLK(info.st_mode) else
                        "a socket" if stat.S_ISSOCK(info.st_mode) else "not a file")
                raise BadInput(f"{path} ({what}): cannot read it: it is {kind}, not a regular "
                               "file\n  fix: give a JSON file, or '-' for standard input")
            if stat.S_ISREG(info.st_mode) and not per_line and info.st_size > limit:
                raise BadInput(f"{path} ({what}): the file is {info.st_size:,} bytes, over "
                               f"the limit of {limit:,} bytes (Limits.max_input_bytes)"
                               "\n  fix: split the input")
            with open(path, "rb") as handle:
                if at_once and stat.S_ISREG(info.st_mode):  # one buffer, no chunks joined
                    return handle.read()
                return self._read(handle, path, what, per_line=per_line)
        except OSError as exc:
            raise BadInput(f"{path} ({what}): cannot read the file: "
                           f"{exc.strerror or exc}") from None

    def _read(self, stream: BinaryIO, path: str, what: str, *, per_line: bool) -> bytes:
        """Read ``stream`` in chunks, refusing it as soon as it is over the limit."""
        chunks: list[bytes] = []
        total = 0
        line_start = 0  # offset of the current line's start (per_line)
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                line_start = total + newline + 1
            total += len(chunk)
            self._check_size(total - line_start if per_line else total, path, what,
                             per_line=per_line)
        return b"".join(chunks)

    def _check_size(self, size: int, path: str, what: str, *, per_line: bool) -> None:
        limit = self.limits.max_input_bytes
        if size > limit:
            unit = "a line" if per_line else "the input"
            raise BadInput(f"{_display(path)} ({what}): {unit} is over the limit of "
                           f"{limit:,} bytes (Limits.max_input_bytes; stopped reading after "
                           f"{size:,} bytes)\n  fix: give a smaller input (or, for a "
                           "pairs file, one JSON value per line)")

    def text(self, path: str, what: str, *, per_line: bool = False) -> str:
        """The text of ``path`` (``-`` is standard input).

        Raises
        ------
        BadInput
            When the file cannot be read, is not a file, or is too big.
        """
        data = self._bytes(path, what, per_line=per_line)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, what, exc) from None

    def lines(self, path: str, what: str) -> JsonlLines:
        """The JSON Lines of ``path`` (``-`` is standard input), held as its bytes.

        Raises
        ------
        BadInput
            When the file cannot be read, is not a file, is not UTF-8, or has a line
            over ``limits.max_input_bytes``.
        """
        data = self._bytes(path, what, per_line=True, at_once=True)
        try:
            lines = JsonlLines(data)
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, what, exc) from None
        self._check_size(lines.longest, path, what, per_line=True)
        return lines

    def values(self, path: str, document: str) -> list[tuple[str, Any]]:
        """The JSON values of a JSON, JSONC or JSONL file, each with its source label.

        A ``.jsonl``/``.ndjson`` file is read line by line; any other file as one
        JSON(C) value, or line by line when it is not one value but every non-blank
        line is.
        """
        text = self.text(path, document)
        name = _display(path)
        if path.lower().endswith(_JSONL_SUFFIXES):
            return _jsonl_values(text, name, document, self.limits)
        try:
            return [(name, loads(text, document=document,  # type: ignore[arg-type]
                                 limits=self.limits))]
        except OAError as exc:
            lines = [line for line in jsonl_lines(text) if line.strip()]
            if len(lines) > 1:
                try:
                    return _jsonl_values(text, name, document, self.limits)
                except BadInput:
                    pass
            raise _bad(exc, name) from None


def _jsonl_values(text: str, name: str, document: str,
                  limits: Limits) -> list[tuple[str, Any]]:
    values = []
    for number, line in enumerate(jsonl_lines(text), 1):
        if not line.strip():
            continue
        source = f"{name} line {number}"
        try:
            values.append((source, loads(line, document=document,  # type: ignore[arg-type]
                                         limits=limits)))
        except OAError as exc:
            raise _bad(exc, source) from None
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


def _load_schema(reader: _Reader, args: argparse.Namespace,
                 path: str) -> tuple[str, Any, Schema]:
    """The schema's source label, its JSON data and the parsed schema; its warnings
    (a misspelt keyword) are printed, whatever the command."""
    source, raw = _one_value(reader, path, "schema", "give one schema object")
    try:
        schema = Schema.parse(raw)
    except OAError as exc:
        raise _bad(exc, source) from None
    _report("warning", schema_warnings(schema), lambda _: source, args)
    return source, raw, schema


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
    schema_source, _, schema = _load_schema(reader, args, args.schema)
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


def _align_options(args: argparse.Namespace) -> AlignOptions:
    """The one options object of a command, from ``--wl-mode/--wl-lambda/--strict``."""
    try:
        return AlignOptions(wl_mode=args.wl_mode, wl_blend_lambda=args.wl_lambda,
                            strict=args.strict)
    except OAError as exc:
        raise _bad(exc, "command-line options") from None


def _report_diagnostics(alignment: Alignment, pair: _Pair, args: argparse.Namespace) -> None:
    """The alignment's warnings (but the schema's, printed when it was read) and the
    candidate's violations."""
    shown = set(pair.schema.warnings)
    _report("warning", [d for d in alignment.warnings if d not in shown], pair.source, args)
    _report("violation", alignment.violations, pair.source, args)


def _align_pair(pair: _Pair, options: AlignOptions) -> Alignment:
    try:
        return align(pair.gold, pair.candidate, pair.schema, options)
    except OAError as exc:
        raise _bad(exc, pair.source(exc.document)) from None


# --------------------------------------------------------------------------- commands


def _cmd_score(args: argparse.Namespace) -> int:
    options = _align_options(args)
    for pair in _load_pairs(_Reader(options.limits), args, many=True):
        alignment = _align_pair(pair, options)
        _report_diagnostics(alignment, pair, args)
        if args.json:
            _emit(json.dumps(alignment.to_dict(), ensure_ascii=False, default=str))
        else:
            _emit(repr(alignment.score))
    return 0


def _cmd_feedback(args: argparse.Namespace) -> int:
    options = _align_options(args)
    templates = None
    if args.templates:
        try:
            templates = load_templates(args.templates)
        except OAError as exc:
            raise _bad(exc, args.templates) from None
    (pair,) = _load_pairs(_Reader(options.limits), args, many=False)
    try:
        result = feedback(pair.gold, pair.candidate, pair.schema, top_k=args.top_k,
                          min_delta=args.min_delta, style=args.style, templates=templates,
                          describe_refs=args.describe_refs, options=options)
    except OAError as exc:  # an "options" error here is about a template
        source = args.templates if exc.document == "options" and args.templates else (
            pair.source(exc.document))
        raise _bad(exc, source) from None
    _emit(result.text)
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    options = _align_options(args)
    (pair,) = _load_pairs(_Reader(options.limits), args, many=False)
    alignment = _align_pair(pair, options)
    _emit(render_explain(alignment, painter(args.color, sys.stdout),
                         title=f"{pair.gold_source} vs {pair.candidate_source}",
                         source=pair.source, max_depth=args.max_depth,
                         only_imperfect=args.only_imperfect))
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from .terminal import diff_data, render_diff

    options = _align_options(args)
    (pair,) = _load_pairs(_Reader(options.limits), args, many=False)
    alignment = _align_pair(pair, options)
    _report_diagnostics(alignment, pair, args)
    if args.json:
        data = {"gold": pair.gold_source, "candidate": pair.candidate_source,
                **diff_data(alignment)}
        _emit(json.dumps(data, ensure_ascii=False, default=str))
        return 0
    color = painter(args.color, sys.stdout).enabled
    width = _terminal_width(sys.stdout) if color else None
    _emit(render_diff(alignment, color=color, width=width,
                      title=f"{pair.gold_source} vs {pair.candidate_source}",
                      full_values=args.full_values))
    return 0


def _terminal_width(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to (None: not a terminal)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return None


def _progress_bar(args: argparse.Namespace, total: int) -> ProgressBar | None:
    """A progress bar for a long command: on a terminal (standard error), or forced by
    ``--progress``; none when piped or ``--quiet``."""
    live = sys.stderr.isatty()
    if args.progress or (live and not args.quiet):
        from .terminal import ProgressBar

        return ProgressBar(total, "pairs", sys.stderr, live=live)
    return None


def _written(blocks: Iterable[BatchBlock], output: str,
             progress: ProgressBar | None) -> Iterator[tuple[LineOutcome, ...]]:
    """Write each block of result lines to ``output`` as it comes, and give its lines'
    outcomes; a failed write is bad input."""
    name = "<stdout>" if output == STDIN else output
    try:
        out = sys.stdout if output == STDIN else open(  # noqa: SIM115 - closed below
            output, "w", encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"{output} (output): cannot write the file: "
                       f"{exc.strerror or exc}") from None
    done = 0
    try:
        try:
            for block in blocks:
                out.write(block.text)
                done += len(block.outcomes)
                if progress:
                    progress.update(done)
                yield block.outcomes
            out.flush()
        finally:
            if out is not sys.stdout:
                out.close()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _discard(out)
        raise _write_error(name, exc) from None


@dataclass(slots=True)
class _FirstLines:
    """The first of some lines the command names, and how many there were."""

    shown: int
    lines: list[str] = field(default_factory=list)
    count: int = 0

    def add(self, line: str) -> None:
        self.count += 1
        if len(self.lines) < self.shown:
            self.lines.append(line)


def _dask_client(address: str, workers: int, stack: contextlib.ExitStack) -> Any:
    """A Dask client (of a new local cluster of ``workers`` processes for ``local``)."""
    try:
        return stack.enter_context(dask_client(address, workers))
    except ClusterError as exc:
        raise BadInput(f"--dask {address}: {exc}") from None


def _cmd_batch(args: argparse.Namespace) -> int:
    align_options = _align_options(args)
    reader = _Reader(align_options.limits)
    workers = args.workers or os.cpu_count() or 1
    _, schema_value, schema = _load_schema(reader, args, args.schema)
    name = _display(args.pairs)
    lines = reader.lines(args.pairs, "pairs")
    options = BatchOptions(top_k=args.top_k, min_delta=args.min_delta,
                           align_options=align_options, fields=args.field_metrics)
    total = len(lines.filled())
    # What is loaded by now (modules, the schema, the lines) lives as long as the command:
    # the collector stops walking it at every full collection, and forked workers stop
    # copying its pages when they collect.
    gc.freeze()
    tally = BatchTally()
    fields: list[tuple[str, str, float]] = []  # field observations (--field-metrics)
    bad, internal = _FirstLines(10), _FirstLines(10)
    with contextlib.ExitStack() as stack:
        client = _dask_client(args.dask, workers, stack) if args.dask else None
        bar = _progress_bar(args, total)
        progress = stack.enter_context(bar) if bar else None
        blocks = iter_batch_blocks(lines, schema_value, options=options, workers=workers,
                                   name=name, client=client, schema=schema)
        try:
            for outcomes in _written(blocks, args.output, progress):
                tally.add_all(outcomes)  # the summary keeps the scores, no line's text
                for outcome in outcomes:
                    if outcome.error is not None:
                        (internal if outcome.internal else bad).add(outcome.error)
                    fields += outcome.fields
        except ClusterError as exc:  # the cluster went away mid-run
            raise BadInput(f"--dask {args.dask}: {exc}") from None
        except WorkerLost as exc:
            raise BadInput(f"--workers {workers}: {exc}") from None
    summary = tally.summary()
    report = sys.stderr if args.output == STDIN else sys.stdout
    data = summary.to_dict(args.summary_top)
    text = summary.render(args.summary_top)
    if args.field_metrics:
        counts = count_fields(fields, args.credit_threshold)
        data["fields"] = {name: {"tp": c.tp, "fp": c.fp, "fp_wrong": c.fd,
                                 "fp_spurious": c.fa, "fn": c.fn, "precision": c.precision,
                                 "recall": c.recall, "f1": c.f1}
                          for name, c in field_table(counts)}
        text += "\n" + render_field_metrics(counts, args.credit_threshold)
    if args.json:
        text = json.dumps(data, ensure_ascii=False)
    _emit(text, report, "<stderr>" if report is sys.stderr else "<stdout>")
    for error in bad.lines:
        _warn(f"oa: error: {error}")
    if bad.count > len(bad.lines):
        _warn(f"oa: error: ... and {bad.count - len(bad.lines)} more bad lines")
    for error in internal.lines:
        _warn(f"oa: internal error: {error} (please report it)")
    if internal.count > len(internal.lines):
        _warn(f"oa: internal error: ... and {internal.count - len(internal.lines)} more lines")
    return 1 if internal.count else 2 if bad.count else 0


def render_field_metrics(counts: dict[str, FieldCounts], threshold: float) -> str:
    """Field metrics as a text table (``oa batch --field-metrics``).

    The rows are :func:`oa_core.runs.fields.table`'s: the fields, the values at patterns no
    gold has folded into one "(wrong shape)" row, then all fields. The false positives
    are split into wrong values (the gold has another) and spurious ones (the gold has
    none); count columns widen to the largest count.

    >>> from oa_core.runs.fields import FieldCounts
    >>> print(render_field_metrics({"/a": FieldCounts(3, 2, 0, fa=1)}, 0.5))
    field metrics (credit threshold 0.5; counting rule in docs/datasets.md):
      field           tp    fp  wrong  spurious    fn  precision  recall      f1
      /a               3     2      1         1     0     0.6000  1.0000  0.7500
      (all fields)     3     2      1         1     0     0.6000  1.0000  0.7500
    """
    rows = field_table(counts)  # fields, the wrong-shape row, then the total
    total = rows[-1][1]
    width = max(len("field"), *(len(name) for name, _ in rows))
    # the count columns fit the largest count (the total's), with thousands separators
    digits = len(f"{max(total.tp, total.fp, total.fn):,}")
    columns = [("tp", "tp", digits), ("fp", "fp", digits), ("wrong", "fd", digits),
               ("spurious", "fa", digits), ("fn", "fn", digits), ("precision", "precision", 9),
               ("recall", "recall", 6), ("f1", "f1", 6)]
    columns = [(head, name, max(size, len(head), 4)) for head, name, size in columns]

    def cell(value: float | int | None, size: int) -> str:
        text = "—" if value is None else f"{value:,}" if isinstance(value, int) else (
            f"{value:.4f}")
        return f"{text:>{size}}"

    lines = [f"field metrics (credit threshold {threshold:g}; counting rule in "
             "docs/datasets.md):",
             f"  {'field':<{width}}  " + "  ".join(f"{head:>{size}}"
                                                  for head, _, size in columns)]
    lines += [f"  {label:<{width}}  " + "  ".join(cell(getattr(c, name), size)
                                                  for _, name, size in columns)
              for label, c in rows]
    return "\n".join(lines)


def _cmd_report(args: argparse.Namespace) -> int:
    from .runs import html_report
    from .runs.dataset import Dataset, load_folder, pairs_run, score_run

    limits = Limits()
    reader = _Reader(limits)
    workers = args.workers or os.cpu_count() or 1
    for path in (args.pairs, args.compare):
        if path and path != STDIN and not os.path.exists(path):
            raise BadInput(f"no such file or folder: {path}\n  fix: give a pairs JSONL "
                           "file (with --schema) or a dataset folder")
    if os.path.isdir(args.pairs):
        try:
            data = load_folder(args.pairs)
            warnings = schema_warnings(data.schema)
        except OAError as exc:
            raise _bad(exc, args.pairs) from None
        schema_file = os.path.join(args.pairs, "schema.json")
        _report("warning", warnings, lambda _: schema_file, args)
        names = list(data.runs)[:2]
    else:
        if not args.schema:
            raise BadInput(f"{_display(args.pairs)}: a pairs file needs --schema"
                           "\n  fix: add --schema SCHEMA (or give a dataset folder)")
        _, schema_value, _ = _load_schema(reader, args, args.schema)
        files = [args.pairs] + ([args.compare] if args.compare else [])
        names = [os.path.splitext(os.path.basename(_display(f)))[0] or "run" for f in files]
        if len(set(names)) < len(names):
            names = ["A", "B"]
        data = Dataset(os.path.basename(_display(args.pairs)), schema_value, {
            name: pairs_run(name, _display(f), reader.text(f, "pairs", per_line=True))
            for name, f in zip(names, files, strict=True)})
    runs = []
    for name in names:
        bar = _progress_bar(args, len(data.runs[name]))
        with bar or contextlib.nullcontext():
            runs.append(score_run(data, name, workers=workers,
                                  progress=bar.update if bar else None))
    title = args.title or f"Object Aligner report: {' vs '.join(names)} ({data.name})"
    page = html_report.build(data, runs, title=title, worst=args.worst,
                             threshold=args.credit_threshold)
    if args.output == STDIN:
        _emit(page)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(printable(page))
        except OSError as exc:
            raise _write_error(args.output, exc) from None
    for run in runs:
        scores = run.scores
        mean = f"{scores.mean():.4f}" if scores.size else "-"
        failed = int((run.frame["status"] == "error").sum()) + len(data.bad_lines_of(run.name))
        _warn(f"oa: run {run.name}: {len(run.frame)} pairs, mean {mean}, {failed} bad lines")
    if args.output != STDIN:
        _warn(f"oa: wrote {args.output}")
    if args.csv or args.parquet:
        _write_tables(runs, args.csv, args.parquet)
    return 0


def _write_tables(runs: Sequence[Any], csv: str | None, parquet: str | None) -> None:
    """The per-pair results of ``runs`` (a ``run`` column first) as CSV and/or Parquet."""
    import pandas as pd

    table = pd.concat([run.frame.drop(columns=["row"]).assign(run=run.name) for run in runs],
                      ignore_index=True)
    table = table[["run", *[c for c in table.columns if c != "run"]]]
    for path, write in ((csv, lambda p: table.to_csv(p, index=False)),
                        (parquet, lambda p: table.to_parquet(p, index=False))):
        if not path:
            continue
        try:
            write(path)
        except OSError as exc:
            raise _write_error(path, exc) from None
        except ImportError as exc:  # no Parquet engine installed
            raise BadInput(f"{path} (output): cannot write Parquet: {exc}"
                           "\n  fix: pip install pyarrow, or use --csv") from None
        _warn(f"oa: wrote {path}")


# --------------------------------------------------------------------------- parser


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


def _register_plugins(sub: Any) -> None:
    """Add the commands of the ``oa_core.commands`` entry points (built-ins win)."""
    from importlib.metadata import entry_points  # 10 ms to import: only when searched

    for point in sorted(entry_points(group=COMMAND_GROUP), key=lambda p: p.name):
        if point.name in sub.choices:
            continue
        try:
            point.load()(sub)
        except Exception as exc:  # a broken plug-in must not break the other commands
            problem = f"{type(exc).__name__}: {exc}"
            if point.name not in sub.choices:
                stub = sub.add_parser(point.name, help=f"(unavailable: {problem})")
                stub.set_defaults(run=_unavailable(point.name, point.value, problem))


def _unavailable(name: str, target: str, problem: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        _warn(f"oa: error: the command {name!r} could not be loaded from {target}: "
              f"{problem}\n  fix: reinstall the package that provides it")
        return 1
    return run


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``oa`` (with the plug-in commands)."""
    parser, sub = _builtin_parser()
    _register_plugins(sub)
    return parser


def _builtin_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The argument parser of ``oa``'s own commands, and its sub-parsers (to which
    :func:`_register_plugins` adds the plug-ins')."""
    parser = argparse.ArgumentParser(
        prog="oa", description="Object Aligner: schema-driven similarity of JSON documents.",
        epilog="Files may be JSON, JSONC or JSONL; '-' reads standard input. Exit codes: "
               "0 ok, 1 internal error, 2 bad input.")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of internal errors")
    parser.add_argument("--version", action="version",
                        version=f"oa {__version__} ({describe_build()})",
                        help="show the version and whether the engine runs compiled")
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
    common.add_argument("--full-values", action="store_true",
                        help="messages add the values they show cut, whole (as JSON)")
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

    diff = sub.add_parser(
        "diff", parents=[pair], help="print the aligned diff",
        description="Print the aligned diff: the score, the mismatches (costliest first, "
                    "with their JSON Pointer, both values and the node's score), then the "
                    "aligned tree with the perfect parts folded. Colour on a terminal, "
                    "plain text when piped.")
    diff.add_argument("--json", action="store_true",
                      help="print the diff as JSON (shape in docs/cli.md)")
    diff.add_argument("--color", "--colour", choices=("auto", "always", "never"),
                      default="auto",
                      help="ANSI colours (auto: on a terminal without NO_COLOR)")
    diff.set_defaults(run=_cmd_diff)

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
                       help="worker processes (0: one per CPU; default 1); with --dask "
                            "local, the local cluster's workers")
    batch.add_argument("--dask", metavar="ADDRESS",
                       help="score on the Dask cluster of this scheduler (tcp://HOST:8786), "
                            "or 'local' for a new local cluster; needs the dask extra")
    batch.add_argument("--top-k", "-k", type=_count, default=5, metavar="K",
                       help="repair operations written per pair (default 5)")
    batch.add_argument("--min-delta", type=_fraction, default=0.0, metavar="D",
                       help="omit operations recovering less than D")
    batch.add_argument("--progress", action="store_true",
                       help="show progress (a line a second) even when standard error is "
                            "not a terminal")
    batch.add_argument("--summary-top", type=_count, default=10, metavar="N",
                       help="(path, op kind) rows in the summary (default 10)")
    batch.add_argument("--json", action="store_true", help="print the summary as JSON")
    batch.add_argument("--field-metrics", action="store_true",
                       help="also print TP/FP/FN, precision, recall and F1 per field (path "
                            "pattern); see docs/datasets.md for the counting rule")
    batch.add_argument("--credit-threshold", type=_fraction, default=0.5, metavar="T",
                       help="with --field-metrics: a matched value counts as correct from "
                            "this similarity (default 0.5)")
    batch.set_defaults(run=_cmd_batch)

    report = sub.add_parser(
        "report", help="write a self-contained HTML report of a run (or two)",
        description="Score a pairs JSONL file (as oa batch reads it), or a dataset folder, "
                    "and write one self-contained HTML file: summary, histogram, error "
                    "patterns, field metrics, the worst documents with their aligned diff "
                    "and feedback; --compare adds a second run and the paired comparison.")
    report.add_argument("pairs", help="the JSONL file of pairs, or a dataset folder "
                                      "(schema.json, golds.jsonl, runs)")
    report.add_argument("--schema", "-s", metavar="SCHEMA",
                        help="the OA schema (needed for a pairs file)")
    report.add_argument("--output", "-o", required=True, metavar="OUT",
                        help="the HTML file to write ('-' for standard output)")
    report.add_argument("--compare", metavar="PAIRS_B",
                        help="a second pairs file on the same golds (run B)")
    report.add_argument("--workers", "-j", type=_count, default=1, metavar="N",
                        help="worker processes (0: one per CPU; default 1)")
    report.add_argument("--worst", type=_count, default=10, metavar="K",
                        help="worst documents shown with their diff (default 10)")
    report.add_argument("--credit-threshold", type=_fraction, default=0.5, metavar="T",
                        help="credit threshold of the field metrics (default 0.5)")
    report.add_argument("--title", default="", help="the report's title")
    report.add_argument("--csv", metavar="FILE",
                        help="also write the per-pair results as CSV (a run column first)")
    report.add_argument("--parquet", metavar="FILE",
                        help="also write the per-pair results as Parquet (needs pyarrow)")
    report.add_argument("--progress", action="store_true",
                        help="show progress (a line a second) even when standard error is "
                             "not a terminal")
    report.add_argument("--quiet", "-q", action="store_true",
                        help="no warnings and no progress bar")
    report.add_argument("--full-values", action="store_true",
                        help="messages add the values they show cut, whole (as JSON)")
    report.set_defaults(run=_cmd_report)
    return parser, sub


def _named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first argument that is no option (``oa``'s own
    options, ``--debug``, ``--version`` and ``--help``, take no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


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
    if argv is None:
        argv = sys.argv[1:]
    # numpy's OpenBLAS starts a thread per core when numpy is imported, and each spins
    # for its work until the process ends: about 50 ms of CPU a command, for matrices
    # of a few dozen cells that one thread multiplies as fast. A user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser, sub = _builtin_parser()
    # the installed packages are searched for plug-ins only when the command is none of
    # oa's own (or for --help): the search costs more than parsing a whole batch line
    if _named_command(argv) not in sub.choices:
        _register_plugins(sub)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error (argparse already printed it)
        return exc.code if isinstance(exc.code, int) else 2
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        code = run(args)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            _discard(sys.stdout)
            raise _write_error("<stdout>", exc) from None
        return code
    except BadInput as exc:
        full = getattr(args, "full_values", False)
        _warn(f"oa: error: {exc.text}" + (_full_values(exc.values) if full else ""))
        return 2
    except KeyboardInterrupt:
        _warn("oa: interrupted")
        return 130
    except BrokenPipeError:  # e.g. `oa batch ... | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        _warn(f"oa: internal error: {type(exc).__name__}: {exc} (rerun with --debug for "
              "the traceback; please report it)")
        return 1


if __name__ == "__main__":
    # `python -m oa_core.cli` runs this file as __main__, a second copy of the module:
    # plug-ins (`oa explore`) raise oa_core.cli.BadInput, which this copy's own
    # BadInput would not catch (an "internal error", exit 1), so run the package's
    from oa_core.cli import main as package_main

    sys.exit(package_main())
