"""The pydantic-evals ``Evaluator``, in a real ``Dataset.evaluate_sync``, offline."""

from __future__ import annotations

from typing import Any

import pytest
from offline import block_network  # noqa: F401  (a fixture)

import oa_core

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "year": {"type": "integer"}}}


def city_task(text: str) -> str:
    """A stand-in model: JSON from ``"City Year"``, prose for anything else."""
    parts = text.split()
    if len(parts) != 2:
        return "I do not know."
    return f'{{"city": "{parts[0]}", "year": {parts[1]}}}'


def test_dataset_evaluate_sync(block_network: list[Any]) -> None:  # noqa: F811
    from pydantic_evals import Case, Dataset

    from oa_core.adapters.pydantic_evals import ObjectAligner

    dataset = Dataset(name="cities", cases=[
        Case(name="paris", inputs="Paris 2023", expected_output={"city": "Paris", "year": 2024}),
        Case(name="rome", inputs="Rome 1990", expected_output='{"city": "Rome", "year": 1990}'),
        Case(name="lost", inputs="??", expected_output={"city": "Oslo", "year": 2000}),
        Case(name="no gold", inputs="Oslo 2000")],
        evaluators=[ObjectAligner(SCHEMA, objectives="properties")])
    report = dataset.evaluate_sync(city_task, progress=False)
    assert block_network == [] and report.failures == []
    cases = {case.name: case for case in report.cases}
    paris = cases["paris"].scores
    expected = oa_core.score({"city": "Paris", "year": 2024}, {"city": "Paris", "year": 2023},
                             SCHEMA)
    assert paris["object_aligner"].value == expected == 0.75
    assert "/year: expected 2024, got 2023" in (paris["object_aligner"].reason or "")
    assert paris["object_aligner/city"].value == 1.0
    assert paris["object_aligner/year"].value == 0.5
    assert cases["rome"].scores["object_aligner"].value == 1.0
    lost = cases["lost"].scores["object_aligner"]
    assert lost.value == 0.0 and "not JSON" in (lost.reason or "")
    assert cases["no gold"].scores == {}  # as EqualsExpected: no expected output, no score
    averages = report.averages()
    assert averages is not None
    assert averages.scores["object_aligner"] == pytest.approx((0.75 + 1.0 + 0.0) / 3)


def test_bad_options_fail_when_built() -> None:
    from oa_core.adapters.pydantic_evals import ObjectAligner

    with pytest.raises(oa_core.InputError, match="the schema has no place '/town'"):
        ObjectAligner(SCHEMA, objectives=["/town"])
    with pytest.raises(TypeError, match="top_kk"):
        ObjectAligner(SCHEMA, options={"top_kk": 1})
