"""Referential-alignment views of one scope: records, bijection, twins, WL classes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import pandas as pd

from oa_core import Alignment, ScopeAlignment, WLTrace
from oa_core.pointer import resolve

from .palette import class_color
from .text import md_escape, shorten
from .tree_views import MatrixView
from .wl_graph import RoundSummary

_SUMMARY_LIMIT = 48
TWIN_LIMIT = 8  # twins explained one by one; the rest are flagged in the bijection table


def record_summary(document: Any, pointer: str, id_field: str | None) -> str:
    """The record's scalar fields except its id, joined: ``Dave, Engineer``."""
    try:
        record = resolve(document, pointer)
    except KeyError:
        return ""
    if not isinstance(record, dict):
        return str(record)[:_SUMMARY_LIMIT]
    parts = [str(v) for k, v in record.items()
             if k != id_field and not isinstance(v, dict | list) and v is not None]
    text = ", ".join(parts)
    return shorten(text, _SUMMARY_LIMIT)


@dataclass(frozen=True)
class ScopeRecords:
    """Display names of a scope's records on both sides.

    Parameters
    ----------
    gold, candidate : list of str
        ``"<id> (<summary>)"`` per record, in record order.
    """

    gold: list[str]
    candidate: list[str]


def scope_records(alignment: Alignment, scope: str) -> ScopeRecords:
    """Names of the scope's gold and candidate records."""
    aligned = alignment.scopes[scope]
    decl = alignment.schema.scopes.get(scope)
    id_field = decl.id_field if decl is not None else None

    def names(ids: Sequence[Any], paths: Sequence[str], document: Any) -> list[str]:
        out = []
        for record_id, path in zip(ids, paths, strict=True):
            summary = record_summary(document, path, id_field)
            out.append(f"{record_id} ({summary})" if summary else str(record_id))
        return out

    return ScopeRecords(names(aligned.gold_ids, aligned.gold_paths, alignment.gold),
                        names(aligned.candidate_ids, aligned.candidate_paths,
                              alignment.candidate))


def scope_matrix(alignment: Alignment, scope: str) -> MatrixView:
    """The scope's record similarity matrix C with the chosen pairs."""
    aligned = alignment.scopes[scope]
    names = scope_records(alignment, scope)
    return MatrixView(f"scope {scope}: record similarity C (ids masked)",
                      np.asarray(aligned.matrix, dtype=float), names.gold, names.candidate,
                      [tuple(p) for p in aligned.pairs])


def bijection_frame(alignments: Mapping[str, Alignment], scope: str,
                    mode: str) -> pd.DataFrame:
    """The bijection of ``mode`` with what every other mode pairs instead.

    Parameters
    ----------
    alignments : mapping mode -> Alignment
        The same documents aligned under each WL mode.
    scope : str
    mode : str
        The mode whose bijection is listed (and whose C values are shown).
    """
    alignment = alignments[mode]
    aligned = alignment.scopes[scope]
    names = scope_records(alignment, scope)
    by_id = dict(zip(aligned.candidate_ids, names.candidate, strict=True))
    col_of = {cid: j for j, cid in enumerate(aligned.candidate_ids)}
    structural = {i for i, _ in aligned.structural_pairs}
    tie_rule = "structure (WL)" if scope in alignment.wl else "tie (list order)"
    rows = []
    for i, gold_id in enumerate(aligned.gold_ids):
        cand_id = alignment.bijections[scope].get(gold_id)
        row: dict[str, Any] = {
            "gold record": names.gold[i],
            "candidate record": by_id.get(cand_id, "— unmatched —") if cand_id is not None
            else "— unmatched —",
            "C (attributes)": float(aligned.matrix[i, col_of[cand_id]])
            if cand_id in col_of else None,
            "decided by": (tie_rule if i in structural else
                           "attributes" if cand_id is not None else "no partner"),
        }
        for other, other_alignment in alignments.items():
            if other != mode:
                partner = other_alignment.bijections[scope].get(gold_id)
                row[f"with {other}"] = "—" if partner is None else str(partner)
        rows.append(row)
    return pd.DataFrame.from_records(rows)


@dataclass(frozen=True)
class Twin:
    """A record that attributes tied with others and WL structure separated.

    Parameters
    ----------
    gold : str
        The gold record's name.
    candidate : str
        Its candidate partner's name.
    tied_with : list of str
        The gold records with the same attribute row in C.
    round : int or None
        The first WL round that gave it a color different from every twin.
    context : str
        Its references, which is what told the twins apart.
    structural : bool
        False when WL was off and the tie went to the first optimal assignment.
    """

    gold: str
    candidate: str
    tied_with: list[str]
    round: int | None
    context: str
    structural: bool = True


def neighbourhood(trace: WLTrace, vertex: int, names: Mapping[int, str]) -> str:
    """The vertex's incident references in words: "mentee of 1 (Alice, Manager)"."""
    parts = []
    for edge in trace.edges:
        relation = edge.relation + (f" [{edge.label}]" if edge.label else "")
        if edge.source == vertex and edge.target == vertex:
            parts.append(f"{relation} to itself")
        elif edge.target == vertex:
            role = relation.split("->")[-1] if "->" in relation else relation
            parts.append(f"{role} of {names.get(edge.source, '?')}")
        elif edge.source == vertex:
            role = relation.split("->")[0] if "->" in relation else relation
            parts.append(f"{role} of {names.get(edge.target, '?')}")
    return "; ".join(parts) or "no references"


def twins(alignment: Alignment, scope: str) -> list[Twin]:
    """The structural pairs of a scope, explained."""
    aligned: ScopeAlignment = alignment.scopes[scope]
    trace = alignment.wl.get(scope)
    names = scope_records(alignment, scope)
    matrix = np.ascontiguousarray(aligned.matrix, dtype=float)
    groups: dict[bytes, list[int]] = {}
    for i in range(matrix.shape[0]):
        groups.setdefault(matrix[i].tobytes(), []).append(i)
    gold_vertex: dict[int, int] = {}
    all_names: dict[int, str] = {}
    if trace is not None:
        gold_vertex = {vx.record_index: v for v, vx in enumerate(trace.vertices)
                       if vx.side == "gold" and vx.kind == "record"
                       and vx.record_index is not None}
        all_names = vertex_names(alignment, scope, trace)
    out = []
    for i, j in aligned.structural_pairs:
        tied = [t for t in groups[matrix[i].tobytes()] if t != i]
        first_round: int | None = None
        context = ""
        me = gold_vertex.get(i)
        if trace is not None and me is not None:
            others = [gold_vertex[t] for t in tied if t in gold_vertex]
            context = neighbourhood(trace, me, all_names)
            first_round = next((r for r, colors in enumerate(trace.rounds)
                                if all(colors[me] != colors[o] for o in others)), None)
        out.append(Twin(names.gold[i], names.candidate[j], [names.gold[t] for t in tied],
                        first_round, context, structural=trace is not None))
    return out


def class_table_html(trace: WLTrace, classes: Sequence[int],
                     names: Mapping[int, str]) -> str:
    """HTML table: one row per WL class with its swatch, gold and candidate members."""
    members: dict[int, dict[str, list[str]]] = {}
    for v, vertex in enumerate(trace.vertices):
        side = members.setdefault(classes[v], {"gold": [], "candidate": []})
        side[vertex.side].append(names.get(v, vertex.key))
    rows = ['<table style="border-collapse:collapse;font-size:0.9em;width:100%">'
            '<thead><tr><th style="text-align:left">class</th>'
            '<th style="text-align:left">gold</th><th style="text-align:left">candidate</th>'
            "</tr></thead><tbody>"]
    for cls in sorted(members):
        side = members[cls]
        balanced = len(side["gold"]) == len(side["candidate"])
        note = "" if balanced else " ⚠ unequal sizes"
        rows.append(
            '<tr style="border-top:1px solid #ddd">'
            f'<td><span style="display:inline-block;width:14px;height:14px;border-radius:7px;'
            f'border:1px solid #333;background:{class_color(cls)}"></span> {cls}{note}</td>'
            f'<td>{escape(", ".join(side["gold"]) or "—")}</td>'
            f'<td>{escape(", ".join(side["candidate"]) or "—")}</td></tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


def vertex_captions(alignment: Alignment, scope: str, trace: WLTrace) -> dict[int, str]:
    """The attribute summary of every record vertex (no id): ``Dave, Engineer``."""
    aligned = alignment.scopes[scope]
    decl = alignment.schema.scopes.get(scope)
    id_field = decl.id_field if decl is not None else None
    out = {}
    for v, vertex in enumerate(trace.vertices):
        if vertex.kind == "record" and vertex.record_index is not None:
            gold = vertex.side == "gold"
            paths = aligned.gold_paths if gold else aligned.candidate_paths
            document = alignment.gold if gold else alignment.candidate
            out[v] = record_summary(document, paths[vertex.record_index], id_field)
    return out


def vertex_names(alignment: Alignment, scope: str, trace: WLTrace) -> dict[int, str]:
    """Display name of every vertex of the scope's union graph (not escaped)."""
    names = scope_records(alignment, scope)
    out = {}
    for v, vertex in enumerate(trace.vertices):
        if vertex.kind == "record" and vertex.record_index is not None:
            side = names.gold if vertex.side == "gold" else names.candidate
            out[v] = side[vertex.record_index]
        else:
            out[v] = f"hub {vertex.key}"
    return out


def twin_markdown(twin: Twin) -> str:
    """The twin called out in (escaped) Markdown."""
    tied = ", ".join(twin.tied_with) or "another record"
    if not twin.structural:
        return (f"**Gold {md_escape(twin.gold)} → candidate {md_escape(twin.candidate)}.** "
                f"Its attributes tie with {md_escape(tied)}; with WL off nothing breaks the "
                "tie, so the assignment solver's first optimum (list order) decided it.")
    when = f"in WL round {twin.round}" if twin.round is not None else "through the blend"
    return (f"**Gold {md_escape(twin.gold)} → candidate {md_escape(twin.candidate)}.** "
            f"Its attributes tie with {md_escape(tied)}, so C cannot tell them apart; its "
            f"references ({md_escape(twin.context)}) gave it a color of its own {when}, "
            "which decided this pairing.")


def round_markdown(trace: WLTrace, names: Mapping[int, str], summary: RoundSummary,
                   rounds: int) -> str:
    """What one WL round did, in (escaped) Markdown."""
    stable = "the stable coloring" if summary.index == rounds - 1 else "not yet stable"
    classes = f"{summary.classes} class{'es' * (summary.classes != 1)}"
    text = f"Round {summary.index} of {rounds - 1}: **{classes}** ({stable})."
    if summary.split:
        split = ", ".join(f"{trace.vertices[v].side} {names[v]}" for v in summary.split)
        text += f" This round gave new colors to: {md_escape(split)}."
    elif summary.index == 0:
        text += (" In tie-break mode every record starts with the same color; blend mode "
                 "seeds the colors with each record's exact attributes.")
    return text


def default_scope(alignment: Alignment) -> str:
    """The scope to show first: the one with the most twins, then the most records."""
    return max(alignment.scopes, key=lambda name: (
        len(alignment.scopes[name].structural_pairs), len(alignment.scopes[name].gold_ids),
        name))


def signature_frame(trace: WLTrace, display: Sequence[Sequence[int]], round_index: int,
                    names: Mapping[int, str]) -> pd.DataFrame:
    """How one WL round recolored every vertex: its previous class and neighbourhood.

    Parameters
    ----------
    trace : WLTrace
    display : sequence of sequences of int
        Display classes per round (from :func:`app.wl_graph.stable_classes`).
    round_index : int
        The round to explain; round 0 lists the starting classes.
    names : mapping vertex index -> str
        Vertex display names.

    Returns
    -------
    pandas.DataFrame
        One row per vertex: side, record, class before, the sorted multiset of
        (direction, relation, label, neighbour class) it was refined with, class after.
    """
    previous = display[max(round_index - 1, 0)]
    incident: dict[int, list[str]] = {v: [] for v in range(len(trace.vertices))}
    for edge in trace.edges:
        label = f" [{edge.label}]" if edge.label else ""
        if edge.source == edge.target:
            incident[edge.source].append(f"loop {edge.relation}{label} (class "
                                         f"{previous[edge.source]})")
            continue
        incident[edge.source].append(
            f"out {edge.relation}{label} → class {previous[edge.target]}")
        incident[edge.target].append(
            f"in {edge.relation}{label} ← class {previous[edge.source]}")
    rows = []
    for v, vertex in enumerate(trace.vertices):
        rows.append({
            "side": vertex.side,
            "record": names.get(v, vertex.key),
            "class before": previous[v] if round_index else None,
            "neighbourhood (round before)": "; ".join(sorted(incident[v])) or "—",
            "class after": display[round_index][v],
        })
    return pd.DataFrame.from_records(rows)
