"""The DSPy / GEPA metric of :mod:`oa_core.adapters.dspy`, with and without DSPy, and the
feedback budget and sub-scores of :class:`~oa_core.adapters.judge.Judge` it stands on."""

from __future__ import annotations

import inspect
import json
import logging
import sys
from types import SimpleNamespace
from typing import Any, ClassVar

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
    """With DSPy installed: Prediction results, dspy.Evaluate and a GEPA run end to end
    on DSPy's DummyLM, offline; the score, the feedback and the per-field objective
    scores reach the optimizer."""
    import dspy  # a test dependency: missing it fails here rather than skipping
    from dspy.utils.dummies import DummyLM

    from oa_core.adapters.dspy import accepts_objective_scores

    gold, candidate, schema = running
    assert accepts_objective_scores()  # the DSPy of the test extra reads them
    metric = dspy_metric(schema, objectives="properties")
    example = dspy.Example(question="extract", answer=json.dumps(gold)).with_inputs("question")
    pred = dspy.Prediction(answer=f"```json\n{json.dumps(candidate)}\n```")
    result = metric(example, pred)
    assert isinstance(result, dspy.Prediction)
    assert result.score == 0.7678571428571429
    assert result.feedback.startswith("The prediction scored 0.77 (deficit 0.23).")
    subscores = {"/people": 0.8333333333333334, "/mentorships": 1.0,
                 "/agenda": 0.48809523809523814, "/period": 0.75}
    assert result.objective_scores == subscores

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
                                  reflection_lm=reflection, track_stats=True)
            optimized = optimizer.compile(program, trainset=[example] * 3, valset=[example] * 3)
    finally:
        logging.disable(logging.NOTSET)
    prompts = json.dumps([entry.get("messages") or entry.get("prompt")
                          for entry in reflection.history])
    assert "The prediction scored 0.77" in prompts  # OA feedback reached GEPA's reflection
    details = optimized.detailed_results
    assert details.val_aggregate_scores[0] == 0.7678571428571429  # the score reached it
    assert details.val_aggregate_subscores[0] == subscores  # and the objectives
    assert details.objective_pareto_front == subscores


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
    from oa_core.adapters import dspy, judge

    for module in (dspy, judge):
        assert not hasattr(module, "_sentence")
        assert not hasattr(module, "_ALIGN_OPTIONS")  # AlignOptions is the one list


@pytest.mark.usefixtures("no_dspy")
class TestObjectives:
    def test_top_level_properties(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA, objectives="properties")
        result = metric({"answer": {"city": "Paris", "year": 2024}},
                        {"answer": {"city": "Paris", "year": 2023}})
        assert result.objective_scores == {"/city": 1.0, "/year": 0.5}
        assert dspy_metric(FIELD_SCHEMA)({"answer": {"city": "a"}},
                                         {"answer": {"city": "a"}}).objective_scores == {}

    def test_named_paths_absent_missing_and_excess(self) -> None:
        schema = {"type": "object", "properties": {
            "people": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "role": {"type": "string"}}}},
            "city": {"type": "string"}, "note": {"type": "string"}}}
        metric = dspy_metric(schema, objectives=["/people/0/name", "/people/1/name",
                                                 "/people/0/role", "/note", "/city"])
        gold = {"people": [{"name": "Ann"}, {"name": "Bob"}], "city": "Oslo"}
        pred = {"people": [{"name": "Ann"}], "note": "extra"}
        scores = metric({"answer": gold}, {"answer": pred}).objective_scores
        assert scores == {
            "/people/0/name": 1.0,
            "/people/1/name": 0.0,  # the whole record is missing
            "/people/0/role": 1.0,  # absent from both, below a matched record
            "/note": 0.0,  # only in the prediction
            "/city": 0.0,  # only in the gold
        }

    def test_no_json_scores_every_objective_zero(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA, objectives="properties")
        result = metric({"answer": {"city": "Paris"}}, {"answer": "no"})
        assert result.score == 0.0 and result.objective_scores == {"/city": 0.0, "/year": 0.0}

    @pytest.mark.parametrize(("objectives", "pointer", "message"), [
        (["/town"], "/objectives/0", "no place '/town'"),
        (["city"], "/objectives/0", "must be a JSON Pointer"),
        (["/city", "/city"], "/objectives", "the same pointer twice"),
        ("cities", "/objectives", "'properties' or a list"),
        (["/city/x"], "/objectives/0", "no place"),
    ])
    def test_bad_objectives(self, objectives: Any, pointer: str, message: str) -> None:
        with pytest.raises(oa_core.InputError, match=message) as info:
            dspy_metric(FIELD_SCHEMA, objectives=objectives)
        assert info.value.pointer == pointer and info.value.document == "options"

    def test_properties_needs_declared_properties(self) -> None:
        with pytest.raises(oa_core.InputError, match="declares properties"):
            dspy_metric({"type": "array"}, objectives="properties")


def test_old_dspy_gets_score_and_feedback_with_a_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from oa_core.adapters import dspy as adapter

    monkeypatch.setattr(adapter, "_result_factory", lambda: SimpleNamespace)
    monkeypatch.setattr(adapter, "accepts_objective_scores", lambda: False)
    with pytest.warns(UserWarning, match="does not read objective_scores"):
        metric = dspy_metric(FIELD_SCHEMA, objectives="properties")
    result = metric({"answer": {"city": "a"}}, {"answer": {"city": "a"}})
    assert vars(result) == {"score": 1.0, "feedback": result.feedback}


def test_accepts_objective_scores_without_dspy(monkeypatch: pytest.MonkeyPatch) -> None:
    from oa_core.adapters.dspy import accepts_objective_scores

    monkeypatch.setitem(sys.modules, "dspy", None)
    assert accepts_objective_scores() is False


WIDE = {"type": "object", "properties": {f"f{n:02d}": {"type": "string"} for n in range(40)}}


@pytest.mark.usefixtures("no_dspy")
class TestFeedbackBudget:
    gold: ClassVar[dict[str, Any]] = {"answer": {f"f{n:02d}": "gold value " * 12
                                                 for n in range(40)}}
    pred: ClassVar[dict[str, Any]] = {"answer": {f"f{n:02d}": f"other {n} " * 20
                                                 for n in range(40)}}

    def test_text_is_cut_by_lines_with_a_note(self) -> None:
        full = dspy_metric(WIDE, top_k=40, max_chars=None)(self.gold, self.pred).feedback
        assert len(full) > 5000
        for budget in (200, 1000, 2000):
            text = dspy_metric(WIDE, top_k=40, max_chars=budget)(self.gold, self.pred).feedback
            assert len(text) <= budget
            kept, note = text.rsplit("\n", 1)
            assert full.startswith(kept + "\n")  # whole lines, in order
            cut = full.count("\n") + 1 - (kept.count("\n") + 1)
            assert note == f"[{cut} more lines cut: feedback budget of {budget} chars]"

    def test_default_budget_and_ops_budget(self) -> None:
        text = dspy_metric(WIDE, top_k=40)(self.gold, self.pred).feedback
        assert len(text) <= 2000 and text.endswith("feedback budget of 2000 chars]")
        short = dspy_metric(WIDE, top_k=2)(self.gold, self.pred).feedback
        assert "Top 2 of 40" in short and "cut" not in short

    def test_one_long_line(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA, max_chars=200)
        result = metric({"answer": {"city": "Paris"}}, {"answer": "x" * 5000})
        assert len(result.feedback) <= 200 and result.feedback.endswith(
            "[1 more line cut: feedback budget of 200 chars]")
        assert "…\n" in result.feedback

    def test_json_style_drops_ops_then_shown(self) -> None:
        full = json.loads(dspy_metric(WIDE, top_k=40, style="json", max_chars=None)(
            self.gold, self.pred).feedback)
        text = dspy_metric(WIDE, top_k=40, style="json", max_chars=3000)(
            self.gold, self.pred).feedback
        data = json.loads(text)
        assert len(text) <= 3000 and data["ops"] == []
        assert data["shown"] == full["shown"][:len(data["shown"])]
        assert data["cut"] == len(full["shown"]) - len(data["shown"]) > 0

    def test_strict_json_keeps_valid_json(self) -> None:
        metric = dspy_metric(FIELD_SCHEMA, strict=True, style="json")
        result = metric({"answer": {"city": "Paris", "year": 2024}},
                        {"answer": {"city": "Paris", "year": "2024"}})
        data = json.loads(result.feedback)
        assert result.score == 0.0 and data["violations"][0]["pointer"] == "/year"

    @pytest.mark.parametrize("budget", [0, 199, True, 2.5, "big"])
    def test_bad_budget(self, budget: Any) -> None:
        with pytest.raises(oa_core.InputError, match="max_chars") as info:
            dspy_metric(FIELD_SCHEMA, max_chars=budget)
        assert info.value.pointer == "/max_chars"
