#!/usr/bin/env bash
# Peak RSS of `absolve rewrite` and `absolve links` on the MIME memory cases of issue 8
# item 5, against the input size (the goal: at most twice the largest message + 16 MiB).
# Inputs are generated into a temporary folder by benches/mime_memory.py.
#
# usage: benches/mime_memory.sh [BINARY]     (default: a release build of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/absolve
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peak() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
run_case() {
  local name=$1 file=$2
  shift 2
  local mib
  mib=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b/1048576 }')
  for cmd in rewrite links; do
    read -r seconds rss < <(peak "$bin" "$cmd" --url http://example.com/ "$@" "$file")
    awk -v n="$name" -v c="$cmd" -v m="$mib" -v s="$seconds" -v r="$rss" \
      'BEGIN { printf "%-22s %-7s input %7.1f MiB: peak RSS %7.1f MiB (%4.1fx), %6.2f s\n", n, c, m, r/1024, r/1024/m, s }'
  done
}
python3 benches/mime_memory.py html-part 30 "$work/m"; run_case "30 MB html part" "$work/m" --format mime
python3 benches/mime_memory.py b64-part 30 "$work/m"; run_case "30 MB base64 part" "$work/m" --format mime
python3 benches/mime_memory.py qp-part 30 "$work/m"; run_case "30 MB qp part" "$work/m" --format mime
python3 benches/mime_memory.py mbox 200 "$work/m"; run_case "mbox, 200 MB message" "$work/m" --format mbox
python3 benches/mime_memory.py many-parts 400000 "$work/m"; run_case "400k parts" "$work/m" --format mime
python3 benches/mime_memory.py nul 100 "$work/m"; run_case "100 MB of NUL" "$work/m" --format mime
python3 benches/mime_memory.py deep 10000 "$work/m"; run_case "10,000 levels deep" "$work/m" --format mime
