"""The DSPy / GEPA metric of :mod:`oa_core.adapters.dspy`, with and without DSPy."""

from __future__ import annotations

import inspect
import json
import logging
import sys
from types import SimpleNamespace
from typing import Any

import pytest

import oa_core
from oa_core.adapters.dspy import MetricResult, OAMetric, dspy_metric

FIELD_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                                 "year": {"type": "integer"}},
                "required": ["city"]}


@pytest.fixture
def no_dspy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``dspy`` look absent (``find_spec`` returns None for a None module)."""
    monkeypatch.setitem(sys.modules, "dspy", None)


@pytest.mark.usefixtures("no_dspy")
class TestWithoutDSPy:
    def test_running_example_score_and_feedback(self, running: tuple[Any, Any, Any]) -> None:
        gold, candidate, schema = running
        metric = dspy_metric(schema)
        result = metric({"answer": json.dumps(gold)}, {"answer": json.dumps(candidate)})
        assert isinstance(result, MetricResult)
        assert result.score == 0.7678571428571429
        assert float(result) == result.score
        assert result.feedback == oa_core.feedback(gold, candidate, schema).text

    def test_gepa_signature(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA)
        inspect.signature(metric).bind(None, None, None, None, None)  # what GEPA checks
        gold = {"answer": {"city": "Paris"}}
        plain = metric(gold, {"answer": {"city": "Pariss"}})
        full = metric(gold, {"answer": {"city": "Pariss"}}, [], "predict", [])
        assert plain == full and 0 < plain.score < 1

    def test_raw_model_text(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA)
        gold = SimpleNamespace(answer='{"city": "Paris", "year": 2024}')
        fenced = SimpleNamespace(answer='Here it is:\n```json\n{"city": "Paris", "year": 2024}'
                                        '\n```\nAnything else?')
        prose = SimpleNamespace(answer='The answer is {"city": "Paris", "year": 2024}.')
        assert metric(gold, fenced).score == 1.0
        assert metric(gold, prose).score == 1.0

    def test_not_json_scores_zero_and_says_why_and_where(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA)
        result = metric({"answer": {"city": "Paris"}}, {"answer": "I don't know"})
        assert result.score == 0.0
        assert "'answer' output is not JSON" in result.feedback
        assert "line 1, column 1" in result.feedback
        broken = metric({"answer": {"city": "Paris"}}, {"answer": '```json\n{"city": }\n```'})
        assert broken.score == 0.0 and "line 1, column 10" in broken.feedback

    def test_missing_output_field_scores_zero(self) -> None:
        result = dspy_metric(FIELD_SCHEMA, field="graph")({"graph": {"city": "a"}},
                                                          SimpleNamespace(answer="{}"))
        assert result.score == 0.0 and "no 'graph' output" in result.feedback

    def test_bad_gold_raises(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA)
        with pytest.raises(oa_core.InputError, match="no field 'answer'"):
            metric({}, {"answer": "{}"})
        with pytest.raises(oa_core.InputError, match="holds no JSON value"):
            metric({"answer": "not json"}, {"answer": "{}"})
        with pytest.raises(oa_core.InputError) as info:
            metric({"answer": {"city": 3}}, {"answer": "{}"})
        assert info.value.document == "gold" and info.value.pointer == "/city"

    def test_gold_field_and_typed_outputs(self) -> None:
        class Model:  # a pydantic-like typed output
            def model_dump(self, mode: str) -> dict[str, Any]:
                assert mode == "json"
                return {"city": "Paris"}

        metric = dspy_metric(FIELD_SCHEMA, field="out", gold_field="expected")
        assert metric({"expected": {"city": "Paris"}}, {"out": Model()}).score == 1.0

    def test_options_reach_the_feedback(self, tmp_path: Any) -> None:
        templates = tmp_path / "t.toml"
        templates.write_text('primitive-value = "fix {path}: want {gold} (+{delta:.2f})"\n')
        metric = dspy_metric(FIELD_SCHEMA, top_k=1, templates=str(templates), style="text")
        result = metric({"answer": {"city": "Paris", "year": 2024}},
                        {"answer": {"city": "Rome", "year": 2023}})
        assert "Top 1 of 2" in result.feedback and "fix /city: want 'Paris'" in result.feedback
        compact = dspy_metric(FIELD_SCHEMA, style="compact")({"answer": {"city": "Paris"}},
                                                           {"answer": {"city": "Rome"}})
        assert compact.feedback.startswith("score ")

    def test_strict_mode_names_the_violations(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA, strict=True)
        result = metric({"answer": {"city": "Paris", "year": 2024}},
                        {"answer": {"city": "Paris", "year": "2024"}})
        assert result.score == 0.0
        assert "strict mode" in result.feedback and "/year" in result.feedback

    def test_unknown_option(self) -> None:
        with pytest.raises(TypeError, match="top_kk"):
            dspy_metric(FIELD_SCHEMA, top_kk=3)

    def test_bad_schema_fails_when_built(self) -> None:
        with pytest.raises(oa_core.SchemaError):
            dspy_metric({"type": "object", "properties": {"a": {"score": "nope"}}})

    def test_is_an_oametric(self) -> None:
        assert isinstance(dspy_metric(FIELD_SCHEMA), OAMetric)


@pytest.mark.dspy
def test_real_dspy_evaluate_and_gepa(running: tuple[Any, Any, Any]) -> None:
    """With DSPy installed: Prediction results, dspy.Evaluate and a tiny GEPA run."""
    import dspy  # a test dependency: missing it fails here rather than skipping
    from dspy.utils.dummies import DummyLM

    gold, candidate, schema = running
    metric = dspy_metric(schema)
    example = dspy.Example(question="extract", answer=json.dumps(gold)).with_inputs("question")
    pred = dspy.Prediction(answer=f"```json\n{json.dumps(candidate)}\n```")
    result = metric(example, pred)
    assert isinstance(result, dspy.Prediction)
    assert result.score == 0.7678571428571429
    assert result.feedback.startswith("The prediction scored 0.77 (deficit 0.23).")

    logging.disable(logging.CRITICAL)
    try:
        answer = {"answer": f"```json\n{json.dumps(candidate)}\n```"}
        with dspy.context(lm=DummyLM([answer] * 100)):
            program = dspy.Predict("question -> answer")
            evaluation = dspy.Evaluate(devset=[example] * 3, metric=metric, num_threads=1,
                                       display_progress=False)(program)
            assert evaluation.score == pytest.approx(76.79)
            reflection = DummyLM([{"new_instruction": "Answer with the JSON graph only."}] * 20,
                                 adapter=dspy.ChatAdapter())
            optimizer = dspy.GEPA(metric=metric, max_metric_calls=12, num_threads=1,
                                  reflection_lm=reflection, track_stats=False)
            optimizer.compile(program, trainset=[example] * 3, valset=[example] * 3)
    finally:
        logging.disable(logging.NOTSET)
    prompts = json.dumps([entry.get("messages") or entry.get("prompt")
                          for entry in reflection.history])
    assert "The prediction scored 0.77" in prompts  # OA feedback reached GEPA's reflection


@pytest.mark.usefixtures("no_dspy")
def test_align_options_go_through_align_options_coerce() -> None:
    gold, pred = {"answer": {"city": "Paris"}}, {"answer": {"city": "Pariss"}}
    by_keyword = dspy_metric(FIELD_SCHEMA, wl_mode="none")
    by_object = dspy_metric(FIELD_SCHEMA, options=oa_core.AlignOptions(wl_mode="none"))
    assert by_keyword.align_options == by_object.align_options
    assert by_keyword(gold, pred) == by_object(gold, pred)
    with pytest.raises(oa_core.InputError) as info:  # a bad value: one validation for all
        dspy_metric(FIELD_SCHEMA, wl_blend_lambda=2)
    assert info.value.pointer == "/wl_blend_lambda"
    # the limits reach the reading of the raw prediction too: too deep scores 0
    shallow = dspy_metric(FIELD_SCHEMA, limits=oa_core.Limits(max_depth=2))
    result = shallow(gold, {"answer": '{"city": [[["Paris"]]]}'})
    assert result.score == 0.0 and "nested deeper than 2 levels" in result.feedback


def test_defect_22_no_dead_helpers_or_option_lists() -> None:
    from oa_core.adapters import dspy as integrations

    assert not hasattr(integrations, "_sentence")
    assert not hasattr(integrations, "_ALIGN_OPTIONS")  # AlignOptions is the one list
