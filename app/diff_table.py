"""The aligned side-by-side diff of the Overview: one row per match-tree node.

Paired values sit on the same row; a missing gold item has an empty candidate
cell and an excess candidate item an empty gold cell. Every value cell is colored
by its node's score (see :mod:`app.palette`) and carries a status mark, so the
diff does not rely on color alone. All document text is HTML-escaped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from oa_core.matchtree import MatchNode
from oa_core.pointer import unescape

from .palette import legend_html, score_color
from .text import shorten

PERFECT = 1.0 - 1e-12
STATUS_MARKS = {
    "✓": "equal",
    "≈": "partly equal",
    "−": "missing in candidate",
    "+": "excess in candidate",
    "≠": "type mismatch",
    "∅": "null on one side",
}
_MAX_TEXT = 90
_SHORT = 60


@dataclass(frozen=True)
class DiffRow:
    """One displayed row.

    Parameters
    ----------
    depth : int
        Indentation level (root is 0).
    label : str
        Key or index in the parent.
    path : str
        Gold pointer, else candidate pointer.
    mark : str
        Status mark (a key of ``STATUS_MARKS``), or "" for a "hidden" note.
    gold_text, candidate_text : str or None
        Displayed values (None: absent on that side).
    score : float or None
        The node's score (None for a "hidden" note).
    deficit : float
        What the node costs the root score.
    """

    depth: int
    label: str
    path: str
    mark: str
    gold_text: str | None
    candidate_text: str | None
    score: float | None
    deficit: float


def is_perfect(node: MatchNode) -> bool:
    """Whether the node and its key term score 1."""
    return (node.status == "matched" and node.score >= PERFECT
            and (node.key_score is None or node.key_score >= PERFECT))


def mark(node: MatchNode) -> str:
    """The status mark of a node."""
    if node.status == "missing":
        return "−"
    if node.status == "excess":
        return "+"
    if node.status == "type-mismatch":
        return "≠"
    if node.status == "null-mismatch":
        return "∅"
    return "✓" if is_perfect(node) else "≈"


def value_text(value: Any) -> str:
    """A one-line text of a value: short containers as JSON, long ones by size."""
    if isinstance(value, dict | list):
        compact = json.dumps(value, ensure_ascii=False)
        if len(compact) <= _SHORT:
            return compact
    if isinstance(value, dict):
        return f"{{{len(value)} key{'s' * (len(value) != 1)}}}"
    if isinstance(value, list):
        return f"[{len(value)} item{'s' * (len(value) != 1)}]"
    text = json.dumps(value, ensure_ascii=False)
    return shorten(text, _MAX_TEXT)


def _side_text(node: MatchNode, side: str) -> str | None:
    path = node.gold_path if side == "gold" else node.candidate_path
    if path is None:
        return None
    text = value_text(node.gold if side == "gold" else node.candidate)
    if node.kind == "id":
        text += "  (id)"
    elif node.kind == "ref" and side == "candidate" and node.expected is not None:
        expected = json.dumps(node.expected, ensure_ascii=False)
        text += f"  (expected {expected})" if node.score < PERFECT else "  (ref ok)"
    return text


def row_label(node: MatchNode) -> str:
    """The node's label; "3 ↔ 2" when a list pairs gold item 3 with candidate item 2."""
    if node.gold_path is None and node.candidate_path is None:
        return "(root)"
    if node.gold_path == "" and node.candidate_path == "":
        return "(root)"
    if node.gold_path is not None and node.candidate_path is not None:
        gold_last = node.gold_path.rsplit("/", 1)[-1]
        cand_last = node.candidate_path.rsplit("/", 1)[-1]
        if gold_last != cand_last:
            return f"{unescape(gold_last)} ↔ {unescape(cand_last)}"
    return node.label


def hidden_note(kind: str, labels: list[str], shown: int = 4) -> str:
    """The note standing for the perfect children of a node that were left out.

    An object's keys are named (a few of them); a list's items are counted.

    Examples
    --------
    >>> hidden_note("map", ["mentorships"])
    '1 perfect key hidden: mentorships'
    >>> hidden_note("sequence", ["0", "2", "3"])
    '3 perfect items hidden'
    """
    count = len(labels)
    if kind != "map":
        return f"{count} perfect item{'s' * (count != 1)} hidden"
    names = ", ".join(labels[:shown]) + (", …" if count > shown else "")
    return f"{count} perfect key{'s' * (count != 1)} hidden: {names}"


def diff_rows(tree: MatchNode, *, hide_perfect: bool) -> list[DiffRow]:
    """The rows of the diff, depth first.

    Parameters
    ----------
    tree : MatchNode
        The alignment's root.
    hide_perfect : bool
        Leave out every perfect subtree (the root stays); a note row says how
        many were left out under each parent.
    """
    rows: list[DiffRow] = []

    def visit(node: MatchNode, depth: int) -> None:
        rows.append(DiffRow(depth, row_label(node), node.path, mark(node),
                            _side_text(node, "gold"), _side_text(node, "candidate"),
                            node.score, node.deficit))
        hidden: list[str] = []
        for child in node.children:
            if hide_perfect and is_perfect(child):
                hidden.append(child.label)
            else:
                visit(child, depth + 1)
        if hidden:
            rows.append(DiffRow(depth + 1, hidden_note(node.kind, hidden), node.path, "",
                                None, None, None, 0.0))

    visit(tree, 0)
    return rows


_STYLE = """<style>
.oa-diff {border-collapse: collapse; width: 100%; font-size: 0.9em;
          font-family: ui-monospace, SFMono-Regular, Menlo, monospace;}
.oa-diff th {text-align: left; border-bottom: 2px solid #888; padding: 4px 8px;
             font-family: sans-serif;}
.oa-diff td {padding: 3px 8px; border-bottom: 1px solid #e4e4e4; vertical-align: top;
             white-space: pre-wrap; word-break: break-word;}
.oa-diff td.absent {background: repeating-linear-gradient(45deg, #f4f4f4, #f4f4f4 6px,
                    #e6e6e6 6px, #e6e6e6 12px); color: #555; font-style: italic;}
.oa-diff td.num {text-align: right; white-space: nowrap;}
.oa-diff td.where {white-space: nowrap;}
.oa-diff tr.note td {color: #666; font-style: italic; border-bottom: none;}
</style>"""


def diff_html(rows: list[DiffRow]) -> str:
    """The rows as an escaped HTML table with the score legend above it."""
    out = [_STYLE, legend_html(STATUS_MARKS),
           '<table class="oa-diff"><thead><tr><th>where</th><th></th><th>gold</th>'
           "<th>candidate</th><th>score</th><th>costs</th></tr></thead><tbody>"]
    for row in rows:
        indent = f"padding-left:{8 + 16 * row.depth}px"
        if row.score is None:
            out.append(f'<tr class="note"><td style="{indent}" colspan="6">'
                       f"… {escape(row.label)}</td></tr>")
            continue
        color = score_color(row.score)
        cells = []
        for text, absent in ((row.gold_text, "excess"), (row.candidate_text, "missing")):
            if text is None:
                cells.append(f'<td class="absent">({absent})</td>')
            else:
                cells.append(f'<td style="background:{color}">{escape(text)}</td>')
        out.append(
            f'<tr><td class="where" style="{indent}" title="{escape(row.path)}">'
            f"{escape(row.label)}</td>"
            f'<td aria-label="{escape(STATUS_MARKS[row.mark])}">{row.mark}</td>{"".join(cells)}'
            f'<td class="num" style="background:{color}">{row.score:.3f}</td>'
            f'<td class="num">{"" if row.deficit < 5e-4 else f"−{row.deficit:.3f}"}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)
