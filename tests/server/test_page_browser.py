"""The search page in a real headless Chromium (Debian's chromium and chromium-driver, Selenium).

The page is an MCP client of the server's own /mcp: each check compares what it renders with what
search_docs and get_doc answer a plain JSON-RPC client. A screenshot and the time to the first
result are kept under test-artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from library_fixtures import acme_index
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait
from server_support import REPO_ROOT, HttpServer, start_http_server, stop

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = REPO_ROOT / "test-artifacts"
WAIT = 15.0  # seconds for any one thing the page does

__all__ = ["acme_index"]  # a fixture used here

BREADCRUMB_SEPARATOR = " \u203a "  # what page.js joins a breadcrumb with

if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    # .ci/run installs both and sets DOCS_MCP_REQUIRE_BROWSER: there a missing browser fails.
    why = "needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver"
    if os.environ.get("DOCS_MCP_REQUIRE_BROWSER"):
        raise RuntimeError(why)
    pytest.skip(why, allow_module_level=True)


@pytest.fixture(scope="module")
def server(example_index: Path) -> Iterator[HttpServer]:
    running = start_http_server(example_index)
    try:
        yield running
    finally:
        stop(running)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1100,1300",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def call_tool(server: HttpServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What a plain MCP client gets from the same server (stateless: no session needed)."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer = httpx.post(
        server.url, json=message, headers={"Accept": "application/json, text/event-stream"}, timeout=WAIT
    ).json()
    result: dict[str, Any] = answer["result"]["structuredContent"]
    return result


def wait_until(driver: Any, condition: Any) -> Any:
    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(condition)


def rendered_ids(driver: Any) -> list[str]:
    return [
        hit.get_attribute("data-chunk-id") for hit in driver.find_elements(By.CSS_SELECTOR, "#hits > li.hit")
    ]


def wait_for_search(driver: Any, before: str | None) -> None:
    """Until the page has shown a search's answer after the one marked ``before``."""
    wait_until(
        driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-search-done") != before
    )


def search_mark(driver: Any) -> str | None:
    return str(driver.find_element(By.TAG_NAME, "body").get_attribute("data-search-done"))


def test_search_filter_open_and_page_on(server: HttpServer, browser: Any) -> None:
    # A linked search runs on load: the time to its first rendered hit is what a person waits.
    started = time.perf_counter()
    browser.get(f"{server.base}/?q=retries")
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hits > li.hit"))
    first_result_seconds = time.perf_counter() - started
    assert rendered_ids(browser) == [
        h["chunk_id"] for h in call_tool(server, "search_docs", {"query": "retries"})["hits"]
    ]

    # Type a query.
    box = browser.find_element(By.ID, "query")
    box.clear()
    mark = search_mark(browser)
    box.send_keys("create a payment", Keys.ENTER)
    wait_for_search(browser, mark)
    expected = call_tool(server, "search_docs", {"query": "create a payment"})
    assert rendered_ids(browser) == [hit["chunk_id"] for hit in expected["hits"]]
    assert parse_qs(urlsplit(browser.current_url).query) == {"q": ["create a payment"]}

    # Pick a facet: the select's values are the tool schema's enum.
    select = Select(browser.find_element(By.CSS_SELECTOR, "select[data-facet=language]"))
    assert [o.get_attribute("value") for o in select.options] == ["", "go", "python", "typescript"]
    mark = search_mark(browser)
    select.select_by_value("python")
    wait_for_search(browser, mark)
    filtered = call_tool(server, "search_docs", {"query": "create a payment", "language": "python"})
    assert rendered_ids(browser) == [hit["chunk_id"] for hit in filtered["hits"]]
    assert parse_qs(urlsplit(browser.current_url).query) == {
        "q": ["create a payment"],
        "language": ["python"],
    }
    first = browser.find_element(By.CSS_SELECTOR, "#hits > li.hit")
    assert first.find_element(By.CSS_SELECTOR, ".hit-title").text == filtered["hits"][0]["heading"]
    assert BREADCRUMB_SEPARATOR.join(filtered["hits"][0]["breadcrumb"]) in first.text
    assert f"language: {filtered['hits'][0]['facets']['language']}" in first.text

    # Open a hit: get_doc with one neighbour each side, the hit itself marked.
    chunk_id = first.get_attribute("data-chunk-id")
    first.find_element(By.CSS_SELECTOR, ".hit-title").click()
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk"))
    doc = call_tool(server, "get_doc", {"chunk_id": chunk_id, "context": 1})
    sections = browser.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk")
    assert [s.get_attribute("data-chunk-id") for s in sections] == [c["chunk_id"] for c in doc["chunks"]]
    assert len(sections) > 1
    target = browser.find_element(By.CSS_SELECTOR, "#doc-body section.chunk.target")
    assert target.get_attribute("data-chunk-id") == chunk_id
    wanted = next(c for c in doc["chunks"] if c["chunk_id"] == chunk_id)
    where = f"{wanted['file']} · section {wanted['position']} of {wanted['total']}"
    assert target.find_element(By.CSS_SELECTOR, ".position").text == where
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "page-get-doc.png"))
    browser.find_element(By.CSS_SELECTOR, "dialog .close").click()
    wait_until(browser, lambda d: not d.find_element(By.ID, "doc").is_displayed())

    # Page on: the cursor's next page is appended, nothing repeated.
    mark = search_mark(browser)
    select.select_by_value("")  # a filter change searches at once: let it finish
    wait_for_search(browser, mark)
    box.clear()
    mark = search_mark(browser)
    box.send_keys("sdk", Keys.ENTER)
    wait_for_search(browser, mark)
    page_one = rendered_ids(browser)
    mark = search_mark(browser)
    browser.find_element(By.ID, "more").click()
    wait_for_search(browser, mark)
    both = rendered_ids(browser)
    cursor = call_tool(server, "search_docs", {"query": "sdk"})["next_cursor"]
    assert both == page_one + [
        hit["chunk_id"] for hit in call_tool(server, "search_docs", {"cursor": cursor})["hits"]
    ]
    assert len(set(both)) == len(both) > len(page_one)
    assert browser.find_elements(By.CSS_SELECTOR, "#hits .also-in button[data-chunk-id]"), "also_in shown"
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(ARTIFACTS / "page-search.png"))

    # Nothing found: the server's hint is shown.
    box.clear()
    mark = search_mark(browser)
    box.send_keys("xyzzy plugh", Keys.ENTER)
    wait_for_search(browser, mark)
    hint = call_tool(server, "search_docs", {"query": "xyzzy plugh"})["hint"]
    assert rendered_ids(browser) == []
    assert browser.find_element(By.ID, "hint").text.startswith(hint["message"])

    # Nothing was blocked by the Content-Security-Policy and no script failed.
    problems = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert problems == []
    (ARTIFACTS / "page-timings.json").write_text(
        json.dumps({"first_result_seconds": round(first_result_seconds, 3)}) + "\n", encoding="utf-8"
    )


def test_a_search_begun_before_the_last_answer_arrives_shows_only_its_own_hits(
    server: HttpServer, browser: Any
) -> None:
    # A filter change searches at once; Enter right after starts another while the first is still
    # in flight. Whatever order the answers arrive in, only the newer one is shown (once seen in CI:
    # both were appended, so the list repeated hits).
    browser.get(f"{server.base}/")
    wait_until(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    mark = search_mark(browser)
    browser.execute_script(
        """
        const select = document.querySelector("select[data-facet=language]");
        document.getElementById("query").value = "create a payment";
        select.value = "go";
        select.dispatchEvent(new Event("change"));  // search 1, in flight
        document.getElementById("query").value = "sdk";
        document.getElementById("search").requestSubmit();  // search 2
        """
    )
    wait_for_search(browser, mark)
    expected = call_tool(server, "search_docs", {"query": "sdk", "language": "go"})
    time.sleep(0.5)  # an answer to search 1 arriving late must not be appended either
    assert rendered_ids(browser) == [hit["chunk_id"] for hit in expected["hits"]]


def test_the_page_asks_for_the_token_of_a_server_that_needs_one(
    example_index: Path, browser: Any, tmp_path: Path
) -> None:
    # serve --auth-tokens: /mcp answers 401 without the token, and the page then asks for it; the
    # token it is given goes with every request, so the search answers as it does for an agent.
    token = "page-token-" + os.urandom(8).hex()
    tokens = tmp_path / "tokens"
    tokens.write_text(token + "\n")
    guarded = start_http_server(example_index, "--auth-tokens", str(tokens))
    try:
        browser.get(guarded.base + "/?q=retries")
        form = wait_until(browser, lambda d: d.find_element(By.ID, "auth"))
        wait_until(browser, lambda d: form.is_displayed())
        assert "token" in browser.find_element(By.ID, "status").text
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready") != "true"
        browser.find_element(By.ID, "token").send_keys("not-the-token", Keys.ENTER)
        wait_until(browser, lambda d: "refused" in d.find_element(By.ID, "status").text)
        field = browser.find_element(By.ID, "token")
        field.clear()
        field.send_keys(token, Keys.ENTER)
        wait_until(
            browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
        )
        wait_until(browser, lambda d: rendered_ids(d))
        assert not form.is_displayed()
        answer = httpx.post(
            guarded.url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "search_docs", "arguments": {"query": "retries"}},
            },
            headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"},
            timeout=WAIT,
        ).json()
        expected = [hit["chunk_id"] for hit in answer["result"]["structuredContent"]["hits"]]
        assert rendered_ids(browser) == expected
        assert token not in "".join(guarded.stderr_lines)
    finally:
        browser.execute_script("sessionStorage.clear()")
        stop(guarded)


def test_a_section_cut_to_fit_the_budget_reads_on_to_its_end(browser: Any, tmp_path: Path) -> None:
    # serve --max-tokens at its floor: a long section comes back in windows (get_doc's next_cursor),
    # and "Read on" shows the next until the windows joined are the section's markdown.
    from docs_mcp.indexing import BuildOptions, build

    docs = tmp_path / "docs"
    docs.mkdir()
    paragraphs = [
        f"Paragraph {n} about retries: " + "backoff and jitter keep clients polite. " * 12 for n in range(40)
    ]
    (docs / "long.md").write_text("# Long guide\n\n## Retries\n\n" + "\n\n".join(paragraphs) + "\n")
    out = tmp_path / "index"
    build(BuildOptions(docs_dir=docs, out=out))
    small = start_http_server(out, "--max-tokens", "1000")
    try:
        browser.get(small.base + "/?q=retries")
        wait_until(browser, lambda d: rendered_ids(d))
        hit = browser.find_element(By.CSS_SELECTOR, "#hits > li.hit")
        section_id = hit.get_attribute("data-chunk-id")
        hit.find_element(By.CSS_SELECTOR, ".hit-title").click()
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk"))
        reads = 0
        while browser.find_elements(By.CSS_SELECTOR, "#doc-body .read-on"):
            count = len(browser.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk"))
            browser.find_element(By.CSS_SELECTOR, "#doc-body .read-on").click()
            wait_until(
                browser,
                lambda d, shown=count: (
                    len(d.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk")) > shown
                ),
            )
            reads += 1
            assert reads < 100
        assert reads > 0
        windows = [
            s.find_element(By.CSS_SELECTOR, "pre.markdown").get_attribute("textContent")
            for s in browser.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk")
            if s.get_attribute("data-chunk-id") == section_id
        ]
        whole = call_tool(small, "get_doc", {"chunk_id": section_id, "max_tokens": 20000})
        assert "".join(windows) == whole["chunks"][0]["markdown"]
        browser.find_element(By.CSS_SELECTOR, "dialog .close").click()
    finally:
        stop(small)


def test_several_libraries_filter_by_library_and_each_hit_names_its_own(
    example_index: Path, acme_index: Path, browser: Any
) -> None:
    # Two libraries in one server: `library` is the schema's first enum, so the page's first select.
    hub = start_http_server(f"payments={example_index}", "--index", f"widgets={acme_index}")
    try:
        browser.get_log("browser")  # read away what earlier tests left (the token test's 401s)
        browser.get(f"{hub.base}/?q=retries")
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hits > li.hit"))
        merged = call_tool(hub, "search_docs", {"query": "retries"})["hits"]
        assert rendered_ids(browser) == [hit["chunk_id"] for hit in merged]
        assert {hit["library"] for hit in merged} == {"payments", "widgets"}  # both answer unfiltered
        assert rendered_libraries(browser) == [hit["library"] for hit in merged]

        selects = browser.find_elements(By.CSS_SELECTOR, "#facets select[data-facet]")
        assert selects[0].get_attribute("data-facet") == "library"
        select = Select(selects[0])
        assert [o.get_attribute("value") for o in select.options] == ["", "payments", "widgets"]
        for library in ("widgets", "payments"):
            mark = search_mark(browser)
            select.select_by_value(library)
            wait_for_search(browser, mark)
            expected = call_tool(hub, "search_docs", {"query": "retries", "library": library})["hits"]
            assert expected and rendered_ids(browser) == [hit["chunk_id"] for hit in expected]
            assert rendered_libraries(browser) == [library] * len(expected)
            assert parse_qs(urlsplit(browser.current_url).query) == {"q": ["retries"], "library": [library]}

        # A hit opens in its own library: get_doc's window equals the one asked with that library.
        first = browser.find_element(By.CSS_SELECTOR, "#hits > li.hit")
        chunk_id = first.get_attribute("data-chunk-id")
        first.find_element(By.CSS_SELECTOR, ".hit-title").click()
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk"))
        doc = call_tool(hub, "get_doc", {"library": "payments", "chunk_id": chunk_id, "context": 1})
        sections = browser.find_elements(By.CSS_SELECTOR, "#doc-body section.chunk")
        assert [s.get_attribute("data-chunk-id") for s in sections] == [c["chunk_id"] for c in doc["chunks"]]
        ARTIFACTS.mkdir(exist_ok=True)
        browser.find_element(By.CSS_SELECTOR, "dialog .close").click()
        wait_until(browser, lambda d: not d.find_element(By.ID, "doc").is_displayed())
        browser.save_screenshot(str(ARTIFACTS / "page-libraries.png"))
        problems = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert problems == []
    finally:
        stop(hub)


def rendered_libraries(driver: Any) -> list[str]:
    """Each rendered hit's library, as the person reads it (its chip) and as the page marks it."""
    shown = []
    for hit in driver.find_elements(By.CSS_SELECTOR, "#hits > li.hit"):
        chip = hit.find_element(By.CSS_SELECTOR, ".meta .chip.library").text
        assert chip == f"library: {hit.get_attribute('data-library')}", chip
        shown.append(chip.removeprefix("library: "))
    return shown


def test_the_page_names_the_corpus_by_its_name_and_description_not_the_agent_instructions(
    browser: Any, tmp_path: Path
) -> None:
    # The line under the title is for a person: the corpus's name and description as the index
    # records them (the site's name, else build --description), never the instructions the manifest
    # writes for an agent.
    from docs_mcp.indexing import BuildOptions, build

    instructions = "Agents: always search with the widget's language set before answering."
    docs = tmp_path / "site" / "docs"
    docs.mkdir(parents=True)
    (tmp_path / "site" / "mkdocs.yml").write_text("site_name: Widget Docs\n")
    (docs / ".docs-mcp.json").write_text(json.dumps({"version": "1", "mcpServerInstructions": instructions}))
    (docs / "index.md").write_text(
        "# Widgets\n\nWidgets are small.\n\n## Install\n\nRun the installer.\nDone.\n"
    )
    described = "Widget Docs: guides to the widget toolkit"
    shown: dict[str | None, str] = {}
    for description in (None, described):
        out = tmp_path / ("described" if description else "named")
        build(BuildOptions(docs_dir=docs, out=out, description=description))
        named = start_http_server(out)
        try:
            browser.get(named.base + "/")
            wait_until(
                browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
            )
            shown[description] = browser.find_element(By.ID, "server-info").text
            assert instructions not in browser.find_element(By.TAG_NAME, "body").text
        finally:
            stop(named)
    assert shown == {None: "Widget Docs", described: described}
