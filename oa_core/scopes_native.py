"""The scopes' resolution of :func:`oa_core.align` by the Rust engine.

:func:`resolved_scopes` resolves every scope of a document pair in one Rust call
(``oa_core._engine.align_scopes``: the resolution :func:`oa_core.score` makes, with
everything ``align`` shows of it, and the documents' node table under it when asked:
the documents are converted once for both); :func:`native_align_scopes`
(:func:`scope_resolution`) builds from it the bijections, the candidate ids, a
:class:`~oa_core.scopes.ScopeAlignment` per scope, the
:class:`~oa_core.wl.WLTrace` of each scope WL paired (record vertices described by
their JSON, as the explorer shows them) and the warnings. The pairs, rules, ties,
designations and which records the id warnings name are Rust's; Python writes the
texts (they quote ids and scope names as Python's ``repr`` does);
:func:`scope_records` takes only what repair operations read. A scope (or a
``blockBy`` block) over ``max_matrix_cells`` raises an
:class:`~oa_core.errors.InputError`.

Examples
--------
>>> from oa_core.options import Limits
>>> from oa_core.schema import Schema
>>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
...     "id": {"type": "string", "idScope": "p"},
...     "boss": {"type": "string", "ref": "p"}}}})
>>> found = native_align_scopes([{"id": "a"}, {"id": "b", "boss": "a"}],
...                             [{"id": "y", "boss": "x"}, {"id": "x"}], schema, Limits(),
...                             "tie_break", 0.5)
>>> bijections, candidate_ids, scopes, traces, warnings = found
>>> bijections["p"]
{('string', 'a'): ('string', 'x'), ('string', 'b'): ('string', 'y')}
>>> scopes["p"].pairs, traces["p"].rounds[-1]
([(0, 1), (1, 0)], [0, 1, 1, 0])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from ._engine import NodeTable, align_scopes
from .comparators import id_key, value_kind
from .errors import Diagnostic
from .kinds import TieRule
from .native import declined, prepared_plan
from .options import Limits
from .pointer import join
from .refer_native import refer_plan, resolution
from .schema import Schema
from .scopes import ScopeAlignment
from .wl import WLEdge, WLTrace, WLVertex

__all__ = ["Resolved", "ScopeRecords", "native_align_scopes", "resolved_scopes", "scope_records",
           "scope_resolution", "unchecked_scopes"]

ScopeResolution = tuple[dict[str, dict[Any, Any]], dict[str, set[Any]],
                        dict[str, ScopeAlignment], dict[str, WLTrace], list[Diagnostic]]

_LISTED = 5  # records named per tie warning
# json.JSONEncoder(ensure_ascii=False, default=str).encode's C encoder, made once
# (encode makes it at every call: half its time on a record); None where CPython has
# none. No circular check: the documents are checked JSON.
_ENCODE = None if c_make_encoder is None else c_make_encoder(
    None, str, encode_basestring, None, ": ", ", ", False, False, True)
_SHOWN = json.JSONEncoder(ensure_ascii=False, default=str)
class ScopeRecords(NamedTuple):
    """One scope's records as repair operations read them (a
    :class:`~oa_core.scopes.ScopeAlignment` has the same attributes)."""

    gold_ids: list[Any]
    candidate_ids: list[Any]
    gold_paths: list[str]


class _Record(NamedTuple):
    pointer: str
    value: Any
    id: Any
    key: tuple[str, Any] | None


_new_tuple = tuple.__new__


def _records(read: Sequence[tuple[str, Any, Any]]) -> list[_Record]:
    """A scope's records as the engine read them from one document (pointer, record,
    id), each with its id's key."""
    # made as the tuple it is, without the named tuple's Python-level __new__ (a call
    # per record of every scope, at every align and feedback)
    return [_new_tuple(_Record, (pointer, record, record_id, id_key(record_id)))
            for pointer, record, record_id in read]


def _bijection(images: Sequence[tuple[int, int | None]], gold: list[_Record],
               candidate: list[_Record]) -> dict[Any, Any]:
    """A scope's ``{gold id key: candidate id key or None}`` from its images (gold
    record, candidate record or None)."""
    return {gold[i].key: None if j is None else candidate[j].key for i, j in images}


def _shown(value: Any) -> str:
    """A record's display label: its JSON, cut to 80 characters."""
    short = _SHOWN.encode(value) if _ENCODE is None else "".join(_ENCODE(value, 0))
    return short if len(short) <= 80 else short[:77] + "..."


def _trace(row: tuple[Any, ...], name: str, mode: str,
           records: dict[str, tuple[list[_Record], list[_Record]]]) -> WLTrace:
    (gold_vertices, gold_edges), vertices, edges, rounds = row
    built = []
    for k, (kind, pointer, index, scope, label) in enumerate(vertices):
        side = "gold" if k < gold_vertices else "candidate"
        if index is None:
            built.append(WLVertex(side, pointer, None, None, kind, label))
            continue
        record = records[scope][side == "candidate"][index]
        built.append(WLVertex(side, pointer, index, record.id, "record",
                              _shown(record.value), scope))
    return WLTrace(name, mode, built, [
        WLEdge("gold" if k < gold_edges else "candidate", source, target, relation, label)
        for k, (source, target, relation, label) in enumerate(edges)], rounds)


def _id_warning(name: str, id_field: str, code: str, document: str, records: list[_Record],
                record: int, linked: tuple[int, int] | None) -> Diagnostic:
    found = records[record]
    pointer = join(found.pointer, id_field)
    if linked is None:
        what = "no id" if found.id is None else (
            f"an id of kind {value_kind(found.id)} (only strings and numbers identify)")
        return Diagnostic(code, document, pointer, f"a {name!r} record has {what}; "
                          "references cannot point at it")
    first, target = (records[k].pointer for k in linked)
    return Diagnostic(code, document, pointer, f"id {found.id!r} of scope {name!r} repeats "
                      f"{first}; references to it resolve to {target} only")


def _tie_warnings(name: str, gold: list[_Record], candidate: list[_Record],
                  rules: dict[tuple[int, int], TieRule]) -> list[Diagnostic]:
    found = []
    for rule, how in ((TieRule.DEPTH, "by the depth of their WL agreement (the paper's "
                       "colour bonus left them tied)"),
                      (TieRule.CONTENT, "by the content rule (no structure tells them "
                       "apart: they are interchangeable)")):
        settled = sorted(p for p, r in rules.items() if r == rule)
        if not settled:
            continue
        listed = ", ".join(f"{gold[i].pointer} -> {candidate[j].pointer}"
                           for i, j in settled[:_LISTED])
        more = f" and {len(settled) - _LISTED} more" if len(settled) > _LISTED else ""
        found.append(Diagnostic(f"tie-{rule.value}", "gold", gold[settled[0][0]].pointer,
                                f"{len(settled)} {name!r} record(s) tied on attributes "
                                f"were paired {how}: {listed}{more}"))
    return found


class Resolved(NamedTuple):
    """The Rust resolution of a document pair as ``oa_core._engine.align_scopes``
    gives it (each scope row ending with the scope's records as the engine read them
    from each document, (pointer, record, id)), and the match table scored under the
    resolution (None unless asked for)."""

    scope_rows: list[tuple[Any, ...]]
    trace_rows: list[tuple[Any, ...]]
    table: NodeTable | None


def resolved_scopes(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                    wl_mode: str, wl_lambda: float, *, traces: bool = True,
                    tree: bool = False) -> Resolved:
    """The scopes of checked documents under a schema with scopes resolved in Rust
    (arguments as :func:`native_align_scopes`'), with the documents' node table under
    the resolution when ``tree`` is set (one conversion of the documents for both).

    Examples
    --------
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object",
    ...     "properties": {"id": {"type": "string", "idScope": "p"}}}})
    >>> found = resolved_scopes([{"id": "a"}], [{"id": "b"}], schema, Limits(),
    ...                         "tie_break", 0.5, tree=True)
    >>> [pointer for pointer, _, _ in found.scope_rows[0][14][1]], len(found.table)
    (['/0'], 3)
    """
    found = unchecked_scopes(gold, candidate, schema, limits, wl_mode, wl_lambda,
                             traces=traces, tree=tree)
    if found is None:  # the documents are checked: nothing is the gold's to name
        raise declined("to resolve the scopes")
    return found


def unchecked_scopes(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                     wl_mode: str, wl_lambda: float, *, traces: bool = True,
                     tree: bool = False) -> Resolved | None:
    """:func:`resolved_scopes` of documents not checked yet: the engine converts them as
    :func:`~oa_core.validation.check_json` checks them (raising its error, the gold's
    first) and, where its plan :func:`validates <oa_core.native.native_validates>`, checks
    the gold against the schema before it resolves them. None where it leaves them to
    Python: a gold that violates the schema, a construct it does not resolve."""
    groups, _, _, nodes = resolution(schema)
    found = align_scopes(refer_plan(schema), prepared_plan(schema).plan, gold, candidate,
                         limits, groups, nodes, wl_mode, wl_lambda, traces=traces, tree=tree)
    if found is None:
        return None
    scope_rows, trace_rows, table = found
    return Resolved(scope_rows, trace_rows, table)


def scope_records(found: Resolved) -> tuple[dict[str, dict[Any, Any]],
                                            dict[str, ScopeRecords]]:
    """Each scope's bijection as :attr:`~oa_core.aligner.Alignment.bijections` holds it
    (``{gold id: candidate id or None}``) and its :class:`ScopeRecords`: what repair
    operations read of a resolution. Made from the ids the engine read, with no
    records or id keys (:func:`scope_resolution`'s): a bijection of id keys shown as
    ids is this one, an id key being the id's kind and the id itself.

    Examples
    --------
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object",
    ...     "properties": {"id": {"type": "string", "idScope": "p"}}}})
    >>> found = resolved_scopes([{"id": "a"}], [{"id": "b"}], schema, Limits(),
    ...                         "tie_break", 0.5)
    >>> scope_records(found)
    ({'p': {'a': 'b'}}, {'p': ScopeRecords(gold_ids=['a'], candidate_ids=['b'], \
gold_paths=['/0'])})
    """
    bijections: dict[str, dict[Any, Any]] = {}
    records: dict[str, ScopeRecords] = {}
    for row in found.scope_rows:
        name, images, (gold_read, candidate_read) = row[0], row[11], row[14]
        gold_ids = [record_id for _, _, record_id in gold_read]
        candidate_ids = [record_id for _, _, record_id in candidate_read]
        bijections[name] = {gold_ids[i]: None if j is None else candidate_ids[j]
                            for i, j in images}
        records[name] = ScopeRecords(gold_ids, candidate_ids,
                                     [pointer for pointer, _, _ in gold_read])
    return bijections, records


def native_align_scopes(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                        wl_mode: str, wl_lambda: float, *,
                        traces: bool = True) -> ScopeResolution:
    """The scopes of checked documents under a schema with scopes, resolved in Rust
    (see the module).

    Parameters
    ----------
    gold, candidate : JSON values
        Checked documents (:func:`~oa_core.validation.check_json`).
    schema : Schema
        A parsed schema with scopes.
    limits : Limits
    wl_mode : str
        A :class:`~oa_core.kinds.WLMode` value.
    wl_lambda : float
        The blend's lambda.
    traces : bool, optional
        Whether to make the WL traces (False: the traces' dict is empty, for a
        caller that never shows them).

    Returns
    -------
    tuple
        ``(bijections, candidate_ids, alignments, traces, warnings)``: each scope's
        ``{gold id key: candidate id key or None}``, its candidate id keys, its
        :class:`~oa_core.scopes.ScopeAlignment` and its :class:`~oa_core.wl.WLTrace`
        (scopes WL paired), and the warnings (reference cycles, ids, ties).

    Raises
    ------
    InputError, ComparatorError
        A scope or block over ``max_matrix_cells``, a comparator that failed.

    Examples
    --------
    >>> schema = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"],
    ...     "items": {"type": "object", "properties": {
    ...         "id": {"type": "integer", "idScope": "p"}, "k": {"type": "string"}}}})
    >>> found = native_align_scopes([{"id": 1, "k": "a"}], [{"id": 2, "k": "a"}], schema,
    ...                             Limits(), "none", 0.5)
    >>> found[2]["p"].pairs
    [(0, 0)]
    """
    return scope_resolution(resolved_scopes(gold, candidate, schema, limits, wl_mode,
                                            wl_lambda, traces=traces), schema, wl_mode)


def scope_resolution(found: Resolved, schema: Schema, wl_mode: str) -> ScopeResolution:
    """:func:`native_align_scopes`'s answer from a resolution (its traces those
    ``found`` holds)."""
    import numpy as np  # for the matrices: the commands that show none start without it

    groups, cyclic, cycle_warnings, _ = resolution(schema)
    group_of = {name: ", ".join(group) for group in groups for name in group}
    records = {row[0]: (_records(row[14][0]), _records(row[14][1]))
               for row in found.scope_rows}
    bijections: dict[str, dict[Any, Any]] = {}
    candidate_ids: dict[str, set[Any]] = {}
    alignments: dict[str, ScopeAlignment] = {}
    found_traces: dict[str, WLTrace] = {}
    built: dict[int, WLTrace] = {}
    warnings = list(cycle_warnings)
    for (name, shape, matrix, same, depth, rounds, pairs, twins, rules, label_ties,
         (gold_labelled, candidate_labelled), images, trace, id_warnings,
         _) in found.scope_rows:
        g_records, c_records = records[name]
        id_field = schema.scopes[name].id_field
        candidate_ids[name] = {r.key for r in c_records if r.key is not None}
        bijections[name] = _bijection(images, g_records, c_records)
        rule_of = {(i, j): TieRule(rule) for i, j, rule in rules}
        if trace is not None and found.trace_rows:
            if trace not in built:
                built[trace] = _trace(found.trace_rows[trace], group_of[name], wl_mode,
                                      records)
            found_traces[name] = built[trace]
        alignments[name] = ScopeAlignment(
            name, np.frombuffer(matrix, dtype=np.float64).reshape(shape),
            [r.id for r in g_records], [r.id for r in c_records],
            [r.pointer for r in g_records], [r.pointer for r in c_records],
            pairs, twins, name in cyclic, wl_mode,
            None if same is None else np.frombuffer(same, dtype=np.float64).reshape(shape),
            None if depth is None else (
                np.frombuffer(depth, dtype=np.int64).reshape(shape) / rounds),
            {p: rule_of[p] for p in pairs}, label_ties,
            [g_records[i].pointer for i in gold_labelled]
            + [c_records[j].pointer for j in candidate_labelled])
        warnings += [_id_warning(name, id_field, code, document,
                                 g_records if document == "gold" else c_records, k, linked)
                     for code, document, k, linked in id_warnings]
        warnings += _tie_warnings(name, g_records, c_records, rule_of)
    return bijections, candidate_ids, alignments, found_traces, warnings
