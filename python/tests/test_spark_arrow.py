"""The Spark job's two forms give the same table: mapInArrow over warc_link_batches (the
default) and cc-pyspark's RDD of rows over warc_links (--rdd), on the shared corpus."""

import collections
import gzip
import shutil
import subprocess
import sys

import pytest

from conftest import CORPUS, warc_record

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
    assert (output / "_SUCCESS").exists() and not (output / "_temporary").exists()
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


def test_parts_written_by_the_workers_read_as_spark_wrote_them(corpus, tmp_path):
    """The default form (each task writes its Parquet file from the Python worker) against
    Spark's own writer (--spark-writer) on the same files: the same schema and rows, read
    back with pyarrow and with spark.read.parquet; one committed part per task, _SUCCESS,
    no _temporary left."""
    files = sorted(p for p in (CORPUS / "warc").rglob("*") if p.is_file() and p.suffix != ".md")
    listing = tmp_path / "warc.paths"
    listing.write_text("".join(f"{p}\n" for p in files))
    direct, direct_report = run_job(listing, tmp_path / "direct.parquet", "--batch-rows", "1000", "--num-input-partitions", "3")
    spark_written, spark_report = run_job(listing, tmp_path / "spark.parquet", "--spark-writer")
    assert direct_report == spark_report
    assert direct.schema == spark_written.schema
    assert [f.nullable for f in direct.schema] == [True, True, False, True, False, False, True, False]
    assert direct.num_rows > 5000
    as_rows = lambda t: collections.Counter(zip(*(t.column(c).to_pylist() for c in t.column_names)))
    assert as_rows(direct) == as_rows(spark_written)
    names = sorted(p.name for p in (tmp_path / "direct.parquet").iterdir())
    assert names[0] == "_SUCCESS"
    parts = names[1:]
    assert 1 <= len(parts) <= 3 and all(n.startswith("part-") and n.endswith(".snappy.parquet") for n in parts)
    assert pq.ParquetFile(tmp_path / "direct.parquet" / parts[0]).metadata.row_group(0).column(0).compression == "SNAPPY"

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("absolve-test-read").getOrCreate()
    try:
        read = {name: spark.read.parquet(str(tmp_path / f"{name}.parquet")) for name in ["direct", "spark"]}
        assert read["direct"].schema == read["spark"].schema
        assert read["direct"].columns == list(direct.column_names)
        assert read["direct"].count() == direct.num_rows
        assert read["direct"].exceptAll(read["spark"]).count() == 0
        assert read["spark"].exceptAll(read["direct"]).count() == 0
    finally:
        spark.stop()


def test_an_existing_output_is_refused_then_replaced_with_overwrite(tmp_path):
    made = tmp_path / "made.warc.gz"
    made.write_bytes(gzip.compress(warc_record(b"http://h/p.html", b"<a href=q.html>", b"<urn:x>")))
    listing = tmp_path / "warc.paths"
    listing.write_text(f"{made}\n")
    output = tmp_path / "out.parquet"
    output.mkdir()
    (output / "old.parquet").write_bytes(b"not parquet")
    refused = subprocess.run([sys.executable, "-m", "absolve.spark", "--master", "local[1]", str(listing), str(output)], capture_output=True, text=True, timeout=900)
    assert refused.returncode == 2
    assert "--overwrite" in refused.stderr
    table, report = run_job(listing, output, "--overwrite")
    assert table.column("resolved").to_pylist() == ["http://h/q.html"]
    assert not (output / "old.parquet").exists()


def test_a_job_without_links_still_has_a_table(tmp_path):
    listing = tmp_path / "warc.paths"
    listing.write_text(f"{tmp_path / 'missing.warc.gz'}\n")
    table, report = run_job(listing, tmp_path / "out.parquet")
    assert table.num_rows == 0
    assert table.column_names == ["page_url", "record_id", "element", "attribute", "original", "resolved", "base", "base_from"]
    assert report[1].endswith("1 files could not be read:")


def test_only_the_accepted_attempts_parts_are_committed(tmp_path):
    """A retried or speculative attempt's part (left in _temporary) never reaches the table:
    the driver moves only the parts named in the collected summaries."""
    import pyarrow as pa

    from absolve import spark

    target = spark.Target(str(tmp_path / "out"), "job1", "snappy", "{}")
    spark.prepare_output(target, overwrite=False)
    filesystem, root = target.filesystem()
    parts = {}
    for partition, attempt, value in [(0, 0, "first"), (0, 1, "retried"), (1, 0, "other")]:
        folder = target.attempt_dir(root, partition, attempt, 10 * partition + attempt)
        filesystem.create_dir(folder)
        parts[value] = f"{folder}/{target.part_name(partition)}"
        pq.write_table(pa.table({"original": [value]}), parts[value], filesystem=filesystem)
    summaries = [{"part": parts["retried"]}, {"part": parts["other"]}, {"part": parts["other"]}, {"part": None}]
    assert spark.commit_parts(target, summaries) == 2
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["_SUCCESS", "part-00000-job1.c000.snappy.parquet", "part-00001-job1.c000.snappy.parquet"]
    assert sorted(pq.read_table(tmp_path / "out").column("original").to_pylist()) == ["other", "retried"]
