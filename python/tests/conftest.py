"""Shared fixtures: where the repository, the shared corpus and the CLI binary are."""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"


def cli_binary():
    """The `absolve` command built from this repository (ABSOLVE_BIN, else target/)."""
    explicit = os.environ.get("ABSOLVE_BIN")
    if explicit:
        return pathlib.Path(explicit)
    for profile in ("release", "debug"):
        candidate = REPO / "target" / profile / "absolve"
        if candidate.exists():
            return candidate
    return None


@pytest.fixture
def ctrl_c():
    """SIGINT raises KeyboardInterrupt, as in an interactive Python, for a test of Ctrl-C.

    A process started in the background by a script (`cmd &`, `setsid nohup`) inherits
    SIGINT ignored, and Python then installs no handler: Ctrl-C would not be heard there
    at all, in absolve or in Python's own open()."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="session")
def cli():
    """Runs `absolve ARGS...`; returns its standard output (bytes), failing on non-zero."""
    binary = cli_binary()
    if binary is None or not binary.exists():
        pytest.skip("needs the absolve CLI: cargo build --release (or set ABSOLVE_BIN)")

    def run(*args, input=None):
        done = subprocess.run(
            [str(binary), *map(str, args)],
            input=input,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return done.stdout

    return run


@pytest.fixture(scope="session")
def cli_links(cli):
    """`absolve links ARGS...` as a list of dicts, less the `file` key."""

    def run(*args):
        records = [json.loads(line) for line in cli("links", *args).splitlines()]
        for record in records:
            record.pop("file")
        return records

    return run


@pytest.fixture(scope="session")
def corpus():
    """../shared/corpus, or a visible skip where it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("needs ../shared/corpus beside the repository")
    return CORPUS


def warc_record(target_uri, html, record_id, headers=b""):
    """One WARC/1.1 response record holding an HTTP response with `html` as its body."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + headers + b"\r\n" + html
    head = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: " + record_id + b"\r\n"
        b"WARC-Target-URI: " + target_uri + b"\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n"
    )
    return head + http + b"\r\n\r\n"


def peak_rss_kib(code):
    """The peak resident memory of a Python process running `code` (KiB, Linux): its
    VmHWM (ru_maxrss would carry over the parent's peak, kept across execve by Linux)."""
    peak = "[l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]"
    script = f"import absolve\n{code}\nprint({peak})"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])
