"""The terminal views of ``oa``: the aligned diff (``oa diff``) and progress bars.

Drawn with `rich <https://rich.readthedocs.io>`_: colour when the output is a
terminal, plain text when piped (like ``git diff``). Document text is always given to
rich as plain :class:`~rich.text.Text` (never as markup), and every value is cut JSON
(:func:`~oa_core.errors.preview_json`), so a value holding ``[bold]`` or an escape
character prints as itself.

The diff, top to bottom: the score; the mismatches (:func:`~oa_core.mismatches.mismatches`),
costliest first, each with its JSON Pointer, mark, the gold and candidate values and
the node's score; then the aligned tree, where each run of perfect siblings is folded
into one line. :func:`diff_data` is the same content as plain data (``oa diff --json``).

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> alignment = oa_core.align(load("gold"), load("candidate"), load("schema"))
>>> text = render_diff(alignment, color=False, width=100)
>>> print(text.splitlines()[0])
score 0.7679  deficit 0.2321
>>> "\\x1b[" in text, "\\x1b[" in render_diff(alignment, color=True, width=100)
(False, True)
"""

from __future__ import annotations

import io
import re
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from .aligner import Alignment
from .errors import preview_json
from .kinds import NodeKind, Status
from .matchtree import MatchNode
from .mismatches import MARKS, is_perfect, mark, mismatches
from .pointer import split

__all__ = ["DIFF_VALUE_WIDTH", "DiffRow", "ProgressBar", "diff_data", "diff_rows",
           "render_diff"]

DIFF_VALUE_WIDTH = 48
"""Characters of JSON shown per value in the diff (``--full-values``: all)."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _clean(text: str) -> str:
    """``text`` with control characters (escape, newline, ...) written as ``\\uXXXX``."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One line of the aligned tree.

    ``node`` is None for a fold line, which stands for ``folded`` perfect siblings
    (their labels in ``path``). ``depth`` is the indentation level (root 0).
    """

    depth: int
    node: MatchNode | None
    folded: int = 0
    path: str = ""


def _position(path: str | None) -> int:
    if not path:
        return -1
    last = split(path)[-1]
    return int(last) if last.isdigit() else -1


def _children(node: MatchNode) -> list[MatchNode]:
    """A list's items in the gold's order (candidate-only items after the gold item
    they follow); an object's slots as the engine keeps them (sorted keys)."""
    if node.kind == NodeKind.MAP:
        return list(node.children)
    return sorted(node.children, key=lambda c: (
        _position(c.gold_path) if c.gold_path is not None else _position(c.candidate_path),
        c.gold_path is None))


def _label(node: MatchNode) -> str:
    """The node's key or index; ``2 ↔ 1`` for list items paired across positions,
    ``(candidate 0)`` for an excess item."""
    if node.gold_path is None:
        return f"(candidate {node.candidate_path.rpartition('/')[2]})" if (
            node.candidate_path) else "(root)"
    gold = node.gold_path.rpartition("/")[2]
    if node.candidate_path is not None and node.kind != NodeKind.MAP:
        candidate = node.candidate_path.rpartition("/")[2]
        if candidate != gold and _position(node.gold_path) >= 0:
            return f"{gold} ↔ {candidate}"
    return gold if node.gold_path else "(root)"


def diff_rows(tree: MatchNode) -> list[DiffRow]:
    """The aligned tree, depth first, with each run of perfect siblings folded into one
    row (a perfect root is shown, its children folded).

    >>> import oa_core
    >>> tree = oa_core.align({"a": 1, "b": 2, "c": [1, 2, 3]}, {"a": 1, "b": 2, "c": [1, 3]},
    ...                      {"type": "object"}).tree
    >>> [(row.depth, row.node.path if row.node else f"{row.folded}: {row.path}")
    ...  for row in diff_rows(tree)]
    [(0, ''), (1, '2: a, b'), (1, '/c'), (2, '1: 0'), (2, '/c/1'), (2, '1: 2 ↔ 1')]
    """
    rows: list[DiffRow] = []
    stack: list[DiffRow] = [DiffRow(0, tree, path=tree.path)]
    while stack:
        row = stack.pop()
        rows.append(row)
        if row.node is None:
            continue
        below: list[DiffRow] = []
        run: list[MatchNode] = []
        for child in [*_children(row.node), None]:
            if child is not None and is_perfect(child):
                run.append(child)
                continue
            if run:
                names = ", ".join(_clean(_label(c)) for c in run[:4])
                below.append(DiffRow(row.depth + 1, None, len(run),
                                     names + (", …" if len(run) > 4 else "")))
                run = []
            if child is not None:
                below.append(DiffRow(row.depth + 1, child, path=child.path))
        stack.extend(reversed(below))
    return rows


# --------------------------------------------------------------------------- values


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        return f"{{{len(value):,} key{'s' * (len(value) != 1)}}}"
    return f"[{len(value):,} item{'s' * (len(value) != 1)}]"


def _side(node: MatchNode, side: str, limit: int | None) -> str | None:
    """What the diff shows of one side of ``node`` (None: absent on that side)."""
    if (node.gold_path if side == "gold" else node.candidate_path) is None:
        return None
    value = node.gold if side == "gold" else node.candidate
    if (node.kind in (NodeKind.MAP, NodeKind.SEQUENCE) and node.status == Status.MATCHED
            and isinstance(value, dict | list)):
        return _summary(value)  # its children show what differs
    return _clean(preview_json(value, limit))


# --------------------------------------------------------------------------- data


def diff_data(alignment: Alignment, *, limit: int | None = DIFF_VALUE_WIDTH) -> dict[str, Any]:
    """The diff as plain data (``oa diff --json``).

    Keys: ``score``, ``deficit``, ``marks`` (mark -> meaning), ``mismatches`` (costliest
    first: ``path``, ``gold_path``, ``candidate_path``, ``mark``, ``status``, ``kind``,
    ``score``, ``deficit``, and ``gold`` / ``candidate``, the full values, each left
    out where that side is absent) and ``rows`` (the folded tree: ``depth``, ``path``,
    ``mark``, ``status``, ``score``, ``gold_text`` / ``candidate_text`` (JSON cut to
    ``limit`` characters, null where absent); a fold row has ``depth``, ``folded``
    (how many perfect siblings) and ``labels`` instead).

    >>> import oa_core
    >>> data = diff_data(oa_core.align({"a": "x"}, {"a": "y"}, {"type": "object"}))
    >>> data["mismatches"][0]["gold"], data["mismatches"][0]["candidate"], data["score"]
    ('x', 'y', 0.0)
    """
    found = []
    for node in mismatches(alignment.tree):
        item: dict[str, Any] = {"path": node.path, "gold_path": node.gold_path,
                                "candidate_path": node.candidate_path, "mark": mark(node),
                                "status": node.status.value, "kind": node.kind.value,
                                "score": node.score, "deficit": node.deficit}
        if node.gold_path is not None:
            item["gold"] = node.gold
        if node.candidate_path is not None:
            item["candidate"] = node.candidate
        found.append(item)
    rows: list[dict[str, Any]] = []
    for row in diff_rows(alignment.tree):
        if row.node is None:
            rows.append({"depth": row.depth, "folded": row.folded, "labels": row.path})
            continue
        node = row.node
        rows.append({"depth": row.depth, "path": node.path, "mark": mark(node),
                     "status": node.status.value, "score": node.score,
                     "gold_text": _side(node, "gold", limit),
                     "candidate_text": _side(node, "candidate", limit)})
    return {"score": alignment.score, "deficit": alignment.deficit, "marks": MARKS,
            "mismatches": found, "rows": rows}


# --------------------------------------------------------------------------- text

_MARK_STYLES = {"✓": "green", "≈": "yellow", "−": "red", "+": "green", "≠": "magenta",
                "∅": "magenta"}


def _score_style(score: float) -> str:
    return "green" if score >= 1.0 - 1e-12 else "yellow" if score >= 0.5 else "red"


def _value_cell(text: str | None, style: str) -> Text:
    return Text("—", style="dim") if text is None else Text(text, style=style)


def _table(*headers: str) -> Table:
    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold",
                  padding=(0, 1))
    for header in headers:
        numeric = header in ("score", "deficit", "#")
        table.add_column(header, justify="right" if numeric else "left",
                         overflow="fold", no_wrap=False)
    return table


def render_diff(alignment: Alignment, *, color: bool, width: int | None = None,
                title: str = "", full_values: bool = False) -> str:
    """The aligned diff as text for a terminal (ANSI colours when ``color``).

    Parameters
    ----------
    alignment : Alignment
        What :func:`oa_core.align` returned.
    color : bool
        Colour the marks, scores and values (ANSI codes); plain text otherwise.
    width : int, optional
        The terminal's width (cells wrap to it); None: no wrapping (piped output).
    title : str
        Shown after the score (e.g. ``gold.json vs candidate.json``).
    full_values : bool
        Show the mismatches' values whole instead of cut to :data:`DIFF_VALUE_WIDTH`.
    """
    limit = None if full_values else DIFF_VALUE_WIDTH
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, color_system="standard" if color
                      else None, no_color=not color, width=width or 100_000, highlight=False,
                      markup=False, emoji=False, soft_wrap=False, legacy_windows=False)
    head = Text.assemble((f"score {alignment.score:.4f}", "bold " +
                          _score_style(alignment.score)),
                         f"  deficit {alignment.deficit:.4f}",
                         (f"  ({_clean(title)})" if title else "", "dim"))
    console.print(head)
    found = mismatches(alignment.tree)
    if found:
        console.print(Text(f"{len(found)} mismatch{'es' * (len(found) != 1)}, "
                           "costliest first:", style="bold"))
        table = _table("#", "path", "", "gold", "candidate", "score", "deficit")
        for number, node in enumerate(found, 1):
            sign = mark(node)
            table.add_row(str(number), Text(_clean(node.path) or "(root)", style="cyan"),
                          Text(sign, style=_MARK_STYLES[sign]),
                          _value_cell(_side(node, "gold", limit), "red"),
                          _value_cell(_side(node, "candidate", limit), "green"),
                          Text(f"{node.score:.4f}", style=_score_style(node.score)),
                          Text(f"{node.deficit:.4f}", style="red"))
        console.print(table)
    else:
        console.print(Text("no mismatches: the candidate matches the gold", style="green"))
    console.print(Text("aligned diff (perfect parts folded):", style="bold"))
    console.print(Text("marks: " + ", ".join(f"{sign} {meaning}"
                                             for sign, meaning in MARKS.items()), style="dim"))
    tree = _table("", "path", "gold", "candidate", "score")
    for row in diff_rows(alignment.tree):
        indent = "  " * row.depth
        if row.node is None:
            text = f"{indent}… {row.folded} perfect: {row.path}"
            tree.add_row(Text("✓", style="green dim"), Text(text, style="dim"), "", "", "")
            continue
        node = row.node
        sign = mark(node)
        perfect = is_perfect(node)
        label = indent + (_clean(_label(node)) if row.depth else "(root)")
        tree.add_row(Text(sign, style=_MARK_STYLES[sign]),
                     Text(label, style="dim" if perfect else "cyan"),
                     _value_cell(_side(node, "gold", DIFF_VALUE_WIDTH),
                                 "" if perfect else "red"),
                     _value_cell(_side(node, "candidate", DIFF_VALUE_WIDTH),
                                 "" if perfect else "green"),
                     Text(f"{node.score:.4f}", style=_score_style(node.score)))
    console.print(tree)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())


# --------------------------------------------------------------------------- progress


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """A progress bar with the rate and the time left, on standard error.

    On a terminal (``live``) it is a rich bar redrawn in place; elsewhere (forced by
    ``--progress``) a plain line at most once a second. Use it as a context manager;
    :meth:`update` takes the count done (and the total, when it changes).

    >>> import io
    >>> out = io.StringIO()
    >>> with ProgressBar(2, "pairs", out, live=False) as bar:
    ...     bar.update(2)
    >>> out.getvalue().startswith("2/2 pairs (100%)")
    True
    """

    def __init__(self, total: int, unit: str, stream: TextIO | None = None, *,
                 live: bool) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream or sys.stderr
        self.live = live
        self.start = self.last = time.monotonic()
        self.done = 0
        self._progress: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> ProgressBar:
        if self.live:
            console = Console(file=self.stream, force_terminal=True, highlight=False,
                              markup=False, emoji=False)
            self._progress = Progress(
                TextColumn(self.unit), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                console=console, transient=False,
                # printing above the bar is for a terminal: piped results must stay
                # on standard output, not go to the bar's stream
                redirect_stdout=_isatty(sys.stdout), redirect_stderr=False)
            self._progress.start()
            self._task = self._progress.add_task(self.unit, total=self.total, rate="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
        elif self.done < self.total or not exc[0]:
            self._line(time.monotonic(), final=True)

    def _rate(self, now: float) -> float:
        return self.done / max(now - self.start, 1e-9)

    def update(self, done: int, total: int | None = None) -> None:
        """Note that ``done`` items are finished (of ``total``, if given)."""
        self.done = done
        if total is not None:
            self.total = total
        now = time.monotonic()
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=self.total,
                                  rate=f"{self._rate(now):,.1f} {self.unit}/s")
            return
        if now - self.last >= 1.0 and done < self.total:
            self._line(now)

    def _line(self, now: float, *, final: bool = False) -> None:
        self.last = now
        rate = self._rate(now)
        share = self.done / self.total if self.total else 1.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        text = (f"{self.done:,}/{self.total:,} {self.unit} ({share:.0%}) "
                f"{rate:,.1f} {self.unit}/s" + ("" if final else f", ETA {left:,.0f} s"))
        try:  # progress is optional: a failing stream must not stop the work
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

