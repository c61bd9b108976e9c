"""Invariants of the metric every adapter wraps (:class:`oa_core.adapters.judge.Judge`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from oa_core.adapters.judge import MISSING, Judge

SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"}, "n": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "meta": {"type": "object", "properties": {"a": {"type": "string"}}}}}
RECORDS = st.fixed_dictionaries({}, optional={
    "name": st.text(max_size=30), "n": st.integers(-5, 5),
    "tags": st.lists(st.sampled_from(["a", "b", "c"]), max_size=4),
    "meta": st.fixed_dictionaries({}, optional={"a": st.text(max_size=5)})})
LINES = st.lists(st.text(st.characters(blacklist_characters="\n"), max_size=400),
                 min_size=1, max_size=30)


@settings(max_examples=60)
@given(lines=LINES, budget=st.integers(200, 3000))
def test_the_budget_keeps_whole_leading_lines(lines: list[str], budget: int) -> None:
    judge = Judge(SCHEMA, max_chars=budget)
    text = "\n".join(lines)
    cut = judge._cut_lines(text)
    assert len(cut) <= budget
    if len(text) <= budget:
        assert cut == text
        return
    *kept, note = cut.split("\n")
    assert note.endswith(f"cut: feedback budget of {budget} chars]")
    if kept and not kept[-1].endswith("…"):
        assert lines[:len(kept)] == kept  # whole lines, from the start, in order
        assert note.startswith(f"[{len(lines) - len(kept)} more line")
    else:  # the first line alone is over the budget: its start
        assert lines[0].startswith(kept[0][:-1])


@settings(max_examples=40)
@given(gold=RECORDS, candidate=RECORDS)
def test_subscores(gold: dict[str, Any], candidate: dict[str, Any]) -> None:
    objectives = ["/name", "/n", "/tags", "/meta", "/meta/a"]
    judge = Judge(SCHEMA, objectives=objectives)
    verdict = judge.judge(gold, candidate)
    assert list(verdict.subscores) == objectives
    assert all(0.0 <= value <= 1.0 for value in verdict.subscores.values())
    assert judge.judge(gold, gold).subscores == dict.fromkeys(objectives, 1.0)
    for pointer in ("/name", "/n"):  # a leaf present on one side only scores 0
        if (pointer[1:] in gold) != (pointer[1:] in candidate):
            assert verdict.subscores[pointer] == 0.0
        elif pointer[1:] not in gold:
            assert verdict.subscores[pointer] == 1.0  # absent from both: nothing lost
    if verdict.score == 1.0:
        assert set(verdict.subscores.values()) == {1.0}


def test_missing_output() -> None:
    verdict = Judge(SCHEMA, field="answer", objectives=["/name"]).judge({"name": "x"}, MISSING)
    assert verdict.score == 0.0 and not verdict.has_json
    assert verdict.subscores == {"/name": 0.0}
    assert "has no 'answer' output" in verdict.feedback
