#!/usr/bin/env bash
# Builds absolve with profile-guided optimization (PGO): a release build instrumented to
# count what runs, run over this repository's fixtures/ (every format, both commands,
# every --spec), then the release build again, optimized with those counts (rustc's
# -Cprofile-generate / -Cprofile-use: https://doc.rust-lang.org/rustc/profile-guided-optimization.html).
# The output is the same as `cargo build --release`'s binary, byte for byte; the time is
# not: about 20% less CPU listing the links of a WARC file (BENCHMARKS.md, "WARC links").
#
#   bash pgo/build.sh            target/pgo/absolve (and target/pgo/absolve.profdata), and
#                                target/pgo/lol_html_floor: benches/warc_links.sh's floor
#                                (examples/lol_html_floor.rs), built and trained the same
#                                way, so that a PGO build is measured against a PGO floor
#   bash pgo/build.sh --python   also the Python package, built the same way with its own
#                                training run (pgo/train.py) and installed into
#                                target/venv (made by python/test.sh if missing)
#   bash pgo/build.sh --check    then checks that target/pgo/absolve writes what
#                                `cargo build --release`'s binary writes, byte for byte, for
#                                every fixture (`links` by each --spec, `rewrite`); .ci/run
#                                runs this
#
# Needs what `cargo build --release` needs, plus llvm-profdata of the same LLVM as rustc:
# rustup's llvm-tools component, added here when rustup is there. Takes two release builds
# (about four minutes on two cores). Only this repository is read: nothing of ../shared.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
python=false
check=false
for argument in "$@"; do
    case $argument in
        --python) python=true ;;
        --check) check=true ;;
        *) echo "usage: bash pgo/build.sh [--python] [--check]" >&2; exit 2 ;;
    esac
done

out=$repo/target/pgo
host=$(rustc -vV | sed -n 's/^host: //p')
sysroot=$(rustc --print sysroot)
profdata_tool=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [[ ! -x $profdata_tool ]] && command -v rustup >/dev/null; then
    echo "pgo/build.sh: adding rustup's llvm-tools (llvm-profdata)" >&2
    rustup component add llvm-tools >/dev/null
fi
if [[ ! -x $profdata_tool ]]; then
    echo "pgo/build.sh: $profdata_tool is missing: install it with \`rustup component add llvm-tools\`" \
        "(it must be the LLVM of this rustc), or build without PGO: cargo build --release" >&2
    exit 1
fi

# --target: RUSTFLAGS then reach only the target's crates, not build scripts.
build() { # target dir, extra RUSTFLAGS, cargo arguments...
    local dir=$1 flags=$2
    shift 2
    RUSTFLAGS="${RUSTFLAGS:-} $flags" cargo build --locked --release --target "$host" --target-dir "$dir" "$@"
}

raw=$out/profraw
rm -rf "$raw"
mkdir -p "$raw"
echo "== 1/3 the instrumented build (target/pgo/instrumented)" >&2
build "$out/instrumented" "-Cprofile-generate=$raw" --bin absolve --example lol_html_floor
instrumented=$out/instrumented/$host/release/absolve
floor=$out/instrumented/$host/release/examples/lol_html_floor

echo "== 2/3 the training run: links and rewrite over fixtures/" >&2
train() {
    local scratch
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    local url=https://example.com/dir/page.html
    while IFS= read -r -d '' file; do
        for spec in rfc1808 rfc3986 whatwg; do
            "$instrumented" links --spec "$spec" --url "$url" "$file" >/dev/null 2>&1 || true
        done
        "$instrumented" rewrite --url "$url" "$file" -o "$scratch/out" >/dev/null 2>&1 || true
        # Compressed input: the same file through gzip.
        gzip -c "$file" >"$scratch/in.gz"
        "$instrumented" links --url "$url" "$scratch/in.gz" >/dev/null 2>&1 || true
    done < <(find fixtures -type f ! -name '*.py' ! -name '*.md' ! -name '*.tsv' ! -name '*.txt' -print0 | sort -z)
    "$instrumented" links -r -j 2 --url https://example.com/ fixtures >/dev/null 2>&1 || true
    cp -R fixtures/html "$scratch/tree"
    "$instrumented" rewrite -r -i --url https://example.com/ "$scratch/tree" >/dev/null 2>&1 || true
    # The floor: lol_html over the same pages, inflating the same gzip members.
    find fixtures -name '*.html' -print0 | sort -z | xargs -0 -r "$floor" html >/dev/null
    find fixtures -name '*.gz' -print0 | sort -z | xargs -0 -r -n 1 "$floor" inflate >/dev/null
}
LLVM_PROFILE_FILE="$raw/absolve-%p-%m.profraw" train
"$profdata_tool" merge -o "$out/absolve.profdata" "$raw"/*.profraw
rm -rf "$raw"

echo "== 3/3 the optimized build (target/pgo/absolve)" >&2
build "$out/optimized" "-Cprofile-use=$out/absolve.profdata" --bin absolve --example lol_html_floor
cp "$out/optimized/$host/release/absolve" "$out/absolve"
cp "$out/optimized/$host/release/examples/lol_html_floor" "$out/lol_html_floor"
echo "pgo/build.sh: built $out/absolve and $out/lol_html_floor" >&2

if $check; then
    echo "== checking: target/pgo/absolve writes what target/release/absolve writes" >&2
    cargo build --locked --release --bin absolve
    plain=$repo/target/release/absolve
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    compared=0
    while IFS= read -r -d '' file; do
        for command in "links --spec rfc1808" "links --spec rfc3986" "links --spec whatwg" rewrite; do
            # shellcheck disable=SC2086 # the command's words
            "$plain" $command --url https://example.com/dir/page.html "$file" >"$scratch/plain" 2>"$scratch/plain.err" || true
            # shellcheck disable=SC2086
            "$out/absolve" $command --url https://example.com/dir/page.html "$file" >"$scratch/pgo" 2>"$scratch/pgo.err" || true
            if ! cmp -s "$scratch/plain" "$scratch/pgo" || ! cmp -s "$scratch/plain.err" "$scratch/pgo.err"; then
                echo "pgo/build.sh: the PGO build differs from the plain one: $command $file" >&2
                diff <(head -c 2000 "$scratch/plain") <(head -c 2000 "$scratch/pgo") >&2 || true
                exit 1
            fi
            compared=$((compared + 1))
        done
    done < <(find fixtures -type f ! -name '*.py' ! -name '*.md' -print0 | sort -z)
    echo "pgo/build.sh: the same output (and warnings) for $compared runs over fixtures/" >&2
fi

if $python; then
    venv=$repo/target/venv
    [[ -x $venv/bin/python ]] || bash python/test.sh --setup-only
    # The package has its own profile: its own training run (pgo/train.py, the public
    # functions over fixtures/), since code the command never runs would be counted cold.
    # maturin (the build backend, found on PATH) runs cargo with these RUSTFLAGS.
    wheel() { # target dir, extra RUSTFLAGS
        PATH=$venv/bin:$PATH CARGO_TARGET_DIR=$1 RUSTFLAGS="${RUSTFLAGS:-} $2" \
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
            --force-reinstall --no-deps ./python
    }
    rm -rf "$raw"
    mkdir -p "$raw"
    echo "== the Python package: instrumented, trained (pgo/train.py), then optimized, into $venv" >&2
    wheel "$out/python-instrumented" "-Cprofile-generate=$raw"
    LLVM_PROFILE_FILE="$raw/python-%p-%m.profraw" "$venv/bin/python" pgo/train.py fixtures
    "$profdata_tool" merge -o "$out/python.profdata" "$raw"/*.profraw
    rm -rf "$raw"
    wheel "$out/python" "-Cprofile-use=$out/python.profdata"
    echo "pgo/build.sh: installed the PGO-built package into $venv" >&2
fi
