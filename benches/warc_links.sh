#!/bin/sh
# `absolve links` over a large .warc.gz (the Common Crawl sample resiliparse/warcfile.warc.gz
# repeated to SIZE_MB megabytes, gzip members kept), side by side in one run with
#   (a) warcio + lxml iterlinks + urljoin (cc-pyspark's way),
#   (b) FastWARC + selectolax's Lexbor parser + urljoin (see warc_links.py on why not
#       Resiliparse's parser),
# each with its CPU time (user + sys), wall time and peak RSS; then the ratios, on CPU time
# (the work done, every command pinned to one CPU) and on wall time (what one waits for:
# absolve reads and decompresses on one thread while rayon's pool parses the payloads; the
# Python pipelines use one core). Also: `absolve links` over the archive uncompressed (to
# tell the time spent decompressing from the rest), and absolve.warc_links from Python
# (Link objects, no JSON: what the peers do). And the floor under any lister built on
# lol_html (examples/lol_html_floor.rs): lol_html over the same HTML payloads with the least
# handler (href and src read), plus inflating the file; what absolve takes beyond it is its
# own work. Run from the repository root after `cargo build --release --bins --examples`
# and the test script (target/venv with warcio, fastwarc, lxml and absolve; selectolax is
# installed into it if missing).
# Usage: [REPEAT=3] benches/warc_links.sh [SIZE_MB (default 200)]; each command runs REPEAT
# times, interleaved, and the best run of each is compared. If target/release/absolve-mimalloc
# exists (`cargo build --release --features mimalloc`, then copied there), `links` with
# mimalloc as its allocator is measured too, on 1 CPU. If target/pgo/absolve exists
# (`bash pgo/build.sh`: the same code built with profile-guided optimization), it is
# measured too, on 1 CPU, against target/pgo/lol_html_floor, the floor built the same way.
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
# The big file is whole copies of the sample: the floor parses the sample's payloads as
# many times.
COPIES=$(( $(stat -c %s "$BIG") / $(stat -c %s "$SAMPLE") ))
"$PY" benches/warc_links.py payloads "$SAMPLE" "$WORK/payloads.bin" > /dev/null
FLOOR=target/release/examples/lol_html_floor
: > "$WORK/times"

REPEAT=${REPEAT:-3}

measure() { # key label command...: one run, appended to $WORK/times
    key=$1 label=$2; shift 2
    # absolve's JSON lines go to a pipe, counted there (a consumer, not a file on disk);
    # the Python pipelines print a line per link too; the floor prints its count.
    /usr/bin/time -o "$WORK/time" -f "%U %S %e %M" "$@" | wc -l > "$WORK/out.txt"
    read -r user sys wall rss < "$WORK/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    printf '%-34s %6.2f s CPU %6.2f s wall %7d KB peak RSS  %s links\n' "$label:" "$cpu" "$wall" "$rss" "$(cat "$WORK/out.txt")"
    echo "$key $cpu $wall $rss" >> "$WORK/times"
}

measure_floor() { # key label unit command...: as measure, for a command printing a count
    key=$1 label=$2 unit=$3; shift 3
    /usr/bin/time -o "$WORK/time" -f "%U %S %e %M" "$@" > "$WORK/out.txt"
    read -r user sys wall rss < "$WORK/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    printf '%-34s %6.2f s CPU %6.2f s wall %7d KB peak RSS  %s %s\n' "$label:" "$cpu" "$wall" "$rss" "$(cat "$WORK/out.txt")" "$unit"
    echo "$key $cpu $wall $rss" >> "$WORK/times"
}

# The work each does is measured pinned to one CPU (taskset -c 0): on these machines the
# two vCPUs are siblings of one core, and a process running on both is charged ~15% more
# CPU time for the same work (and a single-threaded peer less than its share). absolve also
# runs free, on both, for the wall time one waits for.
ONE="taskset -c 0"

# REPEAT rounds, the commands interleaved in each; the best (least disturbed) of each kept.
for round in $(seq "$REPEAT"); do
    echo "round $round of $REPEAT"
    measure absolve "absolve links (gzip, 2 CPUs)" nice -n 10 target/release/absolve links "$BIG"
    measure one "absolve links (gzip, 1 CPU)" $ONE nice -n 10 target/release/absolve links "$BIG"
    measure plain "absolve links (plain, 1 CPU)" $ONE nice -n 10 target/release/absolve links "$WORK/big.warc"
    if [ -x target/release/absolve-mimalloc ]; then
        measure mimalloc "absolve links (mimalloc, 1 CPU)" $ONE nice -n 10 target/release/absolve-mimalloc links "$BIG"
    fi
    if [ -x target/pgo/absolve ] && [ -x target/pgo/lol_html_floor ]; then
        measure pgo "absolve links (PGO build, 1 CPU)" $ONE nice -n 10 target/pgo/absolve links "$BIG"
        measure_floor pgoparse "floor, PGO: lol_html alone (1 CPU)" "href and src values" $ONE nice -n 10 target/pgo/lol_html_floor parse "$WORK/payloads.bin" "$COPIES"
        measure_floor pgoinflate "floor, PGO: inflating (1 CPU)" "bytes inflated" $ONE nice -n 10 target/pgo/lol_html_floor inflate "$BIG"
    fi
    measure python "absolve.warc_links (Python, 1 CPU)" $ONE nice -n 10 "$PY" benches/warc_links.py absolve "$BIG"
    measure warcio "(a) warcio + lxml (1 CPU)" $ONE nice -n 10 "$PY" benches/warc_links.py warcio "$BIG"
    measure fastwarc "(b) fastwarc + selectolax (1 CPU)" $ONE nice -n 10 "$PY" benches/warc_links.py fastwarc "$BIG"
    measure_floor parse "floor: lol_html alone (1 CPU)" "href and src values" $ONE nice -n 10 "$FLOOR" parse "$WORK/payloads.bin" "$COPIES"
    measure_floor inflate "floor: inflating alone (1 CPU)" "bytes inflated" $ONE nice -n 10 "$FLOOR" inflate "$BIG"
done

awk '{ if (!($1 in cpu) || $2 < cpu[$1]) cpu[$1] = $2; if (!($1 in wall) || $3 < wall[$1]) wall[$1] = $3; if ($4 > rss[$1]) rss[$1] = $4 }
END {
    print "best of each (CPU s, wall s, peak RSS MiB):"
    n = split("absolve one plain python warcio fastwarc parse inflate mimalloc pgo pgoparse pgoinflate", keys, " ")
    for (i = 1; i <= n; i++) if (keys[i] in cpu) printf "  %-9s %6.2f %6.2f %6.1f\n", keys[i], cpu[keys[i]], wall[keys[i]], rss[keys[i]] / 1024
    printf "absolve links against (a) warcio + lxml:         %5.1fx CPU (1 CPU each) %5.1fx wall (absolve on 2 CPUs); goal 10x\n", cpu["warcio"] / cpu["one"], wall["warcio"] / wall["absolve"]
    printf "absolve links against (b) FastWARC + selectolax: %5.1fx CPU (1 CPU each) %5.1fx wall (absolve on 2 CPUs); goal 4x\n", cpu["fastwarc"] / cpu["one"], wall["fastwarc"] / wall["absolve"]
    printf "absolve.warc_links (Python) against (a), (b):    %5.1fx, %.1fx CPU (1 CPU each)\n", cpu["warcio"] / cpu["python"], cpu["fastwarc"] / cpu["python"]
    printf "decompressing: %.0f%% of absolve links CPU (gzip against plain, 1 CPU)\n", 100 * (cpu["one"] - cpu["plain"]) / cpu["one"]
    floor = cpu["parse"] + cpu["inflate"]
    printf "floor (lol_html alone + inflating): %.2f s CPU, %.0f%% of absolve links (goal 75%%, 1 CPU); the rest, absolve itself: %.2f s\n", floor, 100 * floor / cpu["one"], cpu["one"] - floor
    printf "the most a lister on lol_html could be, doing nothing of its own: %.1fx (a), %.1fx (b) CPU\n", cpu["warcio"] / floor, cpu["fastwarc"] / floor
    if ("pgo" in cpu) {
        pgofloor = cpu["pgoparse"] + cpu["pgoinflate"]
        printf "PGO build (1 CPU): %.2f s CPU (%.0f%% of the plain build'"'"'s): %.1fx (a), %.1fx (b) (goals 10x, 4x); the PGO floor %.2f s is %.0f%% of it (goal 75%%)\n", cpu["pgo"], 100 * cpu["pgo"] / cpu["one"], cpu["warcio"] / cpu["pgo"], cpu["fastwarc"] / cpu["pgo"], pgofloor, 100 * pgofloor / cpu["pgo"]
    }
    if ("mimalloc" in cpu) printf "with mimalloc (1 CPU): %.2f s CPU (%.0f%% of glibc'"'"'s), %.1fx (a), %.1fx (b); the floor is %.2f of it\n", cpu["mimalloc"], 100 * cpu["mimalloc"] / cpu["one"], cpu["warcio"] / cpu["mimalloc"], cpu["fastwarc"] / cpu["mimalloc"], floor / cpu["mimalloc"]
}' "$WORK/times"
