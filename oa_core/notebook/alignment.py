"""An :class:`~oa_core.aligner.Alignment` in a notebook: the score, the mismatches
(costliest first), then the aligned side-by-side diff with perfect subtrees folded, and
the scopes.

The diff is a tree of ``<details>``: an imperfect object or list is open, a perfect
one closed (one click shows what matched); a run of perfect siblings folds into one
line, and a list's rows past :data:`~oa_core.notebook.html.PAGE` fold into a "show
more". Past ``max_nodes`` nodes the rest of the tree is left out, with a note, so a
200-record graph stays a page one can read.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> page = alignment_html(oa_core.align(load("gold"), load("candidate"), load("schema")))
>>> "0.7679" in page and "Mismatches" in page and "<script" not in page
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.palette import score_color

from ..kinds import NodeKind
from ..matchtree import MatchNode
from ..mismatches import MARKS, PERFECT, is_perfect, mark, mismatches
from ..pointer import split
from .html import PAGE, esc, fmt, score_cell, table, value_text, view
from .scopes import scope_html

if TYPE_CHECKING:
    from ..aligner import Alignment

__all__ = ["alignment_html", "diff_html"]

_DIFF_CSS = """<style>
.oa-nb .diff {font-family: var(--jp-code-font-family, ui-monospace, Menlo, monospace);
  font-size: 0.92em; border-top: 1px solid var(--oa-line);}
.oa-nb .diff .r {display: grid; grid-template-columns: minmax(12em, 2fr) 1.6em
  minmax(8em, 3fr) minmax(8em, 3fr) 5.5em 5.5em; border-bottom: 1px solid var(--oa-line);}
.oa-nb .diff .r > span {padding: 1px 6px; white-space: pre-wrap; word-break: break-word;}
.oa-nb .diff .r.h {background: var(--oa-head); font-weight: 600;
  font-family: var(--jp-ui-font-family, system-ui, sans-serif);}
.oa-nb .diff .num {text-align: right;}
.oa-nb .diff .absent {background: var(--oa-absent); opacity: 0.8;
  font-style: italic;}
.oa-nb .diff .bad {color: #000;}
.oa-nb .diff details > summary {list-style: none; color: inherit;}
.oa-nb .diff details > summary::-webkit-details-marker {display: none;}
.oa-nb .diff details > summary .where::before {content: "▸ "; color: var(--oa-accent);}
.oa-nb .diff details[open] > summary .where::before {content: "▾ ";}
.oa-nb .diff .fold {font-style: italic; padding: 1px 6px;}
.oa-nb .diff .fold summary {color: var(--oa-accent);}
</style>"""


def _position(path: str | None) -> int:
    if not path:
        return -1
    last = split(path)[-1]
    return int(last) if last.isdigit() else -1


def _children(node: MatchNode) -> list[MatchNode]:
    """A list's items in the gold's order, excess candidate items after them; an
    object's slots as the engine keeps them (sorted keys)."""
    if node.kind == NodeKind.MAP:
        return list(node.children)
    return sorted(node.children, key=lambda c: (c.gold_path is None,
                                                _position(c.gold_path),
                                                _position(c.candidate_path)))


def _label(node: MatchNode) -> str:
    if not node.gold_path and not node.candidate_path:
        return "(root)"
    if node.gold_path is not None and node.candidate_path is not None:
        gold, cand = split(node.gold_path)[-1:], split(node.candidate_path)[-1:]
        if gold != cand and node.kind != NodeKind.MAP:
            return f"{gold[0] if gold else ''} ↔ {cand[0] if cand else ''}"
    return node.label


def _side(node: MatchNode, side: str) -> str:
    path = node.gold_path if side == "gold" else node.candidate_path
    if path is None:
        return f'<span class="absent">({"excess" if side == "gold" else "missing"})</span>'
    text = value_text(node.gold if side == "gold" else node.candidate)
    if node.kind == NodeKind.ID:
        text += "  (id)"
    elif node.kind == NodeKind.REF and side == "candidate" and node.expected is not None:
        text += ("  (ref ok)" if node.score >= PERFECT
                 else f"  (expected {value_text(node.expected)})")
    colour = "" if is_perfect(node) or node.children else (
        f' class="bad" style="background:{score_color(node.score)}"')
    return f"<span{colour}>{esc(text)}</span>"


def _row(node: MatchNode, depth: int) -> str:
    cost = "" if node.deficit < 0.5e-4 else f"−{fmt(node.deficit)}"
    return (f'<div class="r"><span class="where" style="padding-left:{6 + 14 * depth}px" '
            f'title="{esc(node.path or "(root)")}">{esc(_label(node))}</span>'
            f'<span aria-label="{MARKS[mark(node)]}">{mark(node)}</span>'
            f'{_side(node, "gold")}{_side(node, "candidate")}'
            f'{score_cell(node.score, tag="span")}<span class="num">{cost}</span></div>')


class _Budget:
    """How many more nodes the diff may draw."""

    def __init__(self, nodes: int) -> None:
        self.left = nodes
        self.cut = 0


def _subtree(node: MatchNode, depth: int, budget: _Budget) -> str:
    if budget.left <= 0:
        budget.cut += sum(1 for _ in node.iter_nodes())
        return ""
    budget.left -= 1
    if not node.children:
        return _row(node, depth)
    opened = " open" if not is_perfect(node) else ""
    return (f"<details{opened}><summary>{_row(node, depth)}</summary>"
            f"{_kids(node, depth + 1, budget)}</details>")


def _kids(node: MatchNode, depth: int, budget: _Budget) -> str:
    """The children: runs of 2+ perfect siblings folded, rows past PAGE paged."""
    groups: list[list[MatchNode]] = []
    for child in _children(node):
        if groups and is_perfect(child) and is_perfect(groups[-1][-1]):
            groups[-1].append(child)
        else:
            groups.append([child])
    parts: list[str] = []
    for group in groups:
        if len(group) == 1:
            parts.append(_subtree(group[0], depth, budget))
            continue
        noun = "key" if node.kind == NodeKind.MAP else "item"
        names = ", ".join(_label(c) for c in group[:4]) + (", …" if len(group) > 4 else "")
        inner = "".join(_subtree(c, depth, budget) for c in group)
        parts.append(f'<details class="fold"><summary style="padding-left:{6 + 14 * depth}px">'
                     f"{len(group)} perfect {noun}s: {esc(names)}</summary>{inner}</details>")
    if len(parts) <= PAGE:
        return "".join(parts)
    return ("".join(parts[:PAGE]) + f'<details class="fold"><summary style="padding-left:'
            f'{6 + 14 * depth}px">show {len(parts) - PAGE} more rows</summary>'
            + "".join(parts[PAGE:]) + "</details>")


def diff_html(tree: MatchNode, *, max_nodes: int = 3000) -> str:
    """The aligned side-by-side diff of a match tree (HTML, no style sheet).

    Parameters
    ----------
    tree : MatchNode
    max_nodes : int
        Nodes drawn at most; a note counts the ones left out.
    """
    budget = _Budget(max_nodes)
    body = _subtree(tree, 0, budget)
    cut = (f'<p class="muted">{budget.cut} more nodes not drawn (over {max_nodes}): '
           "read them from <code>alignment.tree</code>.</p>" if budget.cut else "")
    legend = " · ".join(f"{m} {esc(meaning)}" for m, meaning in MARKS.items())
    return (f'{_DIFF_CSS}<p class="muted">{legend}</p><div class="diff">'
            '<div class="r h"><span>where</span><span></span><span>gold</span>'
            "<span>candidate</span><span>score</span><span>costs</span></div>"
            f"{body}</div>{cut}")


def _mismatch_table(tree: MatchNode) -> str:
    rows = [[f"<td><code>{esc(node.path or '(root)')}</code></td>",
             f'<td aria-label="{MARKS[mark(node)]}">{mark(node)}</td>',
             esc(value_text(node.gold) if node.gold_path is not None else "(absent)"),
             esc(value_text(node.candidate) if node.candidate_path is not None
                 else "(absent)"),
             score_cell(node.score), fmt(node.deficit)]
            for node in mismatches(tree)]
    if not rows:
        return '<p>No mismatch: the candidate matches the gold.</p>'
    return table(["path", "", "gold", "candidate", "score", "costs"], rows, numeric=(5,),
                 noun="mismatches")


def alignment_html(alignment: Alignment, *, max_nodes: int = 3000) -> str:
    """The whole view of an alignment (see the module notes)."""
    count = len(mismatches(alignment.tree))
    head = (f'<div class="head"><span class="big" style="background:'
            f'{score_color(alignment.score)}">'
            f"{fmt(alignment.score)}</span><span>score · deficit {fmt(alignment.deficit)}"
            f"</span><span>{count} mismatch{'es' * (count != 1)}</span>"
            f'<span class="muted">wl_mode {esc(alignment.options.wl_mode)}'
            f"{' · strict' if alignment.options.strict else ''}</span></div>")
    parts = [head]
    notes = [*alignment.violations, *alignment.warnings]
    if notes:
        items = "".join(f"<li><code>{esc(d.pointer or '(root)')}</code> {esc(d.message)}</li>"
                        for d in notes[:PAGE])
        more = f"<li>… {len(notes) - PAGE} more</li>" if len(notes) > PAGE else ""
        parts.append(f'<details class="warn"><summary>{len(alignment.violations)} schema '
                     f"violation(s), {len(alignment.warnings)} warning(s)</summary>"
                     f"<ul>{items}{more}</ul></details>")
    parts += ["<h4>Mismatches, costliest first</h4>", _mismatch_table(alignment.tree),
              "<h4>Aligned diff</h4>", diff_html(alignment.tree, max_nodes=max_nodes)]
    for name, scope in alignment.scopes.items():
        parts.append(f"<details><summary>Scope <b>{esc(name)}</b>: {len(scope.pairs)} "
                     f"record pairs, bijection, ties and WL rounds</summary>"
                     f"{scope_html(scope, alignment.wl.get(name), inner=True)}</details>")
    return view("".join(parts), label="Object Aligner alignment")
