"""Crawl scale (issue 24), every ratio measured in one run on the same files:

    target/venv/bin/python benches/crawl_scale.py [--files 30] [--copies 2] [--pages 2000] [--no-spark]

1. `absolve links -r -j 2` against `-j 1` over a tree of WARC files and a tree of HTML
   pages (goal >= 1.7x);
2. the Spark job (`python -m absolve.spark`, mapInArrow over `warc_link_batches`):
   local[2] against local[1] (goal >= 1.5x), and local[2]'s span against the CLI's
   `links -r -j 2` wall time (goal <= 1.5x);
3. `absolve.warc_link_batches` on one core (taskset -c 0) against the CLI's `links -j 1`
   on the same core (links per second, goal >= 0.9x);
4. a pandas frame from the batches (`pa.Table.from_batches(...).to_pandas()`) against one
   built from `warc_links`' `Link` objects (goal >= 5x).

The WARC files are benches/python_spark.py's (../shared/corpus's readable archives and
pages as response records, concatenated; made in a temporary folder, never kept); the
HTML tree is benches/generate.py's. Each figure is the median of --runs runs (the two
sides alternating); wall and CPU seconds (the process and its children) are given, and
the load average before and after: the machine may be shared.
"""

import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benches"))

import python_spark  # noqa: E402  (benches/python_spark.py: the files and the Spark runner)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, env=None):
    """(wall seconds, CPU seconds) of a command, its output thrown away."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started, children_cpu() - cpu


def median_pair(runs, first, second):
    """Runs `first` and `second` alternately; the median (wall, cpu) of each."""
    ones, twos = [], []
    for _ in range(runs):
        ones.append(first())
        twos.append(second())
    pick = lambda results: (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results))
    return pick(ones), pick(twos)


def cli_threads(binary, tree, runs, extra=()):
    one, two = median_pair(
        runs,
        lambda: timed([binary, "links", "-r", "-j", "1", *extra, str(tree)]),
        lambda: timed([binary, "links", "-r", "-j", "2", *extra, str(tree)]),
    )
    return one, two


BATCHES = """
import os, sys, time, warnings
import absolve
paths = sys.argv[1:]
rows = 0
started, cpu = time.perf_counter(), time.process_time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", absolve.AbsolveWarning)
    for path in paths:
        for batch in absolve.warc_link_batches(path):
            rows += batch.num_rows
print(rows, time.perf_counter() - started, time.process_time() - cpu)
"""

PANDAS = """
import sys, time, warnings
import pandas as pd, pyarrow as pa
import absolve
paths = sys.argv[2:]
columns = ["page_url", "record_id", "element", "attribute", "original", "resolved", "base", "base_from"]
warnings.simplefilter("ignore", absolve.AbsolveWarning)
started = time.perf_counter()
if sys.argv[1] == "batches":
    # pandas' own types: a Python str per value, as the frame from Link objects has.
    frame = pa.Table.from_batches([b for p in paths for b in absolve.warc_link_batches(p)]).to_pandas()
elif sys.argv[1] == "arrow-backed":
    # pandas >= 2 with Arrow-backed columns: the strings stay in the batches' buffers.
    frame = pa.Table.from_batches([b for p in paths for b in absolve.warc_link_batches(p)]).to_pandas(types_mapper=pd.ArrowDtype)
else:
    frame = pd.DataFrame(
        [(l.target_uri, l.record, l.element, l.attribute, l.original, l.resolved, l.base, l.base_from)
         for p in paths for l in absolve.warc_links(p)],
        columns=columns,
    )
print(len(frame), time.perf_counter() - started)
"""


def one_core(command):
    return ["taskset", "-c", "0", *command] if shutil.which("taskset") else command


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "absolve"))
    arguments = parser.parse_args()
    binary = arguments.bin
    work = pathlib.Path(tempfile.mkdtemp(prefix="absolve-crawl-scale-"))
    try:
        print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores")
        warc_tree = work / "warc"
        warc_tree.mkdir()
        listing, paths = python_spark.make_files(warc_tree, arguments.files, arguments.copies)
        listing = listing.rename(work / "warc.paths")
        size = sum(p.stat().st_size for p in paths) / 1e6
        html_tree = work / "pages"
        subprocess.run([sys.executable, str(REPO / "benches" / "generate.py"), "pages", str(arguments.pages), str(html_tree)], check=True)
        html_size = sum(p.stat().st_size for p in html_tree.rglob("*") if p.is_file()) / 1e6
        print(f"inputs: {len(paths)} WARC files ({size:.0f} MB gzip), {arguments.pages} HTML pages ({html_size:.0f} MB)")

        print("== 1. links -r -j 2 against -j 1 (median of the runs: wall, CPU)")
        figures = {}
        for name, tree, extra in [("WARC", warc_tree, ()), ("HTML", html_tree, ("--url", "https://www.cloudflare.com/"))]:
            one, two = cli_threads(binary, tree, arguments.runs, extra)
            figures[name] = two
            print(
                f"{name} tree: -j 1 {one[0]:.2f} s wall {one[1]:.2f} s CPU; -j 2 {two[0]:.2f} s wall"
                f" {two[1]:.2f} s CPU ({two[1] / two[0]:.2f} cores busy): {one[0] / two[0]:.2f}x wall,"
                f" CPU per link {one[1] / two[1]:.2f}x"
            )

        print("== 3. warc_link_batches on one core against links -j 1 on the same core")
        cli, batches = median_pair(
            arguments.runs,
            lambda: timed(one_core([binary, "links", "-j", "1", "--format", "warc", *map(str, paths)])),
            lambda: timed(one_core([sys.executable, "-c", BATCHES, *map(str, paths)]), env={**os.environ, "RAYON_NUM_THREADS": "1"}),
        )
        rows = int(subprocess.run([sys.executable, "-c", BATCHES, *map(str, paths)], capture_output=True, text=True, check=True).stdout.split()[0])
        print(
            f"{rows} links: CLI {cli[0]:.2f} s wall {cli[1]:.2f} s CPU ({rows / cli[0] / 1e6:.2f} M links/s);"
            f" warc_link_batches {batches[0]:.2f} s wall {batches[1]:.2f} s CPU ({rows / batches[0] / 1e6:.2f} M links/s):"
            f" {cli[0] / batches[0]:.2f}x the CLI's throughput (wall), {cli[1] / batches[1]:.2f}x (CPU)"
        )

        print("== 4. a pandas frame from the batches against one from Link objects (5 files)")
        some = list(map(str, paths[:5]))
        pandas = lambda how: float(subprocess.run([sys.executable, "-c", PANDAS, how, *some], capture_output=True, text=True, check=True).stdout.split()[1])
        from_batches = statistics.median(pandas("batches") for _ in range(arguments.runs))
        arrow_backed = statistics.median(pandas("arrow-backed") for _ in range(arguments.runs))
        from_links = statistics.median(pandas("links") for _ in range(arguments.runs))
        print(
            f"from Link objects {from_links:.2f} s; from batches {from_batches:.2f} s ({from_links / from_batches:.2f}x),"
            f" Arrow-backed (types_mapper=pd.ArrowDtype) {arrow_backed:.2f} s ({from_links / arrow_backed:.2f}x)"
        )

        if not arguments.no_spark:
            print("== 2. the Spark job (mapInArrow over warc_link_batches): local[1], local[2], against links -r -j 2")
            spark = {}
            for master in ["local[1]", "local[2]"]:
                spark[master] = result = python_spark.with_spark(listing, work, master, "arrow")
                assert result["links"] == rows, (result["links"], rows)
                print(
                    f"{master}: job {result['job']:.1f} s, command {result['wall']:.1f} s wall;"
                    f" CPU: JVM {result['jvm']:.1f} s, Python workers {result['workers']:.1f} s"
                )
            cli_two = timed([binary, "links", "-r", "-j", "2", str(warc_tree)])
            one, two = spark["local[1]"], spark["local[2]"]
            spark_cpu = lambda r: r["jvm"] + r["workers"]
            print(
                f"CPU of the job (JVM + Python workers) {spark_cpu(two):.1f} s against the CLI's {cli_two[1]:.2f} s:"
                f" {spark_cpu(two) / cli_two[1]:.1f}x"
            )
            print(
                f"local[2] vs local[1]: {one['job'] / two['job']:.2f}x (job);"
                f" local[2] job {two['job']:.1f} s against links -r -j 2 {cli_two[0]:.2f} s:"
                f" {two['job'] / cli_two[0]:.2f}x (command with the JVM's start: {two['wall'] / cli_two[0]:.2f}x)"
            )
        print(f"load average after: {os.getloadavg()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
