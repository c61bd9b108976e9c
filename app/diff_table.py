"""The aligned side-by-side diff of the Overview: one row per match-tree node.

Paired values sit on the same row; a missing gold item has an empty candidate
cell and an excess candidate item an empty gold cell. Items come in document order
(the gold's, with excess candidate items after the item they follow in the
candidate). Only what is wrong is colored, by its node's score (the values of a
mismatch, the score cell of the rows above it) (see
:mod:`app.palette`); perfect rows stay neutral. Every row carries a status mark, so
the diff does not rely on color alone. All document text is HTML-escaped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from oa_core.matchtree import MatchNode
from oa_core.pointer import split, unescape

from .palette import legend_html, score_color
from .text import shorten
from .views import fmt_score

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
    mismatch : int or None
        The node's number among the mismatches (1-based; see :func:`mismatches`).
    current : bool
        The mismatch the user navigated to.
    """

    depth: int
    label: str
    path: str
    mark: str
    gold_text: str | None
    candidate_text: str | None
    score: float | None
    deficit: float
    mismatch: int | None = None
    current: bool = False


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


def _position(node: MatchNode, side: str) -> int | None:
    """The node's index in its parent on one side (key order for objects)."""
    path = node.gold_path if side == "gold" else node.candidate_path
    if path is None or path == "":
        return None
    last = split(path)[-1]
    return int(last) if last.isdigit() else None


def ordered_children(node: MatchNode) -> list[MatchNode]:
    """The node's children in document order.

    The engine keeps an object's slots in canonical (sorted-key) order: here they
    follow the gold's key order, list items the gold's item order; an excess
    candidate key or item comes right after the item it follows in the candidate.

    Examples
    --------
    >>> import oa_core
    >>> schema = {"type": "object", "properties": {"b": {"type": "string"}}}
    >>> tree = oa_core.align({"z": 1, "b": "x"}, {"z": 1, "c": 2, "b": "x"}, schema).tree
    >>> [child.label for child in ordered_children(tree)]
    ['z', 'c', 'b']
    """
    children = node.children
    if len(children) < 2:
        return list(children)
    if node.kind == "map":
        gold_at = {key: i for i, key in enumerate(node.gold)} if isinstance(node.gold, dict) else {}
        cand_at = ({key: i for i, key in enumerate(node.candidate)}
                   if isinstance(node.candidate, dict) else {})
        gold_pos = [gold_at.get(c.gold_key) if c.gold_key is not None else None
                    for c in children]
        cand_pos = [cand_at.get(c.candidate_key) if c.candidate_key is not None else None
                    for c in children]
    else:
        gold_pos = [_position(c, "gold") for c in children]
        cand_pos = [_position(c, "candidate") for c in children]
    # an item absent from gold goes after the gold item paired with its predecessor
    # in the candidate (or first, if none precedes it)
    anchors = sorted((c, g) for c, g in zip(cand_pos, gold_pos, strict=True)
                     if c is not None and g is not None)
    keys = []
    for k, (g, c) in enumerate(zip(gold_pos, cand_pos, strict=True)):
        if g is not None:
            keys.append((g, 0, 0, k))
        else:
            before = [anchor for cand, anchor in anchors if c is not None and cand < c]
            keys.append((before[-1] if before else -1, 1, c if c is not None else k, k))
    return [children[key[-1]] for key in sorted(keys)]


def walk(tree: MatchNode) -> list[tuple[MatchNode, int]]:
    """Every node with its depth, parents first, children in document order."""
    out: list[tuple[MatchNode, int]] = []
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        out.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(ordered_children(node)))
    return out


def mismatches(tree: MatchNode) -> list[MatchNode]:
    """Where the candidate is wrong, in document order: every imperfect node none of
    whose children is imperfect (a wrong value, a missing or excess item, a key
    matched to a differently spelled one)."""
    return [node for node, _ in walk(tree) if not is_perfect(node)
            and not any(not is_perfect(child) for child in node.children)]


def _haystack(node: MatchNode) -> str:
    parts = [node.label, node.gold_path or "", node.candidate_path or ""]
    if not node.children:  # values only for leaves (an object would match everywhere)
        for side, path in (("gold", node.gold_path), ("candidate", node.candidate_path)):
            if path is not None:
                parts.append(value_text(node.gold if side == "gold" else node.candidate))
    return "\n".join(parts).casefold()


def search(tree: MatchNode, query: str) -> list[MatchNode]:
    """The nodes whose label, gold or candidate pointer, or (for a leaf) value
    contains ``query`` (case-insensitive), in document order."""
    needle = query.strip().casefold()
    if not needle:
        return []
    return [node for node, _ in walk(tree) if needle in _haystack(node)]


def diff_rows(tree: MatchNode, *, hide_perfect: bool, query: str = "",
              focus: MatchNode | None = None) -> list[DiffRow]:
    """The rows of the diff, depth first, in document order.

    Parameters
    ----------
    tree : MatchNode
        The alignment's root.
    hide_perfect : bool
        Leave out every perfect subtree (the root stays); a note row says how
        many were left out under each parent.
    query : str
        Show only the nodes matching it (see :func:`search`), with their ancestors.
    focus : MatchNode, optional
        The current mismatch: marked, and shown whatever the filters.
    """
    numbers = {id(node): k for k, node in enumerate(mismatches(tree), start=1)}
    keep: set[int] | None = None
    if query.strip():
        keep = set()
        parents = {id(child): node for node in tree.iter_nodes() for child in node.children}
        for found in search(tree, query) + ([focus] if focus is not None else []):
            node: MatchNode | None = found
            while node is not None and id(node) not in keep:
                keep.add(id(node))
                node = parents.get(id(node))
    rows: list[DiffRow] = []

    def visit(node: MatchNode, depth: int) -> None:
        rows.append(DiffRow(depth, row_label(node), node.path, mark(node),
                            _side_text(node, "gold"), _side_text(node, "candidate"),
                            node.score, node.deficit, numbers.get(id(node)), node is focus))
        hidden: list[str] = []
        for child in ordered_children(node):
            if keep is not None:
                if id(child) in keep:
                    visit(child, depth + 1)
            elif hide_perfect and is_perfect(child) and child is not focus:
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
.oa-diff td {padding: 3px 8px; border-bottom: 1px solid rgba(128, 128, 128, 0.25);
             vertical-align: top; white-space: pre-wrap; word-break: break-word;}
.oa-diff td.absent {background: repeating-linear-gradient(45deg, #f4f4f4, #f4f4f4 6px,
                    #e6e6e6 6px, #e6e6e6 12px); color: #555; font-style: italic;}
.oa-diff td.num {text-align: right; white-space: nowrap;}
.oa-diff td.where {white-space: nowrap;}
.oa-diff tr.perfect td {opacity: 0.85;}
.oa-diff tr.current td {border-top: 3px solid #000; border-bottom: 3px solid #000;}
.oa-diff tr.current td:first-child {border-left: 3px solid #000;}
.oa-diff tr.current td:last-child {border-right: 3px solid #000;}
.oa-diff .tag {font-size: 0.8em; color: #555; margin-left: 0.4em; font-family: sans-serif;}
.oa-diff tr.note td {color: #666; font-style: italic; border-bottom: none;}
</style>"""


def diff_html(rows: list[DiffRow]) -> str:
    """The rows as an escaped HTML table with the score legend above it.

    Perfect rows have no background; a mismatch's values are colored by its score,
    and every imperfect row's score cell. The current mismatch's row is boxed and
    has the id ``oa-current``.
    """
    out = [_STYLE, legend_html(STATUS_MARKS),
           '<table class="oa-diff"><thead><tr><th>where</th><th></th><th>gold</th>'
           "<th>candidate</th><th>score</th><th>costs</th></tr></thead><tbody>"]
    for row in rows:
        indent = f"padding-left:{8 + 16 * row.depth}px"
        if row.score is None:
            out.append(f'<tr class="note"><td style="{indent}" colspan="6">'
                       f"… {escape(row.label)}</td></tr>")
            continue
        perfect = row.mark == "✓"
        # dark text on the (light) score colours only: elsewhere the theme's own colour
        color = "" if perfect else (
            f' style="background:{score_color(row.score)};color:#000"')
        # the values are colored where they are wrong (a mismatch), not on every
        # container above it: those show their score's color in the score cell only
        value_color = color if row.mismatch is not None else ""
        cells = []
        for text, absent in ((row.gold_text, "excess"), (row.candidate_text, "missing")):
            if text is None:
                cells.append(f'<td class="absent">({absent})</td>')
            else:
                cells.append(f"<td{value_color}>{escape(text)}</td>")
        classes = ["perfect" if perfect else "bad"] + (["current"] if row.current else [])
        anchor = ' id="oa-current"' if row.current else ""
        tag = (f'<span class="tag">mismatch {row.mismatch}</span>'
               if row.mismatch is not None else "")
        cost = "" if row.deficit < 0.5 * 10 ** -4 else f"−{fmt_score(row.deficit)}"
        out.append(
            f'<tr class="{" ".join(classes)}"{anchor}><td class="where" style="{indent}" '
            f'title="{escape(row.path)}">{escape(row.label)}{tag}</td>'
            f'<td aria-label="{escape(STATUS_MARKS[row.mark])}">{row.mark}</td>{"".join(cells)}'
            f'<td class="num"{color}>{fmt_score(row.score)}</td>'
            f'<td class="num">{cost}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)
