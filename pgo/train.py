"""The Python package's training run for pgo/build.sh --python: every public function of
`absolve` over this repository's fixtures/, as a crawler calls them (the WARC files through
warc_links and warc_link_batches, with every spec; every document through links,
links_table, rewrite and the Rewriter). Its counts, not its output, are what matters.

usage: python pgo/train.py FIXTURES_DIR
"""

import gzip
import pathlib
import sys
import warnings

import absolve

URL = "https://example.com/dir/page.html"
SKIPPED = {".py", ".md", ".tsv", ".txt"}


def train(fixtures):
    files = sorted(p for p in pathlib.Path(fixtures).rglob("*") if p.is_file() and p.suffix not in SKIPPED)
    for path in files:
        data = path.read_bytes()
        warc = ".warc" in path.name
        for spec in ("rfc1808", "rfc3986", "whatwg"):
            attempt(lambda: absolve.links(data, URL, spec=spec))
            if warc:
                attempt(lambda: sum(1 for _ in absolve.warc_links(str(path), spec=spec)))
                attempt(lambda: sum(b.num_rows for b in absolve.warc_link_batches(str(path), spec=spec)))
        attempt(lambda: absolve.links_table(data, URL))
        attempt(lambda: absolve.rewrite(data, URL))
        attempt(lambda: absolve.links(gzip.compress(data), URL))
        if path.suffix in (".html", ".htm"):
            attempt(lambda: chunked(data))


def chunked(data):
    rewriter = absolve.Rewriter(URL, keep_links=True)
    out = [rewriter.write(data[i : i + 1000]) for i in range(0, len(data), 1000)]
    out.append(rewriter.end())
    return b"".join(out), rewriter.take_links()


def attempt(call):
    """A fixture another format refuses (a WACZ given as a document) is passed over."""
    try:
        call()
    except (ValueError, OSError):
        pass


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        train(sys.argv[1])
