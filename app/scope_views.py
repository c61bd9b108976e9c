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
from .wl_graph import RoundSummary, ScopedPairs, edge_role, label_words

RULE_WORDS = {
    "attributes": "attributes (C)",
    "colour": "stable colour (b)",
    "depth": "agreement depth (a)",
    "content": "content rule",
    "position": "list position (WL off)",
}
"""What decided a pair (``oa_core.TieRule`` values), as the bijection table says it."""

RULE_HELP = (
    "What decided each pair, in order: the attribute score C; on a tie in C, the paper's "
    "bonus b (the stable WL colours agree); then the agreement depth a (the share of WL "
    "rounds in which the two records share a colour); then the content rule (records "
    "that nothing structural tells apart are paired by their references through the "
    "pairing of everything else, then by their JSON: they are interchangeable). With WL "
    "off, ties go to the list position.")

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
    """The bijection of ``mode``, why each pair was chosen, and what other modes pair.

    Parameters
    ----------
    alignments : mapping mode -> Alignment
        The same documents aligned under each WL mode.
    scope : str
    mode : str
        The mode whose bijection is listed (and whose C, b, a and rules are shown).

    Returns
    -------
    pandas.DataFrame
        One row per gold record: its partner, ``C`` (attribute score), ``b`` (1 when
        the stable WL colours agree), ``a`` (share of WL rounds with equal colours;
        None with WL off), ``decided by`` (:data:`RULE_WORDS`) and one column per
        other mode with the candidate id it pairs instead.
    """
    alignment = alignments[mode]
    aligned = alignment.scopes[scope]
    names = scope_records(alignment, scope)
    partner = dict(aligned.pairs)
    colour, depth = aligned.colour_agreement, aligned.depth_agreement
    rows = []
    for i, gold_id in enumerate(aligned.gold_ids):
        j = partner.get(i)
        rule = aligned.rules.get((i, j)) if j is not None else None
        row: dict[str, Any] = {
            "gold record": names.gold[i],
            "candidate record": names.candidate[j] if j is not None else "— unmatched —",
            "C (attributes)": float(aligned.matrix[i, j]) if j is not None else None,
            "b (colour)": float(colour[i, j]) if j is not None and colour is not None
            else None,
            "a (depth)": float(depth[i, j]) if j is not None and depth is not None
            else None,
            "decided by": RULE_WORDS.get(str(rule), str(rule)) if rule is not None
            else "no partner",
        }
        for other, other_alignment in alignments.items():
            if other != mode:
                other_partner = other_alignment.bijections[scope].get(gold_id)
                row[f"with {other}"] = "—" if other_partner is None else str(other_partner)
        rows.append(row)
    return pd.DataFrame.from_records(rows)


@dataclass(frozen=True)
class TieGroup:
    """The pairs of a scope one tie rule settled.

    Parameters
    ----------
    rule : str
        ``"colour"``, ``"depth"``, ``"content"`` or ``"position"``.
    pairs : list of (str, str)
        (gold record, candidate record) names.
    """

    rule: str
    pairs: list[tuple[str, str]]


_TIE_EXPLAINED = {
    "colour": ("Settled by the stable colour (b)", "their attributes tie; the paper's bonus "
               "paired records whose final WL colours agree"),
    "depth": ("Settled by agreement depth (a) — warning tie-depth", "their attributes tie "
              "and no stable colour told them apart (b), so the pair that shared a colour "
              "for the most WL rounds was chosen"),
    "content": ("Settled by the content rule — warning tie-content", "nothing structural "
                "tells them apart: they were paired by their references through the "
                "pairing of everything else, then by their JSON; such records are "
                "interchangeable"),
    "position": ("Settled by list position (WL off)", "with WL off nothing breaks the tie: "
                 "the first optimal assignment, i.e. the list order, decided"),
}


def tie_groups(alignment: Alignment, scope: str) -> list[TieGroup]:
    """The scope's pairs settled by a tie rule (anything but attributes), by rule."""
    aligned = alignment.scopes[scope]
    names = scope_records(alignment, scope)
    groups: dict[str, list[tuple[str, str]]] = {}
    for (i, j), rule in sorted(aligned.rules.items()):
        if str(rule) != "attributes":
            groups.setdefault(str(rule), []).append((names.gold[i], names.candidate[j]))
    return [TieGroup(rule, groups[rule]) for rule in _TIE_EXPLAINED if rule in groups]


def tie_markdown(group: TieGroup, limit: int = 12) -> str:
    """One tie group in (escaped) Markdown: what the rule means and its pairs."""
    title, why = _TIE_EXPLAINED[group.rule]
    count = len(group.pairs)
    listed = "; ".join(f"{md_escape(g)} → {md_escape(c)}" for g, c in group.pairs[:limit])
    more = f"; … and {count - limit} more" if count > limit else ""
    return (f"**{md_escape(title)}** ({count} pair{'s' * (count != 1)}): "
            f"{md_escape(why)}.\n\n{listed}{more}")


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
    rule : str
        What decided the pair (an ``oa_core.TieRule`` value).
    agreement : str
        For a pair settled by depth: ``"3 of 5"`` WL rounds with equal colours.
    """

    gold: str
    candidate: str
    tied_with: list[str]
    round: int | None
    context: str
    structural: bool = True
    rule: str = "colour"
    agreement: str = ""


def neighbourhood(trace: WLTrace, vertex: int, names: Mapping[int, str]) -> str:
    """The vertex's incident references in words: "mentee of 1 (Alice, Manager)"."""
    parts = []
    for edge in trace.edges:
        words = label_words(edge.label)
        label = f" ({words})" if words else ""
        if edge.source == vertex and edge.target == vertex:
            parts.append(f"{edge.relation.replace('->', ' → ')}{label} to itself")
        elif edge.target == vertex:
            parts.append(f"{edge_role(edge, vertex)}{label} of {names.get(edge.source, '?')}")
        elif edge.source == vertex:
            parts.append(f"{edge_role(edge, vertex)}{label} of {names.get(edge.target, '?')}")
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
                       and vx.record_index is not None and (vx.scope or scope) == scope}
        all_names = vertex_names(alignment, scope, trace)
    out = []
    depth = aligned.depth_agreement
    for i, j in aligned.structural_pairs:
        rule = str(aligned.rules.get((i, j), "colour"))
        agreement = ""
        if depth is not None and trace is not None:
            agreement = f"{round(float(depth[i, j]) * len(trace.rounds))} of {len(trace.rounds)}"
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
                        first_round, context, structural=trace is not None, rule=rule,
                        agreement=agreement))
    return out


def class_table_html(trace: WLTrace, classes: Sequence[int],
                     names: Mapping[int, str], new: Sequence[int] = (),
                     only: Sequence[int] | None = None) -> str:
    """HTML table: one row per WL class with its swatch, gold and candidate members.

    Classes holding a vertex of ``new`` (recoloured by the round shown) are marked;
    ``only`` restricts the table to some vertices.
    """
    members: dict[int, dict[str, list[str]]] = {}
    fresh = {classes[v] for v in new}
    for v in (range(len(trace.vertices)) if only is None else only):
        vertex = trace.vertices[v]
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
        if cls in fresh:
            note += " (new in this round)"
        rows.append(
            '<tr style="border-top:1px solid #ddd">'
            f'<td><span style="display:inline-block;width:14px;height:14px;border-radius:7px;'
            f'border:1px solid #333;background:{class_color(cls)}"></span> {cls}{note}</td>'
            f'<td>{escape(", ".join(side["gold"]) or "—")}</td>'
            f'<td>{escape(", ".join(side["candidate"]) or "—")}</td></tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


def vertex_captions(alignment: Alignment, scope: str, trace: WLTrace) -> dict[int, str]:
    """The attribute summary of every record vertex (no id): ``Dave, Engineer``.

    A reference cycle's graph holds records of several scopes: each is summarized
    from its own scope (``WLVertex.scope``).
    """
    out = {}
    for v, vertex in enumerate(trace.vertices):
        own = vertex.scope or scope
        if vertex.kind == "record" and vertex.record_index is not None \
                and own in alignment.scopes:
            aligned = alignment.scopes[own]
            decl = alignment.schema.scopes.get(own)
            id_field = decl.id_field if decl is not None else None
            gold = vertex.side == "gold"
            paths = aligned.gold_paths if gold else aligned.candidate_paths
            document = alignment.gold if gold else alignment.candidate
            out[v] = record_summary(document, paths[vertex.record_index], id_field)
    return out


def graph_scopes(trace: WLTrace, scope: str) -> list[str]:
    """The scopes whose records the graph holds (several for a reference cycle)."""
    found = dict.fromkeys(v.scope or scope for v in trace.vertices if v.kind == "record")
    return list(found) or [scope]


def vertex_names(alignment: Alignment, scope: str, trace: WLTrace) -> dict[int, str]:
    """Display name of every vertex of the scope's union graph (not escaped).

    In a graph of several scopes, records of another scope than ``scope`` are
    prefixed with their scope: ``company 1 (Acme)``.
    """
    records = {name: scope_records(alignment, name) for name in graph_scopes(trace, scope)
               if name in alignment.scopes}
    out = {}
    for v, vertex in enumerate(trace.vertices):
        own = vertex.scope or scope
        if vertex.kind == "record" and vertex.record_index is not None and own in records:
            side = records[own].gold if vertex.side == "gold" else records[own].candidate
            prefix = f"{own} " if own != scope else ""
            out[v] = prefix + side[vertex.record_index]
        else:
            out[v] = f"hub {vertex.key}"
    return out


def graph_pairs(alignment: Alignment, trace: WLTrace, scope: str) -> ScopedPairs:
    """The bijections of every scope in the graph, keyed ``(scope, gold id)``."""
    pairs = ScopedPairs()
    for name in graph_scopes(trace, scope):
        for gold_id, cand_id in alignment.bijections.get(name, {}).items():
            pairs[name, gold_id] = cand_id
    return pairs


def twin_markdown(twin: Twin) -> str:
    """The twin called out in (escaped) Markdown."""
    tied = ", ".join(twin.tied_with) or "another record"
    head = f"**Gold {md_escape(twin.gold)} → candidate {md_escape(twin.candidate)}.** "
    if not twin.structural or twin.rule == "position":
        return (head + f"Its attributes tie with {md_escape(tied)}; with WL off nothing "
                "breaks the tie, so the assignment solver's first optimum (list order) "
                "decided it.")
    context = f" Its references: {md_escape(twin.context)}." if twin.context else ""
    if twin.rule == "depth":
        return (head + f"Its attributes tie with {md_escape(tied)}, and no stable WL colour "
                "agrees across the sides; the pair shares a colour in "
                f"{twin.agreement} WL rounds, longer than any other pairing of the twins "
                f"(agreement depth a), which decided it.{context}")
    if twin.rule == "content":
        return (head + f"Its attributes tie with {md_escape(tied)} and nothing structural "
                "tells them apart: the content rule paired them (references through the "
                f"rest of the pairing, then the records' JSON).{context}")
    when = f"in WL round {twin.round}" if twin.round is not None else "through the blend"
    return (head + f"Its attributes tie with {md_escape(tied)}, so C cannot tell them "
            f"apart; its references ({md_escape(twin.context)}) gave it a color of its own "
            f"{when}, which decided this pairing.")


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
                    names: Mapping[int, str], only: Sequence[int] | None = None
                    ) -> pd.DataFrame:
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
    only : sequence of int, optional
        The vertices to list (all by default).

    Returns
    -------
    pandas.DataFrame
        One row per vertex: side, record, class before, its references in words
        (``mentee of a class-0 record``; repeats counted, ``2 × ...``), class after and
        whether the round changed its class.
    """
    previous = display[max(round_index - 1, 0)]
    incident: dict[int, list[str]] = {v: [] for v in range(len(trace.vertices))}
    for edge in trace.edges:
        words = label_words(edge.label)
        label = f" ({words})" if words else ""
        if edge.source == edge.target:
            incident[edge.source].append(
                f"{edge.relation.replace('->', ' → ')}{label} to itself")
            continue
        for me, other in ((edge.source, edge.target), (edge.target, edge.source)):
            kind = "hub" if trace.vertices[other].kind == "hub" else "record"
            incident[me].append(f"{edge_role(edge, me)}{label} of a class-{previous[other]} "
                                f"{kind}")
    rows = []
    for v in (range(len(trace.vertices)) if only is None else only):
        vertex = trace.vertices[v]
        counts: dict[str, int] = {}
        for text in incident[v]:
            counts[text] = counts.get(text, 0) + 1
        listed = [f"{n} × {text}" if n > 1 else text for text, n in sorted(counts.items())]
        after = display[round_index][v]
        rows.append({
            "side": vertex.side,
            "record": names.get(v, vertex.key),
            "class before": previous[v] if round_index else None,
            "references (classes of the round before)": "; ".join(listed) or "—",
            "class after": after,
            "changed": bool(round_index) and after != previous[v],
        })
    return pd.DataFrame.from_records(rows)
