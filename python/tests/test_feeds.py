"""Feeds with a real feed parser: feedparser resolves every URL of a fixture feed at its
own URL and of absolve's rewrite of it at an unrelated URL; both must be the same
(tests/feed/relocation.py); and the Python functions read feeds as the CLI does."""

import subprocess
import sys

import pytest

import absolve
from conftest import FIXTURES, REPO, cli_binary


def test_feedparser_finds_the_same_urls_in_a_relocated_rewrite():
    pytest.importorskip("feedparser", reason="feedparser is not installed (python/requirements-test.txt)")
    binary = cli_binary()
    if binary is None:
        pytest.skip("the absolve CLI is not built (ABSOLVE_BIN unset, target/release/absolve missing)")
    done = subprocess.run(
        [sys.executable, REPO / "tests" / "feed" / "relocation.py", binary, FIXTURES / "feed"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "URLs compared" in done.stdout


def test_a_feed_is_told_by_content_and_read_with_its_xml_base():
    feed = (FIXTURES / "feed" / "atom10.atom").read_bytes()
    found = absolve.links(feed, "http://feeds.example.com/feed.xml")
    assert found, "no link found"
    assert "xml-base" in {link.base_from for link in found}
    named = absolve.links(feed, "http://feeds.example.com/feed.xml", format="FEED")
    assert [link.resolved for link in named] == [link.resolved for link in found]
