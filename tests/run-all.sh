#!/usr/bin/env bash
# Every test of the project, on a fresh machine: the Rust tests (unit, integration,
# snapshots, doctests, the browser test), then the Python binding's and the Spark job's
# tests. It installs what they need first:
#   - Debian's chromium (the browser test) and strace (the test that -i/-o fsync before
#     renaming), when run as root with apt-get; elsewhere those tests are reported as
#     ignored;
#   - a virtual environment at target/venv with maturin, pytest, pyspark, warcio, ...
#     (python/requirements-test.txt), into which the binding is built.
# Usage: bash tests/run-all.sh        (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/install-debs.sh

echo "== Python virtual environment (target/venv)"
bash python/test.sh --setup-only

echo "== cargo test --locked (library, CLI, snapshots, browser, WARC round trip)"
cargo test --locked --no-fail-fast

echo "== cargo test -p absolve-libdeflate; the library's WARC tests without libdeflate (every member streamed)"
cargo test --locked -p absolve-libdeflate
cargo test --locked --lib --no-default-features --features cli warc::

echo "== Python and Spark tests (pytest)"
bash python/test.sh
