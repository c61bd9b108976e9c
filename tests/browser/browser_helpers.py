"""Helpers the browser tests share."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

# The last script run finished (not "initial", "running" or "rerunRequested"): a
# rerun redraws the sidebar, and a file given to an input being redrawn can land
# in another uploader (a gold was once loaded as the schema).
IDLE = """() => !!document.querySelector('[data-test-script-state="notRunning"]')"""


def open_uploader(page: Page, document: str) -> Locator:
    """The sidebar's uploader of ``document`` ("gold", "candidate", "schema"), ready
    for a file: the runs before it finished, the upload section open.

    The section is opened by its state (the ``open`` attribute of its ``details``),
    never by whether an uploader happens to be drawn yet: a click on an open section
    would close it, and a file given while a run redraws the sidebar is lost or lands
    in another uploader.
    """
    sidebar = page.locator('[data-testid="stSidebar"]')
    section = sidebar.locator("details").filter(has_text="Upload or paste your own")
    page.wait_for_function(IDLE)
    expect(section).to_be_attached()
    if section.get_attribute("open") is None:
        section.locator("summary").click()
        page.wait_for_function(IDLE)
    uploader = sidebar.get_by_role("region", name=f"{document.capitalize()} file")
    expect(uploader).to_be_visible()
    return uploader


def upload(page: Page, files: dict[str, tuple[str, str]], *, valid: bool = True) -> None:
    """Upload document -> (file name, text) through the sidebar, one file after the other.

    A file loads as soon as the server has it; each step waits for what the server
    then shows: with ``valid`` the sidebar naming the file as that document, else the
    load error naming the file. Each uploader is found by its label, not its place,
    and opened by :func:`open_uploader`.
    """
    sidebar = page.locator('[data-testid="stSidebar"]')
    for document, (name, text) in files.items():
        uploader = open_uploader(page, document)
        uploader.locator('input[type="file"]').set_input_files(
            {"name": name, "mimeType": "application/json", "buffer": text.encode()})
        if valid:
            expect(sidebar.get_by_text(f"{document}: {name}")).to_be_visible()
        else:
            expect(page.locator('[data-testid="stAlert"]').filter(
                has_text="Could not load").filter(has_text=name)).to_be_visible()
