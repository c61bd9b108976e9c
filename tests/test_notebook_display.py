"""The notebook views (oa_core.notebook): every result object's ``_repr_html_``.

Escaping (script and markdown in keys, values, ids, run names), the theme CSS, folding
and paging on a 200-record graph, every bundled example and dataset, and the widgets
with and without ipywidgets.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import oa_core
from oa_core.mismatches import mismatches
from oa_core.notebook import show, to_html, widgets
from oa_core.notebook.html import PAGE, THEME_CSS
from oa_core.notebook.scopes import MAX_DRAWN, MAX_ROUNDS, graph_svg
from oa_core.runs import dataset, runstats
from oa_core.runs.batch import iter_batch, summarize

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
HOSTILE = '<script>alert("x")</script> **bold** [link](javascript:alert(1)) <img src=x>'

PEOPLE_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "string", "idScope": "person"},
        "name": {"type": "string", "score": "exact"}}}},
    "links": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "from": {"type": "string", "ref": "person"},
        "to": {"type": "string", "ref": "person"}}}}}}


def load(folder: Path, name: str) -> Any:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def running_example() -> tuple[Any, Any, Any]:
    folder = SAMPLES / "running_example"
    return load(folder, "gold.json"), load(folder, "candidate.json"), load(folder, "schema.json")


def no_markup_from(html: str) -> None:
    """No tag the hostile text could have made survives."""
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "href" not in html.lower()  # the views make no link: markdown stays text
    assert "&lt;script&gt;" in html


def hostile_pair() -> tuple[Any, Any]:
    gold = {"people": [{"id": HOSTILE, "name": HOSTILE}, {"id": "b", "name": "Bo"}],
            "links": [{"from": HOSTILE, "to": "b"}], HOSTILE: HOSTILE}
    candidate = {"people": [{"id": "x" + HOSTILE, "name": HOSTILE + "!"}],
                 "links": [{"from": "x" + HOSTILE, "to": "zz"}], "**key**": HOSTILE}
    return gold, candidate


def test_every_view_escapes_user_text() -> None:
    gold, candidate = hostile_pair()
    alignment = oa_core.align(gold, candidate, PEOPLE_SCHEMA)
    feedback = oa_core.render_feedback(alignment)
    pages = [alignment._repr_html_(), feedback._repr_html_(),
             alignment.scopes["person"]._repr_html_(), alignment.wl["person"]._repr_html_()]
    for page in pages:
        no_markup_from(page)


def test_run_level_views_escape_user_text(tmp_path: Path) -> None:
    gold, candidate = hostile_pair()
    line = json.dumps({"id": HOSTILE, "gold": {HOSTILE: "a"}, "candidate": {HOSTILE: "b"}})
    summary = summarize(list(iter_batch([line], {"type": "object"})))
    no_markup_from(summary._repr_html_())
    golds = json.dumps({"id": HOSTILE, "gold": gold})
    run = json.dumps({"id": HOSTILE, "candidate": candidate}) + "\n{oops " + HOSTILE
    data = dataset.join_runs(PEOPLE_SCHEMA, ("golds.jsonl", golds), {HOSTILE: ("r.jsonl", run)})
    data.description = HOSTILE
    no_markup_from(data._repr_html_())
    scored = dataset.score_run(data, HOSTILE)
    no_markup_from(scored._repr_html_())
    assert "<script" not in show(runstats.compare(scored, scored)).html


def test_views_follow_the_theme() -> None:
    """JupyterLab's variables first, else the page's own text colour (no fallback: a
    light page on a dark system keeps dark text); the score colours are light, always
    under dark text."""
    assert "color: var(--jp-ui-font-color1);" in THEME_CSS
    assert "var(--jp-border-color2" in THEME_CSS
    assert "@media (prefers-color-scheme: dark)" in THEME_CSS
    page = oa_core.align(*running_example())._repr_html_()
    assert page.startswith('<div class="oa-nb"') and "<style>" in page
    for colour in re.findall(r'class="sc" style="background:(#[0-9a-f]{6})"', page):
        red, green, blue = (int(colour[k:k + 2], 16) for k in (1, 3, 5))
        assert 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.4 * 255, colour
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_running_example_view() -> None:
    alignment = oa_core.align(*running_example())
    page = alignment._repr_html_()
    assert "0.7679" in page
    # mismatches first, the costliest first: the agenda's and the period's (0.0625 each)
    costs = [node.deficit for node in mismatches(alignment.tree)]
    assert costs == sorted(costs, reverse=True) and len(costs) == 5
    assert page.index("Mismatches") < page.index("Aligned diff")
    # the perfect mentorships are folded (a closed details), the wrong agenda open
    assert re.search(r"<details><summary><div class=\"r\"><span class=\"where\"[^>]*>"
                     r"mentorships", page)
    assert re.search(r"<details open><summary><div class=\"r\"><span class=\"where\"[^>]*>"
                     r"agenda", page)
    assert "5 perfect items" in page  # the five paired people, in one fold
    scope = alignment.scopes["person"]._repr_html_()
    assert scope.count("<td>colour</td>") == 2 and scope.count("<td>twin</td>") == 2
    trace = alignment.wl["person"]._repr_html_()
    assert "1 → 4 → 6" in trace and trace.count("<svg") == len(alignment.wl["person"].rounds)


def test_feedback_view_ranks_ops_with_deltas() -> None:
    result = oa_core.feedback(*running_example())
    page = result._repr_html_()
    deltas = [float(d) for d in re.findall(r"\+(\d\.\d{4})</td>", page)]
    assert deltas == sorted(deltas, reverse=True) and len(deltas) == len(result.ops)
    assert abs(sum(op.delta for op in result.ops) - result.deficit) < 1e-9
    assert page.count("★") == len(result.shown) + 1  # + the legend


def big_graph(records: int) -> tuple[Any, Any]:
    """A chain of ``records`` people, renumbered in the candidate, every 7th name wrong."""
    gold = {"people": [{"id": f"p{k}", "name": f"name {k}"} for k in range(records)],
            "links": [{"from": f"p{k}", "to": f"p{k + 1}"} for k in range(records - 1)]}
    candidate = {"people": [{"id": f"c{k}", "name": f"name {k}" + ("x" if k % 7 == 5 else "")}
                            for k in range(records)],
                 "links": [{"from": f"c{k}", "to": f"c{k + 1}"} for k in range(records - 1)]}
    return gold, candidate


def test_a_200_record_graph_stays_readable() -> None:
    alignment = oa_core.align(*big_graph(200), PEOPLE_SCHEMA)
    page = alignment._repr_html_()
    assert len(page) < 2_000_000
    wrong = len(range(5, 200, 7))
    # perfect people fold in runs between the wrong ones; rows past a page fold too
    assert "5 perfect items: 0, 1, 2, 3, …" in page and "6 perfect items: 6, 7, 8, 9, …" in page
    assert f"show {2 * wrong + 1 - PAGE} more rows" in page
    assert f"show {wrong - PAGE} more mismatches" in page
    trace = alignment.wl["person"]
    assert len(trace.vertices) > MAX_DRAWN
    wl_page = trace._repr_html_()
    assert "<svg" not in wl_page and "the graph is not drawn" in wl_page
    assert len(trace.rounds) > MAX_ROUNDS and "are not shown one by one" in wl_page
    last = len(trace.rounds) - 1
    assert f"<th>round {last}</th>" in wl_page and f"<th>round {MAX_ROUNDS - 1}</th>" not in wl_page
    assert f"show {len(trace.vertices) - PAGE} more vertices" in wl_page
    scope_page = alignment.scopes["person"]._repr_html_()
    assert f"show {200 - PAGE} more records" in scope_page


def test_a_huge_tree_is_cut_with_a_note() -> None:
    alignment = oa_core.align(*big_graph(60), PEOPLE_SCHEMA)
    from oa_core.notebook.alignment import diff_html

    page = diff_html(alignment.tree, max_nodes=50)
    total = sum(1 for _ in alignment.tree.iter_nodes())
    assert f"{total - 50} more nodes not drawn (over 50)" in page


def bundled_examples() -> list[tuple[str, str, str]]:
    items = []
    for example in json.loads((SAMPLES / "index.json").read_text(encoding="utf-8")):
        for schema in example["schemas"]:
            for candidate in example["candidates"]:
                items.append((example["id"], schema["file"], candidate["file"]))
    return items


@pytest.mark.parametrize(("example", "schema", "candidate"), bundled_examples())
def test_every_bundled_example_renders(example: str, schema: str, candidate: str) -> None:
    folder = SAMPLES / example
    alignment = oa_core.align(load(folder, "gold.json"), load(folder, candidate),
                              load(folder, schema))
    page = alignment._repr_html_()
    assert f"{alignment.score:.4f}" in page and "<script" not in page
    assert "Aligned diff" in page
    assert "recovers" in oa_core.render_feedback(alignment)._repr_html_() or \
        alignment.score == 1.0
    for name, scope in alignment.scopes.items():
        assert f"<b>{name}</b>" in scope._repr_html_()
    for trace in alignment.wl.values():
        assert "classes by round" in trace._repr_html_()


@pytest.mark.parametrize("name", sorted(p.name for p in (SAMPLES / "datasets").iterdir()
                                         if (p / "schema.json").exists()))
def test_every_bundled_dataset_renders(name: str) -> None:
    data = dataset.load_folder(SAMPLES / "datasets" / name)
    page = data._repr_html_()
    for run in data.runs:
        assert f"<td>{run}</td>" in page
    assert ("bad line(s)" in page) == bool(data.bad_lines)
    last = list(data.runs)[-1]
    scored = dataset.score_run(data, last)
    run_page = scored._repr_html_()
    assert f"mean {scored.scores.mean():.4f}" in run_page
    assert "show" in run_page and 'data-count="' in run_page  # paged pairs, histogram


def test_batch_summary_frame_and_view() -> None:
    gold, candidate, schema = running_example()
    lines = [json.dumps({"gold": gold, "candidate": candidate}), '{"gold": ']
    summary = summarize(list(iter_batch(lines, schema)))
    frame = summary.to_frame()
    assert list(frame.columns) == ["path", "kind", "count", "loss"]
    assert len(frame) == len(summary.patterns)
    assert frame.attrs["summary"]["failed"] == 1
    assert "1 scored</b>, 1 failed" in summary._repr_html_()


def test_to_html_refuses_what_it_cannot_show() -> None:
    with pytest.raises(TypeError, match="no notebook view for int"):
        to_html(3)


def test_interval_and_comparison_show() -> None:
    interval = runstats.bootstrap_mean([0.2, 0.4, 0.6])
    assert interval.render() in show(interval)._repr_html_()


def test_widgets_without_ipywidgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing ipywidgets: the static view, under the pip install to run."""
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    gold, candidate, schema = running_example()
    alignment = oa_core.align(gold, candidate, schema)
    for view in (widgets.wl_stepper(alignment), widgets.weight_editor(gold, candidate, schema),
                 widgets.fix_and_rescore(gold, candidate, schema)):
        assert isinstance(view, widgets.Static)
        page = view._repr_html_()
        assert "pip install &#x27;object-aligner-explorer[notebook]&#x27;" in page
        assert "notebook" in repr(view)
    stepper = widgets.wl_stepper(alignment)._repr_html_()
    assert stepper.count("<svg") == len(alignment.wl["person"].rounds)
    fixed = widgets.fix_and_rescore(gold, candidate, schema)._repr_html_()
    assert "→ <b>1.0000</b>" in fixed


def test_widgets_with_ipywidgets() -> None:
    gold, candidate, schema = running_example()
    alignment = oa_core.align(gold, candidate, schema)
    stepper = widgets.wl_stepper(alignment)
    slider, shown = stepper.children
    assert "Round 0" in shown.value
    slider.value = 1
    assert "Round 1" in shown.value and "split: 0 → 0, 1, 2, 3" in shown.value
    editor = widgets.weight_editor(gold, candidate, schema)
    which, amount, report = editor.children
    which.value = [label for label, _ in which.options].index("/properties/agenda/valueWeight")
    amount.value = 2.0
    assert "0.7679 → <b>0.7119</b>" in report.value and "/agenda" in report.value
    fixer = widgets.fix_and_rescore(gold, candidate, schema)
    *boxes, button, result = fixer.children
    for box in boxes:
        box.value = True
    button.click()
    assert "→ <b>1.0000</b>" in result.value


def test_no_widgets_when_nothing_to_step() -> None:
    gold, candidate, _ = running_example()
    flat = oa_core.align(gold, candidate, {"type": "object"})
    assert "No WL trace" in widgets.wl_stepper(flat)._repr_html_()


def test_graph_draws_arrows_and_self_loops() -> None:
    """Every edge ends in an arrowhead at its target; a record citing itself is a ring."""
    schema = {"type": "object", "properties": {"people": {
        "type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "person"},
            "boss": {"type": "string", "ref": "person"}}}}}}
    gold = {"people": [{"id": "a", "boss": "a"}, {"id": "b", "boss": "a"}]}
    candidate = {"people": [{"id": "x", "boss": "x"}, {"id": "y", "boss": "x"}]}
    trace = oa_core.align(gold, candidate, schema).wl["person"]
    svg = graph_svg(trace)
    assert svg.count("<polygon") == 2  # b -> a and y -> x
    assert svg.count('fill="none"') == 2  # the two self-loops
    assert "url(#" not in svg  # no marker shared by id across the page
