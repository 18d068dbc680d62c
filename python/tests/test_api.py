"""The package's face: what it exports, docstrings that help() shows, types, threads."""

import inspect
import os
import pathlib
import pydoc
import subprocess
import sys
import threading
import time

import absolve
from conftest import warc_record


def test_exports():
    assert sorted(absolve.__all__) == sorted(
        ["AbsolveWarning", "Link", "Rewriter", "iter_links", "links", "links_table", "resolve", "rewrite", "warc_link_batches", "warc_links"]
    )
    assert issubclass(absolve.AbsolveWarning, UserWarning)


def test_help_shows_signatures_and_docs():
    for function, words in [
        (absolve.resolve, ["RFC 1808", "(base, reference, rfc=1808, *, spec='rfc1808')"]),
        (absolve.rewrite, ["format='auto'", "Content-Type", "ValueError"]),
        (absolve.links, ["Link", "resolve_fragments=False"]),
        (absolve.warc_links, ["WARC", "record"]),
        (absolve.Rewriter, ["write", "end", "chunk"]),
        (absolve.Link, ["base_from", "dict"]),
        (absolve, ["RFC 1808", "warc_links"]),
    ]:
        text = pydoc.render_doc(function, renderer=pydoc.plaintext)
        for word in words:
            assert word in text, (function, word)


def test_signatures_are_introspectable():
    assert str(inspect.signature(absolve.resolve)) == "(base, reference, rfc=1808, *, spec='rfc1808')"
    parameters = inspect.signature(absolve.links).parameters
    assert list(parameters) == [
        "document", "url", "format", "charset", "headers", "resolve_fragments", "rfc",
        "spec", "http_base_headers", "keep_local", "max_held",
    ]
    assert parameters["format"].kind is inspect.Parameter.KEYWORD_ONLY


def test_the_package_is_typed():
    package = pathlib.Path(absolve.__file__).parent
    assert (package / "py.typed").exists()
    stubs = (package / "_absolve.pyi").read_text()
    for name in absolve.__all__:
        assert name in stubs


def test_the_gil_is_released_while_absolve_works():
    page = b"<p><a href='x/y'>link</a> <img src='i.png' srcset='a 1x, b 2x'></p>\n" * 60_000
    done = threading.Event()
    ticks = 0

    def work():
        started = time.perf_counter()
        absolve.links(page, "http://h/")
        work.seconds = time.perf_counter() - started
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        ticks += 1
    thread.join()
    # Had the call held the GIL, this loop would have stood still for all of it: Python
    # only switches threads between bytecodes. ~10M loop turns/s here; ask for a tiny share.
    assert work.seconds > 0.05, "the page should take a measurable time"
    assert ticks > 10_000 * work.seconds


def test_rayon_threads_past_four_per_core_are_lowered_with_a_warning(tmp_path):
    # A fresh interpreter: the bound is applied when the module is first imported.

    archive = tmp_path / "a.warc"
    archive.write_bytes(b"".join(warc_record(b"http://h/%d/" % n, b"<a href=x>", b"<urn:%d>" % n) for n in range(3)))
    script = (
        "import os, absolve\n"
        f"assert len(list(absolve.warc_links({str(archive)!r}))) == 3\n"
        "print(len(os.listdir('/proc/self/task')))\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="100000")
    done = subprocess.run([sys.executable, "-W", "always", "-c", script], capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    cores = len(os.sched_getaffinity(0))
    assert f"RAYON_NUM_THREADS=100000: using {4 * cores} threads, 4 per core".encode() in done.stderr
    assert int(done.stdout) <= 4 * cores + 8


def test_importing_starts_no_thread():
    # A process that forks after `import absolve` (multiprocessing's fork) must not find
    # rayon's pool built and its threads missing in the child: the pool starts at the
    # first parallel work, whether RAYON_NUM_THREADS is set within the bound or not.
    script = (
        "import os\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "import absolve\n"
        "print(before, len(os.listdir('/proc/self/task')))\n"
    )
    for value in [None, "1", "2"]:
        env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
        if value:
            env["RAYON_NUM_THREADS"] = value
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        before, after = map(int, done.stdout.split())
        assert after == before, (value, before, after)
