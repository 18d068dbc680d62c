#!/usr/bin/env bash
# The throughput harness: MIME throughput on a generated mbox, peak memory on large HTML
# and mbox streams (two sizes each, to show it does not grow with the input), and
# `rewrite -r` scaling from one to two threads. Every figure is a ratio or a rate measured
# in this run. Inputs are generated from ../shared/corpus/html/ into a temporary folder.
#
# usage: benches/scale.sh [SMALL_MB] [LARGE_MB]     (defaults: 100 500)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-100}
large=${2:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
bin=target/release/absolve
timed() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), rustc $(rustc --version | cut -d' ' -f2)"

echo "== MIME: rewrite an mbox of HTML mail (quoted-printable and base64 parts), one core"
for mb in "$small" "$large"; do
  python3 benches/generate.py mbox "$mb" "$work/mail.mbox"
  bytes=$(stat -c %s "$work/mail.mbox")
  read -r seconds rss < <(timed "$bin" rewrite --format mbox "$work/mail.mbox")
  awk -v b="$bytes" -v s="$seconds" -v r="$rss" 'BEGIN { printf "mbox %6.0f MB: %6.1f MB/s, peak RSS %5.1f MiB\n", b/1e6, b/1e6/s, r/1024 }'
done
rm -f "$work/mail.mbox"

echo "== HTML: rewrite a stream from a pipe (no <base>: held back 1 MiB, then the --url base)"
for mb in "$small" "$large"; do
  python3 benches/generate.py html "$mb" "$work/page.html"
  bytes=$(stat -c %s "$work/page.html")
  read -r seconds rss < <(timed sh -c "cat '$work/page.html' | $bin rewrite --url https://www.cloudflare.com/ 2>/dev/null")
  awk -v b="$bytes" -v s="$seconds" -v r="$rss" 'BEGIN { printf "html %6.0f MB: %6.1f MB/s, peak RSS %5.1f MiB\n", b/1e6, b/1e6/s, r/1024 }'
done
rm -f "$work/page.html"

echo "== rewrite -r -i over 2000 pages: one thread against two (5 alternating runs, median)"
ratios=()
for run in 1 2 3 4 5; do
  python3 benches/generate.py pages 2000 "$work/pages"
  read -r one _ < <(RAYON_NUM_THREADS=1 timed "$bin" rewrite -r -i --url https://www.cloudflare.com/ "$work/pages")
  python3 benches/generate.py pages 2000 "$work/pages"
  read -r two _ < <(RAYON_NUM_THREADS=2 timed "$bin" rewrite -r -i --url https://www.cloudflare.com/ "$work/pages")
  ratios+=("$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2f", a/b }')")
  echo "run $run: $one s on 1 thread, $two s on 2: ${ratios[-1]}x"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { printf "median speedup: %sx\n", r[int((NR + 1) / 2)] }'
