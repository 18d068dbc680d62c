"""absolve.links(page, url) from Python against its Python peers, same run, same pages.

    target/venv/bin/python benches/python_links.py [PAGE.html ...]

Peers (each returns every URL of the page, made absolute with urllib.parse.urljoin):
- lxml: lxml.html.document_fromstring + iterlinks() (it finds href, src, srcset? no:
  href/src/action/background/..., CSS url() and <meta refresh>, like absolve) + urljoin;
- selectolax (Lexbor): the elements with a URL attribute by one CSS selector + urljoin.

And the binding's own cost: absolve.links against absolve._count_links, the same library
call without building Python Link objects (goal: at most 30% over the library).

Pages: ../shared/corpus/html/*.html by default. Each figure is the minimum of REPEAT runs
after a warm-up (timeit's advice: the least disturbed by other load on a shared machine);
compare ratios within one run, not across runs.
"""

import pathlib
import sys
import time
from urllib.parse import urljoin

import absolve
import lxml.html
from selectolax.lexbor import LexborHTMLParser

REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "html"
URLS = {
    "cloudflare.com.html": "https://www.cloudflare.com/",
    "ecma402-spec.html": "https://tc39.es/ecma402/",
    "html-parsing-spec.html": "https://html.spec.whatwg.org/multipage/parsing.html",
}
REPEAT = 25

# The attributes selectolax is asked for: those of absolve's table that real pages use.
URL_ATTRIBUTES = ["href", "src", "action", "poster", "cite", "data", "background", "formaction"]
SELECTOR = ", ".join(f"[{a}]" for a in URL_ATTRIBUTES + ["srcset"])


def with_absolve(page, url):
    return absolve.links(page, url)


def with_absolve_resolved(page, url):
    return [link.resolved for link in absolve.links(page, url)]


def library_only(page, url):
    return absolve._absolve._count_links(page, url)


def with_lxml(page, url):
    root = lxml.html.document_fromstring(page)
    return [urljoin(url, link) for _element, _attribute, link, _pos in root.iterlinks()]


def with_selectolax(page, url):
    tree = LexborHTMLParser(page)
    found = []
    for node in tree.css(SELECTOR):
        attributes = node.attributes
        for name in URL_ATTRIBUTES:
            value = attributes.get(name)
            if value is not None:
                found.append(urljoin(url, value.strip()))
        srcset = attributes.get("srcset")
        if srcset:
            for candidate in srcset.split(","):
                words = candidate.split()
                if words:
                    found.append(urljoin(url, words[0]))
    return found


def best_ms(function, page, url):
    function(page, url)
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        function(page, url)
        times.append(time.perf_counter() - started)
    return min(times) * 1000


def best_ms_interleaved(first, second, page, url):
    """Both functions, turn about, so that a burst of other load hits both alike."""
    first(page, url), second(page, url)
    times = ([], [])
    for _ in range(2 * REPEAT):
        for function, kept in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            function(page, url)
            kept.append(time.perf_counter() - started)
    return min(times[0]) * 1000, min(times[1]) * 1000


def main(paths):
    pages = [pathlib.Path(p) for p in paths] or sorted(CORPUS.glob("*.html"))
    if not pages:
        sys.exit(f"no pages: give some, or put the corpus at {CORPUS}")
    print(f"absolve {absolve.__file__}; best of {REPEAT} runs, ms")
    header = (
        f"{'page':<24}{'KB':>5}{'links':>7}{'absolve':>9}{'+.resolved':>11}{'library':>9}"
        f"{'lxml':>8}{'selectolax':>11}{'x lxml':>8}{'x slx':>7}{'binding':>9}"
    )
    print(header)
    for path in pages:
        page = path.read_bytes()
        url = URLS.get(path.name, "https://example.com/" + path.name)
        found = len(with_absolve(page, url))
        figures = {
            name: best_ms(function, page, url)
            for name, function in [
                ("resolved", with_absolve_resolved),
                ("lxml", with_lxml),
                ("selectolax", with_selectolax),
            ]
        }
        figures["absolve"], figures["library"] = best_ms_interleaved(with_absolve, library_only, page, url)
        print(
            f"{path.name:<24}{len(page) // 1024:>5}{found:>7}"
            f"{figures['absolve']:>9.2f}{figures['resolved']:>11.2f}{figures['library']:>9.2f}"
            f"{figures['lxml']:>8.2f}{figures['selectolax']:>11.2f}"
            f"{figures['lxml'] / figures['absolve']:>7.1f}x"
            f"{figures['selectolax'] / figures['absolve']:>6.1f}x"
            f"{(figures['absolve'] / figures['library'] - 1) * 100:>8.0f}%"
        )
    print(
        "x lxml / x slx: how many times faster absolve.links is than the peer (goals 8x, 3x);"
        " binding: absolve.links over the library call alone (goal <= 30%)."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
