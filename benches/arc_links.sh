#!/bin/sh
# `absolve links` over a large .arc.gz against warcio's ArchiveIterator + lxml iterlinks +
# urljoin (the warcio peer of benches/warc_links.sh, which reads ARC as it is), in one run,
# each pinned to one CPU: CPU time (user + sys), wall time, peak RSS. The ARC file is the
# response records of the Common Crawl sample resiliparse/warcfile.warc.gz written as ARC v1,
# a gzip member per record (benches/warc_links.py arc), repeated to SIZE_MB megabytes.
# Run from the repository root after `cargo build --release` and the test script (target/venv).
# Usage: benches/arc_links.sh [SIZE_MB (default 50)]
set -eu
SIZE_MB=${1:-50}
SAMPLE=../shared/corpus/warc/resiliparse/warcfile.warc.gz
WORK=${TMPDIR:-/tmp}/absolve-arc-bench
PY=target/venv/bin/python
mkdir -p "$WORK"
"$PY" benches/warc_links.py arc "$SAMPLE" "$WORK/sample.arc.gz" > /dev/null
BIG="$WORK/big.arc.gz"
: > "$BIG"
while [ "$(du -m "$BIG" | cut -f1)" -lt "$SIZE_MB" ]; do
    for _ in $(seq 50); do cat "$WORK/sample.arc.gz"; done >> "$BIG"
done
echo "input: $(du -m "$BIG" | cut -f1) MB .arc.gz"
measure() { # label command...
    label=$1; shift
    /usr/bin/time -o "$WORK/time" -f "%U %S %e %M" taskset -c 0 "$@" | wc -l > "$WORK/out.txt"
    read -r user sys wall rss < "$WORK/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    printf '%-24s %6.2f s CPU %6.2f s wall %7d KB peak RSS  %s links\n' "$label:" "$cpu" "$wall" "$rss" "$(cat "$WORK/out.txt")"
}
measure "absolve links" target/release/absolve links "$BIG"
measure "warcio + lxml" "$PY" benches/warc_links.py warcio "$BIG"
