"""The LangSmith / openevals evaluator, run by LangSmith's own ``evaluate`` offline."""

from __future__ import annotations

import json
import uuid
import warnings
from typing import Any

import pytest
from offline import block_network  # noqa: F401  (a fixture)

import oa_core
from oa_core.adapters.langsmith import oa_evaluator

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "year": {"type": "integer"}}}


def target(inputs: dict[str, Any]) -> dict[str, Any]:
    """A stand-in model: JSON from ``"City Year"``, prose for anything else."""
    parts = inputs["text"].split()
    if len(parts) != 2:
        return {"answer": "I do not know."}
    return {"answer": f'```json\n{{"city": "{parts[0]}", "year": {parts[1]}}}\n```'}


def test_langsmith_evaluate_runs_it_locally(block_network: list[Any]) -> None:  # noqa: F811
    from langsmith import Client
    from langsmith.evaluation import evaluate
    from langsmith.schemas import Example

    dataset = uuid.UUID(int=1)
    examples = [Example(id=uuid.UUID(int=n + 2), dataset_id=dataset, inputs={"text": text},
                        outputs={"answer": gold})
                for n, (text, gold) in enumerate([
                    ("Paris 2023", {"city": "Paris", "year": 2024}),
                    ("Rome 1990", '{"city": "Rome", "year": 1990}'),
                    ("??", {"city": "Oslo", "year": 2000})])]
    # info={} spares the client its GET /info; nothing is uploaded (upload_runs=False)
    client = Client(api_key="offline", api_url="http://127.0.0.1:9", info={})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "upload_runs is in beta"
        results = list(evaluate(target, data=examples, client=client, upload_runs=False,
                                evaluators=[oa_evaluator(SCHEMA, field="answer",
                                                         objectives="properties")],
                                max_concurrency=0))
    assert block_network == []  # nothing tried to leave the machine
    by_text = {row["example"].inputs["text"]: {r.key: r for r in
                                              row["evaluation_results"]["results"]}
               for row in results}
    paris = by_text["Paris 2023"]
    expected = oa_core.score({"city": "Paris", "year": 2024},
                             {"city": "Paris", "year": 2023}, SCHEMA)
    assert paris["object_aligner"].score == expected == 0.75
    assert paris["object_aligner"].comment.startswith("The prediction scored 0.75")
    assert "/year: expected 2024, got 2023" in paris["object_aligner"].comment
    assert paris["object_aligner/city"].score == 1.0
    assert paris["object_aligner/year"].score == 0.5
    assert by_text["Rome 1990"]["object_aligner"].score == 1.0
    unknown = by_text["??"]["object_aligner"]
    assert unknown.score == 0.0 and "not JSON" in unknown.comment


def test_result_shape_and_whole_outputs() -> None:
    evaluator = oa_evaluator(SCHEMA, key="oa")
    result = evaluator(inputs=None, outputs={"city": "Paris", "year": 2024},
                       reference_outputs={"city": "Paris", "year": 2024})
    assert result == {"key": "oa", "score": 1.0, "comment": "The prediction scored 1.00: it "
                      "matches the gold; nothing to fix.", "metadata": {"has_json": True}}
    json.dumps(result)  # LangSmith sends it as JSON
    assert evaluator.__name__ == "oa"
    with pytest.raises(oa_core.InputError, match="no reference outputs"):
        evaluator(outputs={"city": "Paris"})


def test_openevals_result_type_fits() -> None:
    from openevals.types import EvaluatorResult

    result = oa_evaluator(SCHEMA)(outputs={"city": "Rome"}, reference_outputs={"city": "Paris"})
    assert set(result) <= set(EvaluatorResult.__annotations__)
    assert {"key", "score", "comment"} <= set(result)
