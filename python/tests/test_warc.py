"""absolve.warc_links (streaming a WARC file) and WARC documents in rewrite/links: the same
records as `absolve links` / `absolve rewrite` on the same files."""

import bz2
import gzip
import io
import lzma
import multiprocessing
import os
import pathlib
import signal
import subprocess
import threading
import time
import warnings

import pytest

import absolve
from conftest import CORPUS, warc_record as record


ARCHIVE = record(
    b"http://example.com/a/page.html",
    b"<a href=b.html>b</a><img src=/i.png>",
    b"<urn:uuid:1>",
    headers=b"Link: </style.css>; rel=stylesheet\r\n",
) + record(b"http://example.org/x/", b"<base href=http://cdn.example/><a href=c>", b"<urn:uuid:2>")

EXPECTED = [
    ("<urn:uuid:1>", "http://example.com/a/page.html", "http", "http://example.com/style.css"),
    ("<urn:uuid:1>", "http://example.com/a/page.html", "a", "http://example.com/a/b.html"),
    ("<urn:uuid:1>", "http://example.com/a/page.html", "img", "http://example.com/i.png"),
    ("<urn:uuid:2>", "http://example.org/x/", "base", "http://cdn.example/"),
    ("<urn:uuid:2>", "http://example.org/x/", "a", "http://cdn.example/c"),
]


def summary(found):
    return [(l.record, l.target_uri, l.element, l.resolved) for l in found]


def test_warc_links_from_a_path_a_pathlib_path_and_a_file(tmp_path):
    path = tmp_path / "crawl.warc"
    path.write_bytes(ARCHIVE)
    assert summary(absolve.warc_links(str(path))) == EXPECTED
    assert summary(absolve.warc_links(path)) == EXPECTED
    with open(path, "rb") as file:
        assert summary(absolve.warc_links(file)) == EXPECTED
    assert summary(absolve.warc_links(io.BytesIO(ARCHIVE))) == EXPECTED


def test_gzip_per_record_and_whole_file(tmp_path):
    per_record = b"".join(gzip.compress(r) for r in [ARCHIVE[: ARCHIVE.index(b"WARC/1.1", 10)], ARCHIVE[ARCHIVE.index(b"WARC/1.1", 10) :]])
    assert summary(absolve.warc_links(io.BytesIO(per_record))) == EXPECTED
    assert summary(absolve.warc_links(io.BytesIO(gzip.compress(ARCHIVE)))) == EXPECTED


def test_a_warc_link_has_record_fields_in_its_dict():
    link = next(absolve.warc_links(io.BytesIO(ARCHIVE)))
    assert list(link.dict())[:4] == ["message", "part", "record", "target_uri"]
    assert link.record and link.dict()["record"] == link.record
    assert link.message is None and link.part is None
    assert link.attribute == "link"


def test_a_warc_document_in_links_and_rewrite():
    assert summary(absolve.links(ARCHIVE)) == EXPECTED
    assert summary(absolve.links(ARCHIVE, format="warc")) == EXPECTED
    rewritten = absolve.rewrite(ARCHIVE)
    assert b"<a href=http://example.com/a/b.html>" in rewritten
    assert rewritten.startswith(b"WARC/1.1")


def test_an_arc_file_is_read_as_a_warc_file(cli):
    """ARC files (fixtures/arc/, the format before WARC) through the same entry points:
    warc_links, links and rewrite; each record named by its offset in the file."""
    fixtures = pathlib.Path(__file__).parents[2] / "fixtures" / "arc"
    for name in ["v1.arc", "v1.arc.gz"]:
        found = summary(absolve.warc_links(fixtures / name))
        assert ("http://example.com/a/based.html", "a", "http://base.example/dir/here.html") in [
            f[1:] for f in found
        ]
        assert all(record is not None and record.isdigit() for record, *_ in found)
    plain = (fixtures / "v1.arc").read_bytes()
    assert summary(absolve.links(plain)) == summary(absolve.warc_links(fixtures / "v1.arc"))
    rewritten = absolve.rewrite(plain)
    assert rewritten.startswith(b"filedesc://v1.arc ")
    assert b'<a href="http://example.com/a/page2.html">' in rewritten
    assert cli("rewrite", str(fixtures / "v1.arc")) == rewritten


def test_it_streams(tmp_path):
    """The first links come before the file is read to the end."""
    archive = b"".join(
        record(b"http://h/%d/" % i, b"<a href=x>" * 50, b"<urn:uuid:%d>" % i) for i in range(3000)
    )

    class Counting(io.BytesIO):
        read_so_far = 0

        def read(self, n=-1):
            chunk = super().read(n)
            Counting.read_so_far += len(chunk)
            return chunk

    links = absolve.warc_links(Counting(archive))
    first = next(links)
    assert first.target_uri == "http://h/0/"
    assert Counting.read_so_far < len(archive) / 4
    assert sum(1 for _ in links) == 3000 * 50 - 1


def test_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        absolve.warc_links(tmp_path / "missing.warc")
    assert raised.value.filename == str(tmp_path / "missing.warc")
    not_warc = tmp_path / "page.html"
    not_warc.write_bytes(b"<html><a href=x>")
    with pytest.raises(ValueError, match=r"page.html: not a WARC file: it starts with"):
        list(absolve.warc_links(not_warc))
    with pytest.raises(TypeError, match="source: expected a path or a binary file object, not int"):
        absolve.warc_links(5)
    text = tmp_path / "t.warc"
    text.write_bytes(ARCHIVE)
    with open(text, "r") as file, pytest.raises(OSError, match=r"open the file in binary mode"):
        list(absolve.warc_links(file))
    with pytest.raises(ValueError, match="^charset: unknown charset label"):
        absolve.warc_links(text, charset="nope")


def test_gzip_damage_is_a_warning_and_the_links_before_it_are_given(tmp_path):
    damaged = gzip.compress(ARCHIVE[: ARCHIVE.index(b"WARC/1.1", 10)]) + b"\x1f\x8b\x08\x00garbage" * 10
    with pytest.warns(absolve.AbsolveWarning, match="gzip"):
        found = list(absolve.warc_links(io.BytesIO(damaged)))
    assert summary(found) == EXPECTED[:3]
    # The same in memory: the links found before the damage, not only an error.
    with pytest.warns(absolve.AbsolveWarning, match="gzip"):
        in_memory = absolve.links(damaged)
    assert [link.resolved for link in in_memory] == [e[3] for e in EXPECTED[:3]]


@pytest.mark.parametrize("compress", [bz2.compress, lzma.compress], ids=["bzip2", "xz"])
def test_a_warc_compressed_whole_is_read_as_the_cli_reads_it(compress, tmp_path):
    """.warc.bz2 and .warc.xz (and .zst, .lz4) were refused: ValueError, "decompress it first"."""
    assert summary(absolve.warc_links(io.BytesIO(compress(ARCHIVE)))) == EXPECTED
    batches = list(absolve.warc_link_batches(io.BytesIO(compress(ARCHIVE))))
    assert [row["resolved"] for b in batches for row in b.to_pylist()] == [e[3] for e in EXPECTED]


def test_damage_in_a_warc_compressed_whole_is_read_on_with_a_warning():
    """Each record its own xz stream, the first damaged: a warning, the second read on."""
    at = ARCHIVE.index(b"WARC/1.1", 10)
    first = bytearray(lzma.compress(ARCHIVE[:at]))
    first[len(first) // 2 : len(first) // 2 + 16] = b"\xff" * 16
    damaged = bytes(first) + lzma.compress(ARCHIVE[at:])
    with pytest.warns(absolve.AbsolveWarning, match=r"corrupt xz data.*reading resumes"):
        found = list(absolve.warc_links(io.BytesIO(damaged)))
    assert summary(found) == EXPECTED[3:]


class Generous(io.RawIOBase):
    """A file object whose read(n) gives up to 3n bytes (a wrapper that ignores n)."""

    def __init__(self, data):
        self.data = data

    def readable(self):
        return True

    def read(self, n=-1):
        chunk, self.data = self.data[: 3 * max(n, 1)], self.data[3 * max(n, 1) :]
        return chunk


def test_a_read_that_gives_more_than_asked_loses_nothing():
    assert summary(list(absolve.warc_links(Generous(ARCHIVE)))) == EXPECTED


class Interrupted(io.RawIOBase):
    def __init__(self, error):
        self.error = error

    def readable(self):
        return True

    def read(self, n=-1):
        raise self.error


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_in_read_propagate_as_themselves(error):
    with pytest.raises(error):
        list(absolve.warc_links(Interrupted(error())))


def warc_files():
    if not CORPUS.is_dir():
        return []
    names = (".warc", ".warc.gz", ".warc.gz.bad", ".warc.lz4")
    return sorted(p for p in (CORPUS / "warc").rglob("*") if p.name.endswith(names))


def test_the_shared_corpus_is_there_or_skipped_visibly():
    if not CORPUS.is_dir():
        pytest.skip("needs ../shared/corpus beside the repository")
    assert len(warc_files()) >= 20


@pytest.mark.parametrize("path", warc_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_file_matches_the_cli(path, cli, cli_links):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", absolve.AbsolveWarning)
        found = [link.dict() for link in absolve.warc_links(path)]
    assert found == cli_links("--format", "warc", path)
    assert all(str(path) in str(w.message) for w in seen)
    document = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        assert [l.dict() for l in absolve.links(document, format="warc")] == found
        assert absolve.rewrite(document, format="warc") == cli("rewrite", "--format", "warc", path)


def test_a_truncated_file_warns_with_its_record(corpus):
    path = corpus / "warc" / "warcio" / "example-trunc.warc"
    with pytest.warns(absolve.AbsolveWarning, match=r"example-trunc.warc: .*record"):
        assert len(list(absolve.warc_links(path))) == 1


def test_the_corpus_arc_file_is_read(corpus, cli):
    """warcio's example.arc, once refused: read as the CLI reads it."""
    path = corpus / "warc" / "warcio" / "example.arc"
    found = [link.dict() for link in absolve.warc_links(path)]
    assert found and all(link["record"] == "151" for link in found)
    assert len(found) == len(cli("links", str(path)).splitlines())


def count_links(path):
    return sum(1 for _ in absolve.warc_links(path)), sum(b.num_rows for b in absolve.warc_link_batches(path)), len(absolve.links(pathlib.Path(path)))


MADE_BEFORE_FORK = []


def next_link_made_before_fork():
    try:
        return next(MADE_BEFORE_FORK[0])
    except RuntimeError as error:
        return str(error)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork() here")
def test_a_child_forked_after_use_lists_links(tmp_path):
    """fork() copies only the calling thread: the child must not wait for the parent's pool."""
    path = tmp_path / "crawl.warc"
    path.write_bytes(ARCHIVE * 50)
    assert count_links(str(path)) == (250, 250, 250)  # the work ran on this process's threads
    MADE_BEFORE_FORK[:] = [absolve.warc_links(str(path))]
    with warnings.catch_warnings():
        # Python 3.12+: "This process is multi-threaded, use of fork() may lead to deadlocks".
        warnings.simplefilter("ignore", DeprecationWarning)
        with multiprocessing.get_context("fork").Pool(1) as pool:
            assert pool.apply_async(count_links, (str(path),)).get(timeout=30) == (250, 250, 250)
            refused = pool.apply_async(next_link_made_before_fork).get(timeout=30)
    MADE_BEFORE_FORK.clear()
    assert "made in another process" in refused


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_waiting_for_a_fifo_holds_no_gil_and_ctrl_c_stops_it(tmp_path, ctrl_c):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    source = tmp_path / "crawl.warc"
    source.write_bytes(ARCHIVE)
    # Its writer comes after 1.5 s: meanwhile this thread runs while another waits in open().
    writer = subprocess.Popen(["sh", "-c", 'sleep 1.5; cat "$0" > "$1"', str(source), str(fifo)])
    found = []
    reading = threading.Thread(target=lambda: found.extend(absolve.warc_links(str(fifo))))
    start = time.monotonic()
    reading.start()
    time.sleep(0.2)
    assert time.monotonic() - start < 1.0
    reading.join(timeout=30)
    writer.wait(timeout=30)
    assert summary(found) == EXPECTED
    # No writer: Ctrl-C (SIGINT) ends the wait, as it ends Python's own open().
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            absolve.warc_link_batches(str(fifo))
        assert time.monotonic() - start < 2.0
    finally:
        timer.join()
        # The open() left waiting ends once a writer comes.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


class CountingReader(io.BytesIO):
    """A binary file object that counts the bytes read from it."""

    def __init__(self, data):
        super().__init__(data)
        self.given = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.given += len(chunk)
        return chunk


@pytest.mark.parametrize("function", ["warc_links", "warc_link_batches"])
def test_warnings_come_as_they_are_met_not_held_till_the_next_link(function):
    # 3,000 records that each give a warning and no link (a body said to be gzip that is
    # not), then one link: the warnings are issued while the file is read, not gathered
    # in memory until the link at its end.
    damaged = b"".join(
        record(b"http://example.com/%d" % i, b"not gzip", b"<urn:uuid:w-%d>" % i, headers=b"Content-Encoding: gzip\r\n")
        for i in range(3000)
    )
    archive = damaged + record(b"http://example.com/last", b"<a href=x>", b"<urn:uuid:last>")
    source = CountingReader(archive)
    with warnings.catch_warnings():
        warnings.simplefilter("error", absolve.AbsolveWarning)
        with pytest.raises(absolve.AbsolveWarning, match=r"record 1 <urn:uuid:w-0>"):
            next(getattr(absolve, function)(source))
    # Read in 64 KiB pieces: 256 warnings' records (~66 KB) take two or three of them;
    # held till the link, all 778 KB were read.
    assert source.given < len(archive) / 2, (source.given, len(archive))
    # Nothing lost: every warning, then the link.
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", absolve.AbsolveWarning)
        items = list(getattr(absolve, function)(io.BytesIO(archive)))
    assert len(seen) == 3000 and "record 3000 <urn:uuid:w-2999>" in str(seen[-1].message)
    rows = sum(getattr(item, "num_rows", 1) for item in items)
    assert rows == 1
