"""Real-browser tests of Overview, Match tree, Feedback and Schema tuning on the three
largest bundled examples (by document size: SciERC, Bio AMR, BioRED) and the running
example, with screenshots.

Every wait is on what the page shows (Playwright's auto-retrying ``expect``), never a
sleep; the network is blocked by the ``page`` fixture.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
Shot = Callable[[Page, str], Path]

LARGEST = ("scierc", "bio_amr", "biored")
MISMATCHES = {"scierc": 6, "bio_amr": 3, "biored": 8}
SETTLED = """() => !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector(".main-svg"))"""


def open_view(page: Page, app_url: str, path: str, example: str) -> None:
    page.goto(f"{app_url}/{path}?example={example}")
    expect(page.get_by_role("heading", level=1).first).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()


def settled(page: Page) -> None:
    page.wait_for_function(SETTLED)
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize("example", LARGEST)
def test_overview_shows_the_mismatches_first(
        page: Page, app_url: str, example: str, screenshot: Shot) -> None:
    open_view(page, app_url, "overview", example)
    count = MISMATCHES[example]
    expect(page.get_by_text(f"{count} mismatches", exact=False)).to_be_visible()
    table = page.locator("table.oa-diff")
    expect(table).to_be_visible()
    expect(table.locator("tr.note").first).to_contain_text("hidden")  # perfect parts hidden
    settled(page)
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    assert height < 3000, f"the overview is {height} px tall"
    screenshot(page, f"pages-overview-{example}")
    page.get_by_role("button", name="Next mismatch").click()
    expect(page.get_by_text(f"Mismatch 1 of {count}:")).to_be_visible()
    current = page.locator("#oa-current")
    expect(current).to_be_visible()
    expect(current).to_be_in_viewport()
    page.get_by_role("button", name="Previous mismatch").click()
    expect(page.get_by_text(f"Mismatch {count} of {count}:")).to_be_visible()
    expect(page.locator("#oa-current")).to_be_in_viewport()
    settled(page)
    screenshot(page, f"pages-overview-{example}-last-mismatch")


def test_overview_search_and_show_everything(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_view(page, app_url, "overview", "scierc")
    table = page.locator("table.oa-diff")
    expect(table).to_be_visible()
    # perfect: hidden (the closed folds hold it, unseen until clicked)
    expect(table.get_by_text('"cascaded systems"').filter(visible=True)).to_have_count(0)
    box = page.get_by_label("Search by path or value")
    box.fill("cascaded")
    box.press("Enter")
    expect(table.get_by_text('"cascaded systems"').filter(visible=True).first).to_be_visible()
    expect(page.get_by_text(re.compile(r"\d+ nodes? match"))).to_be_visible()
    settled(page)
    screenshot(page, "pages-overview-scierc-search")
    box.fill("")
    box.press("Enter")
    expect(table.get_by_text('"cascaded systems"').filter(visible=True)).to_have_count(0)
    page.get_by_text("Hide perfect subtrees").click()
    expect(table.get_by_text('"cascaded systems"').filter(visible=True).first).to_be_visible()
    # perfect rows are neutral: no background on them
    perfect = table.locator("tr.perfect td[style*='background']")
    expect(perfect).to_have_count(0)


@pytest.mark.parametrize("example", LARGEST)
def test_match_tree_pins_path_and_deficit(
        page: Page, app_url: str, example: str, screenshot: Shot) -> None:
    open_view(page, app_url, "match-tree", example)
    # a small table is plain HTML (drawn with the page), not a data grid
    box = page.locator('.oa-table[data-table="tree"]')
    box.scroll_into_view_if_needed()
    expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(0)
    headers = box.locator("thead th")
    expect(headers.first).to_have_text("path")
    expect(headers.nth(1)).to_have_text("deficit")
    path_x = headers.first.bounding_box()["x"]  # type: ignore[index]
    deficit_x = headers.nth(1).bounding_box()["x"]  # type: ignore[index]
    comparator = headers.filter(has_text="comparator")
    # scrolled all the way right, the last columns come into view and path and deficit
    # stay where they were (sticky)
    box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    expect(comparator).to_be_in_viewport()
    assert box.evaluate("el => el.scrollLeft") > 0  # the table is wider than its box
    assert headers.first.bounding_box()["x"] == pytest.approx(path_x, abs=1)  # type: ignore[index]
    assert headers.nth(1).bounding_box()["x"] == pytest.approx(  # type: ignore[index]
        deficit_x, abs=1)
    similarity = headers.filter(has_text="similarity")
    similarity_box = similarity.bounding_box()
    deficit_box = headers.nth(1).bounding_box()
    assert similarity_box is not None and deficit_box is not None
    # scrolled past: it lies under the pinned columns
    assert similarity_box["x"] < deficit_box["x"] + deficit_box["width"]
    expect(page.locator(".st-key-icicle text.slicetext").first).to_contain_text("score")
    box.evaluate("el => { el.scrollLeft = 0; }")
    # no Python None or NaN in a cell: an absent side is a dash, numbers are
    # right-aligned in the 4-decimal format
    cells = box.locator("tbody td")
    expect(cells.filter(has_text=re.compile(r"^—$")).first).to_be_attached()
    texts = cells.all_inner_texts()
    assert "None" not in texts and "nan" not in texts
    score = box.locator("tbody tr").first.locator("td").nth(3)
    expect(score).to_have_text(re.compile(r"^\d\.\d{4}$"))
    assert score.evaluate("el => getComputedStyle(el).textAlign") == "right"
    settled(page)
    screenshot(page, f"pages-match-tree-{example}")


@pytest.mark.parametrize("example", LARGEST)
def test_feedback_shows_delta_and_applied_alone(
        page: Page, app_url: str, example: str, screenshot: Shot) -> None:
    open_view(page, app_url, "feedback", example)
    expect(page.get_by_text(re.compile(r"delta \+\d\.\d{4} · gain [+-]\d\.\d{4}")).first
           ).to_be_visible()
    code = page.locator('[data-testid="stCode"]').first
    expect(code).to_contain_text("The prediction scored")
    assert "{'" not in code.inner_text()  # JSON values, not Python literals
    settled(page)
    screenshot(page, f"pages-feedback-{example}")


def test_feedback_filters_keep_the_page(page: Page, app_url: str, screenshot: Shot) -> None:
    open_view(page, app_url, "feedback", "scierc")
    expect(page.get_by_text("Top 5 of")).to_be_visible()
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowLeft")
    expect(page.get_by_text("Top 4 of")).to_be_visible()
    expect(page.get_by_role("button", name="Apply this fix")).to_have_count(4)
    minimum = page.get_by_label("Minimum delta")
    minimum.fill("0.02")
    minimum.press("Enter")
    expect(page.get_by_text("below the minimum delta left out")).to_be_visible()
    settled(page)
    screenshot(page, "pages-feedback-scierc-filtered")


@pytest.mark.parametrize("view", ["match-tree"])
def test_chart_toolbars_are_not_in_the_tab_order(page: Page, app_url: str, view: str) -> None:
    """The plotly charts (the icicle) have no mode bar; the Feedback chart and the small
    score matrices are plain HTML with nothing to focus (the WL graph is no longer
    plotly: app/pair/wl_stepper.py)."""
    open_view(page, app_url, view, "running_example")
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_attached()
    assert page.locator(".modebar-btn").count() == 0


def test_overview_folds_a_missing_record(page: Page, app_url: str, screenshot: Shot) -> None:
    """SciERC's missing entity 10 reads as its JSON, one field a line, not ``{3 keys}``."""
    open_view(page, app_url, "overview", "scierc")
    table = page.locator("table.oa-diff")
    missing = table.locator("tr", has=page.locator('td[title="/entities/10"]'))
    fold = missing.locator("details[open]").first
    expect(fold).to_be_visible()
    expect(fold.locator(".fold")).to_be_visible()
    expect(fold.locator(".fold")).to_contain_text('"type": ')
    settled(page)
    missing.scroll_into_view_if_needed()
    screenshot(page, "pages-overview-scierc-folded")
    root = table.locator("tbody tr").first.locator("details").first  # rows below it
    expect(root.locator(".fold")).to_be_hidden()  # closed under its size
    root.locator("summary").click()
    expect(root.locator(".fold")).to_be_visible()


def test_feedback_ranks_by_realised_gain(page: Page, app_url: str, screenshot: Shot) -> None:
    open_view(page, app_url, "feedback", "running_example")
    expect(page.get_by_role("heading", name="Repair operations by realised gain")
           ).to_be_visible()
    lines = page.get_by_text(re.compile(r"^delta \+\d\.\d{4} · gain [+-]\d\.\d{4}$"))
    expect(lines).to_have_count(5)
    assert lines.first.inner_text() == "delta +0.0625 · gain +0.0625"
    settled(page)
    screenshot(page, "pages-feedback-by-gain")
    page.get_by_text("the paper's delta", exact=True).click()
    expect(page.get_by_role("heading", name="Repair operations by the paper's delta")
           ).to_be_visible()
    expect(lines.first).to_have_text("delta +0.0625 · gain +0.0407")


def test_schema_tuning_where_the_score_moved_adds_up(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/schema-tuning?example=running_example")
    weight = page.get_by_role("spinbutton", name="valueWeight of agenda")
    weight.fill("3")
    weight.press("Enter")
    table = page.locator('[data-testid="stTable"]')
    expect(table).to_contain_text("-0.1280")  # the agenda's cost rose
    expect(table).to_contain_text("+0.0139")  # people's fell: its weight share shrank
    expect(table.locator("tbody tr").first).to_contain_text("-0.0933")  # the score's move
    expect(page.get_by_text("Rescoring with the new settings")).to_have_count(0)
    settled(page)
    table.scroll_into_view_if_needed()
    screenshot(page, "pages-schema-tuning-moved")
