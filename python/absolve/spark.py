"""The links of many WARC files on Apache Spark, as a Parquet table.

    python -m absolve.spark [--master local[2]] INPUT_LIST OUTPUT_DIR
    spark-submit --master yarn .../absolve/spark.py INPUT_LIST OUTPUT_DIR

The pattern of Common Crawl's cc-pyspark jobs: INPUT_LIST is a text file naming one WARC
file per line (a local path, a ``file:`` URI, or an ``http(s)://`` URL, read as a stream);
its lines are split into partitions, and each task runs ``absolve.warc_link_batches`` over
each file of its partition. The links go to OUTPUT_DIR as
a Parquet table, one row per link:

    page_url   the record's WARC-Target-URI (the page's URL; null if the record has none)
    record_id  the record's WARC-Record-ID (null if the record has none)
    element, attribute, original, resolved, base, base_from
               as in ``absolve links`` (attribute and base may be null)

How the links reach Parquet (the default): each task writes the Arrow record batches
absolve builds in Rust straight to one Parquet file of its own with
``pyarrow.parquet.ParquetWriter`` (one row group per batch, snappy by default), in the
Python worker: the links never cross to the JVM, which sees only one small summary
per WARC file (the file, its links, its warnings, why it could not be read, the part
file). The list is an RDD (``textFile``, ``mapPartitions``), not a DataFrame: only Python
runs on it, and Spark SQL's first query costs 3-4 s of planning and code generation that
a small job would mostly be. The part file is written under
``OUTPUT_DIR/_temporary/JOB/ATTEMPT/``, a name of
the task attempt's own; once every task's summary is collected, the driver moves the part
file of each partition's accepted attempt to ``OUTPUT_DIR/part-NNNNN-JOB.c000.snappy.parquet``,
deletes ``_temporary`` (with whatever failed, retried or speculative attempts left there)
and writes ``_SUCCESS``, as Spark's own file committer does: a retried or duplicated task
never leaves two copies of its rows. OUTPUT_DIR is opened with ``pyarrow.fs`` (a local
path, ``file:``, ``s3://``, ``gs://``, ``hdfs://``): every executor must reach it by the
same name (in local mode, any local path). The files carry Spark's schema in their
metadata, so ``spark.read.parquet`` and ``pyarrow.parquet.read_table`` read them as
Spark's own.

``--spark-writer``: the batches go to the JVM instead, through ``mapInArrow``, and Spark
writes the Parquet files (any filesystem Hadoop knows; the JVM converts every link to a
row: on 406 MB of WARC files, the JVM's CPU time was 40 s against 8 s, the whole job's
63 s against 32 s). ``--rdd``: cc-pyspark's ``mapPartitions`` over
``absolve.warc_links``, a pickled row per link (the slowest form: last measured at about
three times ``--spark-writer``'s CPU time).

A file that cannot be read (missing, not a WARC, damaged gzip data) does not stop the job:
it is counted and named in the report printed at the end; the links read from a damaged
file before the damage are kept. The job fails only if Spark does. Warnings (a damaged
record read past, a body that is not what its headers say) are counted, and the first
``REPORT_WARNINGS`` of them named in the report, each as ``absolve warc_links`` words it
(the file, the record and its byte offset, what was wrong), the rest counted: what a
task and the driver hold stays bounded however many warnings a file gives.

The knobs:

    --num-input-partitions N   how many tasks the list is split into (default: 4 per core,
                               the files' sizes vary); with one WARC file per line, each task
                               reads ~files/N files one after another: keep N >= the cores
                               so that every core stays busy till the end
    --batch-rows R             links per Arrow batch (default 65536, ~10 MB of strings),
                               and so per Parquet row group: memory per task grows with it
    --num-output-partitions M  at most M Parquet files: the input partitions are coalesced
                               to M tasks (each writes one file; fewer tasks, fewer cores)
    --compression C            snappy (default, Spark's), zstd, gzip, lz4, brotli, none
    --jvm-options OPTS         local mode, when this command starts the JVM: its options
                               (default in the direct form: C1 only, the serial collector:
                               the JVM only schedules and collects, and these halve its
                               CPU time; none with --spark-writer or --rdd)

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


# How many warnings the report names (the others are counted): the most a task's summaries
# (or accumulator), and the driver, hold; each named warning is cut to WARNING_CHARS
# characters (a warning may quote a long URL).
REPORT_WARNINGS = 20
WARNING_CHARS = 1000


# The JVM's options in local mode (see --jvm-options): the JVM only schedules and collects,
# and a short job's CPU went mostly to JIT compiling and garbage collection threads: C1
# only and the serial collector halved the JVM's CPU time (BENCHMARKS.md, "Crawl scale").
LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1"


def count_from(least):
    """An ``argparse`` type: a whole number of at least ``least``, else a usage error (status
    2, before OUTPUT_DIR is touched)."""

    def count(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: must be {least} or more")
        return value

    count.__name__ = "count"
    return count


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
        type=count_from(0),
        default=0,
        help="how many partitions the list is split into (default: 4 per core: the files' sizes vary)",
    )
    parser.add_argument("--num-output-partitions", type=count_from(0), default=0, help="how many Parquet files (default: as many as input partitions)")
    parser.add_argument(
        "--rdd",
        action="store_true",
        help="rows through an RDD (cc-pyspark's form, pickled row by row) instead of Arrow batches",
    )
    parser.add_argument(
        "--spark-writer",
        action="store_true",
        help="hand the Arrow batches to the JVM and let Spark write the Parquet files (any Hadoop"
        " filesystem; ~2x the job's CPU) instead of writing them from the Python workers",
    )
    parser.add_argument(
        "--batch-rows",
        type=count_from(1),
        default=65536,
        help="links per Arrow batch and Parquet row group (default: 65536; memory per task grows with it)",
    )
    parser.add_argument(
        "--compression",
        default="snappy",
        choices=["snappy", "zstd", "gzip", "lz4", "brotli", "none", "uncompressed"],
        help="the Parquet compression codec (default: snappy, Spark's)",
    )
    parser.add_argument(
        "--jvm-options",
        help="in local mode, when this command starts the JVM: its options (default, without"
        f" --spark-writer or --rdd: {LOCAL_JVM_OPTIONS!r}; '' for the JVM's own)",
    )
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


def local_path(uri):
    """The path a ``file:`` URI names; any other text as it is."""
    if uri.startswith("file:"):
        return urllib.parse.unquote(urllib.parse.urlparse(uri).path)
    return uri


def open_warc(uri):
    """What ``absolve.warc_links`` reads for one line of the list: a path, or a stream."""
    if uri.startswith(("http://", "https://")):
        return urllib.request.urlopen(uri)  # noqa: S310 (the list names the inputs)
    return local_path(uri)


def listed(lines):
    """The WARC files a list names: its lines stripped, blank lines and ``#`` comments
    left out."""
    for line in lines:
        uri = (line or "").strip()
        if uri and not uri.startswith("#"):
            yield uri


def listed_in(batches):
    """``listed`` over the lines of the list as ``mapInArrow`` hands them (Arrow batches of
    one string column)."""
    for batch in batches:
        yield from listed(batch.column(0).to_pylist())


class Warned:
    """A context in which the ``AbsolveWarning``s met reading the WARC file ``uri`` are
    counted (``count``) and the first ``keep`` kept (``named``), each named with ``uri``
    (the line of the list, where absolve names what it opened) and cut to
    ``WARNING_CHARS``; other warnings go where they went."""

    def __init__(self, uri, keep=REPORT_WARNINGS):
        self.uri, self.keep, self.count, self.named = uri, keep, 0, []
        self.label = uri

    def reads(self, opened):
        """``opened`` (what ``open_warc`` gave), noting the name absolve gives it in its
        warnings (see ``warc_links``): a path as given, else the file object's name."""
        self.label = opened if isinstance(opened, str) else str(getattr(opened, "name", "<file object>"))
        return opened

    def __enter__(self):
        import absolve

        self.category = absolve.AbsolveWarning
        self.catching = warnings.catch_warnings()
        self.catching.__enter__()
        warnings.simplefilter("always", self.category)
        self.shown_elsewhere = warnings.showwarning
        warnings.showwarning = self.show
        return self

    def __exit__(self, *raised):
        return self.catching.__exit__(*raised)

    def show(self, message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, self.category):
            self.shown_elsewhere(message, category, filename, lineno, file, line)
            return
        self.count += 1
        if len(self.named) < self.keep:
            self.named.append(self.name(str(message)))

    def name(self, text):
        """The warning's text with ``uri`` first, cut to ``WARNING_CHARS``."""
        if text.startswith(self.label + ": "):
            text = text[len(self.label) + 2 :]
        text = f"{self.uri}: {text}"
        return text if len(text) <= WARNING_CHARS else text[: WARNING_CHARS - 1] + "…"


def counted(uri, counters, items, rows_of):
    """Yields what ``items(opened)`` gives for the WARC file ``uri`` (``opened``: what
    ``open_warc`` made of it), counting into ``counters`` (accumulators) its rows
    (``rows_of`` each item), its warnings (the first named), and whether it was read or
    failed (an ``OSError`` or ``ValueError``, raised by ``items()`` or as it goes)."""
    rows = 0
    with Warned(uri) as warned:
        try:
            opened = warned.reads(open_warc(uri))
            for item in items(opened):
                rows += rows_of(item)
                yield item
        except (OSError, ValueError) as error:
            counters["failed"].add(1)
            counters["failures"].add([failure(uri, error)])
        else:
            counters["read"].add(1)
        finally:
            counters["links"].add(rows)
            counters["warnings"].add(warned.count)
            counters["named"].add(warned.named)


def links_of_partition(lines, counters, options):
    """The rows of the links of every WARC file named in ``lines`` (runs on an executor)."""
    import absolve

    def rows(opened):
        for link in absolve.warc_links(opened, **options):
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

    for uri in listed(lines):
        yield from counted(uri, counters, rows, lambda _: 1)


def arrow_batches(batches, counters, options, batch_rows=65536):
    """``mapInArrow``: the links of every WARC file named in ``batches`` (Arrow batches of
    lines of the list), as the Arrow record batches ``absolve.warc_link_batches`` builds
    in Rust: no Python object per link, no pickling; the batches go to the JVM, then to
    Parquet, as they are. The same rows as ``links_of_partition``."""
    import absolve

    for uri in listed_in(batches):
        batches_of = lambda opened: absolve.warc_link_batches(opened, batch_rows, **options)
        yield from counted(uri, counters, batches_of, lambda batch: batch.num_rows)


# The summary of one WARC file that a task of the direct form hands to the driver: the
# line of the list, its links, its warnings, the first of them named (``Warned``), why it
# could not be read (or None), the task attempt's part file (or None if it wrote none).
SUMMARY = ("file", "links", "warnings", "named", "failure", "part")


class Target:
    """Where the direct form's tasks write: OUTPUT_DIR (a path or a ``pyarrow.fs`` URI),
    the job's id (in the part files' names), the codec and Spark's schema (as JSON, for
    the files' metadata). Made in the driver, pickled to the tasks."""

    def __init__(self, output, job, compression, spark_schema):
        if "://" not in output and not output.startswith("file:"):
            output = os.path.abspath(output)
        self.output, self.job, self.spark_schema = output, job, spark_schema
        self.compression = "none" if compression == "uncompressed" else compression

    def filesystem(self):
        """(filesystem, OUTPUT_DIR's path in it)."""
        from pyarrow import fs

        return fs.FileSystem.from_uri(self.output)

    def part_name(self, partition):
        codec = "" if self.compression == "none" else f".{self.compression}"
        return f"part-{partition:05d}-{self.job}.c000{codec}.parquet"

    def attempt_dir(self, root, partition, attempt, task_attempt):
        """The task attempt's own folder: no two attempts of a task write the same file."""
        return f"{root}/_temporary/{self.job}/attempt-{partition:05d}-{attempt}-{task_attempt}"

    def arrow_schema(self, schema):
        """``schema`` with Spark's row metadata, as Spark's own Parquet files carry it."""
        return schema.with_metadata({"org.apache.spark.sql.parquet.row.metadata": self.spark_schema})


def parquet_parts(lines, options, batch_rows, target):
    """``mapPartitions`` of the direct form: the links of every WARC file named in ``lines``
    (a partition of the list), from ``absolve.warc_link_batches`` to the task attempt's own
    Parquet file, batch by batch; yields only one summary per WARC file (a dict of
    ``SUMMARY``'s keys), once the file is closed. The same rows as ``arrow_batches``."""
    import pyarrow.parquet as pq
    from pyspark import TaskContext

    import absolve

    task = TaskContext.get()
    partition, attempt, task_attempt = task.partitionId(), task.attemptNumber(), task.taskAttemptId()
    filesystem, root = target.filesystem()
    part = f"{target.attempt_dir(root, partition, attempt, task_attempt)}/{target.part_name(partition)}"
    writer = None
    summaries = []
    try:
        for uri in listed(lines):
            rows, problem = 0, None
            # The task names REPORT_WARNINGS warnings at most, whatever its files give.
            with Warned(uri, REPORT_WARNINGS - sum(len(s["named"]) for s in summaries)) as warned:
                try:
                    opened = warned.reads(open_warc(uri))
                    for links in absolve.warc_link_batches(opened, batch_rows, **options):
                        if writer is None:
                            filesystem.create_dir(part.rsplit("/", 1)[0])
                            schema = target.arrow_schema(links.schema)
                            writer = pq.ParquetWriter(part, schema, filesystem=filesystem, compression=target.compression)
                        writer.write_batch(links)
                        rows += links.num_rows
                except (OSError, ValueError) as error:
                    problem = failure(uri, error)
            summaries.append(dict(zip(SUMMARY, (uri, rows, warned.count, warned.named, problem, None))))
    finally:
        if writer is not None:
            writer.close()
    for summary in summaries:
        summary["part"] = part if writer is not None else None
        yield summary


def prepare_output(target, overwrite):
    """OUTPUT_DIR made (emptied first with ``overwrite``; refused if it exists without)."""
    from pyarrow import fs

    filesystem, root = target.filesystem()
    if filesystem.get_file_info(root).type != fs.FileType.NotFound:
        if not overwrite:
            raise FileExistsError(f"{target.output} exists (--overwrite replaces it)")
        filesystem.delete_dir(root)
    filesystem.create_dir(root)


def commit_parts(target, summaries):
    """Moves the part file of each partition's accepted attempt (those named in the
    collected ``summaries``) to OUTPUT_DIR, deletes ``_temporary`` (the other attempts'
    files with it) and writes ``_SUCCESS``. A job that found no link gets one empty
    part, so that the table still has its schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyarrow import fs

    filesystem, root = target.filesystem()
    parts = sorted({s["part"] for s in summaries if s["part"]})
    for part in parts:
        filesystem.move(part, f"{root}/{part.rsplit('/', 1)[1]}")
    if not parts:
        pq.write_table(
            target.arrow_schema(pa.schema([pa.field(n, pa.string(), null) for n, null in COLUMNS])).empty_table(),
            f"{root}/{target.part_name(0)}",
            filesystem=filesystem,
            compression=target.compression,
        )
    if filesystem.get_file_info(f"{root}/_temporary").type != fs.FileType.NotFound:
        filesystem.delete_dir(f"{root}/_temporary")
    with filesystem.open_output_stream(f"{root}/_SUCCESS"):
        pass
    return len(parts)


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
        """A list, ``limit`` items at most (the first added; the others dropped)."""

        def __init__(self, limit=None):
            self.limit = limit

        def zero(self, value):
            return []

        def addInPlace(self, first, second):
            first.extend(second[: None if self.limit is None else max(0, self.limit - len(first))])
            return first

    return {
        "read": spark_context.accumulator(0),
        "failed": spark_context.accumulator(0),
        "links": spark_context.accumulator(0),
        "warnings": spark_context.accumulator(0),
        "failures": spark_context.accumulator([], ListParam()),
        "named": spark_context.accumulator([], ListParam(REPORT_WARNINGS)),
    }


def write_with_spark(spark, arguments, partitions, counters, options):
    """The links to Parquet through the JVM: ``--rdd`` (pickled rows) or ``--spark-writer``
    (``mapInArrow`` over the batches); the counts go to ``counters`` (accumulators)."""
    context = spark.sparkContext
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


def listing(context, input, partitions):
    """The lines of the list INPUT as an RDD of about ``partitions`` partitions (split by
    bytes, as Hadoop splits a text file: each line in the split where it starts), merged
    down to ``partitions`` if there are more. An RDD, not a DataFrame: in the direct form
    only Python runs on the lines, and a job of Spark SQL cost 3.3-3.9 s more than the same
    job on an RDD, whatever its size (its first query's planning and code generation;
    BENCHMARKS.md, "Crawl scale")."""
    lines = context.textFile(input, minPartitions=partitions)
    return lines.coalesce(partitions) if lines.getNumPartitions() > partitions else lines


def write_directly(spark, arguments, partitions, options):
    """The links to Parquet from the Python workers (see the module's docstring): each task
    writes its part file, the JVM collects one summary row per WARC file, the driver
    commits the accepted attempts' parts. Returns the report's counts, from the summaries
    (a retried task's are counted once, unlike an accumulator's)."""
    import uuid

    target = Target(arguments.output, uuid.uuid4().hex, arguments.compression, schema().json())
    prepare_output(target, arguments.overwrite)
    paths = listing(spark.sparkContext, arguments.input, partitions)
    if arguments.num_output_partitions:
        paths = paths.coalesce(arguments.num_output_partitions)
    batch_rows = arguments.batch_rows
    summaries = paths.mapPartitions(lambda lines: parquet_parts(lines, options, batch_rows, target)).collect()
    commit_parts(target, summaries)
    failed = [s["failure"] for s in summaries if s["failure"] is not None]
    return {
        "read": len(summaries) - len(failed),
        "failed": len(failed),
        "links": sum(s["links"] for s in summaries),
        "warnings": sum(s["warnings"] for s in summaries),
        "failures": sorted(failed),
        "named": [w for s in summaries for w in s["named"] or []][:REPORT_WARNINGS],
    }


def run(arguments):
    """Runs the job; returns the report's counts, with ``seconds`` (the job's own time,
    from the Spark session's start to the table's commit) and ``ready`` (the seconds
    the Spark session took to start, the JVM's included)."""
    from pyspark.sql import SparkSession

    starting = time.perf_counter()
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
        direct = not (arguments.rdd or arguments.spark_writer)
        jvm_options = LOCAL_JVM_OPTIONS if arguments.jvm_options is None and direct else arguments.jvm_options
        if not submitted and jvm_options:
            # This process starts the JVM; in the direct form it only schedules tasks and
            # collects summaries, and C2's compiling and a parallel collector cost more
            # than they bring.
            builder = builder.config("spark.driver.extraJavaOptions", jvm_options)
    spark = (
        builder.config("spark.sql.parquet.compression.codec", arguments.compression)
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    ready = time.perf_counter() - starting
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
        if arguments.rdd or arguments.spark_writer:
            write_with_spark(spark, arguments, partitions, counters, options)
            counts = {name: counters[name].value for name in ["read", "failed", "links", "warnings"]}
            counts["failures"] = sorted(counters["failures"].value)
            counts["named"] = counters["named"].value
        else:
            counts = write_directly(spark, arguments, partitions, options)
        counts["seconds"] = time.perf_counter() - started
        counts["ready"] = ready
        counts["master"] = context.master
        return counts
    finally:
        spark.stop()


def report(counts, output, stream=sys.stderr):
    print(
        f"absolve.spark: {counts['read']} WARC files read, {counts['links']} links written to {output}"
        f" in {counts['seconds']:.1f} s ({counts['master']}, Spark started in {counts['ready']:.1f} s);"
        f" {counts['warnings']} warnings;"
        f" {counts['failed']} files could not be read" + (":" if counts["failed"] else ""),
        file=stream,
    )
    for failure in counts["failures"]:
        print(f"absolve.spark:   {failure}", file=stream)
    for warning in counts["named"]:
        print(f"absolve.spark: warning: {warning}", file=stream)
    unnamed = counts["warnings"] - len(counts["named"])
    if unnamed:
        print(f"absolve.spark: warning: {unnamed} more warnings not named", file=stream)


def local_list_missing(uri):
    """Whether INPUT_LIST names a local file (a path or a ``file:`` URI) that is not
    there: said before Spark starts, not as the JVM's stack trace after it. Other
    schemes (``hdfs://``, ``s3a://``) are left to Spark."""
    if "://" in uri and not uri.startswith("file:"):
        return False
    return not os.path.isfile(local_path(uri))


def main(argv=None):
    arguments = parse_arguments(argv)
    if local_list_missing(arguments.input):
        print(f"absolve.spark: {arguments.input}: no such file (INPUT_LIST: a text file naming one WARC file a line)", file=sys.stderr)
        return 1
    try:
        counts = run(arguments)
    except FileExistsError as error:
        print(f"absolve.spark: {error}", file=sys.stderr)
        return 2
    report(counts, arguments.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
