"""score() of documents with scopes (no match tree kept) gives align()'s bits, and its
errors are align()'s (type, pointer, message)."""

from __future__ import annotations

from typing import Any

import pytest
from oa_helpers import SAMPLE_INDEX, load_sample

import oa_core
from benchmarks.alignment_speed import SCHEMA as GRAPH_SCHEMA
from benchmarks.alignment_speed import make_pair
from benchmarks.throughput import org2graph_pairs
from oa_core.errors import InputError
from oa_core.options import Limits


def _cases() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"]) for e in SAMPLE_INDEX for s in e["schemas"]
            for c in [{"file": "gold.json"}, *e["candidates"]]]


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), _cases())
def test_score_equals_the_match_tree_on_every_sample(example: str, schema_file: str,
                                                     candidate_file: str) -> None:
    gold, candidate = load_sample(example, "gold.json"), load_sample(example, candidate_file)
    schema = oa_core.Schema.parse(load_sample(example, schema_file))
    expected = oa_core.align(gold, candidate, schema).score
    assert oa_core.score(gold, candidate, schema).hex() == expected.hex()


def test_score_equals_the_match_tree_on_graphs() -> None:
    pairs, raw = org2graph_pairs(40, seed=3)
    schema = oa_core.Schema.parse(raw)
    for gold, candidate in pairs:
        assert (oa_core.score(gold, candidate, schema).hex()
                == oa_core.align(gold, candidate, schema).score.hex())
    gold, candidate = make_pair(60, seed=5)
    for mode in oa_core.WL_MODES:
        assert (oa_core.score(gold, candidate, GRAPH_SCHEMA, wl_mode=mode).hex()
                == oa_core.align(gold, candidate, GRAPH_SCHEMA, wl_mode=mode).score.hex())


@pytest.mark.parametrize("inside_records", [True, False])
def test_errors_of_documents_with_scopes_keep_their_pointer(inside_records: bool) -> None:
    # in a record the scope's cost matrix meets the error, outside only the final pass
    tags = {"type": "array", "items": {"type": "string"}}
    raw: dict[str, Any] = {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object",
            "properties": {"id": {"type": "integer", "idScope": "p"}}}}}}
    if inside_records:
        raw["properties"]["people"]["items"]["properties"]["tags"] = tags
        gold: dict[str, Any] = {"people": [{"id": 1, "tags": ["a", "b", "c"]}]}
        candidate: dict[str, Any] = {"people": [{"id": 7, "tags": ["c", "b", "a"]}]}
    else:
        raw["properties"]["tags"] = tags
        gold = {"people": [{"id": 1}], "tags": ["a", "b", "c"]}
        candidate = {"people": [{"id": 7}], "tags": ["c", "b", "a"]}
    small = oa_core.AlignOptions(limits=Limits(max_matrix_cells=4))
    with pytest.raises(InputError, match="over the limit") as full:
        oa_core.align(gold, candidate, raw, small)
    with pytest.raises(InputError, match="over the limit") as quick:
        oa_core.score(gold, candidate, raw, small)
    assert quick.value.pointer == full.value.pointer

    def broken(g: str, p: str) -> float:
        raise ValueError("no")

    tags["items"]["score"] = "broken"
    with pytest.raises(oa_core.OAError) as full_error:
        oa_core.align(gold, candidate, raw, comparators={"broken": broken})
    with pytest.raises(oa_core.OAError) as quick_error:
        oa_core.score(gold, candidate, raw, comparators={"broken": broken})
    assert type(quick_error.value) is type(full_error.value)
    assert str(quick_error.value) == str(full_error.value)
