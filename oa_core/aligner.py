"""The public entry points: :func:`align` and :func:`score` (and :func:`prepare_gold`,
a gold checked and indexed once for scoring many candidates against it).

Examples
--------
>>> schema = {"type": "object", "properties": {
...     "tags": {"type": "array", "order": "align", "items": {"type": "string",
...                                                         "score": "exact"}}}}
>>> score({"tags": ["a", "b"]}, {"tags": ["b", "a"]}, schema)
1.0
>>> round(score({"tags": ["a", "b"]}, {"tags": ["a", "c"]}, schema), 4)
0.3333
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._engine import MAX_NESTING, NativeGold
from .errors import Diagnostic, InputError
from .kinds import WLMode
from .matchtree import MatchNode
from .native import (
    declined,
    native_prepared_gold,
    native_resolved_score,
    native_score,
    native_table,
    native_tree,
    native_validates,
)
from .nodetable import MatchRows, match_tree, table_rows
from .options import AlignOptions, Limits
from .schema import Schema
from .scopes import ScopeAlignment
from .scopes_native import (
    Resolved,
    ScopeRecords,
    resolved_scopes,
    scope_records,
    scope_resolution,
    unchecked_scopes,
)
from .validation import check_json, schema_violations
from .wl import WLTrace

__all__ = ["WL_MODES", "Alignment", "PreparedGold", "align", "prepare_gold", "score"]

WL_MODES = tuple(mode.value for mode in WLMode)


@dataclass(slots=True)
class Alignment:
    """Everything one comparison found.

    Attributes
    ----------
    score : float
        In [0, 1] (0 in strict mode when the candidate violates the schema).
    tree : MatchNode
        The match tree.
    bijections : dict
        ``{scope: {gold id: candidate id or None}}``.
    wl : dict
        ``{scope: WLTrace}``: every refinement round (scopes where WL ran).
    scopes : dict
        ``{scope: ScopeAlignment}``: record cost matrices and pairs.
    warnings, violations : list of Diagnostic
    """

    score: float
    tree: MatchNode
    bijections: dict[str, dict[Any, Any]]
    wl: dict[str, WLTrace]
    scopes: dict[str, ScopeAlignment]
    warnings: list[Diagnostic]
    violations: list[Diagnostic]
    gold: Any
    candidate: Any
    schema: Schema
    options: AlignOptions = field(default_factory=AlignOptions)

    @property
    def deficit(self) -> float:
        return 1.0 - self.score

    def to_dict(self) -> dict[str, Any]:
        """The alignment as JSON-ready data."""
        return {
            "score": self.score,
            "bijections": {s: [[g, c] for g, c in m.items()] for s, m in self.bijections.items()},
            "wl": {s: t.to_dict() for s, t in self.wl.items()},
            "warnings": [w.to_dict() for w in self.warnings],
            "violations": [v.to_dict() for v in self.violations],
            "tree": self.tree.to_dict(),
        }

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from .notebook.alignment import alignment_html

        return alignment_html(self)


# AlignOptions() once (it is frozen): validating it costs a metric call 10 us.
_DEFAULT_OPTIONS = AlignOptions()

# Python frames one level of document nesting may take (the validator, feedback).
_FRAMES_PER_LEVEL = 40


def _allow_depth(max_depth: int) -> None:
    """Let the recursion limit hold documents nested ``max_depth`` levels.

    The limit is only ever raised (it is shared by every thread of the process).
    """
    needed = max_depth * _FRAMES_PER_LEVEL + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def align(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
          options: AlignOptions | Mapping[str, Any] | None = None, *,
          comparators: Mapping[str, Any] | None = None, **option_overrides: Any) -> Alignment:
    """Align a candidate with the gold under an OA schema and score it.

    Parameters
    ----------
    gold, candidate : JSON values
        Parsed JSON (dict, list, str, int, float, bool, None).
    schema : Schema, dict or str
        An OA schema (parsed with :meth:`Schema.parse` if not already).
    options : AlignOptions or mapping, optional
        ``wl_mode``, ``wl_blend_lambda``, ``strict`` and ``limits``; the same
        names may also be given as keywords (``align(g, c, s, wl_mode="none")``).
    comparators : mapping, optional
        Custom comparators by name (when ``schema`` is not yet parsed).

    ``gold`` may be a :class:`PreparedGold` (:func:`prepare_gold`), as for
    :func:`score`: under the schema it was prepared with (the same :class:`Schema`
    object) and the same limits, its checks are reused; else its gold is
    checked again. The same alignment either way; its ``gold`` is then the
    prepared copy (read it, do not change it: it is shared by every alignment made
    with that :class:`PreparedGold`).

    Returns
    -------
    Alignment

    Raises
    ------
    SchemaError, InputError
        Bad schema, gold, candidate or option; each names a JSON Pointer.
    """
    opts = (_DEFAULT_OPTIONS if options is None and not option_overrides
            else AlignOptions.coerce(options, **option_overrides))
    return _align(gold, candidate, schema, opts, comparators)


def _align(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
           opts: AlignOptions, comparators: Mapping[str, Any] | None) -> Alignment:
    """:func:`align` given its options."""
    gold, gold_checked = _unprepared(gold, schema, opts, comparators)
    parsed, violations = _checked(gold, candidate, schema, opts, comparators,
                                  describe_violations=True, gold_checked=gold_checked)
    return _aligned(gold, candidate, parsed, opts, violations)


def _unprepared(gold: Any, schema: Schema | Mapping[str, Any] | str, opts: AlignOptions,
                comparators: Mapping[str, Any] | None) -> tuple[Any, bool]:
    """The gold document and whether it is checked: a :class:`PreparedGold`'s copy,
    checked when its checks hold under ``schema`` (the same object), ``opts``' limits
    and no new comparators; else ``(gold, False)`` (a prepared gold's copy is then
    checked again, as a plain gold)."""
    if not isinstance(gold, PreparedGold):
        return gold, False
    return gold._gold, (schema is gold.schema and opts.limits == gold.limits
                        and not comparators)


def _parsed(schema: Schema | Mapping[str, Any] | str,
            comparators: Mapping[str, Any] | None) -> Schema:
    if isinstance(schema, Schema):
        if comparators:
            raise InputError("", "comparators must be given to Schema.parse when the "
                             "schema is already parsed", fix="pass comparators to "
                             "Schema.parse(schema, comparators=...)", document="options")
        return schema
    return Schema.parse(schema, comparators=comparators)


def _gold_violates(gold_errors: list[Diagnostic]) -> InputError:
    """The error of a gold that violates the schema (``gold_errors``, not empty)."""
    first = gold_errors[0]
    more = f" (and {len(gold_errors) - 1} more)" if len(gold_errors) > 1 else ""
    return InputError(first.pointer, f"the gold violates the schema: {first.message}{more}",
                      fix="correct the gold, or relax the schema", document="gold",
                      values=first.values)


def _checked(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
             opts: AlignOptions, comparators: Mapping[str, Any] | None, *,
             describe_violations: bool, gold_checked: bool = False
             ) -> tuple[Schema, list[Diagnostic]]:
    """The parsed schema and the candidate's violations, once the documents are checked
    (an :class:`InputError` for a bad document or a gold that violates the schema).
    ``gold_checked``: the gold passed both checks under this schema and these limits
    (a :class:`PreparedGold`'s), so only the candidate is checked."""
    _allow_depth(opts.limits.max_depth)
    strict = opts.strict
    # a parsed schema without comparators is the common case: no call for it
    parsed = schema if isinstance(schema, Schema) and not comparators else _parsed(
        schema, comparators)
    if not gold_checked:
        check_json(gold, "gold", opts.limits)
    check_json(candidate, "candidate", opts.limits)
    if not gold_checked and (gold_errors := schema_violations(gold, parsed, "gold")):
        raise _gold_violates(gold_errors)
    violations = (schema_violations(candidate, parsed, "candidate")
                  if describe_violations or strict else [])
    return parsed, violations


def _aligned(gold: Any, candidate: Any, parsed: Schema, opts: AlignOptions,
             violations: list[Diagnostic]) -> Alignment:
    """:func:`align` once the documents are checked."""
    if parsed.scopes:
        wl_mode = opts.wl_mode.value  # AlignOptions holds a WLMode
        # the resolution and the match tree under it, from one conversion of the
        # documents
        found = resolved_scopes(gold, candidate, parsed, opts.limits, wl_mode,
                                opts.wl_blend_lambda, tree=True)
        bijections, _, scopes, wl, scope_warnings = scope_resolution(found, parsed, wl_mode)
        tree = _tree_of(found, gold, candidate, bijections)
    else:
        bijections, scopes, wl, scope_warnings = {}, {}, {}, []
        tree = native_tree(gold, candidate, parsed, opts.limits)
    final = 0.0 if opts.strict and violations else tree.score
    return Alignment(
        score=final, tree=tree, bijections=_shown_bijections(bijections),
        wl=wl, scopes=scopes, warnings=[*parsed.warnings, *scope_warnings],
        violations=violations, gold=gold, candidate=candidate, schema=parsed, options=opts)


class _RepairInputs(NamedTuple):
    """What :func:`oa_core.feedback.feedback`'s repair operations read of an
    alignment (:func:`_repair_inputs`): :class:`Alignment`'s fields of these names,
    the match tree as the rows of its node table
    (:class:`~oa_core.nodetable.MatchRows`, no :class:`MatchNode` made; without the
    subtrees that agree with the gold, :meth:`~oa_core._engine.NodeTable.compact`,
    except with WL off) and each
    scope's records as :class:`~oa_core.scopes_native.ScopeRecords` (or its
    :class:`~oa_core.scopes.ScopeAlignment`, which has them)."""

    score: float
    rows: MatchRows
    bijections: dict[str, dict[Any, Any]]
    scopes: Mapping[str, ScopeRecords | ScopeAlignment]
    violations: list[Diagnostic]
    gold: Any
    schema: Schema
    options: AlignOptions


def _repair_inputs(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
                   options: AlignOptions | Mapping[str, Any] | None = None, *,
                   comparators: Mapping[str, Any] | None = None,
                   **option_overrides: Any) -> _RepairInputs:
    """:func:`align` (the same arguments, the same errors, the same match tree,
    bijections and records) with only what repair operations read: the tree's rows,
    no WL traces, cost matrices or warnings, and the candidate's schema violations
    only in strict mode (the only mode they change the score and the repairs in)."""
    opts = (_DEFAULT_OPTIONS if options is None and not option_overrides
            else AlignOptions.coerce(options, **option_overrides))
    gold, gold_checked = _unprepared(gold, schema, opts, comparators)
    parsed = _parsed(schema, comparators)
    wl_mode = opts.wl_mode.value  # AlignOptions holds a WLMode
    violations: list[Diagnostic] = []
    found = None
    if (parsed.scopes and not opts.strict and opts.limits.max_depth <= MAX_NESTING
            and native_validates(parsed)):
        # the engine checks the documents and the gold as _checked does, in its order
        # (each document as check_json, then the gold against the schema): its answer
        # says they pass; None leaves _checked to name the problem
        _allow_depth(opts.limits.max_depth)
        found = unchecked_scopes(gold, candidate, parsed, opts.limits, wl_mode,
                                 opts.wl_blend_lambda, traces=False, tree=True)
    if found is None:
        parsed, violations = _checked(gold, candidate, parsed, opts, None,
                                      describe_violations=False, gold_checked=gold_checked)
        if parsed.scopes:
            found = resolved_scopes(gold, candidate, parsed, opts.limits, wl_mode,
                                    opts.wl_blend_lambda, traces=False, tree=True)
    scopes: Mapping[str, ScopeRecords]
    if found is not None:
        if found.table is None:
            raise declined("to build the match tree")
        bijections, scopes = scope_records(found)
        table = found.table
    else:
        bijections, scopes = {}, {}
        table = native_table(gold, candidate, parsed, opts.limits)
    # no repair comes from a subtree that agrees with the gold, so its rows are left
    # out; with WL off they stay: a list holding records is put in the gold's order,
    # its agreeing items moved too
    rows = table_rows(table if wl_mode == WLMode.NONE else table.compact(), gold, candidate)
    return _RepairInputs(0.0 if opts.strict and violations else rows.score[0], rows,
                         bijections, scopes, violations, gold, parsed, opts)


def _tree_of(found: Resolved, gold: Any, candidate: Any,
             bijections: dict[str, dict[Any, Any]]) -> MatchNode:
    """The match tree of a resolution made with its table."""
    if found.table is None:
        raise declined("to build the match tree")
    return match_tree(found.table, gold, candidate, bijections)


def _shown_bijections(bijections: dict[str, dict[Any, Any]]) -> dict[str, dict[Any, Any]]:
    """:attr:`Alignment.bijections` (ids) from bijections of id keys."""
    return {name: {k[1]: (None if v is None else v[1]) for k, v in m.items()}
            for name, m in bijections.items()}


def score(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
          options: AlignOptions | Mapping[str, Any] | None = None, *,
          comparators: Mapping[str, Any] | None = None, **option_overrides: Any) -> float:
    """The OA score of ``candidate`` against ``gold`` in [0, 1]; see :func:`align`.

    The same number as ``align(...).score``, without describing the candidate's schema
    violations unless ``strict`` is set (they change the score only then), and without
    building a match tree (one call into the Rust engine: documents with scopes are
    resolved and scored in it).

    ``gold`` may be a :class:`PreparedGold` (:func:`prepare_gold`): under the schema
    it was prepared with (the same :class:`Schema` object) and the same limits, its
    checks and index are reused; else its gold is checked and indexed again. The
    same bits either way.
    """
    if options is None and not option_overrides and not comparators:
        # a metric's call (default options, a parsed schema without scopes, its plan
        # made and checking every assertion): the engine's answer is the score, as
        # _score would find it, without its dispatch
        if (isinstance(schema, Schema) and not schema.scopes
                and (plan := schema._plan) is not None and plan.validates):
            # no limits: the engine's own reading of Limits()'s, made once
            value = plan.plan.score(gold._gold if isinstance(gold, PreparedGold) else gold,
                                    candidate, None, False)
            if value is None:  # the gold violates an assertion the engine checks
                document, checked = _unprepared(gold, schema, _DEFAULT_OPTIONS, None)
                raise _gold_violation(document, schema, _DEFAULT_OPTIONS, checked)
            return value
        return _score(gold, candidate, schema, _DEFAULT_OPTIONS, None)
    return _score(gold, candidate, schema, AlignOptions.coerce(options, **option_overrides),
                  comparators)


def _score(gold: Any, candidate: Any, schema: Schema | Mapping[str, Any] | str,
           opts: AlignOptions, comparators: Mapping[str, Any] | None) -> float:
    """:func:`score` given its options."""
    # a plain gold, a parsed schema without comparators: the common case, no call
    native_gold, gold_checked = None, False
    if isinstance(gold, PreparedGold):
        native_gold = gold._native
        gold, gold_checked = _unprepared(gold, schema, opts, comparators)
    parsed = schema if isinstance(schema, Schema) and not comparators else _parsed(
        schema, comparators)
    if not parsed.scopes:
        # the Rust engine checks the documents as check_json would while converting
        # them, and the schema's assertions when it can: a score is then theirs
        strict = opts.strict
        found = native_score(gold, candidate, parsed, opts.limits, strict)
        judged = strict  # whether the engine gave the candidate's strict verdict
        if found is None and strict:
            # the engine may leave the candidate's verdict to the validator (an
            # assertion it cannot judge, e.g. uniqueItems over mixed kinds)
            found, judged = native_score(gold, candidate, parsed, opts.limits), False
        if found is None:  # the gold violates an assertion the engine checks
            raise _gold_violation(gold, parsed, opts, gold_checked)
        value, validated = found
        if validated and (judged or not strict):
            return value
        if not (gold_checked or validated) and (
                errors := _violations(gold, parsed, "gold", opts)):
            raise _gold_violates(errors)
        return 0.0 if opts.strict and _violations(candidate, parsed, "candidate",
                                                  opts) else value
    # the prepared gold's own conversion and index hold only where its checks do
    prepared = native_gold if gold_checked else None
    violations: list[Diagnostic] = []
    if opts.strict:  # the candidate's violations zero the score: look for them first
        parsed, violations = _checked(gold, candidate, parsed, opts, None,
                                      describe_violations=False, gold_checked=gold_checked)
        gold_checked = True
    # the Rust engine converts the documents as check_json checks them, and checks the
    # gold against the schema when its plan can
    # wl_mode is a WLMode (AlignOptions converts it), a str the engine reads as is
    scored = native_resolved_score(gold, candidate, parsed, opts.limits, opts.wl_mode,
                                   opts.wl_blend_lambda, prepared)
    if scored is None:  # the gold violates an assertion the engine checks
        raise _gold_violation(gold, parsed, opts, gold_checked)
    if not (gold_checked or native_validates(parsed)) and (
            errors := _violations(gold, parsed, "gold", opts)):
        raise _gold_violates(errors)
    return 0.0 if violations else scored


def _gold_violation(gold: Any, parsed: Schema, opts: AlignOptions,
                    gold_checked: bool) -> Exception:
    """The error of a gold the engine found violating the schema: its
    :class:`InputError` (the validator names the violation), or :func:`declined`
    where the gold was checked or the validator finds no violation (an engine bug)."""
    errors = [] if gold_checked else _violations(gold, parsed, "gold", opts)
    return _gold_violates(errors) if errors else declined("the gold (no violation found)")


def _violations(document: Any, parsed: Schema, which: str,
                opts: AlignOptions) -> list[Diagnostic]:
    """How ``document`` (plain JSON within ``opts``' limits) violates the schema."""
    _allow_depth(opts.limits.max_depth)
    return schema_violations(document, parsed, which)


@dataclass(frozen=True, slots=True, eq=False)
class PreparedGold:
    """A gold document checked under a schema and indexed once, for scoring many
    candidates against it (a metric called at every step of a prompt optimisation):
    pass it to :func:`score` in place of the gold. Made by :func:`prepare_gold`.

    It holds its own deep copy of the gold (and the index of that copy), so a
    caller's later change to the document it was made from changes no score.

    Attributes
    ----------
    schema : Schema
        The parsed schema it was checked and indexed under.
    limits : Limits
        The limits it was checked under.
    """

    schema: Schema
    limits: Limits
    _gold: Any = field(repr=False)
    # _gold converted and indexed by the Rust engine (None without scopes: nothing
    # to index)
    _native: NativeGold | None = field(default=None, repr=False)


def prepare_gold(gold: Any, schema: Schema | Mapping[str, Any] | str,
                 options: AlignOptions | Mapping[str, Any] | None = None, *,
                 comparators: Mapping[str, Any] | None = None,
                 **option_overrides: Any) -> PreparedGold:
    """Check ``gold`` against ``schema`` and index it once, for many :func:`score` calls.

    ``score(prepare_gold(g, s), c, s.schema)`` gives the same bits as ``score(g, c,
    s)``, without checking and indexing the gold again: pass the returned object's
    ``schema`` (or the :class:`Schema` given here) and the same limits to
    :func:`score`. The gold is deep-copied (changing it afterwards changes nothing).

    Parameters
    ----------
    gold : JSON value
    schema, options, comparators, option_overrides
        As for :func:`score`; only the limits of the options matter here.

    Raises
    ------
    SchemaError, InputError
        A bad schema or option, or a gold that is no JSON, exceeds the limits or
        violates the schema (what :func:`score` raises for it).

    Examples
    --------
    >>> schema = Schema.parse({"type": "object", "properties": {
    ...     "a": {"type": "string", "score": "exact"}}})
    >>> prepared = prepare_gold({"a": "x"}, schema)
    >>> [score(prepared, {"a": value}, schema) for value in ("x", "y")]
    [1.0, 0.0]
    """
    opts = (_DEFAULT_OPTIONS if options is None and not option_overrides
            else AlignOptions.coerce(options, **option_overrides))
    _allow_depth(opts.limits.max_depth)
    parsed = _parsed(schema, comparators)
    check_json(gold, "gold", opts.limits)  # plain JSON within the limits: copied safely
    frozen = copy.deepcopy(gold)
    gold_errors = schema_violations(frozen, parsed, "gold")
    if gold_errors:
        raise _gold_violates(gold_errors)
    return PreparedGold(parsed, opts.limits, frozen,
                        native_prepared_gold(frozen, parsed, opts.limits)
                        if parsed.scopes else None)
