"""The documentation site builds without a warning and its pages work in a browser (``make docs-check``).

Marked ``docs``: the default test run leaves it out (building runs every gallery example). The build
is incremental, so after ``make docs`` it takes seconds. The browser part drives Debian's headless
Chromium through its chromedriver (packages ``chromium`` and ``chromium-driver``) and skips cleanly
where they are missing.
"""

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag

import pytest

import sklearn_rankmetrics
import sklearn_rankmetrics.dask
import sklearn_rankmetrics.trec

pytestmark = pytest.mark.docs

DOCS = Path(__file__).resolve().parents[1] / "docs"
SITE = DOCS / "_build" / "html"
DATA = {"MEASURES", "NICKNAMES"}  # constants: documented, with no example to run


@pytest.fixture(scope="module")
def site():
    pytest.importorskip("sphinx_gallery", reason="the docs extra: pip install -e '.[docs]'")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(SITE)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-5000:]
    return SITE


class Links(HTMLParser):
    """The ids a page defines and the links it makes."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.images = set(), [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])


def parse(page):
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def public_names():
    for module in (sklearn_rankmetrics, sklearn_rankmetrics.trec, sklearn_rankmetrics.dask):
        for name in module.__all__:
            yield f"{module.__name__}.{name}", name


def test_every_public_name_has_a_reference_page_with_its_example(site):
    for qualified, name in public_names():
        page = site / "generated" / f"{qualified}.html"
        assert page.exists(), f"no reference page for {qualified}: add it to docs/api.rst"
        if name not in DATA:
            assert re.search(r">Examples<", page.read_text(encoding="utf-8")), f"{qualified}: no Examples section"


def test_constants_pages_describe_them(site):
    # Re-exported constants: the comment where each is defined, and the names it holds.
    measures = (site / "generated" / "sklearn_rankmetrics.trec.MEASURES.html").read_text(encoding="utf-8")
    assert "measures by name" in measures and "ndcg_cut" in measures
    nicknames = (site / "generated" / "sklearn_rankmetrics.trec.NICKNAMES.html").read_text(encoding="utf-8")
    assert "named sets of measures" in nicknames and "all_trec" in nicknames


def test_reference_titles_name_their_submodule(site):
    # The sidebar lists pages by title: the Dask ranking_report must not read as the other one.
    for qualified, name in public_names():
        title = parse_title(site / "generated" / f"{qualified}.html")
        submodule = qualified.removeprefix("sklearn_rankmetrics.").removesuffix(name)
        assert title.startswith(f"{submodule}{name} "), (qualified, title)


def test_no_page_shows_the_build_machines_paths(site):
    checkout = str(DOCS.parent)
    leaked = [page.relative_to(site) for page in site.rglob("*.html") if checkout in page.read_text(encoding="utf-8")]
    assert not leaked, leaked


def parse_title(page):
    return re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.DOTALL)[1].strip()


def test_every_internal_link_and_image_resolves(site):
    pages = sorted(site.rglob("*.html"))
    parsed = {page: parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for href in links.hrefs:
            if re.match(r"^[a-z]+:", href) or href.startswith("//"):
                continue  # external, mailto:, javascript:
            path, anchor = urldefrag(href)
            target = (page.parent / path).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
            elif anchor and target.suffix == ".html" and anchor not in parsed[target].ids:
                broken.append(f"{page.relative_to(site)} -> {href} (no such anchor)")
        broken += [
            f"{page.relative_to(site)} -> image {src}" for src in links.images if not (page.parent / src).exists()
        ]
    assert not broken, "\n".join(broken[:30])


@pytest.fixture(scope="module")
def browser(site):
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and chromedriver):
        pytest.skip("headless Chromium needs Debian's chromium and chromium-driver packages")
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
    ]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=chromedriver))
    yield driver
    driver.quit()


@pytest.mark.parametrize(
    ("page", "heading", "min_figures"),
    [
        ("index.html", "sklearn-rankmetrics", 0),
        ("user_guide/model_selection.html", "Model selection over query groups", 0),
        ("auto_examples/compare_rankers.html", "Comparing rankers", 2),
        ("auto_examples/tune_ranker.html", "Tuning rankers on real data", 1),
    ],
)
def test_pages_render_in_headless_chromium(browser, page, heading, min_figures):
    browser.get((SITE / page).as_uri())
    assert heading in browser.find_element("css selector", "h1").text
    article = browser.find_element("css selector", "article").text
    assert len(article) > 200, f"{page} rendered almost nothing"
    # The theme's navigation is built by its scripts: a page whose scripts failed has none.
    assert browser.find_elements("css selector", "nav.bd-header-links, .navbar-nav a"), "no navigation bar"
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])"
    )
    assert all(loaded for _, loaded in images), [src for src, loaded in images if not loaded]
    figures = [src for src, _ in images if "sphx_glr" in src and "thumb" not in src]
    assert len(figures) >= min_figures, f"{page}: {len(figures)} gallery figures"
    for href in browser.execute_script("return Array.from(document.links).map(a => a.href)"):
        if href.startswith("file:"):
            assert Path(urldefrag(href)[0].removeprefix("file://")).exists(), f"{page}: broken link {href}"


@pytest.mark.parametrize(
    "page",
    [
        "getting_started.html",
        *(f"user_guide/{path.stem}.html" for path in sorted((DOCS / "user_guide").glob("*.md"))),
    ],
)
def test_code_fits_its_column_at_1280_px(browser, page):
    browser.set_window_size(1280, 900)
    browser.get((SITE / page).as_uri())
    clipped = browser.execute_script(
        "return Array.from(document.querySelectorAll('article pre'))"
        ".filter(pre => pre.scrollWidth > pre.clientWidth + 1).map(pre => pre.textContent.slice(0, 60))"
    )
    assert not clipped, clipped
