"""Real-browser tests of the run-level views: load a bundled dataset, sort, filter, open a
pair and come back to the same table, the error patterns, field metrics, compare runs
and run tuning pages, and the HTML report downloaded and opened from disk with the
network blocked. Screenshots go to tests/screenshots/.

Every wait is on what the page shows (Playwright's auto-retrying ``expect``), never a
sleep; the ``page`` fixture blocks every request that leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Route, expect

from app.runs.dataset_views import sort_pairs
from oa_core.runs.dataset import load_folder, score_run
from oa_core.runs.runstats import filter_pairs

pytestmark = pytest.mark.browser
ORG = Path(__file__).resolve().parents[2] / "sample_data" / "datasets" / "org2graph_runs"
Shot = Callable[[Page, str], Path]

SETTLED = """() => !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector(".main-svg"))"""
HEADER = 35  # px: the data grid's header row, and the height of a row
OPEN_X = 70  # px: the middle of the Open buttons (after the row's selection box)
# the text of the pairs table's ids, in grid order (col 0 selects, col 1 is Open)
CELLS = """() => [...document.querySelectorAll('[id^="glide-cell-2-"]')]
    .map(cell => cell.textContent).filter(text => text.startsWith('org-'))"""


def settled(page: Page) -> None:
    page.wait_for_function(SETTLED)
    assert page.locator('[data-testid="stException"]').count() == 0


def pairs_box(page: Page) -> dict[str, float]:
    """Where the pairs table is: the first data grid after the "pairs match" caption."""
    return dict(page.evaluate("""() => {
        const caption = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
            .find(c => c.textContent.includes('pairs match the filters'));
        const grid = [...document.querySelectorAll('[data-testid="stDataFrame"]')]
            .find(g => caption.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING);
        grid.scrollIntoView({block: "center"});
        const box = grid.getBoundingClientRect();
        return {x: box.x, y: box.y, height: box.height};
    }"""))


def wait_first_id(page: Page, expected: str) -> None:
    page.wait_for_function(f"expected => ({CELLS})()[0] === expected", arg=expected)


def open_dataset(page: Page, app_url: str, query: str) -> None:
    page.goto(f"{app_url}/dataset?{query}")
    expect(page.get_by_role("heading", name="Dataset", level=1)).to_be_visible()
    expect(page.get_by_text("pairs match the filters")).to_be_visible()
    settled(page)


def test_load_sort_filter_open_a_pair_and_come_back(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_dataset(page, app_url, "dataset=org2graph_runs&run=B")
    expect(page.get_by_text("320 of 320 pairs match the filters")).to_be_visible()
    expect(page.get_by_text("2 bad lines: listed here, the rest loaded")).to_be_visible()
    expect(page.get_by_text("43 format failures: cut off 30, refused 12, empty 1")
           ).to_be_visible()
    screenshot(page, "dataset-org2graph-b")
    # the order the library gives, worst first
    data = load_folder(ORG)
    scored = score_run(data, "B", workers=2)
    ascending = sort_pairs(scored.frame, "score", False)["id"].tolist()
    wait_first_id(page, ascending[0])
    # sort: descending
    page.get_by_text("Descending").click()
    wait_first_id(page, sort_pairs(scored.frame, "score", True)["id"].iloc[0])
    settled(page)
    # filter: an op kind, then a text
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("combobox", name="Op kind").click()
    page.get_by_role("option", name="wrong-reference").click()
    chosen = sort_pairs(filter_pairs(scored, kind="wrong-reference"), "score", True)
    expect(page.get_by_text(re.compile(f"^{len(chosen)} of 320 pairs match"))).to_be_visible()
    wait_first_id(page, chosen["id"].iloc[0])
    settled(page)
    target = chosen["id"].iloc[len(chosen) // 2]
    search = main.get_by_label("Search id, top op or problem")
    search.fill(target)
    search.press("Enter")
    expect(page.get_by_text(re.compile("^1 of 320 pairs match"))).to_be_visible()
    wait_first_id(page, target)
    settled(page)
    screenshot(page, "dataset-filtered")
    # a click on the row (its selection box) opens the pair in the Overview
    box = pairs_box(page)
    page.mouse.click(box["x"] + 18, box["y"] + HEADER + HEADER / 2)
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(f"Showing pair “{target}”")).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    assert "pair=" in page.url and "ds_kind=wrong-reference" in page.url
    settled(page)
    screenshot(page, "dataset-pair-overview")
    # and back to the same table state
    sidebar.get_by_role("link", name="Back to the dataset table").click()
    expect(page.get_by_role("heading", name="Dataset", level=1)).to_be_visible()
    expect(page.get_by_text(re.compile("^1 of 320 pairs match"))).to_be_visible()
    expect(main.get_by_label("Search id, top op or problem")).to_have_value(target)
    wait_first_id(page, target)
    settled(page)
    # the row's Open button opens it too
    box = pairs_box(page)
    page.mouse.click(box["x"] + OPEN_X, box["y"] + HEADER + HEADER / 2)
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    expect(sidebar.get_by_text(f"Showing pair “{target}”")).to_be_visible()
    expect(page.get_by_text("Alignment computed in")).to_be_visible()


def test_a_cut_off_pair_says_so_and_shows_the_raw_output(
        page: Page, app_url: str, screenshot: Shot) -> None:
    open_dataset(page, app_url, "dataset=org2graph_runs&run=B&ds_status=format+failure")
    expect(page.get_by_text(re.compile("^43 of 320 pairs match"))).to_be_visible()
    screenshot(page, "dataset-format-failures")
    main = page.locator('[data-testid="stMain"]')
    box = main.get_by_label("Open the pair with id")
    box.fill("org-0014")
    box.press("Enter")
    expect(page.get_by_role("heading", name="Overview", level=1)).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Output cut off:")).to_be_visible()
    raw = load_folder(ORG).pair("B", 13)["prediction"]
    expect(sidebar.get_by_text(f"What the model wrote ({len(raw):,} characters)")
           ).to_be_visible()
    # open (a format failure), ending where the model stopped
    wrote = sidebar.locator('[data-testid="stExpander"]').filter(has_text="What the model")
    expect(wrote.locator("code").first).to_contain_text(raw.rstrip()[-20:])
    expect(page.get_by_text("Alignment computed in")).to_be_visible()
    settled(page)
    screenshot(page, "dataset-pair-cut-off")


def test_error_patterns_and_field_metrics(page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/error-patterns?dataset=org2graph_runs&run=B")
    expect(page.get_by_role("heading", name="Error patterns", level=1)).to_be_visible()
    expect(page.get_by_text("cells from")).to_be_visible()
    settled(page)
    screenshot(page, "dataset-error-patterns")
    # a click on a cell lists its pairs in the Dataset table
    cell = page.locator('[data-testid="stPlotlyChart"] .scatterlayer .point').first
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_role("heading", name="Dataset", level=1)).to_be_visible()
    page.wait_for_function("() => window.location.search.includes('ds_kind=')")
    expect(page.get_by_text(re.compile(r"^\d+ of 320 pairs match the filters"))).to_be_visible()
    settled(page)
    page.goto(f"{app_url}/field-metrics?dataset=scierc_runs&run=B")
    expect(page.get_by_role("heading", name="Field metrics", level=1)).to_be_visible()
    expect(page.get_by_text("F1 (all fields)")).to_be_visible()
    settled(page)
    screenshot(page, "dataset-field-metrics")
    # run B's malformed outputs: one wrong-shape row, a dash where a ratio is undefined
    page.goto(f"{app_url}/field-metrics?dataset=org2graph_runs&run=B")
    expect(page.get_by_text("F1 (all fields)")).to_be_visible()
    settled(page)
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()  # the grid writes its cells' text once in view
    cells = grid.locator('[id^="glide-cell-"]')
    expect(cells.filter(has_text="(wrong shape)")).to_have_count(1)
    assert cells.filter(has_text=re.compile("^None$")).count() == 0
    assert cells.filter(has_text=re.compile(r"^/\*/")).count() == 0
    screenshot(page, "dataset-field-metrics-org2graph-b")


def test_compare_runs_and_a_document_side_by_side(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/compare-runs?dataset=org2graph_runs")
    expect(page.get_by_role("heading", name="Compare runs", level=1)).to_be_visible()
    expect(page.get_by_text("Wins / ties / losses of B")).to_be_visible()
    expect(page.get_by_text("B is worse at this level")).to_be_visible()
    expect(page.get_by_text("43 format failures new in B")).to_be_visible()
    settled(page)
    # the scatter's axes stay on [0, 1] (and a small margin) however wide the page
    ticks = page.locator('[data-testid="stPlotlyChart"] .xtick text').all_text_contents()
    assert ticks and all(0.0 <= float(t) <= 1.0 for t in ticks), ticks
    screenshot(page, "dataset-compare-runs")
    # a click on a point shows that document side by side
    point = page.locator('[data-testid="stPlotlyChart"] .scatterlayer .point').nth(5)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_role("heading", name=re.compile("side by side"))).to_be_visible()
    assert "cmp_doc=" in page.url
    settled(page)
    main = page.locator('[data-testid="stMain"]')
    picker = main.get_by_role("combobox", name="Document")
    picker.click()
    picker.press_sequentially("org-0001")
    page.get_by_role("option", name="org-0001", exact=True).click()
    expect(page.get_by_role("heading", name=re.compile("org-0001.*side by side"))).to_be_visible()
    settled(page)
    assert "cmp_doc=org-0001" in page.url
    screenshot(page, "dataset-compare-side-by-side")


def test_run_tuning(page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/run-tuning?dataset=scierc_runs&run=B&run_edits="
              '{"/properties/relations/valueWeight":0.0}')
    expect(page.get_by_role("heading", name="Run tuning", level=1)).to_be_visible()
    expect(page.get_by_text("Rank correlation (Spearman)")).to_be_visible()
    expect(page.get_by_text("Documents that moved most")).to_be_visible()
    settled(page)
    screenshot(page, "dataset-run-tuning")


def test_run_tuning_keeps_open_sections_open_across_an_edit(
        page: Page, app_url: str, screenshot: Shot) -> None:
    page.goto(f"{app_url}/run-tuning?dataset=scierc_runs&run=A")
    expect(page.get_by_text("No edit yet")).to_be_visible()
    settled(page)
    main = page.locator('[data-testid="stMain"]')
    for label in ("(root) (object)", "entities[] (object)"):
        main.locator("summary").filter(has_text=label).first.click()
    weight = main.get_by_role("spinbutton", name="valueWeight of entities")
    inner = main.get_by_role("spinbutton", name="valueWeight of id")
    expect(weight).to_be_visible()
    expect(inner).to_be_visible()
    weight.fill("2")
    weight.press("Enter")
    expect(page.get_by_text("1 edit: /properties/entities/valueWeight = 2.0")).to_be_visible()
    # the page is usable while the run is rescored; the new result replaces the old
    expect(page.get_by_text("Rescoring with the new settings")).to_have_count(0)
    expect(page.get_by_text("Mean, edited schema")).to_be_visible()
    settled(page)
    assert "run_edits=" in page.url
    # both sections the user opened are still open, the edited one marked
    expect(inner).to_be_visible()
    expect(weight).to_have_value("2.000")
    expect(main.locator("summary").filter(has_text="(root) (object) •")).to_be_visible()
    screenshot(page, "dataset-run-tuning-edited")


def test_the_report_downloads_and_opens_from_disk_offline(
        page: Page, app_url: str, browser_context: BrowserContext, tmp_path: Path,
        screenshot: Shot) -> None:
    open_dataset(page, app_url, "dataset=org2graph_runs&run=B")
    with page.expect_download() as download:
        page.get_by_role("button", name="HTML report").click()
    path = tmp_path / "report.html"
    download.value.save_as(path)
    text = path.read_text()
    assert "<script" not in text and "http" not in text
    # a new tab that may load the file itself and nothing else
    requested: list[str] = []
    tab = browser_context.new_page()

    def route(route: Route) -> None:
        requested.append(route.request.url)
        if route.request.url == path.as_uri():
            route.continue_()
        else:
            route.abort()

    tab.route("**/*", route)
    tab.goto(path.as_uri())
    expect(tab.get_by_role("heading", level=1)).to_contain_text("run B")
    expect(tab.get_by_text("Field metrics")).to_be_visible()
    expect(tab.locator('.oa-hist i:not([data-count="0"])').first).to_be_visible()
    screenshot(tab, "dataset-report")
    tab.close()
    assert requested == [path.as_uri()]


HOSTILE = "<img src=x onerror=alert(1)>**b**"


def test_upload_golds_and_predictions_with_hostile_text(
        page: Page, app_url: str, screenshot: Shot) -> None:
    golds = "\n".join(json.dumps({"id": f"{HOSTILE}{k}", "gold": {"name": f"n{k}",
                                                                   HOSTILE: [1, 2]}})
                      for k in range(3))
    predictions = "\n".join([
        json.dumps({"id": f"{HOSTILE}0", "prediction": "```json\n{\"name\": \"n0\"}\n```"}),
        json.dumps({"id": f"{HOSTILE}1", "candidate": {"name": "x", HOSTILE: [1]}}),
        "{broken"])
    page.goto(f"{app_url}/dataset")
    expect(page.get_by_text("Open an evaluation dataset in the sidebar")).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Upload a dataset").click()
    uploader = sidebar.locator('[data-testid="stFileUploader"]').last
    uploader.locator('input[type="file"]').set_input_files([
        {"name": "schema.json", "mimeType": "application/json",
         "buffer": b'{"type": "object"}'},
        {"name": "golds.jsonl", "mimeType": "application/json", "buffer": golds.encode()},
        {"name": f"{HOSTILE}.jsonl", "mimeType": "application/json",
         "buffer": predictions.encode()}])
    expect(page.get_by_text("3 of 3 pairs match the filters")).to_be_visible()
    expect(page.get_by_text("2 bad lines: listed here, the rest loaded")).to_be_visible()
    settled(page)
    # the hostile names are text everywhere: no image element was made from them
    assert page.locator("img[src='x']").count() == 0
    # the id, as text in the table
    page.wait_for_function("""id => [...document.querySelectorAll('[id^="glide-cell-2-"]')]
        .some(cell => cell.textContent === id)""", arg=f"{HOSTILE}0")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(f"run {HOSTILE}", exact=False)).to_be_visible()  # the file name
    screenshot(page, "dataset-upload-hostile")
    assert "dataset=upload-" in page.url
