"""Every sample example loads, validates and scores as its README says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import oa_core

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
INDEX = json.loads((SAMPLES / "index.json").read_text(encoding="utf-8"))
OA_KEYWORDS = {"idScope", "ref"}


def load(example: str, name: str) -> Any:
    return json.loads((SAMPLES / example / name).read_text(encoding="utf-8"))


def combos() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"])
            for e in INDEX for s in e["schemas"] for c in e["candidates"]]


def strip_keys(node: Any, keys: set[str]) -> Any:
    """Copy of a schema without the given keywords, at any depth."""
    if isinstance(node, dict):
        return {k: strip_keys(v, keys) for k, v in node.items() if k not in keys}
    if isinstance(node, list):
        return [strip_keys(v, keys) for v in node]
    return node


def set_order(node: Any, order: str) -> Any:
    """Copy of a schema with every array's ``order`` set to `order`."""
    if isinstance(node, dict):
        out = {k: set_order(v, order) for k, v in node.items()}
        if node.get("type") == "array" and "order" in node:
            out["order"] = order
        return out
    if isinstance(node, list):
        return [set_order(v, order) for v in node]
    return node


def test_index_lists_every_folder_running_example_first() -> None:
    ids = [e["id"] for e in INDEX]
    assert ids[0] == "running_example"
    # datasets/ holds evaluation runs, listed by its own index (tests/test_dataset.py)
    folders = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and p.name != "datasets")
    assert sorted(ids) == folders
    assert len(set(ids)) == len(ids)
    for e in INDEX:
        assert e["title"] and e["description"] and "\n" not in e["description"]
        for required in ("schema.json", "gold.json", "candidate.json", "README.md"):
            assert (SAMPLES / e["id"] / required).is_file(), (e["id"], required)
        files = [s["file"] for s in e["schemas"]] + [c["file"] for c in e["candidates"]]
        files += [e["context"]] if "context" in e else []
        for name in files:
            assert (SAMPLES / e["id"] / name).is_file(), (e["id"], name)
        assert e["schemas"][0]["file"] == "schema.json"


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), combos())
def test_every_example_scores(example: str, schema_file: str, candidate_file: str) -> None:
    gold = load(example, "gold.json")
    schema = load(example, schema_file)
    candidate = load(example, candidate_file)
    value = oa_core.score(gold, candidate, schema)
    assert 0.0 <= value <= 1.0
    assert oa_core.score(gold, gold, schema) == 1.0
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors(gold))
    assert not list(validator.iter_errors(candidate))


def test_running_example_scores_the_paper_value() -> None:
    gold, cand, schema = (load("running_example", f"{n}.json")
                          for n in ("gold", "candidate", "schema"))
    assert oa_core.score(gold, cand, schema) == 0.7678571428571429


@pytest.mark.parametrize(("candidate", "sequence", "set_"), [
    ("no_edit.json", 1.0, 1.0),
    ("one_adjacent_swap.json", 0.6, 1.0),
    ("fully_reversed.json", 1 / 7, 1.0),
    ("one_item_dropped.json", 0.75, 0.75),
])
def test_facts2order_figure_candidates(candidate: str, sequence: float, set_: float) -> None:
    gold = load("facts2order", "gold.json")
    cand = load("facts2order", f"candidates/{candidate}")
    assert oa_core.score(gold, cand, load("facts2order", "schema.json")) == pytest.approx(
        sequence, abs=1e-12)
    assert oa_core.score(gold, cand, load("facts2order", "schema_set.json")) == pytest.approx(
        set_, abs=1e-12)


def test_facts2order_candidate_is_the_adjacent_swap() -> None:
    assert load("facts2order", "candidate.json") == load(
        "facts2order", "candidates/one_adjacent_swap.json")


def test_org2graph_relabel_only_scores_one_under_ra_only() -> None:
    gold = load("org2graph", "gold.json")
    cand = load("org2graph", "candidate.json")
    assert cand == load("org2graph", "candidates/relabel_only.json")
    gold_ids = {r["id"] for k in ("people", "companies") for r in gold[k]}
    cand_ids = {r["id"] for k in ("people", "companies") for r in cand[k]}
    assert not gold_ids & cand_ids
    assert oa_core.score(gold, cand, load("org2graph", "schema.json")) == 1.0
    assert oa_core.score(gold, cand, load("org2graph", "schema_plain.json")) < 0.8
    rerouted = load("org2graph", "candidates/rerouted_reference.json")
    assert oa_core.score(gold, rerouted, load("org2graph", "schema.json")) < 1.0


def test_org2graph_twins_are_pinned_by_structure() -> None:
    gold = load("org2graph", "gold.json")
    cand = load("org2graph", "candidate.json")
    result = oa_core.align(gold, cand, load("org2graph", "schema.json"))
    assert result.bijections["person"] == {"474ee2": "a5cd68", "904d0c": "4d3c1a",
                                           "478cc2": "ca264e"}
    assert result.bijections["company"] == {"308da8": "18b8ff", "80425d": "25165e"}


@pytest.mark.parametrize(("example", "ablation"), [
    ("org2graph", "schema_plain.json"),
    ("scierc", "schema_plain.json"),
    ("biored", "schema_plain.json"),
    ("bio_amr", "schema_strict.json"),
])
def test_referential_ablation_only_drops_idscope_and_ref(example: str, ablation: str) -> None:
    main = load(example, "schema.json")
    assert "idScope" in json.dumps(main) and '"ref"' in json.dumps(main)
    assert load(example, ablation) == strip_keys(main, OA_KEYWORDS)
    gold, cand = load(example, "gold.json"), load(example, "candidate.json")
    assert oa_core.score(gold, cand, load(example, ablation)) < oa_core.score(gold, cand, main)


@pytest.mark.parametrize("example", ["facts2order", "natural_plan", "rocstories"])
def test_set_ablation_only_changes_order(example: str) -> None:
    main = load(example, "schema.json")
    assert main["properties"][next(iter(main["properties"]))]["order"] == "fixed"
    assert load(example, "schema_set.json") == set_order(main, "align")


@pytest.mark.parametrize(("example", "sequence", "set_"), [
    ("natural_plan", 2.75 / 5, 3.75 / 4),
    ("rocstories", 4 / 6, 1.0),
])
def test_order_examples_match_their_readme(example: str, sequence: float, set_: float) -> None:
    gold, cand = load(example, "gold.json"), load(example, "candidate.json")
    assert oa_core.score(gold, cand, load(example, "schema.json")) == pytest.approx(sequence)
    assert oa_core.score(gold, cand, load(example, "schema_set.json")) == pytest.approx(set_)


SCORE_ROW = re.compile(r"^\| `(schema\w*\.json)` \| `([\w/]+\.json)` \| (\d\.\d{3}) \|$", re.M)


@pytest.mark.parametrize("example", [e["id"] for e in INDEX if e["id"] != "facts2order"])
def test_readme_score_tables_are_current(example: str) -> None:
    readme = (SAMPLES / example / "README.md").read_text(encoding="utf-8")
    rows = SCORE_ROW.findall(readme)
    entry = next(e for e in INDEX if e["id"] == example)
    assert len(rows) == len(entry["schemas"]) * len(entry["candidates"])
    gold = load(example, "gold.json")
    for schema_file, candidate_file, shown in rows:
        value = oa_core.score(gold, load(example, candidate_file), load(example, schema_file))
        assert f"{value:.3f}" == shown, (schema_file, candidate_file)
