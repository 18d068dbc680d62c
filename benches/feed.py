#!/usr/bin/env python3
"""Feed benchmark (issue 21): `links` on a 1 MB Atom feed of 2,000 entries with HTML
content, against `feedparser.parse` on the same bytes (goal: >= 50x), and the peak RSS
of a streaming rewrite of much larger feeds read from a pipe (goal: < 16 MiB).

    cargo build --release
    python3 benches/feed.py target/release/absolve [--sizes 100,1000]

Needs feedparser (`pip install feedparser`) and GNU time at /usr/bin/time.
"""

import argparse
import re
import resource
import subprocess
import sys
import time

URL = "http://feeds.example.com/blog/feed.atom"
LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. "
)


def entry(n):
    """One entry of about 520 bytes: a link, an enclosure and escaped HTML content."""
    return (
        f'<entry xml:base="{2000 + n % 25}/{n % 12 + 1:02}/">'
        f"<title>Post {n}</title>"
        f'<link href="posts/{n}.html"/>'
        f'<link rel="enclosure" href="../../media/{n}.mp3" length="1" type="audio/mpeg"/>'
        f"<id>tag:example.org,2024:{n}</id><updated>2024-01-01T00:00:00Z</updated>"
        f'<content type="html">&lt;p&gt;{LOREM}&lt;a href="posts/{n}/more.html"&gt;more'
        f'&lt;/a&gt; &lt;img src="img/{n}.png" alt="picture {n}"&gt;&lt;/p&gt;</content>'
        "</entry>\n"
    )


HEAD = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/">\n'
    '<title>Benchmark</title><link href="/"/><link rel="self" href="feed.atom"/>'
    "<id>tag:example.org,2024:blog</id><updated>2024-01-01T00:00:00Z</updated>\n"
)
TAIL = "</feed>\n"


def feed(entries):
    return (HEAD + "".join(entry(n) for n in range(entries)) + TAIL).encode()


def best_of(runs, f, clock=time.perf_counter):
    times = []
    for _ in range(runs):
        start = clock()
        f()
        times.append(clock() - start)
    return min(times)


def children_cpu():
    """CPU seconds (user + system) used by finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def throughput(binary):
    import feedparser

    data = feed(2000)
    links = subprocess.run(
        [binary, "links", "--format", "feed", "--url", URL], input=data, capture_output=True, check=True
    ).stdout.count(b"\n")
    def run():
        subprocess.run([binary, "links", "--format", "feed", "--url", URL], input=data, capture_output=True, check=True)

    def parse():
        feedparser.parse(data, response_headers={"content-location": URL})

    # The machine may be shared: CPU time (the process's, the parser's) is the steadier
    # figure; wall-clock time is given too. Best of several runs each.
    absolve_wall = best_of(15, run)
    absolve_cpu = best_of(15, run, children_cpu)
    parsed_wall = best_of(3, parse)
    parsed_cpu = best_of(3, parse, time.process_time)
    print(f"feed: {len(data)} bytes, 2000 entries, {links} links")
    print(f"absolve links (whole process):  {absolve_wall * 1000:.1f} ms wall, {absolve_cpu * 1000:.1f} ms CPU = {len(data) / absolve_cpu / 1e6:.0f} MB/s")
    print(f"feedparser.parse:               {parsed_wall * 1000:.1f} ms wall, {parsed_cpu * 1000:.1f} ms CPU")
    print(f"ratio: {parsed_wall / absolve_wall:.0f}x wall, {parsed_cpu / absolve_cpu:.0f}x CPU (goal >= 50x)")


def peak_rss(binary, megabytes):
    """Peak RSS of a rewrite of a feed of about `megabytes` MB streamed through a pipe."""
    entries_per_mb = 2000
    command = ["/usr/bin/time", "-v", binary, "rewrite", "--format", "feed", "--url", URL]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    block = "".join(entry(n) for n in range(entries_per_mb)).encode()
    process.stdin.write(HEAD.encode())
    for _ in range(megabytes):
        process.stdin.write(block)
    process.stdin.write(TAIL.encode())
    process.stdin.close()
    stderr = process.stderr.read().decode()
    process.wait()
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr).group(1))
    seconds = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", stderr).group(1)
    print(f"rewrite of {megabytes * len(block) / 1e6:.0f} MB from a pipe: peak RSS {kb / 1024:.1f} MiB (goal < 16 MiB), {seconds} wall")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--sizes", default="100,1000", help="MB of feed for the RSS runs")
    args = parser.parse_args()
    throughput(args.binary)
    for size in args.sizes.split(","):
        peak_rss(args.binary, int(size))


if __name__ == "__main__":
    sys.exit(main())
