"""The web app in a real browser: Debian's Chromium (/usr/bin/chromium), driven by Playwright for Python
with that executable (no browser download), offline: any request that is not to the test server is
refused and fails the test.

What a user does: open a scenario, change a NIC's speed in the form, run, and see the chart and the
drain time change; type a bad field and see hvnet's message at its line; upload an NTttcp file and
see explain's answer; sign in with the token on a server that is not on loopback.

Skipped, saying why, without Playwright or Chromium (apt-get install chromium; pip install playwright).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import Served, drained_star

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)"
)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():  # pragma: no cover - a machine without Debian's Chromium
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)

SAMPLES = Path(__file__).parents[1] / "explain" / "samples"
SCENARIOS = Path(__file__).parents[1] / "explain" / "scenarios"
#: Each step waits at most this long (ms): a run takes a fraction of a second.
WAIT_MS = 8000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


@pytest.fixture
def open_app(browser: Any) -> Iterator[Callable[..., Any]]:
    """Opens the app of a server in a new page that may reach nothing else; at the end, no request
    went elsewhere and the page logged no error (but those `expected`)."""
    pages: list[tuple[Any, list[str]]] = []

    def open_page(server: Served, expected: str = "^$") -> Any:
        context = browser.new_context(viewport={"width": 1500, "height": 950})
        problems: list[str] = []

        def only_the_server(route: Any) -> None:
            if route.request.url.startswith(server.url):
                route.continue_()
            else:
                problems.append(f"request outside the server: {route.request.url}")
                route.abort()

        context.route("**/*", only_the_server)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)

        def logged(message: Any) -> None:
            if message.type == "error" and not re.search(expected, message.text):
                problems.append(f"console: {message.text}")

        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("console", logged)
        page.goto(server.url)
        pages.append((context, problems))
        return page

    yield open_page
    for context, problems in pages:
        context.close()
        assert problems == []


def _ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready=true]")


def _open(page: Any, name: str) -> None:
    page.click(f"#files li:text-is('{name}')")
    page.wait_for_function(f"document.querySelector('#name').value === {name!r}")


def _run(page: Any, button: str) -> Any:
    """Clicks a run button and waits for its answer's page; the frame, loaded."""
    page.evaluate("document.getElementById('answer').hidden = true")
    page.click(button)
    page.wait_for_selector("#answer:not([hidden])")
    frame = page.frame_locator("#view")
    return frame


def _drain_window(frame: Any) -> str:
    """The drain's window, as the report's maintenance-window table shows it: '14.1 s'."""
    row = frame.locator("tr", has_text="drain of hv1").first.inner_text()
    return re.split(r"\t", row)[3].strip()


def test_change_a_nic_speed_in_the_form_run_and_the_drain_time_changes(
    serve: Callable[..., Served], open_app: Any
) -> None:
    server = serve()
    (server.root / "star.yaml").write_text(drained_star())
    page = open_app(server)
    _ready(page)
    _open(page, "star.yaml")
    frame = _run(page, "button[data-run=simulate]")
    before = _drain_window(frame)
    frame.locator("svg.main-svg").first.wait_for()
    assert before == "14.1 s"
    page.click("#show-form")
    speed = page.locator("""input[data-path='["hosts",0,"nics",0,"speed"]']""")
    speed.fill("1Gbps")
    speed.press("Tab")  # the change event: the form writes the YAML
    page.click("#show-yaml")
    page.wait_for_function("document.querySelector('.cm-content').innerText.includes('speed: 1Gbps')")
    frame = _run(page, "button[data-run=simulate]")
    after = _drain_window(frame)
    assert after != before
    assert float(after.split()[0]) > 14.1 or "min" in after  # a tenth of the speed: a longer drain
    assert frame.locator(".plotly-graph-div svg.main-svg").count() >= 2  # the NIC charts drawn again


def test_a_bad_field_shows_hvnets_message_at_its_line(serve: Callable[..., Served], open_app: Any) -> None:
    server = serve()
    (server.root / "star.yaml").write_text(drained_star())
    page = open_app(server)
    _ready(page)
    _open(page, "star.yaml")
    page.locator(".cm-line").nth(3).click()  # line 4: "- name: hv1"
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("colour: red")
    problem = page.locator("#problems li[data-line='5']")
    problem.wait_for()
    assert problem.inner_text().startswith("star.yaml:5: hosts[0].colour: unknown field; allowed: name, cpu")
    assert page.locator(".cm-line").nth(4).inner_text().strip() == "colour: red"
    marked = page.locator(".cm-line").nth(4).locator(".cm-lintRange-error")
    assert marked.count() == 1  # underlined in the editor, at that line
    assert "1 problem" in page.inner_text("#file-state")


def test_an_ntttcp_upload_shows_explains_answer(serve: Callable[..., Served], open_app: Any) -> None:
    server = serve()
    (server.root / "two-vms.yaml").write_text((SCENARIOS / "two-vms-2x10g.yaml").read_text())
    page = open_app(server)
    _ready(page)
    page.click("details.measure summary")
    page.set_input_files("#measurements", str(SAMPLES / "ntttcp_windows_receive_cores_receiver.txt"))
    page.fill("#from", "vm1")
    page.fill("#to", "vm2")
    frame = _run(page, "#explain")
    text = frame.locator("body").inner_text()
    assert "receive cores" in text  # explain's answer: what limits the test on the twin
    assert "cycles per byte" in text.lower() or "cycles/byte" in text


def test_off_loopback_the_app_asks_for_the_token_once(serve: Callable[..., Served], open_app: Any) -> None:
    token = "browser-test-token-123456"
    server = serve(host="192.0.2.10", token=token)
    (server.root / "star.yaml").write_text(drained_star())
    page = open_app(server, expected="status of 401")  # the wrong token's answer
    assert page.url.endswith("/login")
    page.fill("#token", "not-it")
    page.click("button[type=submit]")
    assert "That is not the token" in page.inner_text("body")
    page.fill("#token", token)
    page.click("button[type=submit]")
    _ready(page)
    assert token not in page.url
    assert page.locator("#files li").all_inner_texts() == ["star.yaml"]
    cookies = page.context.cookies()
    assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [("hvnet_token", True, "Strict")]
