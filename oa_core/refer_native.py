"""What the Rust engine's scope resolution reads of a schema, made once per schema.

:func:`refer_plan` completes the scorer's plan (:mod:`oa_core.native`) with the
scopes' id fields and each object's property order; :func:`resolution` orders the
scopes (resolution groups, cyclic scopes and their ``reference-cycle`` warnings,
``crates/oa-engine/src/refer/order.rs``) and names each scope's record node. Both are
made once per schema and kept on its :class:`~oa_core.native.PreparedPlan`.

Examples
--------
>>> from oa_core.schema import Schema
>>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
...     "id": {"type": "string", "idScope": "p"},
...     "boss": {"type": "string", "ref": "p"}}}})
>>> groups, cyclic, warnings, records = resolution(schema)
>>> groups, sorted(cyclic), [w.code for w in warnings], records
([['p']], ['p'], ['reference-cycle'], {'p': '/items'})
"""

from __future__ import annotations

from ._engine import ReferPlan, resolution_groups
from .errors import Diagnostic
from .native import prepared_plan
from .schema import Schema

__all__ = ["Resolution", "refer_plan", "resolution"]

# The resolution groups in order, the cyclic scopes, the reference-cycle warnings and
# each scope's record node pointer.
Resolution = tuple[list[list[str]], set[str], list[Diagnostic], dict[str, str]]


def refer_plan(schema: Schema) -> ReferPlan:
    """The :class:`~oa_core._engine.ReferPlan` of a schema with scopes, made from the
    scorer's plan of it (:func:`~oa_core.native.prepared_plan`)."""
    prepared = prepared_plan(schema)
    found = prepared.refer
    if found is None:
        # the plan keeps properties sorted; a carrier reads them in schema order
        order = {node.pointer: list(node.properties) for node in schema.root.walk()
                 if node.properties}
        found = prepared.refer = ReferPlan(prepared.plan, order, {
            name: decl.id_field for name, decl in schema.scopes.items()})
    return found


def resolution(schema: Schema) -> Resolution:
    """The schema's :data:`Resolution` (see the module)."""
    prepared = prepared_plan(schema)
    found = prepared.resolution
    if found is None:
        groups, cyclic, warnings = resolution_groups(
            {name: set(schema.dependencies[name]) for name in schema.scopes},
            {name: decl.id_node.pointer for name, decl in schema.scopes.items()})
        found = prepared.resolution = (
            groups, cyclic, [Diagnostic(code, "schema", pointer, message)
                             for code, pointer, message in warnings],
            {name: decl.record.pointer for name, decl in schema.scopes.items()})
    return found
