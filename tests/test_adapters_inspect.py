"""The Inspect AI scorer, in a real ``inspect_ai.eval`` on the mock model, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from offline import block_network  # noqa: F401  (a fixture)

import oa_core

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "year": {"type": "integer"}}}


def test_inspect_eval_on_the_mock_model(tmp_path: Path,
                                        block_network: list[Any]) -> None:  # noqa: F811
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from oa_core.adapters.inspect_ai import oa_scorer

    # a usage on each output: without one the mock model counts tokens with tiktoken,
    # which downloads its encoding
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    replies = ['Here it is:\n```json\n{"city": "Paris", "year": 2023}\n```', "No idea."]
    outputs = [ModelOutput.from_content(model="mockllm/model", content=text).model_copy(
        update={"usage": usage}) for text in replies]
    task = Task(dataset=[Sample(input="Where?", target='{"city": "Paris", "year": 2024}', id=1),
                         Sample(input="When?", target='{"city": "Oslo", "year": 2000}', id=2)],
                solver=generate(), scorer=oa_scorer(SCHEMA, objectives="properties"))
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = eval(task, model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert log.status == "success", log.error
    assert block_network == []
    scores = {sample.id: sample.scores["object_aligner"] for sample in log.samples or []}
    expected = oa_core.score({"city": "Paris", "year": 2024}, {"city": "Paris", "year": 2023},
                             SCHEMA)
    assert scores[1].value == expected == 0.75
    assert scores[1].explanation is not None
    assert "/year: expected 2024, got 2023" in scores[1].explanation
    assert scores[1].metadata == {"subscores": {"/city": 1.0, "/year": 0.5}, "has_json": True}
    assert scores[2].value == 0.0 and "not JSON" in (scores[2].explanation or "")
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == 0.375
