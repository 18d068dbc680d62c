#!/usr/bin/env python3
"""Relocation test of the feed rewriter with a real feed parser.

feedparser (PyPI) parses each fixture at its own URL, and absolve's rewrite of it (made
against that URL) at an unrelated URL: every URL feedparser resolves must be the same
in both (links, enclosures, images, the hrefs and srcs of the HTML it keeps; it drops
`srcset` and some attributes when sanitizing, on both sides alike).

    python3 tests/feed/relocation.py target/debug/absolve [fixtures/feed]

It runs `absolve rewrite --format feed --url URL` on each fixture. Exit status 0 when
every URL matches.
"""

import html.parser
import pathlib
import subprocess
import sys
import urllib.parse

import feedparser

ORIGINAL_URL = "http://feeds.example.com/dir/feed.xml"
UNRELATED_URL = "http://unrelated.example.net/mirror/copy.xml"
# Where feedparser itself departs from W3C XML Base, with why: counted apart, not failed.
KNOWN_DIVERGENCES = {
    ("atom10.atom", ".entries[0].content[0].value<a href>"): (
        "feedparser ignores an xml:base on an element inside XHTML content (XML Base "
        "§4.2 gives that element's own base)"
    ),
}
# Keys of feedparser's result whose values are URLs.
URL_KEYS = {"href", "link", "url", "uri", "docs", "comments", "src"}


class Attributes(html.parser.HTMLParser):
    """The href and src values of an HTML fragment, in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.urls.append((f"<{tag} {name}>", value))


def urls(node, path=""):
    """Every URL in feedparser's result, with where it is, in a stable order."""
    found = []
    if isinstance(node, dict):
        for key in sorted(node):
            value = node[key]
            where = f"{path}.{key}"
            if key in URL_KEYS and isinstance(value, str):
                found.append((where, value))
            elif key == "value" and isinstance(value, str) and "html" in str(node.get("type", "")):
                parser = Attributes()
                parser.feed(value)
                found.extend((where + tag, url) for tag, url in parser.urls)
            else:
                found.extend(urls(value, where))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found.extend(urls(item, f"{path}[{i}]"))
    return found


def parse(data, url):
    return feedparser.parse(
        data,
        response_headers={"content-location": url, "content-type": "application/xml"},
    )


def relocate(binary, path):
    original = path.read_bytes()
    rewritten = subprocess.run(
        [binary, "rewrite", "--format", "feed", "--url", ORIGINAL_URL],
        input=original,
        capture_output=True,
        check=True,
    ).stdout
    before = urls(parse(original, ORIGINAL_URL))
    after = urls(parse(rewritten, UNRELATED_URL))
    compared = unresolved = 0
    problems = []
    left_relative = []
    if [w for w, _ in before] != [w for w, _ in after]:
        problems.append(f"different structure: {len(before)} URLs vs {len(after)}")
        return compared, unresolved, problems
    for (where, was), (_, now) in zip(before, after):
        if not urllib.parse.urlsplit(was).scheme and not was.startswith("#"):
            # feedparser left it relative (it does not resolve every element): nothing
            # to compare against.
            unresolved += 1
            left_relative.append(f"{where}={was!r}")
            continue
        compared += 1
        if was != now:
            known = KNOWN_DIVERGENCES.get((path.name, where))
            if known:
                compared -= 1
                print(f"    known feedparser divergence at {where}: {known}")
                continue
            problems.append(f"{where}: {was!r} at the original URL, {now!r} relocated")
    if left_relative:
        print(f"    left relative by feedparser: {', '.join(left_relative)}")
    return compared, unresolved, problems


def main():
    binary = sys.argv[1]
    fixtures = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "fixtures/feed")
    failed = False
    total = 0
    for path in sorted(fixtures.iterdir()):
        if path.name.startswith("damaged-"):
            continue
        compared, unresolved, problems = relocate(binary, path)
        total += compared
        status = "ok" if not problems else "FAIL"
        print(f"{status} {path.name}: {compared} URLs the same, {unresolved} left relative by feedparser")
        for problem in problems:
            print(f"    {problem}")
        failed |= bool(problems)
    print(f"{total} URLs compared")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
