"""Real-browser tests of the explorer (Playwright + Debian Chromium, network blocked)."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_helpers import upload
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, FrameLocator, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import oa_core

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


# The page is done: no element left stale by a rerun, no lazy component still loading,
# every plotly chart drawn.
SETTLED = """() => !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector(".main-svg"))"""
# The number of colors of the WL graph's records (in the round stepper's frame).
STEPPER = 'iframe[title^="WL reference graph"]'
RECORD_CLASSES = """n => {
    const frame = document.querySelector('iframe[title^="WL reference graph"]');
    const doc = frame && frame.contentDocument;
    const shapes = doc ? [...doc.querySelectorAll("circle.vertex")] : [];
    return shapes.length > 0 && new Set(shapes.map(s => s.getAttribute("fill"))).size === n;
}"""


def open_page(page: Page, app_url: str, path: str = "") -> None:
    page.goto(f"{app_url}/{path}")
    expect(page.get_by_role("heading", level=1).first).to_be_visible()


def settled(page: Page) -> None:
    """Wait until the page has finished drawing (before a screenshot)."""
    page.wait_for_function(SETTLED)


def record_classes(page: Page, count: int) -> None:
    """Wait until the static WL graph colors its records with ``count`` classes."""
    page.wait_for_function(RECORD_CLASSES, arg=count)


def rewind_wl_slider(page: Page) -> None:
    """Move the WL round slider to round 0 with the keyboard, as a user would (the round
    stepper's, in its frame, or the interactive view's)."""
    # The stepper's frame may still be replaced by the one of a new upload while the
    # key is pressed (the rest of the page draws first): a key sent to the outgoing
    # frame is lost, so press again, as a user would, until round 0 shows.
    deadline = time.monotonic() + 90
    while True:
        where: Page | FrameLocator = page.frame_locator(STEPPER) if page.locator(
            STEPPER).count() else page
        slider = where.get_by_role("slider").first
        slider.focus()
        slider.press("Home")
        try:
            expect(where.get_by_text("Round 0 of").first).to_be_visible(timeout=5_000)
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise


def score_metric(page: Page) -> Locator:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Score").first
    return metric.locator('[data-testid="stMetricValue"]')


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_opens_without_errors(
        page: Page, app_url: str, path: str, screenshot: Shot) -> None:
    open_page(page, app_url, path)
    expect(page.get_by_role("heading", name=PAGES[path], level=1)).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Page not found").count() == 0  # every page has its own URL
    screenshot(page, f"page-{path}")


def test_overview_shows_the_running_example_score(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("0.77")
    table = page.locator("table.oa-diff")
    expect(table).to_be_visible()
    # perfect subtrees are hidden by default: the mismatches show, Alice does not
    expect(table.get_by_role("cell", name='"closin"', exact=True)).to_be_visible()
    # (her record is inside the root's folded JSON, closed: not shown)
    expect(table.get_by_text('"Alice"').filter(visible=True)).to_have_count(0)
    settled(page)
    screenshot(page, "overview-hide-perfect")
    page.get_by_text("Hide perfect subtrees").click()
    expect(table.get_by_text('"Alice"').filter(visible=True).first).to_be_visible()
    expect(table.get_by_role("cell", name='"closin"', exact=True)).to_be_visible()


def test_wl_round_slider_steps_through_the_refinement(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url, "referential")
    frame = page.frame_locator(STEPPER)
    expect(frame.get_by_text("Round 2 of 2:")).to_be_visible()
    record_classes(page, 6)
    rewind_wl_slider(page)
    expect(frame.get_by_text("Round 0 of 2:")).to_be_visible()
    record_classes(page, 1)
    settled(page)
    screenshot(page, "referential-round-0")
    frame.get_by_role("slider").first.press("ArrowRight")
    expect(frame.get_by_text("Round 1 of 2:")).to_be_visible()
    record_classes(page, 4)
    settled(page)
    screenshot(page, "referential-round-1")
    page.get_by_text("none (WL off)").click()
    expect(frame.get_by_text("WL is off, so nothing breaks the tie").first).to_be_visible()
    settled(page)
    screenshot(page, "referential-wl-off")


def test_apply_a_fix_moves_the_score(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url, "feedback")
    expect(page.get_by_text("Top 5 of 5 fix locations")).to_be_visible()
    row = page.locator('[data-testid="stHorizontalBlock"]').filter(
        has_text="/period/1: expected 2025, got 2026")
    row.get_by_role("button", name="Apply this fix").click()
    expect(page.get_by_text("moved +0.0625")).to_be_visible()
    expect(score_metric(page)).to_have_text("0.83")
    settled(page)
    screenshot(page, "feedback-applied")


def test_downloads_reproduce_the_score_shown(
        page: Page, app_url: str, tmp_path: Path, screenshot: Shot) -> None:
    """After a fix and a weight edit, the downloaded trio scores what the page shows."""
    open_page(page, app_url, "feedback")
    row = page.locator('[data-testid="stHorizontalBlock"]').filter(
        has_text="/period/1: expected 2025, got 2026")
    row.get_by_role("button", name="Apply this fix").click()
    expect(page.get_by_text("moved +0.0625")).to_be_visible()
    page.get_by_role("link", name="Schema tuning").click()
    weight = page.get_by_label("valueWeight of agenda", exact=True)
    weight.fill("2")
    weight.press("Enter")
    weight = page.get_by_label("valueWeight of agenda •", exact=True)
    expect(weight).to_be_visible()
    shown = page.locator('[data-testid="stMetric"]').filter(
        has_text="Score with the edited schema").locator('[data-testid="stMetricValue"]')
    expect(shown).not_to_have_text("0.8304")  # the agenda weighs more now
    at_two = shown.inner_text()
    # a second change of the same knob reruns only the page's fragments, not the
    # sidebar: its downloads must still carry this edit
    weight.fill("3")
    weight.press("Enter")
    expect(shown).not_to_have_text(at_two)
    settled(page)
    screenshot(page, "schema-tuning-edited")
    files = {}
    for label in ("Current trio (JSON)", "Edited schema (JSON)"):
        with page.expect_download() as download:
            page.get_by_role("button", name=label).click()
        path = tmp_path / download.value.suggested_filename
        download.value.save_as(path)
        files[label] = json.loads(path.read_text())
    trio = files["Current trio (JSON)"]
    assert trio["schema"] == files["Edited schema (JSON)"]
    assert trio["schema"]["properties"]["agenda"]["valueWeight"] == 3
    assert trio["candidate"]["period"] == [2023, 2025]  # the fix is in
    rescored = oa_core.score(trio["gold"], trio["candidate"], trio["schema"])
    expect(shown).to_have_text(f"{rescored:.4f}")


def test_malformed_upload_shows_the_error_and_keeps_working(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    upload(page, {"candidate": ("broken.json", '{"people": [\n  {"id": 1 "name": "x"}\n]}')},
            valid=False)
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="Could not load")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("broken.json")
    expect(alert).to_contain_text("line 2, column 12")
    expect(score_metric(page)).to_have_text("0.77")
    settled(page)
    screenshot(page, "upload-malformed")


def test_script_in_a_value_is_shown_as_text(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url)
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["agenda"][2] = "<script>window.__pwned = 1</script><b>bold</b>"
    upload(page, {"candidate": ("evil.json", json.dumps(candidate))})
    # the value's own cell (the folded JSON of its list and of the root holds it too)
    cell = page.locator("table.oa-diff").get_by_role(
        "cell", name='"<script>window.__pwned = 1</script><b>bold</b>"', exact=True)
    expect(cell).to_be_visible()
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("table.oa-diff b").count() == 0
    settled(page)
    screenshot(page, "escaped-script")
    # the Match tree's table (plain HTML, app/html_table.py) shows it as text too
    page.locator('[data-testid="stSidebarNav"]').get_by_role(
        "link", name="Match tree", exact=True).click()
    table = page.locator('.oa-table[data-table="tree"]')
    expect(table.locator("td").filter(has_text="<script>window.__pwned").first
           ).to_be_attached()
    assert page.evaluate("() => window.__pwned") is None
    assert table.locator("b, script").count() == 0


def test_query_string_selects_an_example(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/?example=org2graph")
    expect(page.get_by_text("A synthetic organisation graph whose candidate renumbers")
           ).to_be_visible()
    open_page(page, app_url, "referential?example=org2graph")
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    settled(page)
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
    upload(page, {"gold": ("gold200.json", json.dumps(gold)),
                   "candidate": ("candidate200.json", json.dumps(candidate))})
    expect(page.get_by_text("Score with tie_break")).to_be_visible()
    expect(page.locator('[data-testid="stMetricValue"]').first).to_have_text("1.0000")
    rewind_wl_slider(page)
    record_classes(page, 1)
    settled(page)
    screenshot(page, "referential-200-records")


GRAPH_FRAME = 'iframe[title^="Interactive reference graph"]'
# Colored (not gray) pixels on the vis-network canvas: the class-colored vertices.
COLORED_PIXELS = """(() => {
    const c = document.querySelector("canvas");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let colored = 0;
    for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 60) colored++;
    }
    return colored;
})()"""
VERTEX_COLORS = """new Set(network.body.data.nodes.get()
    .filter(n => typeof n.id === "number").map(n => n.color.background)).size"""
GRAPH_WAIT_S = 90


def wait_in_graph(page: Page, condition: str) -> Frame:
    """Wait until the JavaScript ``condition`` holds in the interactive graph's frame.

    Every rerun reloads that frame: a wait cut short by a reload starts again on the
    new document, until the condition holds or ``GRAPH_WAIT_S`` have passed.
    """
    check = f"() => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }}"
    deadline = time.monotonic() + GRAPH_WAIT_S
    while True:
        remaining_ms = (deadline - time.monotonic()) * 1000
        if remaining_ms <= 0:
            raise AssertionError(f"the graph frame never showed {condition}")
        frame = page.locator(GRAPH_FRAME).element_handle(
            timeout=remaining_ms).content_frame()
        if frame is None:
            continue
        try:
            frame.wait_for_function(check, timeout=remaining_ms)
            return frame
        except PlaywrightTimeout as exc:
            raise AssertionError(f"the graph frame never showed {condition}") from exc
        except PlaywrightError:  # the frame reloaded under us: wait on the new one
            continue


def open_interactive_graph(page: Page) -> Frame:
    """Switch the Referential page's graph to the interactive view; its frame once drawn."""
    page.get_by_text("interactive (drag & zoom)").click()
    return wait_in_graph(page, f"{COLORED_PIXELS} > 500")


def test_interactive_graph_draws_offline(page: Page, app_url: str, screenshot: Shot) -> None:
    open_page(page, app_url, "referential")
    expect(page.frame_locator(STEPPER).get_by_text("Round 2 of 2:")).to_be_visible()
    frame = open_interactive_graph(page)
    assert frame.evaluate("() => Object.keys(network.getPositions()).length") == 11 + 4
    wait_in_graph(page, f"{VERTEX_COLORS} === 6")
    rewind_wl_slider(page)  # round 0: everyone alike, one color
    wait_in_graph(page, f"{VERTEX_COLORS} === 1")
    page.get_by_role("slider").first.press("End")
    expect(page.get_by_text("Round 2 of 2")).to_be_visible()
    wait_in_graph(page, f"{VERTEX_COLORS} === 6 && {COLORED_PIXELS} > 500")
    assert page.locator('[data-testid="stException"]').count() == 0
    settled(page)
    screenshot(page, "referential-interactive")


def test_markup_in_a_name_is_a_tooltip_text_in_the_interactive_graph(
        page: Page, app_url: str, screenshot: Shot) -> None:
    evil = '<img src=x onerror="window.__pwned=1;parent.__pwned=1"><b>bold</b>'
    candidate = json.loads((RUNNING / "candidate.json").read_text())
    candidate["people"][0]["name"] = evil
    open_page(page, app_url, "referential")
    upload(page, {"candidate": ("evil.json", json.dumps(candidate))})
    expect(page.get_by_text("Score with tie_break")).to_be_visible()
    frame = open_interactive_graph(page)
    spot = frame.evaluate("""() => {
        const node = network.body.data.nodes.get().find(n => (n.title || "").includes("<img"));
        return network.canvasToDOM(network.getPositions([node.id])[node.id]);
    }""")
    # hover() scrolls the frame into view and waits for the canvas to hold still
    frame.locator("canvas").hover(position={"x": spot["x"], "y": spot["y"]})
    tooltip = frame.locator("div.vis-tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text('(<img src=x onerror="window.__pwned')  # markup as text
    assert tooltip.locator("img, b").count() == 0
    assert frame.evaluate("() => document.images.length") == 0
    assert frame.evaluate("() => window.__pwned") is None
    assert page.evaluate("() => window.__pwned") is None
    screenshot(page, "referential-interactive-escaped")


def as_typed(text: str) -> re.Pattern[str]:
    """``text`` as shown, where invisible word joiners may break autolinks and shortcodes."""
    return re.compile("^" + "\u2060?".join(map(re.escape, text)) + "$")


def test_defect_25_markup_in_names_shows_literally(
        page: Page, app_url: str, screenshot: Shot) -> None:
    """A scope, a property and a file named in Markdown/LaTeX show as typed, unrendered."""
    name = "**B** $y$ [L](http://x) www.a.org :material/home:"
    documents = {document: json.loads((RUNNING / f"{document}.json").read_text())
                 for document in ("schema", "gold", "candidate")}
    schema = documents["schema"]["properties"]
    schema["people"]["items"]["properties"]["id"]["idScope"] = name
    for role in ("mentor", "mentee"):
        schema["mentorships"]["items"]["properties"][role]["ref"] = name
    for document, value in documents.items():
        properties = value["properties"] if document == "schema" else value
        properties[name] = properties.pop("agenda")
    file_name = "**B** $y$ [L](x).json"  # a browser keeps no '/' in a file name
    open_page(page, app_url, "referential")
    upload(page, {document: (file_name if document == "candidate" else f"{document}.json",
                              json.dumps(value)) for document, value in documents.items()})
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(f"candidate: {file_name}")).to_be_visible()
    header = page.get_by_role("heading", name="Reference graph of scope")
    expect(header).to_have_text(as_typed(f"Reference graph of scope “{name}”"))
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    settled(page)
    screenshot(page, "defect-25-referential")
    page.get_by_role("link", name="Schema tuning").click()
    expect(page.get_by_text(as_typed(f"{name}  ·  array"))).to_be_visible()
    expect(page.get_by_text(as_typed(f"valueWeight of {name}"))).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    settled(page)
    screenshot(page, "defect-25-schema-tuning")
    rendered = page.locator('[data-testid="stSidebar"], [data-testid="stMain"]').locator(
        "strong:has-text('B'), .katex, a[href*='x'], a[href*='a.org'], "
        "[data-testid='stIconMaterial']:text-is('home')")
    expect(rendered).to_have_count(0)
