"""The links of many WARC files on Apache Spark, as a Parquet table.

    python -m absolve.spark [--master local[2]] INPUT_LIST OUTPUT_DIR
    spark-submit --master yarn .../absolve/spark.py INPUT_LIST OUTPUT_DIR

The pattern of Common Crawl's cc-pyspark jobs: INPUT_LIST is a text file naming one WARC
file per line (a local path, a ``file:`` URI, or an ``http(s)://`` URL, read as a stream);
its lines are split into partitions, and ``mapInArrow`` (Spark >= 3.3) runs
``absolve.warc_link_batches`` over each file of a partition: the Arrow record batches it
builds in Rust go to the JVM and on to Parquet as they are, with no Python object per link
(``--rdd``: cc-pyspark's ``mapPartitions`` over ``absolve.warc_links``, a pickled row per
link, about three times the CPU time). The links go to OUTPUT_DIR as a Parquet table, one
row per link:

    page_url   the record's WARC-Target-URI (the page's URL; null if the record has none)
    record_id  the record's WARC-Record-ID (null if the record has none)
    element, attribute, original, resolved, base, base_from
               as in ``absolve links`` (attribute and base may be null)

A file that cannot be read (missing, not a WARC, damaged gzip data) does not stop the job:
it is counted (a Spark accumulator) and named in the report printed at the end; the links
read from a damaged file before the damage are kept. The job fails only if Spark does.

The knobs:

    --num-input-partitions N   how many tasks the list is split into (default: 4 per core,
                               the files' sizes vary); with one WARC file per line, each task
                               reads ~files/N files one after another: keep N >= the cores
                               so that every core stays busy till the end
    --batch-rows R             links per Arrow batch (default 65536, ~10 MB of strings):
                               memory per task grows with it, the JVM's cost per batch shrinks
    --num-output-partitions M  how many Parquet files (default: one per input partition)

Threads: Spark runs one task per core; absolve's own pool (rayon, which parses a WARC
file's payloads in parallel) is set to one thread per task (``RAYON_NUM_THREADS=1`` in
the driver's and executors' environment, ``spark.executorEnv.RAYON_NUM_THREADS``), so N
concurrent tasks do not start N pools of as many threads as cores. Set RAYON_NUM_THREADS
before starting the job to change it.

Every executor needs the ``absolve`` package installed (``pip install absolve[spark]``
from this repository's ``python/``); where installing a wheel is not possible, see the
README's ``RDD.pipe()`` pattern with the ``absolve`` binary.
"""

import argparse
import os
import sys
import time
import urllib.parse
import urllib.request
import warnings

# The columns of the table, in order, and whether each may be null.
COLUMNS = [
    ("page_url", True),
    ("record_id", True),
    ("element", False),
    ("attribute", True),
    ("original", False),
    ("resolved", False),
    ("base", True),
    ("base_from", False),
]


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m absolve.spark",
        description="The links of the WARC files listed in INPUT_LIST, as a Parquet table in OUTPUT_DIR.",
    )
    parser.add_argument("input", metavar="INPUT_LIST", help="a text file naming one WARC file per line (path, file: URI or http(s):// URL)")
    parser.add_argument("output", metavar="OUTPUT_DIR", help="where the Parquet table is written (it must not exist, unless --overwrite)")
    parser.add_argument("--master", help="the Spark master, e.g. local[2] (default: spark-submit's, else local[*])")
    parser.add_argument(
        "--num-input-partitions",
        type=int,
        default=0,
        help="how many partitions the list is split into (default: 4 per core: the files' sizes vary)",
    )
    parser.add_argument("--num-output-partitions", type=int, default=0, help="how many Parquet files (default: as many as input partitions)")
    parser.add_argument(
        "--rdd",
        action="store_true",
        help="rows through an RDD (cc-pyspark's form, pickled row by row) instead of Arrow batches",
    )
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=65536,
        help="links per Arrow batch handed to Spark (default: 65536; memory per task grows with it)",
    )
    parser.add_argument("--compression", default="snappy", help="the Parquet compression codec (default: snappy)")
    parser.add_argument("--overwrite", action="store_true", help="replace OUTPUT_DIR if it exists")
    parser.add_argument("--charset", help="the charset of pages that declare none (a WHATWG label)")
    parser.add_argument("--resolve-fragments", action="store_true", help="resolve #x references too, as RFC 1808 §5 does")
    standard = parser.add_mutually_exclusive_group()
    standard.add_argument(
        "--spec",
        choices=["rfc1808", "rfc3986", "whatwg"],
        help="the standard to resolve by (default: rfc1808; whatwg: the URL a browser reports)",
    )
    standard.add_argument("--rfc", choices=["1808", "3986"], help="the older spelling of --spec")
    parser.add_argument("--http-base-headers", action="store_true", help="take HTTP Content-Base/Content-Location as bases too")
    return parser.parse_args(argv)


def open_warc(uri):
    """What ``absolve.warc_links`` reads for one line of the list: a path, or a stream."""
    if uri.startswith(("http://", "https://")):
        return urllib.request.urlopen(uri)  # noqa: S310 (the list names the inputs)
    if uri.startswith("file:"):
        return urllib.parse.unquote(urllib.parse.urlparse(uri).path)
    return uri


def links_of_partition(lines, counters, options):
    """The rows of the links of every WARC file named in ``lines`` (runs on an executor)."""
    import absolve

    for line in lines:
        uri = line.strip()
        if not uri or uri.startswith("#"):
            continue
        rows = 0
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", absolve.AbsolveWarning)
            try:
                for link in absolve.warc_links(open_warc(uri), **options):
                    rows += 1
                    yield (
                        link.target_uri,
                        link.record,
                        link.element,
                        link.attribute,
                        link.original,
                        link.resolved,
                        link.base,
                        link.base_from,
                    )
            except (OSError, ValueError) as error:
                counters["failed"].add(1)
                counters["failures"].add([failure(uri, error)])
            else:
                counters["read"].add(1)
            finally:
                counters["links"].add(rows)
                counters["warnings"].add(sum(isinstance(w.message, absolve.AbsolveWarning) for w in seen))


def arrow_batches(batches, counters, options, batch_rows=65536):
    """``mapInArrow``: the links of every WARC file named in ``batches`` (Arrow batches of
    lines of the list), as the Arrow record batches ``absolve.warc_link_batches`` builds
    in Rust: no Python object per link, no pickling; the batches go to the JVM, then to
    Parquet, as they are. The same rows as ``links_of_partition``."""
    import absolve

    for batch in batches:
        for line in batch.column(0).to_pylist():
            uri = (line or "").strip()
            if not uri or uri.startswith("#"):
                continue
            rows = 0
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always", absolve.AbsolveWarning)
                try:
                    for links in absolve.warc_link_batches(open_warc(uri), batch_rows, **options):
                        rows += links.num_rows
                        yield links
                except (OSError, ValueError) as error:
                    counters["failed"].add(1)
                    counters["failures"].add([failure(uri, error)])
                else:
                    counters["read"].add(1)
                finally:
                    counters["links"].add(rows)
                    counters["warnings"].add(sum(isinstance(w.message, absolve.AbsolveWarning) for w in seen))


def failure(uri, error):
    """One line of the report: the file, then what was wrong with it."""
    if isinstance(error, OSError) and error.strerror:
        return f"{uri}: {error.strerror}"
    message = str(error)
    return message if message.startswith(uri) else f"{uri}: {message}"


def schema():
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([StructField(name, StringType(), nullable) for name, nullable in COLUMNS])


def make_counters(spark_context):
    from pyspark.accumulators import AccumulatorParam

    class ListParam(AccumulatorParam):
        def zero(self, value):
            return []

        def addInPlace(self, first, second):
            first.extend(second)
            return first

    return {
        "read": spark_context.accumulator(0),
        "failed": spark_context.accumulator(0),
        "links": spark_context.accumulator(0),
        "warnings": spark_context.accumulator(0),
        "failures": spark_context.accumulator([], ListParam()),
    }


def run(arguments):
    """Runs the job; returns the report's counts."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("absolve-links")
    # Under spark-submit (or with PYSPARK_SUBMIT_ARGS), the master is already chosen.
    submitted = any(v in os.environ for v in ("PYSPARK_GATEWAY_PORT", "SPARK_ENV_LOADED", "PYSPARK_SUBMIT_ARGS"))
    master = arguments.master or (None if submitted else "local[*]")
    if master:
        builder = builder.master(master)
    # One task per core, as Spark schedules them: absolve's own threads (rayon, for the
    # payloads of a WARC) would only compete with the other tasks' for the same cores.
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    builder = builder.config("spark.executorEnv.RAYON_NUM_THREADS", os.environ["RAYON_NUM_THREADS"])
    if (master or "").startswith("local"):
        # Local mode: the workers' Python is this one, where absolve is installed.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        builder.config("spark.sql.parquet.compression.codec", arguments.compression)
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    try:
        context = spark.sparkContext
        counters = make_counters(context)
        options = {
            "charset": arguments.charset,
            "resolve_fragments": arguments.resolve_fragments,
            "spec": arguments.spec or f"rfc{arguments.rfc or 1808}",
            "http_base_headers": arguments.http_base_headers,
        }
        partitions = arguments.num_input_partitions or 4 * context.defaultParallelism
        started = time.perf_counter()
        if arguments.rdd:
            # cc-pyspark's own form: an RDD of rows, pickled row by row to the JVM.
            rows = context.textFile(arguments.input, minPartitions=partitions).mapPartitions(
                lambda lines: links_of_partition(lines, counters, options)
            )
            table = spark.createDataFrame(rows, schema=schema(), verifySchema=False)
        else:
            # The same mapPartitions over the list, as Arrow batches (Spark >= 3.3).
            paths = spark.read.text(arguments.input).repartition(partitions)
            batch_rows = arguments.batch_rows
            table = paths.mapInArrow(lambda batches: arrow_batches(batches, counters, options, batch_rows), schema())
        if arguments.num_output_partitions:
            table = table.coalesce(arguments.num_output_partitions)
        table.write.mode("overwrite" if arguments.overwrite else "errorifexists").parquet(arguments.output)
        seconds = time.perf_counter() - started
        return {
            "read": counters["read"].value,
            "failed": counters["failed"].value,
            "links": counters["links"].value,
            "warnings": counters["warnings"].value,
            "failures": sorted(counters["failures"].value),
            "seconds": seconds,
            "master": context.master,
        }
    finally:
        spark.stop()


def report(counts, output, stream=sys.stderr):
    print(
        f"absolve.spark: {counts['read']} WARC files read, {counts['links']} links written to {output}"
        f" in {counts['seconds']:.1f} s ({counts['master']}); {counts['warnings']} warnings;"
        f" {counts['failed']} files could not be read" + (":" if counts["failed"] else ""),
        file=stream,
    )
    for failure in counts["failures"]:
        print(f"absolve.spark:   {failure}", file=stream)


def main(argv=None):
    arguments = parse_arguments(argv)
    counts = run(arguments)
    report(counts, arguments.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
