"""Feeds with a real feed parser: feedparser resolves every URL of a fixture feed at its
own URL and of absolve's rewrite of it at an unrelated URL; both must be the same
(tests/feed/relocation.py), for the fixtures and for feedparser's own test suite's feeds;
and the Python functions read feeds as the CLI does."""

import shutil
import subprocess
import sys
import tarfile
import tempfile

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


# feedparser's own test feeds: those of this release's sdist (about 1 MB), fetched once
# with pip into target/ and kept there.
FEEDPARSER_VERSION = "6.0.14"
FEEDPARSER_SUITE = REPO / "target" / "feedparser-suite"
# Its directories of feeds (wellformed/ holds one per subject, read recursively).
FEEDPARSER_DIRECTORIES = ("wellformed", "entities", "encoding", "illformed")


def feedparser_test_feeds():
    """The tests/ directory of feedparser's sdist, fetched with pip if it is not there
    yet; the test is skipped, saying why, when it cannot be fetched (offline)."""
    tests = FEEDPARSER_SUITE / f"feedparser-{FEEDPARSER_VERSION}" / "tests"
    if tests.is_dir():
        return tests
    FEEDPARSER_SUITE.mkdir(parents=True, exist_ok=True)
    sdist = FEEDPARSER_SUITE / f"feedparser-{FEEDPARSER_VERSION}.tar.gz"
    if not sdist.is_file():
        command = [
            sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
            "--no-deps", "--no-binary", ":all:", "--retries", "1", "--timeout", "20",
            "--dest", str(FEEDPARSER_SUITE), f"feedparser=={FEEDPARSER_VERSION}",
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not sdist.is_file():
            lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
            pytest.skip(
                f"feedparser {FEEDPARSER_VERSION}'s test feeds could not be fetched: "
                f"`pip download feedparser=={FEEDPARSER_VERSION}` exited with status "
                f"{done.returncode}: {lines[-1]}"
            )
    # Unpacked beside, then moved into place whole: an interrupted run leaves no half.
    with tempfile.TemporaryDirectory(dir=FEEDPARSER_SUITE) as scratch:
        prefix = f"feedparser-{FEEDPARSER_VERSION}/tests/"
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.name.startswith(prefix)]
            # The "data" filter (no links out, no devices) where this Python has it.
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(scratch, members=members, **safe)
        tests.parent.mkdir(exist_ok=True)
        shutil.move(f"{scratch}/{prefix}", tests)
    return tests


def test_feedparser_finds_the_same_urls_in_its_own_test_feeds_relocated():
    """About 2,300 feeds of every kind feedparser knows (Atom 0.3 and 1.0, RSS, RDF, CDF,
    base64 content, entities, charsets, ill-formed XML): every one ok, or a divergence
    relocation.py knows to be feedparser's."""
    pytest.importorskip("feedparser", reason="feedparser is not installed (python/requirements-test.txt)")
    binary = cli_binary()
    if binary is None:
        pytest.skip("the absolve CLI is not built (ABSOLVE_BIN unset, target/release/absolve missing)")
    tests = feedparser_test_feeds()
    done = subprocess.run(
        [sys.executable, REPO / "tests" / "feed" / "relocation.py", binary]
        + [tests / directory for directory in FEEDPARSER_DIRECTORIES],
        capture_output=True,
        text=True,
    )
    summary = done.stdout.strip().splitlines()[-1:] or ["no output"]
    assert done.returncode == 0, "\n".join(failed_feeds(done.stdout)[:60] + summary) + done.stderr
    assert summary[0].endswith(" 0 feeds failed"), done.stdout[-2000:]
    feeds = sum(1 for line in done.stdout.splitlines() if line.startswith("ok "))
    assert feeds > 2000, f"only {feeds} feeds read: {summary[0]}"


def failed_feeds(stdout):
    """The lines relocation.py gives about the feeds that failed (each FAIL line and the
    indented lines under it)."""
    lines = []
    failing = False
    for line in stdout.splitlines():
        if not line.startswith("    "):
            failing = line.startswith("FAIL")
        if failing:
            lines.append(line)
    return lines


def test_a_feed_is_told_by_content_and_read_with_its_xml_base():
    feed = (FIXTURES / "feed" / "atom10.atom").read_bytes()
    found = absolve.links(feed, "http://feeds.example.com/feed.xml")
    assert found, "no link found"
    assert "xml-base" in {link.base_from for link in found}
    named = absolve.links(feed, "http://feeds.example.com/feed.xml", format="FEED")
    assert [link.resolved for link in named] == [link.resolved for link in found]
