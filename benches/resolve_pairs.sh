#!/bin/sh
# `absolve resolve --pairs` (RFC 1808, and `--spec whatwg`) against Python's
# urllib.parse.urljoin in one process, on the
# same BASE<TAB>REF lines, measured in the same run: the 10,000 real (page, reference)
# pairs of ../shared/corpus/urls/relative_urls_cc_10k.csv, repeated REPEAT times for
# absolve (default 100: a million pairs) and REPEAT/10 times for Python (it is slower).
#
#   cargo build --release && sh benches/resolve_pairs.sh [REPEAT]
#
# Prints pairs per second for each (best of 3), by wall-clock and by CPU time (on a busy
# machine the second is the fairer), and their ratios.
set -eu
exec python3 - "${1:-100}" "${ABSOLVE:-target/release/absolve}" <<'PY'
import csv, resource, subprocess, sys, tempfile, time
from urllib.parse import urljoin

repeat, absolve = int(sys.argv[1]), sys.argv[2]
corpus = "../shared/corpus/urls/relative_urls_cc_10k.csv"
with open(corpus, newline="", encoding="utf-8") as f:
    rows = [(b, r) for b, r in list(csv.reader(f))[1:] if "\t" not in b + r]
lines = "".join(f"{b}\t{r}\n" for b, r in rows)

def absolve_rate(*spec):
    with tempfile.TemporaryFile() as pairs:
        pairs.write((lines * repeat).encode())
        pairs.seek(0)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([absolve, "resolve", "--pairs", *spec], stdin=pairs,
                              stdout=subprocess.PIPE, check=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.stdout.count(b"\n") == len(rows) * repeat
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return len(rows) * repeat / elapsed, len(rows) * repeat / cpu

def python_rate():
    text = lines * max(1, repeat // 10)
    start, cpu = time.perf_counter(), time.process_time()
    out = []
    for line in text.splitlines():
        base, _, ref = line.partition("\t")
        out.append(urljoin(base, ref))
    "\n".join(out)
    return len(out) / (time.perf_counter() - start), len(out) / (time.process_time() - cpu)

a = max(absolve_rate() for _ in range(3))
w = max(absolve_rate("--spec", "whatwg") for _ in range(3))
p = max(python_rate() for _ in range(3))
print(f"absolve resolve --pairs: {a[0]:,.0f} pairs/s wall, {a[1]:,.0f} pairs/s of CPU time ({len(rows) * repeat} pairs, process start included)")
print(f"absolve resolve --pairs --spec whatwg: {w[0]:,.0f} pairs/s wall, {w[1]:,.0f} pairs/s of CPU time")
print(f"Python urljoin, one process: {p[0]:,.0f} pairs/s wall, {p[1]:,.0f} pairs/s of CPU time")
print(f"ratio: {a[0] / p[0]:.1f}x wall, {a[1] / p[1]:.1f}x CPU time")
print(f"ratio, --spec whatwg: {w[0] / p[0]:.1f}x wall, {w[1] / p[1]:.1f}x CPU time")
PY
