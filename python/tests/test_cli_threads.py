"""`absolve links -r -j N`: files processed N at a time, the output byte for byte that of
one at a time (input order), a file's output past the spool's memory cap included; at most
four threads per core whatever is asked; a standard error that cannot be written to passed
over."""

import gzip
import os
import subprocess

import pytest

from conftest import CORPUS, FIXTURES, cli_binary, warc_record


def binary_or_skip():
    binary = cli_binary()
    if binary is None or not binary.exists():
        pytest.skip("needs the absolve CLI: cargo build --release (or set ABSOLVE_BIN)")
    return binary


def links(*args):
    binary = binary_or_skip()
    done = subprocess.run([str(binary), "links", *map(str, args)], capture_output=True)
    return done.returncode, done.stdout, done.stderr.decode(errors="replace").splitlines()


def summary(stderr):
    return [line for line in stderr if "files processed" in line]


@pytest.mark.parametrize("tree", [FIXTURES, CORPUS / "warc", CORPUS / "html"], ids=["fixtures", "warc", "html"])
def test_two_threads_give_the_output_of_one(tree):
    if not tree.is_dir():
        pytest.skip(f"needs {tree}")
    one = links("-r", "-j", "1", tree)
    two = links("--recursive", "--threads", "2", tree)
    assert one[0] == two[0] == 0
    assert len(one[1].splitlines()) > 100
    assert two[1] == one[1]
    assert summary(two[2]) == summary(one[2])
    # The same warnings, if not in the same order (they are printed as files are read).
    assert sorted(two[2]) == sorted(one[2])


def test_a_large_output_spilled_to_disk_keeps_its_place(tmp_path):
    # ~60,000 links (~15 MB of JSON lines) in the first file: past the 4 MiB in memory.
    page = b"".join(b"<a href=p%d.html>" % i for i in range(60000))
    (tmp_path / "a-large.warc.gz").write_bytes(gzip.compress(warc_record(b"http://h/big/", page, b"<urn:big>")))
    for n in range(6):
        (tmp_path / f"b-small-{n}.html").write_bytes(b"<a href=../x%d.html>" % n)
    one = links("-r", "-j", "1", "--url", "http://h/d/", tmp_path)
    two = links("-r", "-j", "2", "--url", "http://h/d/", tmp_path)
    assert one[0] == two[0] == 0
    assert len(one[1]) > 8 << 20
    assert two[1] == one[1]


def test_a_failing_file_keeps_its_place(tmp_path):
    for name in ["a", "c"]:
        page = b"<a href=%s1><a href=%s2>" % (name.encode(), name.encode())
        (tmp_path / f"{name}.warc.gz").write_bytes(gzip.compress(warc_record(b"http://h/" + name.encode(), page, b"<urn:p>")))
    (tmp_path / "b.warc").write_bytes(b"<html>no WARC here</html>")
    one = links("-r", "--format", "warc", "-j", "1", tmp_path)
    two = links("-r", "--format", "warc", "-j", "2", tmp_path)
    assert one[0] == two[0] == 1
    assert two[1] == one[1]
    assert [l.split('"original":')[1][:4] for l in two[1].decode().splitlines()] == ['"a1"', '"a2"', '"c1"', '"c2"']
    assert summary(two[2]) == summary(one[2])
    assert [l for l in two[2] if "b.warc: not a WARC" in l]


def test_zero_threads_is_a_usage_error():
    status, _, stderr = links("-j", "0", FIXTURES / "html")
    assert status == 2
    assert any("--threads" in line for line in stderr)


def test_large_outputs_streamed_and_spooled_keep_their_order(tmp_path):
    # Several files each past the spool's memory cap: the oldest unfinished one writes
    # straight out while those behind it spool (to disk), then empty their spool in turn.
    for n in range(4):
        page = b"".join(b"<a href=f%dp%d.html>" % (n, i) for i in range(40000))
        (tmp_path / f"{n}.warc.gz").write_bytes(gzip.compress(warc_record(b"http://h/%d/" % n, page, b"<urn:%d>" % n)))
    one = links("-r", "-j", "1", tmp_path)
    two = links("-r", "-j", "2", tmp_path)
    assert one[0] == two[0] == 0
    assert len(one[1]) > 4 * (4 << 20)
    assert two[1] == one[1]


def test_a_closed_pipe_stops_the_run_quietly(tmp_path):
    page = b"".join(b"<a href=p%d.html>" % i for i in range(40000))
    for n in range(4):
        (tmp_path / f"{n}.warc.gz").write_bytes(gzip.compress(warc_record(b"http://h/%d/" % n, page, b"<urn:%d>" % n)))
    binary = binary_or_skip()
    done = subprocess.run(f"'{binary}' links -r -j 2 '{tmp_path}' | head -n 1", shell=True, capture_output=True, timeout=60)
    assert done.stdout.count(b"\n") == 1
    assert b'"original":"p0.html"' in done.stdout
    assert b"rror" not in done.stderr


@pytest.mark.parametrize(
    "flags, variable, shown",
    [(["-j", "100000"], None, "-j 100000"), (["--threads", "4096"], None, "-j 4096"), ([], "100000", "RAYON_NUM_THREADS=100000")],
)
def test_threads_past_four_per_core_are_lowered_with_a_warning(flags, variable, shown):
    # Each thread holds its own buffers (a WARC batch, files' lines ahead), and rayon's work
    # stealing looks at every thread: 100,000 threads ran for minutes on these few files.
    binary = binary_or_skip()
    env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
    if variable:
        env["RAYON_NUM_THREADS"] = variable
    one = links("-r", "-j", "1", FIXTURES)
    many = subprocess.run([str(binary), "links", "-r", *flags, str(FIXTURES)], capture_output=True, env=env, timeout=60)
    assert many.returncode == one[0] == 0
    assert many.stdout == one[1]
    stderr = many.stderr.decode(errors="replace").splitlines()
    lowered = [line for line in stderr if line.startswith(f"absolve: warning: {shown}: using ")]
    cores = len(os.sched_getaffinity(0))
    assert lowered and f"using {4 * cores} threads (4 for each of the {cores} cores" in lowered[0], stderr[:3]


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_standard_error_that_cannot_be_written_to_is_passed_over(threads):
    # Warnings (no base URL in the fixtures) go to a pipe nobody reads: each write fails
    # (EPIPE). They once panicked the thread that printed them: -j 1 ended with status
    # 101 and the links after it lost, -j 2 waited forever for the file that panicked.
    binary = binary_or_skip()
    one = links("-r", "-j", "1", FIXTURES)
    assert any("no base URL" in line for line in one[2])
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([str(binary), "links", "-r", "-j", threads, str(FIXTURES)], stdout=subprocess.PIPE, stderr=write, timeout=60)
    finally:
        os.close(write)
    assert done.returncode == 0
    assert done.stdout == one[1]
