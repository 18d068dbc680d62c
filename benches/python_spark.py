"""The Spark job (python -m absolve.spark) over 40+ WARC files: local[2] against local[1].

    target/venv/bin/python benches/python_spark.py [--files 40] [--workdir DIR]

The WARC files are made from ../shared/corpus (not kept in the repository): each is the
corpus's readable .warc.gz files (a Common Crawl sample, a ClueWeb file, wget crawls)
followed by one gzip member per real page of ../shared/corpus/html as a response record,
all of it --copies times (default 8: about 97,000 links and 5.4 MB a file). Measured, in the same run:
- the job's own time (from the report line: the Spark action, without the JVM's start)
  and the wall time of the whole command, for local[1] and local[2];
- the CPU time of the JVM and of the Python workers (sampled from /proc): what bounds it;
- the three ways links reach Parquet: Arrow batches written by the Python workers (the
  default), Arrow batches handed to the JVM's writer (--spark-writer) and cc-pyspark's
  RDD of pickled rows (--rdd);
- the same links read in this process without Spark (absolve.warc_links + the row tuple):
  what the work costs on one core, so that what Spark adds shows.
"""

import os

# One core for the baseline, as each Spark task gets (absolve.spark sets the same).
os.environ.setdefault("RAYON_NUM_THREADS", "1")

import argparse
import gzip
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import absolve

REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
WARC_PARTS = [
    "resiliparse/warcfile.warc.gz",
    "resiliparse/clueweb-quirk.warc.gz",
    "jwarc/cc.warc.gz",
    "ia-web-commons/IAH-urls-wget.warc.gz",
    "warcio/example.warc.gz",
]
PAGES = {
    "cloudflare.com.html": b"https://www.cloudflare.com/",
    "ecma402-spec.html": b"https://tc39.es/ecma402/",
    "html-parsing-spec.html": b"https://html.spec.whatwg.org/multipage/parsing.html",
}


def response_record(target_uri, body, record_id):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body
    head = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:" + record_id + b">\r\n"
        b"WARC-Target-URI: " + target_uri + b"\r\nContent-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n"
    )
    return gzip.compress(head + http + b"\r\n\r\n", compresslevel=1)


def make_files(workdir, count, copies):
    template = b"".join((CORPUS / "warc" / part).read_bytes() for part in WARC_PARTS)
    paths = []
    for n in range(count):
        pages = b"".join(
            response_record(url, (CORPUS / "html" / name).read_bytes(), b"bench-%d-%d-%d" % (n, c, i))
            for c in range(copies)
            for i, (name, url) in enumerate(PAGES.items())
        )
        path = workdir / f"bench-{n:03}.warc.gz"
        path.write_bytes(template * copies + pages)
        paths.append(path)
    listing = workdir / "warc.paths"
    listing.write_text("".join(f"{p}\n" for p in paths))
    return listing, paths


def without_spark(paths):
    started = time.perf_counter()
    rows = 0
    for path in paths:
        for link in absolve.warc_links(path):
            (link.target_uri, link.record, link.element, link.attribute, link.original, link.resolved, link.base, link.base_from)
            rows += 1
    return time.perf_counter() - started, rows


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_by_process(root):
    """CPU seconds so far of `root`'s descendants, by pid: (name, seconds)."""
    parents, stats = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        stats[int(entry)] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    found = {}
    for pid in stats:
        ancestor = pid
        while ancestor in parents and ancestor != root:
            ancestor = parents[ancestor]
        if ancestor == root:
            found[pid] = stats[pid]
    return found


def with_spark(listing, workdir, master, mode):
    """Runs the job; mode: "arrow" (the default: parts written by the Python workers),
    "spark-writer" (mapInArrow to the JVM, Spark writes) or "rdd"."""
    output = workdir / f"out-{mode}-{master.replace('[', '').replace(']', '')}"
    shutil.rmtree(output, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "absolve.spark", "--master", master, str(listing), str(output)]
        + {"rdd": ["--rdd"], "spark-writer": ["--spark-writer"]}.get(mode, []),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The JVM and the Python workers are the command's descendants: their CPU time is
    # sampled from /proc while they run (the last fraction of a second is missed).
    seen = {}
    while process.poll() is None:
        seen.update(cpu_by_process(process.pid))
        time.sleep(0.25)
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    jvm = sum(t for name, t in seen.values() if name == "java")
    workers = sum(t for pid, (name, t) in seen.items() if name.startswith("python"))
    if done.returncode != 0:
        sys.exit(done.stderr[-3000:])
    line = next(l for l in done.stderr.splitlines() if "WARC files read" in l)
    job = float(re.search(r" in ([0-9.]+) s ", line).group(1))
    links = int(re.search(r"([0-9]+) links written", line).group(1))
    ready = float(re.search(r"Spark started in ([0-9.]+) s", line).group(1))
    return {"job": job, "ready": ready, "wall": wall, "links": links, "line": line, "jvm": jvm, "workers": workers}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--workdir", type=pathlib.Path)
    parser.add_argument(
        "--copies",
        type=int,
        default=8,
        help="how many times each file holds the corpus records (Spark's start costs ~10 s of"
        " JVM CPU whatever the input: small inputs measure only that)",
    )
    parser.add_argument("--mode", choices=["arrow", "spark-writer", "rdd", "all"], default="all")
    arguments = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"needs the shared corpus at {CORPUS}")
    workdir = arguments.workdir or pathlib.Path(tempfile.mkdtemp(prefix="absolve-spark-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    listing, paths = make_files(workdir, arguments.files, arguments.copies)
    size = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{len(paths)} WARC files, {size:.0f} MB (gzip) in {workdir}; {os.cpu_count()} cores")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        seconds, rows = without_spark(paths)
    print(f"without Spark, one core: {rows} links in {seconds:.1f} s")
    modes = ["arrow", "spark-writer", "rdd"] if arguments.mode == "all" else [arguments.mode]
    for mode in modes:
        results = {}
        for master in ["local[1]", "local[2]"]:
            results[master] = result = with_spark(listing, workdir, master, mode)
            assert result["links"] == rows, (result["links"], rows)
            print(
                f"{mode} {master}: job {result['job']:.1f} s, command {result['wall']:.1f} s wall;"
                f" CPU: JVM {result['jvm']:.1f} s, Python workers {result['workers']:.1f} s"
            )
        one, two = results["local[1]"], results["local[2]"]
        print(
            f"{mode}: local[2] vs local[1] {one['job'] / two['job']:.2f}x on the job,"
            f" {one['wall'] / two['wall']:.2f}x on the command; local[1]'s job takes"
            f" {one['job'] / seconds:.1f}x the time of the same links without Spark"
        )
    shutil.rmtree(workdir) if arguments.workdir is None else None


if __name__ == "__main__":
    main()
