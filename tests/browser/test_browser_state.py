"""Real-browser tests of what lasts: the URL keeps the view across a refresh and a
page switch, a downloaded trio loads back, and the theme follows the browser.

Each step waits for what the server then shows (a text, a value, the URL), never for
a fixed time, so the tests hold with the CPU busy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import open_uploader
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser
Shot = Callable[[Page, str], Path]

RUNNING = Path(__file__).resolve().parents[2] / "sample_data" / "running_example"
SETTLED = """() => !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector(".main-svg"))"""


def query(page: Page) -> dict[str, str]:
    """The page's URL query parameters."""
    return {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}


def wait_for_query(page: Page, **expected: str) -> None:
    """Wait until the URL holds ``expected`` (the server writes it after a run)."""
    page.wait_for_function(
        """expected => {
            const params = new URLSearchParams(window.location.search);
            return Object.entries(expected).every(([k, v]) => params.get(k) === v);
        }""", arg=expected)


def score_metric(page: Page) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Score").first
    return metric.locator('[data-testid="stMetricValue"]').inner_text()


def combobox(page: Page, label: str) -> Locator:
    """The sidebar selectbox labelled ``label`` (an input showing the chosen option)."""
    return page.locator('[data-testid="stSidebar"]').get_by_role(
        "combobox", name=label, exact=True)


CUT_OFF = """element => element.scrollWidth > element.clientWidth + 1"""


def test_a_link_with_parameters_shows_the_same_view_after_a_refresh(
        page: Page, app_url: str, screenshot: Shot) -> None:
    fix = [{"op": "replace", "path": "/period/1", "value": 2025}]
    link = (f"{app_url}/referential?example=running_example&wl_mode=none"
            f"&fixes={json.dumps([fix], separators=(',', ':'))}")
    page.goto(link)
    expect(page.get_by_role("heading", name="Referential alignment", level=1)).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("1 fix applied to the candidate.")).to_be_visible()
    expect(page.get_by_role("radio", name="none (WL off)")).to_be_checked()
    wait_for_query(page, example="running_example", wl_mode="none")
    page.wait_for_function(SETTLED)
    before = query(page)
    screenshot(page, "state-link-referential")
    page.reload()
    expect(page.get_by_role("heading", name="Referential alignment", level=1)).to_be_visible()
    expect(sidebar.get_by_text("1 fix applied to the candidate.")).to_be_visible()
    expect(page.get_by_role("radio", name="none (WL off)")).to_be_checked()
    wait_for_query(page, **before)
    # a page switch keeps every parameter (the server writes them back)
    sidebar.get_by_role("link", name="Overview").click()
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    wait_for_query(page, **before)
    assert urlsplit(page.url).path == "/overview"


def test_choices_made_in_the_page_survive_a_refresh(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/overview?example=facts2order")
    sidebar = page.locator('[data-testid="stSidebar"]')
    variants = sidebar.get_by_role("radiogroup", name="Candidate")
    # the default variant shows something to repair
    expect(variants.get_by_role("radio", name="one adjacent swap")).to_be_checked()
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Score").first
    expect(metric).to_be_visible()
    before = score_metric(page)
    variants.get_by_text("fully reversed").click()
    wait_for_query(page, example="facts2order", candidate="candidates/fully_reversed.json")
    expect(metric.locator('[data-testid="stMetricValue"]')).not_to_have_text(before)
    page.wait_for_function(SETTLED)
    shown = score_metric(page)
    page.reload()
    expect(variants.get_by_role("radio", name="fully reversed")).to_be_checked()
    expect(metric.locator('[data-testid="stMetricValue"]')).to_have_text(shown)
    page.wait_for_function(SETTLED)
    screenshot(page, "state-facts2order-reversed")


def test_the_downloaded_trio_uploads_back_as_a_trio(
        page: Page, app_url: str, tmp_path: Path) -> None:
    page.goto(f"{app_url}/feedback?example=running_example&fixes="
              '[[{"op":"replace","path":"/period/1","value":2025}]]')
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("1 fix applied to the candidate.")).to_be_visible()
    with page.expect_download() as download:
        sidebar.get_by_role("button", name="Current trio (JSON)").click()
    path = tmp_path / "trio.json"
    download.value.save_as(path)
    page.goto(f"{app_url}/overview?example=facts2order")
    expect(sidebar.get_by_text("Sort four items by weight")).to_be_visible()
    # after the page's runs: a file given while a run redraws the sidebar was lost
    uploader = open_uploader(page, "gold")
    uploader.locator('input[type="file"]').set_input_files(
        {"name": "trio.json", "mimeType": "application/json", "buffer": path.read_bytes()})
    expect(sidebar.get_by_text(re.compile(
        r"Custom input: gold, candidate and schema\W+trio\.json"))).to_be_visible()
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Score").first
    expect(metric.locator('[data-testid="stMetricValue"]')).to_have_text("0.83")
    expect(page.get_by_text("share no keys")).to_have_count(0)
    page.wait_for_function("() => new URLSearchParams(location.search).has('trio')")
    trio = query(page)["trio"]
    page.reload()  # the uploaded trio stays while the explorer runs
    expect(metric.locator('[data-testid="stMetricValue"]')).to_have_text("0.83")
    assert query(page)["trio"] == trio


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_theme_follows_the_browser(page: Page, app_url: str, scheme: str,
                                       screenshot: Shot) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(f"{app_url}/overview")
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    page.wait_for_function(SETTLED)
    lightness = page.evaluate("""() => {
        const app = document.querySelector('[data-testid="stApp"]');
        const [r, g, b] = getComputedStyle(app).backgroundColor.match(/\\d+/g).map(Number);
        return (r + g + b) / 3;
    }""")
    assert (lightness > 128) == (scheme == "light"), lightness
    screenshot(page, f"theme-{scheme}")


def test_example_titles_are_not_cut_off(page: Page, app_url: str) -> None:
    page.goto(f"{app_url}/overview?example=org2graph")
    picker = combobox(page, "Bundled example")
    expect(picker).to_have_value("Org2Graph")
    expect(page.get_by_text("Relabelled graph with property twins.")).to_be_visible()
    assert not picker.evaluate(CUT_OFF)
    for label in ("plain ablation (ids compared by value)", "relabel + one rerouted reference"):
        expect(page.locator('[data-testid="stSidebar"]').get_by_text(label)).to_be_visible()
    picker.click()
    options = page.get_by_role("option")
    expect(options.first).to_be_visible()
    assert [o.inner_text() for o in options.all()][:3] == [
        "Running example", "Facts2Order", "Org2Graph"]
    for option in options.all():
        assert not option.evaluate(CUT_OFF), option.inner_text()
    page.keyboard.press("Escape")
