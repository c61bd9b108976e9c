"""Referential-alignment views of one scope: records, bijection, twins, WL classes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from oa_core import Alignment, ScopeAlignment, WLTrace
from oa_core.pointer import resolve

from ..palette import class_color
from ..text import md_escape, shorten
from .tree_views import MatrixView
from .wl_graph import RoundSummary, ScopedPairs, edge_role, label_words, summarize_rounds
from .wl_stepper import RoundView, Story

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
    gold_index, candidate_index : int
        The pair's record indices in the scope.
    tied_indices : list of int
        The indices of the gold records in ``tied_with``.
    """

    gold: str
    candidate: str
    tied_with: list[str]
    round: int | None
    context: str
    gold_index: int
    candidate_index: int
    tied_indices: list[int]


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
                        first_round, context, i, j, tied))
    return out


def class_rows(trace: WLTrace, classes: Sequence[int], names: Mapping[int, str],
               new: Sequence[int] = (), only: Sequence[int] | None = None) -> list[list[str]]:
    """The class key of one round: one row per WL class (raw text).

    Returns
    -------
    list of [class, colour, gold members, candidate members, note]
        The note flags a class with unequal sides, and a class holding a vertex of
        ``new`` (recoloured by the round shown); ``only`` restricts the members.
    """
    members: dict[int, dict[str, list[str]]] = {}
    fresh = {classes[v] for v in new}
    for v in (range(len(trace.vertices)) if only is None else only):
        vertex = trace.vertices[v]
        side = members.setdefault(classes[v], {"gold": [], "candidate": []})
        side[vertex.side].append(names.get(v, vertex.key))
    rows = []
    for cls in sorted(members):
        side = members[cls]
        note = "" if len(side["gold"]) == len(side["candidate"]) else "⚠ unequal sizes"
        if cls in fresh:
            note = f"{note} (new in this round)".strip()
        rows.append([str(cls), class_color(cls), ", ".join(side["gold"]) or "—",
                     ", ".join(side["candidate"]) or "—", note])
    return rows


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


def pair_stories(alignment: Alignment, scope: str, trace: WLTrace | None) -> list[Story]:
    """Why each pair a tie rule decided was chosen, rule by rule, in the engine's order.

    Everything comes from the engine's :class:`oa_core.ScopeAlignment`: the rule that
    decided each pair (``rules``), C, b and a (``matrix``, ``colour_agreement``,
    ``depth_agreement``) and the content rule's label ties (``label_ties``). Pairs
    decided by their attributes alone have no story.

    Parameters
    ----------
    alignment : Alignment
    scope : str
    trace : WLTrace or None
        The graph drawn, to find the pair's vertices (``None``: no vertices).
    """
    aligned = alignment.scopes[scope]
    records = scope_records(alignment, scope)
    found = {(t.gold_index, t.candidate_index): t for t in twins(alignment, scope)}
    gold_at: dict[int, int] = {}
    cand_at: dict[int, int] = {}
    if trace is not None:
        for v, vx in enumerate(trace.vertices):
            if vx.kind == "record" and vx.record_index is not None \
                    and (vx.scope or scope) == scope:
                (gold_at if vx.side == "gold" else cand_at)[vx.record_index] = v
    partner = dict(aligned.pairs)
    colour, depth = aligned.colour_agreement, aligned.depth_agreement
    rounds = len(trace.rounds) if trace is not None else 0
    stories = []
    for (i, j), tie_rule in sorted(aligned.rules.items()):
        rule = str(tie_rule)
        if rule == "attributes":
            continue
        twin = found.get((i, j))
        tied = twin.tied_indices if twin is not None else []
        tied_names = ", ".join(records.gold[t] for t in tied) or "another record"
        c = float(aligned.matrix[i, j])
        steps = [("Attributes (C)", f"C = {c:.3f}, the same row of C as {tied_names}: "
                                    "the attributes alone cannot choose.")]
        if rule == "position":
            steps.append(("List position", "WL is off, so nothing breaks the tie: the "
                          "assignment's first optimum (the list order) decided."))
        else:
            b = float(colour[i, j]) if colour is not None else 0.0
            when = (f"; its colour first differs from its twins' in round {twin.round}"
                    if twin is not None and twin.round is not None else "")
            if twin is not None and twin.context:
                when += f", through its references: {twin.context}"
            if rule == "colour":
                steps.append(("Colours (b)", f"the two records end with the same stable WL "
                              f"colour (b = {b:.0f}) and the other pairings of the twins do "
                              f"not{when}: this decided the pair."))
            else:
                steps.append(("Colours (b)", f"b = {b:.0f}: the stable colours do not "
                              "single out one pairing of the twins."))
                a = float(depth[i, j]) if depth is not None else 0.0
                shared = f"{round(a * rounds)} of {rounds}" if rounds else f"{a:.3f}"
                if rule == "depth":
                    steps.append(("Depth (a)", f"the pair shares a colour in {shared} WL "
                                  "rounds, longer than any other pairing of the twins: "
                                  "this decided the pair."))
                else:
                    steps.append(("Depth (a)", f"the pair shares a colour in {shared} WL "
                                  "rounds, no longer than the other pairings."))
                    last = ("only the records' JSON told them apart, so here the score may "
                            "follow the id labels" if (i, j) in aligned.label_ties
                            else "nothing structural tells them apart")
                    steps.append(("Content rule", f"{last}: they were paired by their "
                                  "references through the pairing of everything else, then "
                                  "by their JSON; such records are interchangeable."))
        pair = [gold_at[i], cand_at[j]] if i in gold_at and j in cand_at else []
        rivals = [v for t in tied for v in (gold_at.get(t), cand_at.get(partner.get(t, -1)))
                  if v is not None]
        stories.append(Story(f"gold {records.gold[i]} → candidate {records.candidate[j]}",
                             steps, pair, rivals,
                             twin.round if twin is not None and rule == "colour" else None))
    return stories


def story_markdown(story: Story) -> str:
    """A pair's story in (escaped) Markdown: its title, then the rules in order."""
    steps = "\n".join(f"{k}. **{md_escape(step)}**: {md_escape(text)}"
                       for k, (step, text) in enumerate(story.steps, 1))
    return f"**{md_escape(story.title)}**\n\n{steps}"


def round_text(trace: WLTrace, names: Mapping[int, str], summary: RoundSummary,
               rounds: int) -> str:
    """What one WL round did, in words (raw text)."""
    stable = "the stable colouring" if summary.index == rounds - 1 else "not yet stable"
    classes = f"{summary.classes} class{'es' * (summary.classes != 1)}"
    text = f"Round {summary.index} of {rounds - 1}: {classes} ({stable})."
    if summary.split:
        split = ", ".join(f"{trace.vertices[v].side} {names[v]}" for v in summary.split)
        text += f" This round gave new colours to: {split}."
    elif summary.index == 0:
        text += " " + _START_WORDS.get(trace.mode, _START_WORDS["tie_break"])
    return text


_START_WORDS = {
    "tie_break": "Round 0 is the start: no reference has been read yet, and every vertex "
                 "starts in one class (one per scope when the graph holds several).",
    "none": "Round 0 is the start: no reference has been read yet, and every vertex "
            "starts in one class (one per scope when the graph holds several).",
    "blend": "Round 0 is the start: no reference has been read yet; blend mode starts each "
             "record from its exact attributes, so equal records start in one class.",
}


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
        Display classes per round (from :func:`app.pair.wl_graph.stable_classes`).
    round_index : int
        The round to explain. Round 0 reads no reference: its rows say where each
        vertex starts (see :func:`signature_note`), and its references column is empty.
    names : mapping vertex index -> str
        Vertex display names.
    only : sequence of int, optional
        The vertices to list (all by default).

    Returns
    -------
    pandas.DataFrame
        One row per vertex: side, record, class before, its references in words
        (``mentee of a class-0 record``; repeats counted, ``2 × ...``), class after and
        whether the round changed its class. From round 1 on, rows with the same class
        before and the same references have the same class after.
    """
    previous = display[max(round_index - 1, 0)]
    incident: dict[int, list[str]] = {v: [] for v in range(len(trace.vertices))}
    for edge in trace.edges if round_index else ():
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
    start = _START_CLASS.get(trace.mode, _START_CLASS["tie_break"])
    rows = []
    for v in (range(len(trace.vertices)) if only is None else only):
        vertex = trace.vertices[v]
        counts: dict[str, int] = {}
        for text in incident[v]:
            counts[text] = counts.get(text, 0) + 1
        listed = [f"{n} × {text}" if n > 1 else text for text, n in sorted(counts.items())]
        after = display[round_index][v]
        if not round_index:
            listed = [start if vertex.kind == "record" else _START_CLASS["tie_break"]]
        rows.append({
            "side": vertex.side,
            "record": names.get(v, vertex.key),
            "class before": previous[v] if round_index else None,
            SIGNATURE_COLUMN: "; ".join(listed) or "—",
            "class after": after,
            "changed": bool(round_index) and after != previous[v],
        })
    return pd.DataFrame.from_records(rows)


SIGNATURE_COLUMN = "references (classes of the round before)"
_START_CLASS = {"tie_break": "none read yet: starts in the one start class",
                "none": "none read yet: starts in the one start class",
                "blend": "none read yet: starts from its exact attributes"}


def signature_note(trace: WLTrace, round_index: int) -> str:
    """What the signature table of a round means (round 0 is the start)."""
    if round_index == 0:
        return (_START_WORDS.get(trace.mode, _START_WORDS["tie_break"]) + " References "
                "are read from round 1 on.")
    return ("A record's new class is decided by its class in the round before and the "
            "multiset of its references (its role, the reference's exact fields, the other "
            "end's class): equal signatures get the same class, on both sides.")


def round_views(trace: WLTrace, display: Sequence[Sequence[int]], names: Mapping[int, str],
                only: Sequence[int] | None = None) -> list[RoundView]:
    """Per round, what the stepper shows besides the colours (vertices of ``only``).

    ``display`` is the whole graph's display classes; ``only`` maps the shown
    vertices (``only[k]`` is vertex ``k`` of the drawn subgraph), whose indices the
    returned ``changed`` lists use.
    """
    shown = list(range(len(trace.vertices))) if only is None else list(only)
    local = {v: k for k, v in enumerate(shown)}
    views = []
    for summary in summarize_rounds(display):
        r = summary.index
        frame = signature_frame(trace, display, r, names, only=shown)
        if r == 0:
            frame = frame.drop(columns=["class before", "changed"])
        columns = [str(c) for c in frame.columns]
        rows = [["—" if cell is None else "yes" if cell is True else "" if cell is False
                 else str(cell) for cell in row] for row in frame.itertuples(index=False)]
        views.append(RoundView(
            round_text(trace, names, summary, len(display)),
            [local[v] for v in summary.split if v in local],
            class_rows(trace, display[r], names, summary.split, only=shown),
            columns, rows, signature_note(trace, r)))
    return views
