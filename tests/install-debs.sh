#!/usr/bin/env bash
# Debian's packages the tests use, installed when missing (as root, with apt-get): chromium
# (the browser test) and strace (the test that -i/-o fsync before renaming). Elsewhere the
# tests needing them are reported as ignored, with the reason.
# Run before anything is built: build.rs looks for them (cfg has_chromium, has_strace),
# and cargo does not run it again for a file dpkg installs later with an older mtime (it
# is touched after an install, for a build made before).
# Usage: bash tests/install-debs.sh   (tests/run-all.sh and .ci/run call it first)
set -euo pipefail
need_debs=()
[ -x /usr/bin/chromium ] || need_debs+=(chromium)
[ -x /usr/bin/strace ] || need_debs+=(strace)
if [ ${#need_debs[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== apt-get install ${need_debs[*]}"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_debs[@]}" >/dev/null
        # A build made before (its build.rs found neither) looks again.
        touch "$(dirname "$0")/../build.rs"
    else
        echo "== not root: ${need_debs[*]} not installed; the tests needing them are reported as ignored"
    fi
fi

