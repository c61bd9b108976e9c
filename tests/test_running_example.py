"""The paper's running example (fig:oa-example, fig:oa-wl, fig:oa-feedback)."""

from __future__ import annotations

import math

from oa_helpers import SPEC_FEEDBACK

import oa_core
from oa_core import apply_ops, feedback


def test_score_is_exact(running):
    assert oa_core.score(*running) == 0.7678571428571429


def test_bijection_and_property_scores(running):
    result = oa_core.align(*running)
    assert result.bijections == {"person": {1: 91, 2: 94, 3: 93, 4: 92, 5: 90, 6: None}}
    by_label = {child.label: child.score for child in result.tree.children}
    assert by_label == {"people": 5 / 6, "mentorships": 1.0,
                        "agenda": 0.48809523809523814, "period": 0.75}
    assert result.warnings == [] and result.violations == []


def test_without_wl_the_twins_swap(running):
    result = oa_core.align(*running, wl_mode="none")
    assert result.bijections["person"][4] == 90 and result.bijections["person"][5] == 92
    assert round(result.score, 4) == 0.6845
    assert result.wl == {}


def test_wl_rounds_separate_the_twins(running):
    trace = oa_core.align(*running).wl["person"]
    assert len(trace.rounds) == 3  # rounds 0, 1, 2; the last is stable
    assert len(set(trace.rounds[0])) == 1
    gold = dict(zip([v.record_id for v in trace.vertices if v.side == "gold"],
                    trace.colors("gold"), strict=True))
    cand = dict(zip([v.record_id for v in trace.vertices if v.side == "candidate"],
                    trace.colors("candidate"), strict=True))
    # Round 1 cannot tell the Daves apart (both are mentees only); round 2 can.
    assert trace.colors("gold", 1)[3] == trace.colors("gold", 1)[4]
    assert gold[4] != gold[5]
    assert gold[4] == cand[92] and gold[5] == cand[90]
    assert all(gold[g] == cand[c] for g, c in {1: 91, 2: 94, 3: 93}.items())


def test_blend_mode_gives_the_same_bijection(running):
    result = oa_core.align(*running, wl_mode="blend", wl_blend_lambda=0.5)
    assert result.bijections["person"] == {1: 91, 2: 94, 3: 93, 4: 92, 5: 90, 6: None}
    assert result.score == 0.7678571428571429


def test_feedback_text_matches_the_spec_notes(running):
    assert feedback(*running).text == SPEC_FEEDBACK


def test_feedback_deltas(running):
    fb = feedback(*running)
    assert [op.delta for op in fb.shown[:3]] == [0.0625, 0.0625, 0.0625]
    assert math.isclose(fb.shown[3].delta, 1 / 24, rel_tol=0, abs_tol=1e-15)
    assert math.isclose(fb.shown[4].delta, (1 - 0.9523809523809524) / 16, abs_tol=1e-15)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1 - fb.score)) < 1e-12


def test_applying_every_op_scores_one(running):
    gold, candidate, schema = running
    fixed = apply_ops(candidate, feedback(gold, candidate, schema).ops)
    assert oa_core.score(gold, fixed, schema) == 1.0
    assert candidate["agenda"] == ["reviews", "intro", "closin"]  # input untouched


def test_each_op_alone_recovers_about_its_delta(running):
    gold, candidate, schema = running
    base = oa_core.score(*running)
    for op in feedback(*running).ops:
        gained = oa_core.score(gold, apply_ops(candidate, [op]), schema) - base
        assert gained > 0
        assert abs(gained - op.delta) < 0.05, (op.path, gained, op.delta)


def test_deficit_matches_tree_nodes(running):
    tree = oa_core.align(*running).tree
    assert abs(tree.deficit - (1 - tree.score)) < 1e-15
    for node in tree.iter_nodes():
        if node.children:
            rebuilt = math.fsum(c.weight * c.score + c.key_weight * (c.key_score or 0.0)
                                for c in node.children)
            assert abs(rebuilt - node.score) < 1e-12, node.gold_path
