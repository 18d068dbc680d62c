"""Crawl scale (issue 24), every ratio measured in one run on the same files:

    target/venv/bin/python benches/crawl_scale.py [--files 30] [--copies 2] [--pages 2000]
        [--large-mb 400] [--runs 3] [--no-spark] [--only cli,spark,batches,pandas] [--before BIN]

1. `absolve links -r -j 2` against `-j 1` over a tree of WARC files and a tree of HTML
   pages (goal >= 1.7x), in interleaved rounds (their order alternating), the best and the
   median of --runs, and the paired ratio (the median of each round's own ratio, which a
   machine whose speed drifts between rounds disturbs least); with --before, the same
   for another binary and its paired ratio against this one; beside
   them, the machine's own ceiling: the same files as two independent `-j 1` processes on
   halves of the bytes, run at once (what two cores give here at best);
2. the Spark job (`python -m absolve.spark`): local[1] and local[2] with the parts written
   by the Python workers (the default), local[2] with Spark's own writer
   (`--spark-writer`, the form before), and the CLI's `links -r -j 1` and `-j 2` on the same
   files right after: local[2] against local[1] (goal >= 1.5x) and local[2]'s span against
   the CLI's `-j 2` wall time (goal <= 1.5x). The span is given two ways: the job's own
   time (from the Spark session ready to the table committed, the report line's "in N s")
   and the whole command's (with the JVM's start); CPU is the JVM's and the Python
   workers'. Done on the WARC set, then on the same files repeated (hard links) to
   --large-mb (0: not), since the JVM's fixed cost dominates a small set;
3. `absolve.warc_link_batches` on one core (taskset -c 0) against the CLI's `links -j 1`
   on the same core (links per second, goal >= 0.9x);
4. a pandas frame (5 files) from (a) the batches, `pa.Table.from_batches(...).to_pandas()`,
   (b) the same with `types_mapper=pd.ArrowDtype`, (c) `warc_links`' `Link` objects: end
   to end from the files, and the conversion alone (the parse done first, not timed).
   Goal: >= 5x.

The WARC files are benches/python_spark.py's (../shared/corpus's readable archives and
pages as response records, concatenated; made in a temporary folder, never kept); the
HTML tree is benches/generate.py's pages. Every figure is printed with the load average
(`uptime`'s) when it was taken: the machine may be shared.
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


def load():
    return "load %.2f %.2f %.2f" % os.getloadavg()


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_stime


def timed(command, env=None):
    """(wall seconds, CPU seconds, of which system) of a command, its output thrown away."""
    (cpu, system), started = children_cpu(), time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    after = children_cpu()
    return time.perf_counter() - started, after[0] - cpu, after[1] - system


def measured_rounds(runs, commands):
    """Runs each of `commands` (thunks) once per round, interleaved, in an order that
    alternates from round to round; per command, its (wall, CPU, system CPU) of each
    round."""
    results = [[] for _ in commands]
    for round in range(runs):
        order = list(zip(results, commands))
        for result, command in order if round % 2 == 0 else reversed(order):
            result.append(command())
    return results


def summarized(measured):
    """Per command of `measured_rounds`: the best (wall, CPU, system CPU), each the least
    of the rounds, and the median wall."""
    best = lambda r: tuple(min(x[i] for x in r) for i in range(len(r[0])))
    return [(best(r), statistics.median(x[0] for x in r)) for r in measured]


def rounds(runs, commands):
    """Runs each of `commands` (thunks) once per round, interleaved; per command, the
    best (wall, CPU, system CPU), each the least of the rounds, and the median wall."""
    return summarized(measured_rounds(runs, commands))


def paired(slower, faster):
    """The median of the rounds' own ratios of wall times: on a shared machine whose speed
    drifts from minute to minute, each round's two runs see about the same machine."""
    return statistics.median(a[0] / b[0] for a, b in zip(slower, faster))


def cli_threads(binary, tree, runs, extra=()):
    """`links -r -j 1` and `-j 2` over `tree`, interleaved: best and median of each."""
    command = lambda threads: lambda: timed([binary, "links", "-r", "-j", threads, *extra, str(tree)])
    return rounds(runs, [command("1"), command("2")])


BATCHES = """
import os, sys, time, warnings
import absolve
import pyarrow  # imported by the first batch otherwise: not the function's own time
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
how, paths = sys.argv[1], sys.argv[2:]
columns = ["page_url", "record_id", "element", "attribute", "original", "resolved", "base", "base_from"]
warnings.simplefilter("ignore", absolve.AbsolveWarning)
started = time.perf_counter()
if how == "links":
    parsed = [l for p in paths for l in absolve.warc_links(p)]
else:
    parsed = [b for p in paths for b in absolve.warc_link_batches(p)]
converting = time.perf_counter()
if how == "batches":
    # pandas' own types (object columns, or pandas 3's pyarrow-backed str).
    frame = pa.Table.from_batches(parsed).to_pandas()
elif how == "arrow-backed":
    # Arrow-backed columns: the strings stay in the batches' buffers.
    frame = pa.Table.from_batches(parsed).to_pandas(types_mapper=pd.ArrowDtype)
else:
    frame = pd.DataFrame(
        [(l.target_uri, l.record, l.element, l.attribute, l.original, l.resolved, l.base, l.base_from) for l in parsed],
        columns=columns,
    )
done = time.perf_counter()
print(len(frame), done - started, done - converting)
"""


def one_core(command):
    return ["taskset", "-c", "0", *command] if shutil.which("taskset") else command


def halves(tree):
    """The files of `tree`, sorted, cut in two lists of about the same size in bytes."""
    files = sorted(p for p in pathlib.Path(tree).rglob("*") if p.is_file())
    total, seen, cut = sum(p.stat().st_size for p in files), 0, len(files)
    for i, path in enumerate(files):
        if seen >= total / 2:
            cut = i
            break
        seen += path.stat().st_size
    return [str(p) for p in files[:cut]], [str(p) for p in files[cut:]]


def two_processes(binary, tree, extra):
    """The machine's own ceiling: two independent `links -j 1` processes, each over half
    of the tree's bytes, started together; (wall, CPU, system) until both are done."""
    first, second = halves(tree)
    (cpu, system), started = children_cpu(), time.perf_counter()
    running = [
        subprocess.Popen([binary, "links", "-j", "1", *extra, *half], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for half in (first, second)
    ]
    for process in running:
        process.wait()
    after = children_cpu()
    return time.perf_counter() - started, after[0] - cpu, after[1] - system


def threads_section(binary, warc_tree, html_tree, runs, before=None):
    print(f"== 1. links -r -j 2 against -j 1 (interleaved rounds: best, median wall) [{load()}]")
    binaries = [("", binary)] + ([("before: ", before)] if before else [])
    for name, tree, extra in [("WARC", warc_tree, ()), ("HTML", html_tree, ("--url", "https://www.cloudflare.com/"))]:
        command = lambda b, threads: lambda: timed([b, "links", "-r", "-j", threads, *extra, str(tree)])
        commands = [command(b, threads) for _, b in binaries for threads in ["1", "2"]]
        # The same work as two independent processes at once: what two cores of this
        # machine give at best (shared caches, memory bandwidth, a busy neighbour).
        commands.append(lambda: two_processes(binary, tree, extra))
        measured = measured_rounds(runs, commands)
        results = summarized(measured)
        (ceiling, ceiling_median) = results[-1]
        for n, (label, _) in enumerate(binaries):
            (one, one_median), (two, two_median) = results[2 * n], results[2 * n + 1]
            print(
                f"{label}{name} tree: -j 1 {one[0]:.2f} s wall (median {one_median:.2f}) {one[1]:.2f} s CPU ({one[2]:.2f} system);"
                f" -j 2 {two[0]:.2f} s wall (median {two_median:.2f}) {two[1]:.2f} s CPU ({two[2]:.2f} system):"
                f" {one[0] / two[0]:.2f}x wall (medians {one_median / two_median:.2f}x;"
                f" paired, the median of each round's ratio, {paired(measured[2 * n], measured[2 * n + 1]):.2f}x),"
                f" CPU -j 2 / -j 1 {two[1] / one[1]:.2f} [{load()}]"
            )
        if before:
            print(
                f"{name} tree, this binary against --before: -j 2 {paired(measured[3], measured[1]):.2f}x as fast,"
                f" -j 1 {paired(measured[2], measured[0]):.2f}x (paired medians) [{load()}]"
            )
        (one, one_median) = results[0]
        (two, two_median) = results[1]
        print(
            f"{name} tree, the machine's ceiling: two independent -j 1 processes on halves {ceiling[0]:.2f} s wall"
            f" (median {ceiling_median:.2f}), {ceiling[1]:.2f} s CPU: {one[0] / ceiling[0]:.2f}x -j 1's wall"
            f" (medians {one_median / ceiling_median:.2f}x); -j 2 reaches {ceiling[0] / two[0]:.2f} of it [{load()}]"
        )


def timed_batches(command, env):
    """`timed` for the BATCHES script, with the time it gives for its loop: (wall, CPU,
    system CPU, the loop's wall, the loop's CPU, rows)."""
    (cpu, system), started = children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    wall, after = time.perf_counter() - started, children_cpu()
    rows, loop_wall, loop_cpu = done.stdout.split()
    return wall, after[0] - cpu, after[1] - system, float(loop_wall), float(loop_cpu), int(rows)


def batches_section(binary, paths, runs):
    """The CLI's `links -j 1` against `warc_link_batches` on one core: the Python process
    whole (its start and imports, ~0.2 s, included), and the batches' loop alone (what
    the function itself costs a link, the throughput the goal is about)."""
    print(f"== 3. warc_link_batches on one core against links -j 1 on the same core [{load()}]")
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    (cli, _), (batches, _) = rounds(
        runs,
        [
            lambda: timed(one_core([binary, "links", "-j", "1", "--format", "warc", *map(str, paths)])),
            lambda: timed_batches(one_core([sys.executable, "-c", BATCHES, *map(str, paths)]), env=env),
        ],
    )
    rows = batches[5]
    print(
        f"{rows} links: CLI {cli[0]:.2f} s wall {cli[1]:.2f} s CPU ({rows / cli[0] / 1e6:.2f} M links/s);"
        f" warc_link_batches, the process {batches[0]:.2f} s wall {batches[1]:.2f} s CPU ({rows / batches[0] / 1e6:.2f} M links/s):"
        f" {cli[0] / batches[0]:.2f}x the CLI's throughput (wall), {cli[1] / batches[1]:.2f}x (CPU);"
        f" its loop alone {batches[3]:.2f} s wall {batches[4]:.2f} s CPU: {cli[0] / batches[3]:.2f}x (wall),"
        f" {cli[1] / batches[4]:.2f}x (CPU) [{load()}]"
    )
    return rows


def pandas_section(paths, runs):
    print(f"== 4. a pandas frame (5 files): from batches, Arrow-backed, from Link objects [{load()}]")
    some = list(map(str, paths[:5]))

    def frame(how):
        out = subprocess.run([sys.executable, "-c", PANDAS, how, *some], capture_output=True, text=True, check=True).stdout.split()
        return float(out[1]), float(out[2])

    ways = ["batches", "arrow-backed", "links"]
    seen = {way: [] for way in ways}
    for _ in range(runs):  # interleaved rounds; the best of each measure
        for way in ways:
            seen[way].append(frame(way))
    whole = {way: min(w for w, _ in seen[way]) for way in ways}
    conversion = {way: min(c for _, c in seen[way]) for way in ways}
    for way in ways:
        print(
            f"{way}: end to end {whole[way]:.3f} s ({whole['links'] / whole[way]:.2f}x faster than from Link objects);"
            f" conversion alone {conversion[way]:.4f} s ({conversion['links'] / conversion[way]:.1f}x) [{load()}]"
        )


def spark_section(binary, listing, tree, rows, work, label):
    print(f"== 2. the Spark job on {label}: local[1], local[2], Spark's writer, then the CLI [{load()}]")
    results = {}
    for name, master, mode in [("local[1]", "local[1]", "arrow"), ("local[2]", "local[2]", "arrow"), ("local[2] --spark-writer", "local[2]", "spark-writer")]:
        results[name] = result = python_spark.with_spark(listing, work, master, mode)
        assert result["links"] == rows, (result["links"], rows)
        print(
            f"{name}: job {result['job']:.1f} s (Spark's start {result['ready']:.1f} s before it), command {result['wall']:.1f} s wall;"
            f" CPU: JVM {result['jvm']:.1f} s, Python workers {result['workers']:.1f} s [{load()}]"
        )
    cli = {}
    for threads in ["1", "2"]:
        cli[threads] = timed([binary, "links", "-r", "-j", threads, str(tree)])
        print(f"links -r -j {threads}: {cli[threads][0]:.2f} s wall, {cli[threads][1]:.2f} s CPU [{load()}]")
    one, two = results["local[1]"], results["local[2]"]
    cpu = lambda r: r["jvm"] + r["workers"]
    print(
        f"{label}: local[2] vs local[1] {one['job'] / two['job']:.2f}x (job), {one['wall'] / two['wall']:.2f}x (command);"
        f" local[2] against links -r -j 2: job {two['job'] / cli['2'][0]:.2f}x, command {two['wall'] / cli['2'][0]:.2f}x;"
        f" CPU {cpu(two):.1f} s against the CLI's {cli['2'][1]:.2f} s ({cpu(two) / cli['2'][1]:.1f}x);"
        f" Spark's writer: job {results['local[2] --spark-writer']['job']:.1f} s, CPU {cpu(results['local[2] --spark-writer']):.1f} s"
    )


def repeated(paths, target_mb, folder):
    """The files hard-linked (copied where links cannot be made) into `folder` as many
    times as it takes to reach `target_mb`; (listing, paths)."""
    folder.mkdir()
    size = sum(p.stat().st_size for p in paths)
    copies = max(1, round(target_mb * 1e6 / size))
    made = []
    for copy in range(copies):
        for path in paths:
            name = folder / f"{copy:03}-{path.name}"
            try:
                os.link(path, name)
            except OSError:
                shutil.copyfile(path, name)
            made.append(name)
    listing = folder.parent / f"{folder.name}.paths"
    listing.write_text("".join(f"{p}\n" for p in made))
    return listing, made


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--large-mb", type=int, default=400, help="the WARC files repeated to this size for Spark (0: not)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--only", default="cli,spark,batches,pandas", help="which sections, comma-separated")
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "absolve"))
    parser.add_argument("--before", help="another absolve binary timed beside --bin in section 1 (e.g. the one before a change)")
    arguments = parser.parse_args()
    only = set(arguments.only.split(","))
    binary = arguments.bin
    work = pathlib.Path(tempfile.mkdtemp(prefix="absolve-crawl-scale-"))
    try:
        print(f"{os.cpu_count()} cores; {binary} [{load()}]")
        warc_tree = work / "warc"
        warc_tree.mkdir()
        listing, paths = python_spark.make_files(warc_tree, arguments.files, arguments.copies)
        listing = listing.rename(work / "warc.paths")
        size = sum(p.stat().st_size for p in paths) / 1e6
        html_tree = work / "pages"
        if "cli" in only:
            subprocess.run([sys.executable, str(REPO / "benches" / "generate.py"), "pages", str(arguments.pages), str(html_tree)], check=True)
            html_size = sum(p.stat().st_size for p in html_tree.rglob("*") if p.is_file()) / 1e6
            print(f"inputs: {len(paths)} WARC files ({size:.0f} MB gzip), {arguments.pages} HTML pages ({html_size:.0f} MB)")
            threads_section(binary, warc_tree, html_tree, arguments.runs, arguments.before)
        rows = None
        if "batches" in only or "spark" in only:
            rows = batches_section(binary, paths, arguments.runs)
        if "pandas" in only:
            pandas_section(paths, arguments.runs)
        if "spark" in only and not arguments.no_spark:
            spark_section(binary, listing, warc_tree, rows, work, f"{len(paths)} files, {size:.0f} MB")
            if arguments.large_mb:
                large_listing, large = repeated(paths, arguments.large_mb, work / "large")
                large_size = sum(p.stat().st_size for p in large) / 1e6
                copies = len(large) // len(paths)
                spark_section(binary, large_listing, work / "large", rows * copies, work, f"{len(large)} files, {large_size:.0f} MB")
        print(f"[{load()}]")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
