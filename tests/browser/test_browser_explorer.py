"""Real-browser tests of the explorer (Playwright + Debian Chromium, network blocked)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
Shot = Callable[[Page, str], Path]

RUNNING = Path(__file__).resolve().parents[2] / "sample_data" / "running_example"
PAGES = {
    "overview": "Overview",
    "match-tree": "Match tree",
    "referential": "Referential alignment",
    "feedback": "Feedback",
    "schema-tuning": "Schema tuning",
}


def open_page(page: Page, app_url: str, path: str = "") -> None:
    page.goto(f"{app_url}/{path}")
    expect(page.get_by_role("heading", level=1).first).to_be_visible()


def rewind_wl_slider(page: Page) -> None:
    """Move the WL round slider to round 0 with the keyboard, as a user would."""
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("Home")
    expect(page.get_by_text("Round 0 of")).to_be_visible()


def score_metric(page: Page) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Score").first
    return metric.locator('[data-testid="stMetricValue"]').inner_text()


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_opens_without_errors(
        page: Page, app_url: str, path: str, screenshot: Shot) -> None:
    open_page(page, app_url, path)
    expect(page.get_by_role("heading", name=PAGES[path], level=1)).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    page.wait_for_timeout(600)  # let plotly draw before the screenshot
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Page not found").count() == 0  # every page has its own URL
    screenshot(page, f"page-{path}")


def test_overview_shows_the_running_example_score(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("0.77")
    table = page.locator("table.oa-diff")
    expect(table).to_be_visible()
    expect(table.get_by_text("4 ↔ 0")).to_be_visible()
    page.get_by_text("Hide perfect subtrees").click()
    expect(table.get_by_text('"Alice"')).to_have_count(0)
    expect(table.get_by_role("cell", name='"closin"', exact=True)).to_be_visible()
    screenshot(page, "overview-hide-perfect")


def test_wl_round_slider_steps_through_the_refinement(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url, "referential")
    expect(page.get_by_text("Round 2 of 2")).to_be_visible()
    rewind_wl_slider(page)
    expect(page.get_by_text("Round 0 of 2")).to_be_visible()
    page.wait_for_timeout(500)
    screenshot(page, "referential-round-0")
    page.get_by_role("slider").first.press("ArrowRight")
    expect(page.get_by_text("Round 1 of 2")).to_be_visible()
    page.wait_for_timeout(500)
    screenshot(page, "referential-round-1")
    page.get_by_text("none (WL off)").click()
    expect(page.get_by_text("with WL off nothing breaks the tie").first).to_be_visible()
    page.wait_for_timeout(500)
    screenshot(page, "referential-wl-off")


def test_apply_a_fix_moves_the_score(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url, "feedback")
    expect(page.get_by_text("Top 5 of 5 fix locations")).to_be_visible()
    row = page.locator('[data-testid="stHorizontalBlock"]').filter(
        has_text="/period/1: expected 2025, got 2026")
    row.get_by_role("button", name="Apply this fix").click()
    expect(page.get_by_text("moved +0.0625")).to_be_visible()
    assert score_metric(page) == "0.83"
    screenshot(page, "feedback-applied")


def _upload(page: Page, files: dict[str, tuple[str, str]]) -> None:
    """Upload document -> (file name, text) through the sidebar and load them."""
    page.get_by_text("Upload or paste your own").click()
    for document, (name, text) in files.items():
        index = ["gold", "candidate", "schema"].index(document)
        uploader = page.locator('[data-testid="stFileUploader"]').nth(index)
        uploader.locator('input[type="file"]').set_input_files(
            {"name": name, "mimeType": "application/json", "buffer": text.encode()})
        expect(uploader.get_by_text(name)).to_be_visible()
    page.get_by_role("button", name="Load these documents").click()


def test_malformed_upload_shows_the_error_and_keeps_working(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    _upload(page, {"candidate": ("broken.json", '{"people": [\n  {"id": 1 "name": "x"}\n]}')})
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="Could not load")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("broken.json")
    expect(alert).to_contain_text("line 2, column 12")
    assert score_metric(page) == "0.77"
    screenshot(page, "upload-malformed")


def test_script_in_a_value_is_shown_as_text(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["agenda"][2] = "<script>window.__pwned = 1</script><b>bold</b>"
    _upload(page, {"candidate": ("evil.json", json.dumps(candidate))})
    cell = page.locator("table.oa-diff td").filter(has_text="<script>window.__pwned")
    expect(cell).to_be_visible()
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("table.oa-diff b").count() == 0
    screenshot(page, "escaped-script")


def test_query_string_selects_an_example(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/?example=org2graph")
    expect(page.get_by_text("A synthetic organisation graph whose candidate renumbers")
           ).to_be_visible()
    open_page(page, app_url, "referential?example=org2graph")
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    page.wait_for_timeout(600)
    screenshot(page, "org2graph-referential")


def test_two_hundred_record_graph_in_the_browser(
        page: Page, app_url: str, screenshot: Shot) -> None:
    rng = random.Random(5)
    size = 200
    people = [{"id": k + 1, "name": f"P{k % 100}", "role": "Engineer"} for k in range(size)]
    links = [{"mentor": rng.randrange(1, size + 1), "mentee": k + 1} for k in range(size)]
    new = {k + 1: 5000 + (k * 37) % size for k in range(size)}
    gold = {"people": people, "mentorships": links, "agenda": [], "period": [1, 2]}
    candidate = {"people": [{**p, "id": new[p["id"]]} for p in reversed(people)],
                 "mentorships": [{"mentor": new[m["mentor"]], "mentee": new[m["mentee"]]}
                                 for m in links], "agenda": [], "period": [1, 2]}
    open_page(page, app_url, "referential")
    _upload(page, {"gold": ("gold200.json", json.dumps(gold)),
                   "candidate": ("candidate200.json", json.dumps(candidate))})
    expect(page.get_by_text("Score with tie_break")).to_be_visible()
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("1.0000")
    rewind_wl_slider(page)
    page.wait_for_timeout(800)
    screenshot(page, "referential-200-records")
