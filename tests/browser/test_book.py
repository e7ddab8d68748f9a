"""The book (``make book``) built once from this run's lesson executions, read in chromium.

The site is built from ``_build/executed/`` after tests/test_lessons.py has executed every
lesson in this run (these tests run last and wait for those executions; run alone, they let the
build execute what it lacks), served on a free localhost port, and read like a person would:
every lesson page without a JavaScript error and with its plots loaded, every internal link,
the search, a quiz toggle, a GPU output under its CPU output, a treescope display on a page
that arrives in parts, and screenshots at desktop and phone widths in
artifacts/browser/test_book/. The built site stays in artifacts/book/html/.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest
from playwright.sync_api import Browser, Page, Request, Route, expect, sync_playwright

from autograder import notebooks
from autograder.config import REPO_ROOT, SOLUTIONS_DIR
from course.book import lessons
from course.book.build import build
from tests.browser.jupyterlab import ARTIFACTS, Screenshots, launch, slug

pytestmark = pytest.mark.needs_every_lesson

BOOK_OUT = REPO_ROOT / "artifacts" / "book"
WAIT_FOR_LESSONS_S = 3600  # the other worker may still be running the suite's slowest scopes
RUN = os.environ.get("COURSE_TEST_RUN", "")
LESSONS = [path.parent.name for path in lessons.lessons()]
LESSON_02 = next((name for name in LESSONS if name.startswith("02_")), LESSONS[0])
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SOLUTION_BLOCKS = (
    ("### BEGIN SOLUTION", "### END SOLUTION"),
    ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"),
)


@dataclass
class Site:
    html: Path
    base: str
    build_s: float


def _lessons_in_this_run(session: pytest.Session) -> set[str]:
    return {
        item.cls.notebook.parent.name
        for item in session.items
        if item.cls is not None and item.module.__name__ == "tests.test_lessons"
        and hasattr(item.cls, "notebook")
    }  # fmt: skip


def _wait_for_executions(names: set[str]) -> None:
    """Until this run has executed every lesson in ``names`` (on any worker)."""
    deadline = time.monotonic() + WAIT_FOR_LESSONS_S
    while True:
        done = {name: lessons.status(name) for name in names}
        done = {name: s for name, s in done.items() if s is not None and s.run == RUN}
        if len(done) == len(names):
            break
        if time.monotonic() > deadline:
            pytest.fail(f"no execution of {sorted(names - done.keys())} in this run")
        time.sleep(2)
    failed = "\n".join(status.error for status in done.values() if not status.passed)
    if failed:
        pytest.fail(f"the book shows every lesson; these failed (tests/test_lessons.py):\n{failed}")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        pass


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Iterator[Site]:
    in_this_run = _lessons_in_this_run(request.session)
    if in_this_run:
        _wait_for_executions(in_this_run)
    # Executes only what this run did not (nothing, in `make test`).
    book = build(BOOK_OUT, execute=in_this_run != set(LESSONS))
    (ARTIFACTS / "test_book").mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "test_book" / "build.json").write_text(
        json.dumps({"build_s": book.seconds, "pages": book.pages, "bytes": book.size_bytes})
    )
    handler = functools.partial(_Quiet, directory=str(book.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(book.html, f"http://127.0.0.1:{server.server_port}/", book.seconds)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Reader:
    """A page of the site, and everything that went wrong while it was read."""

    page: Page
    base: str
    problems: list[str] = field(default_factory=list)

    def open(self, path: str) -> None:
        self.page.goto(self.base + path, wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def console(self, kind: str, text: str) -> None:
        if kind == "error":
            self.problems.append(f"console error: {text}")

    def response(self, status: int, url: str) -> None:
        if status >= 400:
            self.problems.append(f"{status}: {url}")


def _reader(browser: Browser, site: Site, viewport: dict[str, int]) -> Reader:
    context = browser.new_context(viewport=viewport)
    reader = Reader(context.new_page(), site.base)

    def only_this_site(route: Route, request: Request) -> None:
        if request.url.startswith(site.base):
            route.continue_()
        else:
            reader.problems.append(f"request leaving the site: {request.url}")
            route.abort()

    context.route("**/*", only_this_site)
    page = reader.page
    page.on("pageerror", lambda error: reader.problems.append(f"JavaScript error: {error}"))
    page.on("console", lambda message: reader.console(message.type, message.text))
    page.on("requestfailed", lambda r: reader.problems.append(f"failed request: {r.url}"))
    page.on("response", lambda response: reader.response(response.status, response.url))
    return reader


@pytest.fixture
def desktop(browser: Browser, site: Site) -> Iterator[Reader]:
    reader = _reader(browser, site, DESKTOP)
    yield reader
    reader.page.context.close()


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[Reader]:
    reader = _reader(browser, site, PHONE)
    yield reader
    reader.page.context.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Screenshots:
    return Screenshots(ARTIFACTS / "test_book" / slug(request.node.name))


def _plots_in(lesson: str) -> int:
    executed = notebooks.read(lessons.EXECUTED_DIR / lesson / "lesson.ipynb")
    outputs = (output for cell in executed.cells for output in cell.get("outputs", []))
    return sum("image/png" in output.get("data", {}) for output in outputs)


_IMAGES_JS = """async () => {
  const images = [...document.querySelectorAll('article img')];
  for (const image of images) {
    image.loading = 'eager';
    image.scrollIntoView();
    if (!image.complete) await new Promise((done) => { image.onload = image.onerror = done; });
  }
  return images.map((i) => ({src: i.currentSrc || i.src, width: i.naturalWidth,
                             plot: i.closest('.cell_output') !== null}));
}"""


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_page_loads_with_its_plots_and_no_error(
    lesson: str, desktop: Reader, shots: Screenshots
) -> None:
    desktop.open(f"lessons/{lesson}/lesson.html")
    expect(desktop.page.locator("article h1").first).to_be_visible()
    images = desktop.page.evaluate(_IMAGES_JS)
    broken = [image["src"] for image in images if image["width"] == 0]
    assert not broken, f"images that did not load: {broken}"
    plots = sum(image["plot"] for image in images)
    assert plots >= _plots_in(lesson), "every plot of the executed lesson is on the page"
    formulas = desktop.page.locator("article .math")
    if formulas.count():  # typeset by MathJax (from the site itself), not left as TeX
        expect(formulas.locator(".MathJax, .MathJax_Display")).to_have_count(formulas.count())
    desktop.page.evaluate("() => window.scrollTo(0, 0)")
    shots.take(desktop.page, "top")
    assert not desktop.problems, "\n".join(desktop.problems)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for name in ("href", "src"):
            if values.get(name):
                self.links.append(str(values[name]))


def _fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read()
            kind = response.headers.get("Content-Type", "")
            return response.status, body.decode("utf-8", "replace") if "html" in kind else ""
    except urllib.error.HTTPError as error:
        return error.code, ""


RUN_HERE = b'<treescope-run-here><script type="application/octet-stream">'


class _PausedAfterRunHere(_Quiet):
    """Sends an HTML page in two parts, the cut right after its first treescope script's start
    tag, as a network may: the parser then sees that script empty for a moment."""

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        body = path.read_bytes() if path.suffix == ".html" and path.is_file() else b""
        if RUN_HERE not in body:
            return super().do_GET()
        cut = body.index(RUN_HERE) + len(RUN_HERE)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:cut])
        self.wfile.flush()
        time.sleep(0.5)
        self.wfile.write(body[cut:])


def test_a_treescope_display_renders_when_its_page_arrives_in_parts(
    site: Site, browser: Browser
) -> None:
    """Without the book's deferred set-up (course/book/pages.py, defer_treescope) treescope's
    model display stays blank on such a page: "root.defns.insertContent is not a function"."""
    shown = sorted(p for p in site.html.glob("lessons/*/lesson.html") if RUN_HERE in p.read_bytes())
    assert shown, "no lesson page shows a treescope display (lesson 07's nnx.display)"
    handler = functools.partial(_PausedAfterRunHere, directory=str(site.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/{shown[0].relative_to(site.html)}")
        container = page.locator("treescope-container").first
        container.scroll_into_view_if_needed()  # treescope draws what comes into view
        drawn = "(document.querySelector('treescope-container').shadowRoot || {}).textContent"
        page.wait_for_function(f"() => ({drawn} || '').includes('treescope_root')", timeout=10_000)
        assert not errors, errors
    finally:
        page.close()
        server.shutdown()
        server.server_close()


def test_every_internal_link_resolves(site: Site) -> None:
    pages: dict[str, _Links] = {}
    queue, seen, broken = [site.base + "index.html"], set(), []
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        status, body = _fetch(url)
        if status != 200:
            broken.append(f"{status}: {url}")
            continue
        if body:
            parsed = _Links()
            parsed.feed(body)
            pages[url] = parsed
            for link in parsed.links:
                target = urljoin(url, link)
                if target.startswith(site.base):
                    queue.append(target.split("#", 1)[0])
    for url, parsed in pages.items():
        for link in parsed.links:
            target = urljoin(url, link)
            page, _, fragment = target.partition("#")
            if target.startswith(site.base) and fragment and page in pages:
                if unquote(fragment) not in pages[page].ids:
                    broken.append(f"no #{fragment} in {page} (linked from {url})")
    lesson_pages = {p for p in pages if re.search(r"/lessons/\d\d_\w+/lesson\.html$", p)}
    assert len(lesson_pages) == len(LESSONS), "every lesson page is linked from the book"
    assert not broken, "\n".join(broken)


def test_search_finds_block_until_ready_on_lesson_02(
    desktop: Reader, phone: Reader, shots: Screenshots
) -> None:
    for reader in (desktop, phone):
        reader.open("search.html?q=block_until_ready")
        link = reader.page.locator(f'a[href*="lessons/{LESSON_02}/lesson.html"]')
        hit = reader.page.locator("#search-results li", has=link).first
        expect(hit).to_be_visible()
        # The snippet under the hit is the page's text (docs/_static/search-summary.js), not
        # the toolbar that the theme's role="main" also holds ("....ipynb").
        snippet = hit.locator(".context")
        expect(snippet).to_have_text(re.compile(r"^(?!.*\.ipynb).{80,}", re.S))
        shots.take(reader.page, f"results-{reader.page.viewport_size['width']}")
        assert not reader.problems, "\n".join(reader.problems)


def test_a_quiz_answer_toggle_reveals_its_explanation(
    desktop: Reader, phone: Reader, shots: Screenshots
) -> None:
    for reader in (desktop, phone):
        reader.open(f"lessons/{LESSON_02}/quiz.html")
        question = reader.page.locator(".quiz-question").first
        explanation = question.locator(".quiz-explanation")
        expect(explanation).to_be_hidden()
        question.locator("summary").click()
        expect(explanation).to_be_visible()
        expect(explanation).to_contain_text("Lesson")
        question.evaluate("(node) => node.scrollIntoView({block: 'center'})")
        shots.take(reader.page, f"answer-open-{reader.page.viewport_size['width']}")
        assert not reader.problems, "\n".join(reader.problems)


def test_a_gpu_output_sits_under_the_cpu_output_of_its_cell(
    desktop: Reader, phone: Reader, shots: Screenshots
) -> None:
    gpu = ".gpu-output:not(.gpu-stale)"
    for lesson in LESSONS:
        desktop.open(f"lessons/{lesson}/lesson.html")
        if desktop.page.locator(gpu).count():
            break
    else:
        pytest.skip("no lesson cell is unchanged since a GPU run (every one says so instead)")
    cell = desktop.page.locator(".cell_output", has=desktop.page.locator(gpu)).first
    cpu = cell.locator(".output:not(:has(.output-label))").first
    box = cell.locator(gpu)
    expect(cell.locator(".cpu-label")).to_contain_text("CPU")
    expect(box.locator(".gpu-label")).to_contain_text(re.compile(r"On the GPU: \d+ × .+ jax "))
    assert box.bounding_box()["y"] >= cpu.bounding_box()["y"] + cpu.bounding_box()["height"] - 1
    expect(desktop.page.locator(".outputs-note")).to_contain_text("On the GPU")
    for reader in (desktop, phone):
        reader.open(f"lessons/{lesson}/lesson.html")
        target = reader.page.locator(".cell_output", has=reader.page.locator(gpu)).first
        target.evaluate("(node) => node.scrollIntoView({block: 'center'})")
        shots.take(reader.page, f"{lesson}-{reader.page.viewport_size['width']}")
        assert not reader.problems, "\n".join(reader.problems)


@pytest.mark.parametrize(
    "path",
    [
        "index.html",
        f"lessons/{LESSON_02}/lesson.html",
        f"lessons/{LESSON_02}/exercises.html",
        "docs/learners.html",
    ],
)
def test_pages_fit_a_phone_and_a_desktop(
    path: str, desktop: Reader, phone: Reader, shots: Screenshots
) -> None:
    for reader in (desktop, phone):
        reader.open(path)
        width = reader.page.viewport_size["width"]
        overflow = reader.page.evaluate("() => document.documentElement.scrollWidth")
        assert overflow <= width + 1, f"{path} is {overflow} px wide on a {width} px screen"
        shots.take(reader.page, f"{width}")
        assert not reader.problems, "\n".join(reader.problems)


def solution_lines() -> set[str]:
    """Lines only the solutions have: reference answers and hidden tests (not in any lesson)."""
    lessons_text = "".join(
        p.read_text(encoding="utf-8") for p in REPO_ROOT.glob("lessons/*/*.ipynb")
    )
    found = set()
    for path in SOLUTIONS_DIR.glob("*/*.ipynb"):
        for cell in notebooks.read(path).cells:
            for begin, end in SOLUTION_BLOCKS:
                pattern = rf"{re.escape(begin)}\n(.*?){re.escape(end)}"
                for block in re.findall(pattern, cell.source, re.S):
                    found |= {line.strip() for line in block.splitlines()}
    public = (line for line in found if line in lessons_text or _escaped(line) in lessons_text)
    return {line for line in found if len(line) >= 24} - set(public)


def _escaped(line: str) -> str:
    return json.dumps(line)[1:-1]  # as the line stands inside a notebook's JSON


def _readable(path: Path) -> str:
    """A site file's text as a reader (or a search engine) would see it."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":  # highlighted code is split into spans: drop the tags
        return html.unescape(re.sub(r"<[^>]+>", "", text))
    return text


def test_nothing_from_solutions_is_in_the_site(site: Site) -> None:
    secret = solution_lines()
    assert len(secret) > 100, "the check needs the solutions' own lines to look for"
    leaks = []
    for path in site.html.rglob("*"):
        if path.suffix not in {".html", ".txt", ".js", ".json", ".ipynb", ".md"}:
            continue
        text = _readable(path)
        if any(begin in text for begin, _ in SOLUTION_BLOCKS):
            leaks.append(f"{path}: an nbgrader solution or hidden-test marker")
        leaks += [f"{path}: {line}" for line in secret if line in text or _escaped(line) in text]
    assert not leaks, "\n".join(leaks[:20])
    assert not [p for p in site.html.rglob("*") if "solutions" in p.relative_to(site.html).parts]
