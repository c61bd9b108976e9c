"""The aligned side-by-side diff of the Overview: one row per match-tree node.

Paired values sit on the same row; a missing gold item has an empty candidate
cell and an excess candidate item an empty gold cell. Items come in document order
(the gold's, with excess candidate items after the item they follow in the
candidate). Only what is wrong is colored, by its node's score (the values of a
mismatch, the score cell of the rows above it) (see
:mod:`app.palette`); perfect rows stay neutral. Every row carries a status mark, so
the diff does not rely on color alone. All document text is HTML-escaped.

A value is shown as JSON cut to a line (:func:`oa_core.errors.preview_json`). A record
or list with no rows of its own below it (a missing or extra item, a type mismatch) is
shown *folded* (:class:`Fold`): one field a line, open when short, so the row says what
was expected and what the model wrote. A longer record with rows below it folds closed
under its size (``{3 keys}``), its differing fields marked (≠), as jsondiffpatch
users expect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from oa_core.errors import preview_json
from oa_core.matchtree import MatchNode
from oa_core.mismatches import MARKS as STATUS_MARKS
from oa_core.mismatches import PERFECT, is_perfect, mark
from oa_core.pointer import split, unescape

from ..palette import legend_html, score_color
from ..views import fmt_score

_MAX_TEXT = 90
_SHORT = 60
FOLD_LINES = 12  # fields (or items) a folded value lists, then "… N more"
_FIELD_TEXT = 80  # characters of one field's value in a fold


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
    gold_fold: Fold | None = None
    candidate_fold: Fold | None = None


@dataclass(frozen=True)
class Fold:
    """A record or list shown one field (or item) a line, values cut to a line.

    Parameters
    ----------
    summary : str
        The value on one line (cut), shown when the fold is closed.
    opening, closing : str
        ``{``/``}`` or ``[``/``]``.
    lines : tuple of (str, bool)
        Each field as JSON text (``"key": value``, or an item), and whether it differs
        from the other side.
    more : int
        Fields left out after :data:`FOLD_LINES`.
    note : str
        What the marks mean ("" when nothing is marked).
    open : bool
        Shown open (else only the summary, until clicked).
    """

    summary: str
    opening: str
    closing: str
    lines: tuple[tuple[str, bool], ...]
    more: int = 0
    note: str = ""
    open: bool = False


def value_text(value: Any) -> str:
    """A one-line text of a value: JSON cut with its size (containers at 60
    characters, other values at 90).

    Examples
    --------
    >>> value_text({"a": 1})
    '{"a": 1}'
    >>> value_text([{"id": k} for k in range(30)])
    '[{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"i… (30 items)'
    """
    return preview_json(value, _SHORT if isinstance(value, dict | list) else _MAX_TEXT)


def _fits(value: Any) -> bool:
    """Whether ``value``'s JSON fits on a line (cheap for a huge value: both previews
    stop early)."""
    return preview_json(value, _SHORT) == preview_json(value, 2 * _SHORT)


def fold(value: Any, differs: frozenset[Any] = frozenset(), note: str = "", *,
         summary: str | None = None, open_short: bool = False) -> Fold | None:
    """``value`` folded (see :class:`Fold`), or None when it is not a record or list, or
    fits on a line.

    Parameters
    ----------
    differs : frozenset
        The keys (or indices) to mark as differing from the other side.
    note : str
        What the marks mean (shown when some field is marked).
    summary : str, optional
        The fold's first line (by default its size when open, else the value cut).
    open_short : bool
        Open the fold when it lists every field.

    Examples
    --------
    >>> folded = fold({"person": "4346f2", "company": "c1d8e7", "role": "consultant"},
    ...               frozenset({"role"}))
    >>> folded.lines[2], folded.open
    (('"role": "consultant"', True), False)
    >>> fold({"a": 1}) is None  # fits on a line
    True
    """
    if not isinstance(value, dict | list) or _fits(value):
        return None
    if isinstance(value, dict):
        items: list[tuple[Any, str]] = [
            (key, f"{json.dumps(key, ensure_ascii=False)}: {preview_json(item, _FIELD_TEXT)}")
            for key, item in list(value.items())[:FOLD_LINES]]
        opening, closing = "{", "}"
    else:
        items = [(index, preview_json(item, _FIELD_TEXT))
                 for index, item in enumerate(value[:FOLD_LINES])]
        opening, closing = "[", "]"
    lines = tuple((text, key in differs) for key, text in items)
    more = max(0, len(value) - FOLD_LINES)
    is_open = open_short and not more
    if summary is None:  # open, the lines below say it all; closed, the value cut
        summary = size_text(value) if is_open else value_text(value)
    return Fold(summary, opening, closing, lines, more,
                note if any(marked for _, marked in lines) else "", is_open)


def _marks(node: MatchNode, side: str) -> frozenset[Any]:
    """The keys (or indices) on one side of a record (or list) whose rows are imperfect:
    the fields that differ, as the alignment scored them."""
    marks: set[Any] = set()
    for child in node.children:
        if is_perfect(child):
            continue
        if node.kind == "map":
            key: Any = child.gold_key if side == "gold" else child.candidate_key
        else:
            key = _position(child, side)
        if key is not None:
            marks.add(key)
    return frozenset(marks)


def _folds(node: MatchNode) -> tuple[Fold | None, Fold | None]:
    """The folded values of a row (None for a side that fits on a line or is absent).

    A row with rows below it marks its fields that differ (those rows say how); a row
    without (a missing or extra item, a type mismatch) shows its value whole.
    """
    out = []
    for side, path, value in (("gold", node.gold_path, node.gold),
                              ("candidate", node.candidate_path, node.candidate)):
        if path is None:
            out.append(None)
        elif node.children:
            out.append(fold(value, _marks(node, side),
                            "≠ marks a field that differs (its row is below)",
                            summary=size_text(value)))
        else:
            out.append(fold(value, open_short=True))
    return out[0], out[1]


def size_text(value: Any) -> str:
    """A record or list by its size, the rest as :func:`value_text`: the text of a row
    whose content is in the rows below it.

    Examples
    --------
    >>> size_text({"a": 1, "b": 2}), size_text([1]), size_text("x")
    ('{2 keys}', '[1 item]', '"x"')
    """
    if isinstance(value, dict):
        return f"{{{len(value):,} key{'s' * (len(value) != 1)}}}"
    if isinstance(value, list):
        return f"[{len(value):,} item{'s' * (len(value) != 1)}]"
    return value_text(value)


def _side_text(node: MatchNode, side: str) -> str | None:
    path = node.gold_path if side == "gold" else node.candidate_path
    if path is None:
        return None
    value = node.gold if side == "gold" else node.candidate
    # a row with rows below it: its content is there (a preview would repeat the
    # perfect parts that "hide perfect subtrees" leaves out)
    text = size_text(value) if node.children and not _fits(value) else value_text(value)
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
        gold_fold, candidate_fold = _folds(node)
        rows.append(DiffRow(depth, row_label(node), node.path, mark(node),
                            _side_text(node, "gold"), _side_text(node, "candidate"),
                            node.score, node.deficit, numbers.get(id(node)), node is focus,
                            gold_fold, candidate_fold))
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
.oa-diff details summary {cursor: pointer;}
.oa-diff details[open] summary {opacity: 0.7;}
.oa-diff .fold {display: block; padding-left: 0.2em;}
.oa-diff .fold .chg {background: rgba(213, 94, 0, 0.22); outline: 1px solid #D55E00;}
.oa-diff .fold .why {display: block; font-size: 0.8em; font-family: sans-serif;
                     opacity: 0.85;}
</style>"""


def fold_html(folded: Fold) -> str:
    """A fold as escaped HTML: a ``<details>`` element, open when short, whose summary
    is the value on one line; differing fields carry ``class="chg"`` and a ≠."""
    lines = []
    for number, (text, differs) in enumerate(folded.lines):
        comma = "," if number < len(folded.lines) - 1 or folded.more else ""
        body = escape(text) + comma
        lines.append(f'  <span class="chg">{body}</span> ≠' if differs else f"  {body}")
    if folded.more:
        lines.append(f"  … {folded.more:,} more")
    note = f'<span class="why">{escape(folded.note)}</span>' if folded.note else ""
    return (f'<details{" open" * folded.open}><summary>{escape(folded.summary)}</summary>'
            f'<span class="fold">{folded.opening}\n' + "\n".join(lines)
            + f"\n{folded.closing}</span>{note}</details>")


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
        for text, folded, absent in ((row.gold_text, row.gold_fold, "excess"),
                                     (row.candidate_text, row.candidate_fold, "missing")):
            if text is None:
                cells.append(f'<td class="absent">({absent})</td>')
            elif folded is not None:
                cells.append(f"<td{value_color}>{fold_html(folded)}</td>")
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
