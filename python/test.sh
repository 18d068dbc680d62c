#!/usr/bin/env bash
# The Python and Spark tests from nothing but this repository (and ../shared, optional):
#   1. a virtual environment at target/venv (python3 -m venv), with what the tests need
#      (python/requirements-test.txt: maturin, pytest, pyspark, pyarrow, the peers);
#   2. the CLI the tests compare against (cargo build --release);
#   3. the package built and installed into it, as users install it (pip install ./python);
#   4. pytest over python/tests, each skipped test listed with its reason (-rs). Any
#      failure, and pytest's "no tests ran" (exit 5), fail it.
# Extra arguments go to pytest (e.g. `python/test.sh -k warc -x`); `--setup-only` stops
# after step 1 (tests/run-all.sh makes the environment first, so that the Rust tests that
# use warcio from it run too).
set -euo pipefail

python_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$python_dir")
venv=${ABSOLVE_VENV:-$repo/target/venv}
requirements=$python_dir/requirements-test.txt

if [[ ! -x $venv/bin/python ]]; then
    echo "python/test.sh: creating $venv" >&2
    "${PYTHON:-python3}" -m venv "$venv"
fi
# Reinstall the requirements only when they changed since the last run.
stamp=$venv/.requirements-test.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$wanted" ]]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    echo "$wanted" >"$stamp"
fi
if [[ ${1:-} == --setup-only ]]; then
    exit 0
fi

cargo build --release --locked --bin absolve --manifest-path "$repo/Cargo.toml"

# A real (non-editable) install of the wheel maturin builds, with the venv's maturin
# (on PATH: the build backend runs it by name).
export PATH=$venv/bin:$PATH
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
    --force-reinstall --no-deps "$python_dir"

cd "$repo"
status=0
ABSOLVE_BIN=$repo/target/release/absolve "$venv/bin/python" -m pytest -rs "$python_dir/tests" "$@" || status=$?
if [[ $status -eq 5 ]]; then
    echo "python/test.sh: pytest collected no tests: that is a failure" >&2
fi
exit "$status"
