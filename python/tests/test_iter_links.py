"""iter_links: the links of any document, one at a time as it is read, in bounded memory."""

import gzip
import os
import threading
import warnings

import pytest

import absolve
from conftest import FIXTURES, peak_rss_kib

EVERY_FIXTURE = sorted(
    p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix not in {".py", ".md", ".snap"}
)


def message(n, links=1):
    """Message `n` of an mbox: HTML with `links` links, relative to its own Content-Base."""
    anchors = "".join(f'<a href="rel{n}-{i}.html">x</a>' for i in range(links))
    return (
        f"From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: m{n}\n"
        f"Content-Base: http://h{n}.example/d/\nContent-Type: text/html\n\n"
        f"<html><body>{anchors}<p>{'filler ' * 20}</p></body></html>\n\n"
    ).encode()


@pytest.mark.parametrize("path", EVERY_FIXTURE, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_same_links_as_links_for_every_fixture(path):
    with warnings.catch_warnings(record=True) as listed:
        warnings.simplefilter("always")
        expected = absolve.links(path, "http://h/d/p.html")
    with warnings.catch_warnings(record=True) as iterated:
        warnings.simplefilter("always")
        got = list(absolve.iter_links(path, "http://h/d/p.html"))
    assert got == expected
    assert [str(w.message) for w in iterated] == [str(w.message) for w in listed]
    assert list(absolve.iter_links(path.read_bytes(), "http://h/d/p.html")) == absolve.links(
        path.read_bytes(), "http://h/d/p.html"
    )


def test_a_compressed_mail_folder_by_its_path(tmp_path):
    folder = tmp_path / "folder.mbox.gz"
    folder.write_bytes(gzip.compress(b"".join(message(n, links=3) for n in range(1, 2001))))
    got = [link.resolved for link in absolve.iter_links(folder)]
    assert len(got) == 6000
    assert got[-1] == "http://h2000.example/d/rel2000-2.html"
    assert [link.message for link in absolve.iter_links(folder)][-1] == 2000


def test_warnings_come_before_the_links_after_them():
    # A message whose multipart has no closing boundary: its warning, then the next
    # message's link.
    truncated = (FIXTURES / "mime" / "truncated-multipart.eml").read_bytes()
    bad = b"From a@b Mon Jan  1 00:00:00 2024\n" + truncated + b"\n\n"
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for link in absolve.iter_links(bad + message(2), "http://u/"):
            seen.append((len(caught), link.resolved))
    assert caught and all(issubclass(w.category, absolve.AbsolveWarning) for w in caught)
    assert seen[-1] == (len(caught), "http://h2.example/d/rel2-0.html")


def test_an_unreadable_document_raises_after_the_links_before():
    with pytest.raises(ValueError, match="no-such-file"):
        list(absolve.iter_links(FIXTURES / "no-such-file.html"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_links_come_while_the_document_is_still_written(tmp_path):
    # The writer holds the end of the folder back until the first link is taken: a
    # function that read the whole document first would never give it.
    fifo = tmp_path / "folder.mbox"
    os.mkfifo(fifo)
    first_taken = threading.Event()
    waited = []

    def write():
        with open(fifo, "wb") as f:
            f.write(b"".join(message(n) for n in range(1, 1001)))
            f.flush()
            waited.append(first_taken.wait(timeout=60))
            f.write(message(1001))

    writer = threading.Thread(target=write)
    writer.start()
    links = absolve.iter_links(fifo)
    assert next(links).resolved == "http://h1.example/d/rel1-0.html"
    first_taken.set()
    rest = [link.resolved for link in links]
    writer.join()
    assert waited == [True]
    assert rest[-1] == "http://h1001.example/d/rel1001-0.html"
    assert len(rest) == 1000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_an_iterator_dropped_early_stops_reading(tmp_path):
    # The writer would write forever; once the iterator is dropped the reading end is
    # closed, and the writer's next write fails (EPIPE).
    fifo = tmp_path / "endless.mbox"
    os.mkfifo(fifo)
    ended = []

    def write():
        with open(fifo, "wb") as f:
            try:
                for n in range(1, 10_000_000):
                    f.write(message(n))
                ended.append("wrote everything")
            except BrokenPipeError:
                ended.append("reader gone")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    links = absolve.iter_links(fifo)
    assert next(links).resolved == "http://h1.example/d/rel1-0.html"
    del links
    writer.join(timeout=60)
    assert ended == ["reader gone"]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc/self/status (VmHWM) here")
def test_memory_stays_bounded_whatever_the_link_count(tmp_path):
    # 400,000 links: as a list (links) they are hundreds of megabytes of Link objects;
    # taken one at a time, a few batches.
    folder = tmp_path / "big.mbox"
    with open(folder, "wb") as f:
        for n in range(1, 20_001):
            f.write(message(n, links=20))
    path = f"__import__('pathlib').Path({str(folder)!r})"
    iterated = peak_rss_kib(f"assert sum(1 for _ in absolve.iter_links({path})) == 400000")
    listed = peak_rss_kib(f"assert len(absolve.links({path})) == 400000")
    assert iterated * 3 < listed, (iterated, listed)
