#!/usr/bin/env python3
"""Relocation test of the feed rewriter with a real feed parser.

feedparser (PyPI) parses each feed at its own URL, and absolve's rewrite of it (made
against that URL) at an unrelated URL: every URL feedparser resolves must be the same
in both (links, enclosures, images, the hrefs and srcs of the HTML it keeps; it drops
`srcset` and some attributes when sanitizing, on both sides alike).

    python3 tests/feed/relocation.py target/debug/absolve [PATH ...]

Each PATH is a feed or a directory, read recursively (default: fixtures/feed); files
named `damaged-*` are left out. It runs `absolve rewrite --format feed --url URL` on
each feed. Where feedparser itself departs from what absolve does for a reason the
standards give, the URL is counted apart as a known divergence ("known", with the
reason), not failed. A feed feedparser cannot parse (it raises) is "ok" when it raises
the same way on the rewrite, and fails otherwise; so does one absolve fails on.

Exit status 0 when every URL matches. The last lines count, per directory, the feeds
ok and failed, and the URLs compared.
"""

import collections
import concurrent.futures
import html.parser
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse

import feedparser

ORIGINAL_URL = "http://feeds.example.com/dir/feed.xml"
UNRELATED_URL = "http://unrelated.example.net/mirror/copy.xml"
# Where feedparser itself departs from W3C XML Base in a fixture, with why: counted
# apart, not failed. (The rules below cover whole kinds of departure.)
KNOWN_DIVERGENCES = {
    ("atom10.atom", ".entries[0].content[0].value<a href>"): (
        "feedparser ignores an xml:base on an element inside XHTML content (XML Base "
        "§4.2 gives that element's own base)"
    ),
}
ID_AS_LINK = (
    "feedparser resolves an Atom id (or RSS guid) and gives it as the link when there is "
    "no <link>: an id is an identifier compared character by character, never resolved, "
    "and MUST NOT change when a document is relocated (RFC 4287 §4.2.6, §4.2.6.1): "
    "absolve leaves it as written"
)
BOGUS_COMMENT = (
    "HTML reads `<!` not followed by `--`, `DOCTYPE` or `[CDATA[` as a bogus comment up "
    "to the next `>` (HTML Standard §13.2.5.42, markup declaration open state): the tag "
    "whose `>` ends it is no tag, and absolve finds no link there; feedparser's SGML "
    "parser escapes the `<!` and reads the tag"
)
AMP_AT_END = (
    "feedparser reads `&amp;` at the end of an attribute value of HTML content as `&amp` "
    "(it reads `a&amp;b` as `a&b`): absolve writes the `&` its URL ends with as `&amp;`, "
    "which HTML reads as `&`"
)
# Keys of feedparser's result whose values are URLs.
URL_KEYS = {"href", "link", "url", "uri", "docs", "comments", "src"}


class Attributes(html.parser.HTMLParser):
    """The href and src values of an HTML fragment, in order, each with the reason it is
    a known divergence (or None)."""

    def __init__(self, value):
        super().__init__(convert_charrefs=True)
        self.value = value
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", value)]
        self.urls = []

    def handle_starttag(self, tag, attrs):
        line, column = self.getpos()
        at = self.line_starts[line - 1] + column
        known = BOGUS_COMMENT if in_bogus_comment(self.value, at) else None
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.urls.append((f"<{tag} {name}>", value, known))


def in_bogus_comment(value, at):
    """Whether the tag at `at` of feedparser's HTML `value` is in what HTML reads as a
    bogus comment: after a `<!` (which feedparser writes `&lt;!`) that starts no comment,
    DOCTYPE or CDATA section, with no `>` between them."""
    start = value.rfind("&lt;!", 0, at)
    if start < 0:
        return False
    after = value[start + len("&lt;!") :]
    if after.startswith("--") or after[:7].upper() == "DOCTYPE" or after.startswith("[CDATA["):
        return False
    return ">" not in value[start:at]


def id_is_link(node):
    """Whether feedparser's `link` of this feed or entry is an id (or guid) resolved: it
    says so (`guidislink`), and no `<link>` gave that URL. (Not always the entry's own
    id: an `<id>` in an element inside the entry counts too, if it comes first.)"""
    links = [dict.get(link, "href") for link in dict.get(node, "links", [])]
    return bool(dict.get(node, "guidislink")) and dict.get(node, "link") not in links


def urls(node, path=""):
    """Every URL in feedparser's result, with where it is and the reason it is a known
    divergence (or None), in a stable order. Values are read as stored: FeedParserDict's
    computed keys (`license`, `enclosures`) look up `links`, which a node may lack."""
    found = []
    if isinstance(node, dict):
        for key in sorted(node):
            value = dict.__getitem__(node, key)
            where = f"{path}.{key}"
            if key in URL_KEYS and isinstance(value, str):
                known = ID_AS_LINK if key == "link" and id_is_link(node) else None
                found.append((where, value, known))
            elif key == "value" and isinstance(value, str) and "html" in str(dict.get(node, "type", "")):
                parser = Attributes(value)
                parser.feed(value)
                found.extend((where + tag, url, known) for tag, url, known in parser.urls)
            else:
                found.extend(urls(value, where))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found.extend(urls(item, f"{path}[{i}]"))
    return found


def parsed_urls(data, url):
    """The URLs feedparser finds in `data` at `url`, or the exception it raised (as
    `Type: message`)."""
    try:
        result = feedparser.parse(
            data,
            response_headers={"content-location": url, "content-type": "application/xml"},
        )
        return urls(result), None
    except Exception as error:  # feedparser's own failure, compared on both sides
        return [], f"{type(error).__name__}: {error}"


def known_divergence(path, where, was, now, known):
    """Why `was` (at the original URL) and `now` (relocated) may differ, if they may."""
    if known:
        return known
    if was.endswith("&") and now == was[:-1] + "&amp":
        return AMP_AT_END
    return KNOWN_DIVERGENCES.get((path.name, where))


class Result:
    """What one feed gave."""

    def __init__(self):
        self.compared = 0
        self.unresolved = 0
        self.known = 0
        self.problems = []
        self.notes = []


def relocate(binary, path):
    result = Result()
    original = path.read_bytes()
    done = subprocess.run(
        [binary, "rewrite", "--format", "feed", "--url", ORIGINAL_URL],
        input=original,
        capture_output=True,
    )
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace").strip()
        result.problems.append(f"absolve exited with status {done.returncode}: {stderr}")
        return result
    before, before_error = parsed_urls(original, ORIGINAL_URL)
    after, after_error = parsed_urls(done.stdout, UNRELATED_URL)
    if before_error or after_error:
        if before_error == after_error:
            result.notes.append(f"feedparser fails on both alike: {before_error}")
        else:
            result.problems.append(
                f"feedparser: {before_error or 'parsed'} at the original URL, "
                f"{after_error or 'parsed'} relocated"
            )
        return result
    if [w for w, _, _ in before] != [w for w, _, _ in after]:
        result.problems.append(f"different structure: {len(before)} URLs vs {len(after)}")
        return result
    left_relative = []
    for (where, was, known), (_, now, _) in zip(before, after):
        if not urllib.parse.urlsplit(was).scheme and not was.startswith("#"):
            # feedparser left it relative (it does not resolve every element): nothing
            # to compare against.
            result.unresolved += 1
            left_relative.append(f"{where}={was!r}")
            continue
        if was == now:
            result.compared += 1
            continue
        reason = known_divergence(path, where, was, now, known)
        if reason:
            result.known += 1
            result.notes.append(f"known feedparser divergence at {where} ({was!r}, {now!r}): {reason}")
        else:
            result.compared += 1
            result.problems.append(f"{where}: {was!r} at the original URL, {now!r} relocated")
    if left_relative:
        result.notes.append(f"left relative by feedparser: {', '.join(left_relative)}")
    return result


def feeds(paths):
    """Each feed under `paths` (files, or directories read recursively), with the
    directory it is counted under."""
    for root in paths:
        if root.is_file():
            yield root, root.parent
            continue
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if not path.name.startswith("damaged-"):
                yield path, path.parent


def main():
    binary = sys.argv[1]
    paths = [pathlib.Path(p) for p in sys.argv[2:]] or [pathlib.Path("fixtures/feed")]
    counts = collections.defaultdict(collections.Counter)
    failed = False
    found = list(feeds(paths))
    # absolve runs while feedparser parses another feed: threads (feedparser holds the
    # GIL, the child process does not), results in order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = pool.map(lambda feed: relocate(binary, feed[0]), found)
    for (path, directory), result in zip(found, results):
        status = "FAIL" if result.problems else "ok"
        known = f", {result.known} known divergences" if result.known else ""
        print(
            f"{status} {path}: {result.compared} URLs the same{known}, "
            f"{result.unresolved} left relative by feedparser"
        )
        for line in result.notes + result.problems:
            print(f"    {line}")
        tally = counts[directory]
        tally[status] += 1
        tally["URLs compared"] += result.compared
        tally["known divergences"] += result.known
        failed |= bool(result.problems)
    for directory, tally in sorted(counts.items()):
        print(
            f"{directory}: {tally['ok']} ok, {tally['FAIL']} FAIL, "
            f"{tally['URLs compared']} URLs compared, {tally['known divergences']} known divergences"
        )
    total = sum(tally["URLs compared"] for tally in counts.values())
    feeds_failed = sum(tally["FAIL"] for tally in counts.values())
    print(f"{total} URLs compared, {feeds_failed} feeds failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
