"""The Spark job's two forms give the same table: mapInArrow over warc_link_batches (the
default) and cc-pyspark's RDD of rows over warc_links (--rdd), on the shared corpus."""

import collections
import shutil
import subprocess
import sys

import pytest

from conftest import CORPUS

pq = pytest.importorskip("pyarrow.parquet", reason="needs pyarrow (python/requirements-test.txt)")
pytest.importorskip("pyspark", reason="needs pyspark (python/requirements-test.txt)")
if shutil.which("java") is None:
    pytest.skip("needs Java 17+ on PATH for pyspark", allow_module_level=True)


def run_job(listing, output, *flags):
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", "--master", "local[2]", *flags, str(listing), str(output)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = pq.read_table(output)
    report = [l for l in done.stderr.splitlines() if "WARC files read" in l]
    # "N WARC files read, N links written to OUTPUT in ..."; "N warnings; N files could not be read"
    line = report[0]
    return table, (line.split(" written to ")[0], line.split("; ", 1)[1])


def test_arrow_and_rdd_forms_give_the_same_rows(corpus, tmp_path):
    files = sorted(p for p in (CORPUS / "warc").rglob("*") if p.is_file() and p.suffix != ".md")
    listing = tmp_path / "warc.paths"
    listing.write_text("".join(f"{p}\n" for p in files))
    arrow, arrow_report = run_job(listing, tmp_path / "arrow.parquet", "--batch-rows", "1000")
    rows, rows_report = run_job(listing, tmp_path / "rows.parquet", "--rdd")
    assert arrow.schema == rows.schema
    assert arrow.num_rows > 5000
    as_rows = lambda t: collections.Counter(zip(*(t.column(c).to_pylist() for c in t.column_names)))
    assert as_rows(arrow) == as_rows(rows)
    # The same counts of files, links and warnings in both reports.
    assert arrow_report == rows_report
