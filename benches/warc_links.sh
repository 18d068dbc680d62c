#!/bin/sh
# `absolve links` over a large .warc.gz (the Common Crawl sample resiliparse/warcfile.warc.gz
# repeated to SIZE_MB megabytes, gzip members kept), side by side in one run with
#   (a) warcio + lxml iterlinks + urljoin (cc-pyspark's way),
#   (b) FastWARC + selectolax's Lexbor parser + urljoin (see warc_links.py on why not
#       Resiliparse's parser),
# each with its peak RSS; and `absolve links` over the same archive uncompressed, to tell
# the time spent decompressing from the rest. Run from the repository root after
# `cargo build --release` and the test script (target/venv with warcio, fastwarc, lxml;
# selectolax is installed into it if missing). Usage: benches/warc_links.sh [SIZE_MB (default 200)]
set -eu
SIZE_MB=${1:-200}
SAMPLE=../shared/corpus/warc/resiliparse/warcfile.warc.gz
WORK=${TMPDIR:-/tmp}/absolve-warc-bench
PY=target/venv/bin/python
mkdir -p "$WORK"
"$PY" -c "import selectolax" 2>/dev/null || target/venv/bin/pip install -q selectolax
BIG="$WORK/big.warc.gz"
if [ ! -f "$BIG" ] || [ "$(du -m "$BIG" | cut -f1)" -lt "$SIZE_MB" ]; then
    : > "$BIG"
    while [ "$(du -m "$BIG" | cut -f1)" -lt "$SIZE_MB" ]; do
        for _ in $(seq 50); do cat "$SAMPLE"; done >> "$BIG"
    done
    gzip -dc "$BIG" > "$WORK/big.warc"
fi
echo "input: $(du -m "$BIG" | cut -f1) MB gzip, $(du -m "$WORK/big.warc" | cut -f1) MB plain"

measure() { # label command...
    label=$1; shift
    /usr/bin/time -f "$label: %e s wall, %U s user, peak RSS %M KB" "$@" > "$WORK/out.txt"
    tail -n 1 "$WORK/out.txt" | grep -v '^{' || echo "  ($(wc -l < "$WORK/out.txt") links)"
}

measure "absolve links (gzip)" nice -n 10 target/release/absolve links "$BIG"
measure "absolve links (plain)" nice -n 10 target/release/absolve links "$WORK/big.warc"
measure "warcio + lxml" nice -n 10 "$PY" benches/warc_links.py warcio "$BIG"
measure "fastwarc + selectolax" nice -n 10 "$PY" benches/warc_links.py fastwarc "$BIG"
