"""python -m absolve.spark in local[2]: the Parquet table holds what `absolve links` says
about the same WARC files; files that cannot be read are counted and named, not fatal;
warnings are counted, the first named."""

import collections
import gzip
import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import CORPUS, cli_binary, warc_record

pq = pytest.importorskip("pyarrow.parquet", reason="needs pyarrow (python/requirements-test.txt)")
pytest.importorskip("pyspark", reason="needs pyspark (python/requirements-test.txt)")
if shutil.which("java") is None:
    pytest.skip("needs Java 17+ on PATH for pyspark", allow_module_level=True)

COLUMNS = ["page_url", "record_id", "element", "attribute", "original", "resolved", "base", "base_from"]


def corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in (CORPUS / "warc").rglob("*") if p.is_file() and p.suffix != ".md")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """Runs the job once over made-up WARC files, two bad inputs and the shared corpus."""
    work = tmp_path_factory.mktemp("spark")
    made = []
    for n in range(3):
        records = [
            warc_record(b"http://site%d.example/p/%d.html" % (n, i), b"<a href=../up.html><img src=i%d.png>" % i, b"<urn:uuid:%d-%d>" % (n, i))
            for i in range(4)
        ]
        path = work / f"made-{n}.warc.gz"
        path.write_bytes(b"".join(gzip.compress(r) for r in records))
        made.append(path)
    not_warc = work / "not-a-warc.warc"
    not_warc.write_bytes(b"<html>no WARC here</html>")
    missing = work / "missing.warc.gz"
    inputs = made + [not_warc, missing] + corpus_files()
    listing = work / "warc.paths"
    listing.write_text("".join(f"{p}\n" for p in inputs))
    output = work / "links.parquet"
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", "--master", "local[2]", str(listing), str(output)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = pq.read_table(output)
    assert table.column_names == COLUMNS
    rows = list(zip(*(table.column(c).to_pylist() for c in COLUMNS)))
    return {"rows": rows, "stderr": done.stderr, "made": made, "not_warc": not_warc, "missing": missing}


def warned_warc(path, records=30):
    """A WARC file of `records` records that each give a warning and no link: a body said
    to be gzip that is not."""
    gzip_said = b"Content-Encoding: gzip\r\n"
    path.write_bytes(b"".join(warc_record(b"http://warned.example/%d" % i, b"not gzip", b"<urn:uuid:w-%d>" % i, gzip_said) for i in range(records)))
    return path


def named_warnings(stderr):
    return [l for l in stderr.splitlines() if l.startswith("absolve.spark: warning: ")]


@pytest.mark.parametrize("form", [[], ["--rdd"]], ids=["direct", "rdd"])
def test_warnings_are_named_twenty_at_most_and_the_rest_counted(tmp_path, form):
    warned = warned_warc(tmp_path / "warned.warc")
    listing = tmp_path / "warc.paths"
    listing.write_text(f"{warned}\nfile:{warned}\n")
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", *form, "--master", "local[2]", str(listing), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 WARC files read, 0 links" in report_line(done.stderr)
    assert "; 60 warnings;" in report_line(done.stderr)
    named = named_warnings(done.stderr)
    assert len(named) == 21 and named[-1] == "absolve.spark: warning: 40 more warnings not named"
    # Each names the line of the list, the record and its offset, and what was wrong.
    for line in named[:-1]:
        assert re.fullmatch(
            rf"absolve\.spark: warning: (file:)?{re.escape(str(warned))}: record \d+ <urn:uuid:w-\d+> \(at byte \d+\): "
            r"Content-Encoding gzip: the body is not gzip data .*",
            line,
        ), line


def test_the_rdd_form_gives_the_same_table(job, tmp_path):
    """--rdd: cc-pyspark's RDD of pickled rows, over the made-up files and one bad input."""
    listing = tmp_path / "warc.paths"
    listing.write_text("".join(f"{p}\n" for p in job["made"] + [job["missing"]]))
    output = tmp_path / "links.parquet"
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", "--rdd", "--master", "local[2]", str(listing), str(output)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = pq.read_table(output)
    rows = list(zip(*(table.column(c).to_pylist() for c in COLUMNS)))
    made = [r for r in job["rows"] if (r[0] or "").startswith("http://site")]
    assert sorted(rows) == sorted(made)
    assert "3 WARC files read" in report_line(done.stderr)
    assert "1 files could not be read" in report_line(done.stderr)


def report_line(stderr):
    (line,) = [l for l in stderr.splitlines() if l.startswith("absolve.spark: ") and "WARC files read" in l]
    return line


def test_made_up_files_give_their_links(job):
    made_rows = [r for r in job["rows"] if (r[0] or "").startswith("http://site")]
    assert len(made_rows) == 3 * 4 * 2
    assert ("http://site1.example/p/2.html", "<urn:uuid:1-2>", "img", "src", "i2.png", "http://site1.example/p/i2.png", "http://site1.example/p/2.html", "retrieval-url") in made_rows
    assert ("http://site0.example/p/0.html", "<urn:uuid:0-0>", "a", "href", "../up.html", "http://site0.example/up.html", "http://site0.example/p/0.html", "retrieval-url") in made_rows


def test_unreadable_files_are_counted_and_named_not_fatal(job):
    stderr = job["stderr"]
    assert f"absolve.spark:   {job['missing']}: No such file or directory\n" in stderr
    assert f"absolve.spark:   {job['not_warc']}: not a WARC file" in stderr
    line = report_line(stderr)
    assert f"{len(job['rows'])} links written" in line


def cli_rows(path):
    """`absolve links --format warc FILE` as table rows, or None if the CLI refuses the file."""
    done = subprocess.run([str(cli_binary()), "links", "--format", "warc", str(path)], capture_output=True)
    if done.returncode != 0:
        return None
    rows = []
    for line in done.stdout.splitlines():
        r = json.loads(line)
        rows.append(tuple(r[k] for k in ["target_uri", "record", "element", "attribute", "original", "resolved", "base", "base_from"]))
    return rows


def test_the_table_matches_the_cli_on_the_shared_corpus(job):
    files = corpus_files()
    if not files:
        pytest.skip("needs ../shared/corpus/warc beside the repository")
    if cli_binary() is None:
        pytest.skip("needs the absolve CLI: cargo build --release (or set ABSOLVE_BIN)")
    expected = collections.Counter()
    refused = 0
    for path in files:
        # The job's reader (warc_links) decompresses what the CLI does: resiliparse's
        # .warc.lz4 files are read, not refused.
        rows = cli_rows(path)
        if rows is None:
            refused += 1
        else:
            expected.update(rows)
    got = collections.Counter(r for r in job["rows"] if not (r[0] or "").startswith("http://site"))
    assert sum(expected.values()) > 5000
    assert got == expected
    # Those the CLI refuses are the job's failures, with the two bad inputs.
    read = len(files) - refused + len(job["made"])
    assert f"{read} WARC files read" in report_line(job["stderr"])
    assert f"{refused + 2} files could not be read" in report_line(job["stderr"])
