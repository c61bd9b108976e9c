"""Alignments and errors as text for a terminal: the ``oa explain`` table and friends.

Everything here returns strings; nothing prints. Colors are plain ANSI codes from a
:class:`Painter`, which is a no-op when disabled. Text that reaches a terminal or a
file goes through :func:`printable` first, so a lone surrogate in a document (valid
in a Python ``str``, not encodable as UTF-8) is shown escaped as ``\\ud800`` instead
of failing the output.

Examples
--------
>>> import oa_core
>>> alignment = oa_core.align({"a": "x", "b": [1, 2]}, {"a": "y", "b": [1, 2]},
...                           {"type": "object"})
>>> print(explain_table(alignment, only_imperfect=True))
path    kind  status    score  eff. weight  deficit  gold → candidate
(root)  map   matched  0.5000       1.0000   0.5000
  /a    leaf  matched  0.0000       0.5000   0.5000  "x" → "y"
>>> printable("caf\\u00e9 \\ud800")
'café \\\\ud800'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .aligner import Alignment
from .errors import Diagnostic, OAError, json_prefix
from .kinds import NodeKind, Status
from .matchtree import MatchNode

__all__ = [
    "BOLD",
    "CYAN",
    "DIM",
    "GREEN",
    "MAGENTA",
    "RED",
    "YELLOW",
    "Painter",
    "describe_error",
    "diagnostic_line",
    "explain_table",
    "painter",
    "printable",
    "render_explain",
    "short",
]

GREEN, YELLOW, RED, MAGENTA, CYAN, BOLD, DIM = "32", "33", "31", "35", "36", "1", "2"

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with every lone surrogate written as a ``\\uXXXX`` escape.

    A lone surrogate (``"\\ud800"``) is a valid Python ``str`` and a valid JSON
    escape, but cannot be encoded as UTF-8; escaped, it prints, and inside JSON
    text the escape reads back as the same string.

    >>> printable('{"a": "\\ud800"}')
    '{"a": "\\\\ud800"}'
    """
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def describe_error(err: OAError, source: str, prefix: str = "", document: str = "") -> str:
    """A library error for a human: file, document, pointer, message and fix.

    Parameters
    ----------
    err : OAError
    source : str
        Where the document came from (``gold.json``, ``pairs.jsonl line 3``).
    prefix : str
        Prepended to the error's pointer (``/gold`` for a document inside a line).
    document : str
        Overrides the error's document name.

    >>> from oa_core import InputError
    >>> print(describe_error(InputError("/a", "bad", fix="fix it"), "c.json"))
    c.json (candidate) at /a: bad
      fix: fix it
    """
    pointer = prefix + err.pointer
    text = f"{source} ({document or err.document}) at {pointer or '(root)'}: {err.message}"
    return f"{text}\n  fix: {err.fix}" if err.fix else text


def diagnostic_line(diag: Diagnostic, source: str) -> str:
    """A warning or schema violation, naming where it came from."""
    return (f"{source} ({diag.document}) at {diag.pointer or '(root)'}: "
            f"[{diag.code}] {diag.message}")


# --------------------------------------------------------------------------- colors


@dataclass(frozen=True, slots=True)
class Painter:
    """ANSI colors, or plain text when disabled.

    >>> Painter(True)("x", RED)
    '\\x1b[31mx\\x1b[0m'
    >>> Painter(False)("x", RED)
    'x'
    """

    enabled: bool

    def __call__(self, text: str, *codes: str) -> str:
        if not self.enabled or not codes:
            return text
        return f"\033[{';'.join(codes)}m{text}\033[0m"


def painter(mode: str, stream: TextIO) -> Painter:
    """Colors for ``stream``: ``auto`` means a TTY and no ``NO_COLOR`` variable.

    ``mode`` is ``"auto"``, ``"always"`` or ``"never"``.
    """
    if mode == "always":
        return Painter(True)
    if mode == "never" or os.environ.get("NO_COLOR"):
        return Painter(False)
    isatty = getattr(stream, "isatty", None)
    return Painter(bool(isatty and isatty()))


# --------------------------------------------------------------------------- explain


def _walk(node: MatchNode, depth: int, max_depth: int | None,
          only_imperfect: bool) -> Iterator[tuple[int, MatchNode]]:
    if only_imperfect and node.deficit <= 0.0 and depth > 0:
        return
    yield depth, node
    if max_depth is None or depth < max_depth:
        for child in node.children:
            yield from _walk(child, depth + 1, max_depth, only_imperfect)


def short(value: Any, width: int = 32) -> str:
    """A JSON value in at most ``width`` characters.

    >>> short({"name": "Eve", "role": "Intern", "id": 6}, 20)
    '{"name": "Eve", "ro…'
    """
    text = json_prefix(value, width + 1)  # never the whole of a big value
    return text if len(text) <= width else text[: width - 1] + "…"


def _node_path(node: MatchNode) -> str:
    """The node's pointer, with the candidate's where it ends differently (a moved item)."""
    path = node.path or "(root)"
    if (node.gold_path is not None and node.candidate_path is not None
            and node.gold_path.rpartition("/")[2] != node.candidate_path.rpartition("/")[2]):
        path += f" ~ {node.candidate_path or '(root)'}"
    return path


def _node_values(node: MatchNode) -> str:
    if node.kind in (NodeKind.MAP, NodeKind.SEQUENCE) and node.status == Status.MATCHED:
        return ""
    if node.status == Status.MISSING:
        return short(node.gold)
    if node.status == Status.EXCESS:
        return "+ " + short(node.candidate)
    return f"{short(node.gold)} → {short(node.candidate)}"


def _status_color(node: MatchNode) -> tuple[str, ...]:
    if node.status in (Status.MISSING, Status.EXCESS):
        return (RED,)
    if node.status != Status.MATCHED:
        return (MAGENTA,)
    return (GREEN,) if node.score >= 1.0 else (YELLOW,)


def explain_table(alignment: Alignment, paint: Painter = Painter(False), *,
                  max_depth: int | None = None, only_imperfect: bool = False) -> str:
    """The match tree as an indented table (one row per node).

    Parameters
    ----------
    alignment : Alignment
        What :func:`oa_core.align` returned.
    paint : Painter
        Colors (default: none).
    max_depth : int, optional
        Deepest level shown (the root is level 0).
    only_imperfect : bool
        Hide the subtrees that cost nothing.
    """
    header = ("path", "kind", "status", "score", "eff. weight", "deficit", "gold → candidate")
    rows = []
    for depth, node in _walk(alignment.tree, 0, max_depth, only_imperfect):
        cells = ("  " * depth + _node_path(node), str(node.kind), str(node.status),
                 f"{node.score:.4f}", f"{node.effective_weight:.4f}", f"{node.deficit:.4f}",
                 _node_values(node))
        rows.append((cells, node))
    widths = [max(len(h), *(len(cells[i]) for cells, _ in rows)) for i, h in enumerate(header)]
    numeric = {3, 4, 5}

    def line(cells: Sequence[str], colors: Sequence[tuple[str, ...]]) -> str:
        out = []
        for i, (cell, color) in enumerate(zip(cells, colors, strict=True)):
            padded = cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            out.append(paint(padded, *color))
        return "  ".join(out).rstrip()

    lines = [line(header, [(BOLD,)] * len(header))]
    for cells, node in rows:
        status = _status_color(node)
        deficit = (RED,) if node.deficit > 0.0 else (DIM,)
        perfect = (DIM,) if node.deficit <= 0.0 else ()
        lines.append(line(cells, [perfect, (CYAN,), status, status, perfect, deficit, ()]))
    return "\n".join(lines)


def render_explain(alignment: Alignment, paint: Painter = Painter(False), *,
                   title: str = "", source: Callable[[str], str] = str,
                   max_depth: int | None = None, only_imperfect: bool = False) -> str:
    """What ``oa explain`` prints: score, the table, bijections, warnings, violations.

    Parameters
    ----------
    alignment : Alignment
    paint : Painter
    title : str
        Shown in parentheses after the score (e.g. ``gold.json vs cand.json``).
    source : callable
        ``source(document)`` names where "gold", "candidate" or "schema" came from,
        for the warnings and violations.
    max_depth, only_imperfect
        See :func:`explain_table`.

    >>> import oa_core
    >>> alignment = oa_core.align({"a": 1}, {"a": 1}, {"type": "object"})
    >>> print(render_explain(alignment, title="g vs c"))
    score 1.0000  deficit 0.0000  (g vs c)
    path    kind  status    score  eff. weight  deficit  gold → candidate
    (root)  map   matched  1.0000       1.0000   0.0000
      /a    leaf  matched  1.0000       1.0000   0.0000  1 → 1
    """
    head = paint(f"score {alignment.score:.4f}", BOLD) + f"  deficit {alignment.deficit:.4f}"
    lines = [head + (f"  ({title})" if title else ""),
             explain_table(alignment, paint, max_depth=max_depth, only_imperfect=only_imperfect)]
    for name, mapping in alignment.bijections.items():
        pairs = ", ".join(f"{short(g)}→{short(c)}" for g, c in mapping.items())
        lines.append(f"scope {name}: {pairs}")
    for heading, diags in (("warnings", alignment.warnings),
                           ("violations", alignment.violations)):
        if diags:
            lines.append(paint(f"{heading}:", BOLD))
            lines += [f"  {diagnostic_line(diag, source(diag.document))}" for diag in diags]
    return "\n".join(lines)
