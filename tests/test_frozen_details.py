"""What the golden bits do not hold, frozen from the engines when both agreed.

``tests/golden/`` (``benchmarks/bits.py``) holds every case's scores, the match
tree's ``to_dict`` fields, WL traces, scope pairs and rules and feedback ops, but
not the refusals' wording, the tree's other fields (thresholds, orders, scopes,
expected values, keys, pairs and score matrices) nor a scope's matrices, ids and
paths. ``tests/golden/details.json.gz`` holds them for a part of the corpus (WL mode
``tie_break``): it was written while the Python engine and the Rust one both ran
and gave the same details on every case (the Python engine being the oracle of the
port), and the one engine must keep them.

Rewrite the file only when a rule changes on purpose:
``PYTHONPATH=. python tests/test_frozen_details.py`` (then look at the diff).
"""

from __future__ import annotations

import enum
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import oa_core
from benchmarks import bits

FROZEN = Path(__file__).resolve().parent / "golden" / "details.json.gz"
CORPUS = {"hostile_count": 120, "org2graph_count": 4, "nested_count": 60}
TREE_FIELDS = ("threshold", "key_effective_weight", "order", "scope", "expected",
               "gold_key", "candidate_key", "pairs")
SCOPE_FIELDS = ("gold_ids", "candidate_ids", "gold_paths", "candidate_paths", "pairs",
                "structural_pairs", "cyclic", "mode", "matrix", "colour_agreement",
                "depth_agreement")


def plain(value: Any) -> Any:
    """``value`` as plain JSON keeping its bits: floats as hex, matrices as their
    shape, dtype and hex cells, enums as their value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"int": str(value)}
    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": value.dtype.str,
                "cells": [float(x).hex() for x in value.ravel()]}
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, dict):
        return [[plain(k), plain(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    raise TypeError(f"no plain form for {type(value).__name__}")


def _refused(error: oa_core.OAError) -> dict[str, str]:
    return error.to_dict()


def details(raw: Any, gold: Any, candidate: Any, comparators: Any) -> dict[str, Any]:
    """One case's details: the schema's refusal, or align's tree rows and scopes (or
    its refusal) and score's and feedback's refusals, each with its wording."""
    try:
        schema = oa_core.Schema.parse(raw, comparators=comparators)
    except oa_core.OAError as error:
        return {"schema": _refused(error)}
    out: dict[str, Any] = {}
    try:
        alignment = oa_core.align(gold, candidate, schema)
    except oa_core.OAError as error:
        out["align"] = _refused(error)
    else:
        out["tree"] = [[plain(getattr(node, name)) for name in TREE_FIELDS]
                       + [plain(node.matrix)] for node in alignment.tree.iter_nodes()]
        out["scopes"] = {name: {field: plain(getattr(scope, field)) for field in SCOPE_FIELDS}
                         for name, scope in alignment.scopes.items()}
    for name, call in (("score", oa_core.score), ("feedback", oa_core.feedback)):
        try:
            call(gold, candidate, schema)
        except oa_core.OAError as error:
            out[name] = _refused(error)
    return out


def dump() -> dict[str, Any]:
    return {name: details(raw, gold, candidate, comparators)
            for name, raw, gold, candidate, comparators in bits.corpus(**CORPUS)}


@pytest.fixture(scope="module")
def frozen() -> dict[str, Any]:
    with gzip.open(FROZEN, "rt", encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def test_the_frozen_file_covers_trees_scopes_and_refusals(frozen: dict[str, Any]) -> None:
    cases = list(frozen.values())
    assert len(cases) >= 200
    assert sum("tree" in c for c in cases) >= 150
    assert sum(bool(c.get("scopes")) for c in cases) >= 40
    assert sum("align" in c or "schema" in c for c in cases) >= 10
    assert any(row[-1] is not None for c in cases for row in c.get("tree", []))


@pytest.mark.parametrize("family", ["samples", "flat", "lists", "org2graph", "graph",
                                    "hostile", "nested"])
def test_the_engine_keeps_the_frozen_details(frozen: dict[str, Any], family: str) -> None:
    checked = 0
    for name, raw, gold, candidate, comparators in bits.corpus(**CORPUS):
        if bits.family(name) != family:
            continue
        got = json.loads(json.dumps(details(raw, gold, candidate, comparators)))
        expected = frozen[name]
        if got != expected:
            where = bits.first_difference(expected, got)
            pytest.fail(f"{name}: {where}")
        checked += 1
    assert checked >= 1


if __name__ == "__main__":
    data = dump()
    with gzip.open(FROZEN, "wt", encoding="utf-8") as handle:
        json.dump(data, handle, sort_keys=True, separators=(",", ":"))
    sys.stdout.write(f"{len(data)} cases written to {FROZEN}\n")
