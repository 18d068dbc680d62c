#!/usr/bin/env bash
# Builds the seed corpus of every fuzz target into fuzz/corpus/<target>/ (git-ignored),
# one file per input, named by its SHA-1 as libFuzzer names them:
#   html         fixtures/html, ../shared/corpus/html, the html5lib tokenizer inputs and
#                tree-construction `#data` sections (each prefixed by the chunk-size byte
#                the target reads first);
#   mime         fixtures/mime, ../shared/corpus/mime (messages, MHTML, mbox);
#   mime_nested  the same messages (any bytes drive its generator) and short random runs;
#   resolve      fixtures/resolve and ../shared/corpus/urls (base and reference pairs,
#                laid out as the target's `(&str, &str)` reads them);
#   warc         fixtures/warc, ../shared/corpus/warc (a mode byte, then the file: as it
#                is, gzipped whole, or a gzip member per record).
# The html5lib sdist (its tests ship in it) is fetched with pip into a temporary folder.
#
# usage: fuzz/seed.sh            then: cargo +nightly fuzz run TARGET fuzz/corpus/TARGET
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
shared="$root/../shared/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -d "$shared" ]; then
  echo "shared corpus: $shared"
else
  echo "warning: no $shared: seeding from fixtures and html5lib only" >&2
  shared="$work/none"
fi

# html5lib's test data, from its source distribution on PyPI. Its setup.py needs
# setuptools with pkg_resources and wheel, so pip runs in a throwaway virtualenv.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet wheel "setuptools<70"
"$work/venv/bin/pip" download --quiet --no-deps --no-binary :all: --no-build-isolation \
  html5lib==1.1 -d "$work"
tar xzf "$work"/html5lib-1.1.tar.gz -C "$work" html5lib-1.1/html5lib/tests/testdata
testdata="$work/html5lib-1.1/html5lib/tests/testdata"

python3 - "$root" "$shared" "$testdata" <<'EOF'
import glob, hashlib, json, os, random, sys

root, shared, testdata = sys.argv[1:4]
counts = {}

def add(target, data):
    folder = os.path.join(root, "fuzz", "corpus", target)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
        counts[target] = counts.get(target, 0) + 1

def files(*patterns):
    for pattern in patterns:
        for path in sorted(glob.glob(pattern, recursive=True)):
            if os.path.isfile(path) and not path.endswith("SOURCES.md"):
                with open(path, "rb") as f:
                    yield f.read()

# html: one chunk-size byte, then the document.
def add_html(document, chunk=7):
    add("html", bytes([chunk]) + document)

for document in files(f"{root}/fixtures/html/*", f"{shared}/html/*"):
    add_html(document)
    add_html(document[:65536], 255)

def unescape(text):
    # Tokenizer tests marked doubleEscaped spell non-ASCII characters as \\uXXXX.
    return text.encode("utf-8", "surrogatepass").decode("unicode_escape")

for path in sorted(glob.glob(f"{testdata}/tokenizer/*.test")):
    with open(path, encoding="utf-8") as f:
        tests = json.load(f)
    for test in tests.get("tests", []) + tests.get("xmlViolationTests", []):
        text = test["input"]
        if test.get("doubleEscaped"):
            text = unescape(text)
        add_html(text.encode("utf-8", "surrogatepass"))

for path in sorted(glob.glob(f"{testdata}/tree-construction/**/*.dat", recursive=True)):
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    data, inside = [], False
    for line in lines + [b"#errors"]:
        if line.startswith(b"#"):
            if inside:
                add_html(b"\n".join(data))
            inside, data = line == b"#data", []
        elif inside:
            data.append(line)

# mime and mime_nested: whole messages and archives.
for message in files(f"{root}/fixtures/mime/*", f"{shared}/mime/*"):
    add("mime", message)
    add("mime_nested", message[:4096])
rng = random.Random(8)
for n in range(64):
    add("mime_nested", bytes(rng.randrange(256) for _ in range(rng.randrange(16, 1024))))

# resolve: (&str, &str) as arbitrary reads it from a short input: the first string's
# length in one byte, its bytes, then the second string (the rest).
def add_pair(base, reference):
    base, reference = base.encode(), reference.encode()
    if 1 + len(base) + len(reference) <= 256:
        add("resolve", bytes([len(base)]) + base + reference)

for text in files(f"{root}/fixtures/resolve/*"):
    for line in text.decode("utf-8", "replace").splitlines():
        if line.strip() and not line.startswith("#"):
            add_pair("http://a/b/c/d;p?q#f", line.strip())
for path in sorted(glob.glob(f"{shared}/urls/*.csv")):
    import csv
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for i, row in enumerate(csv.reader(f)):
            if i > 0 and len(row) == 2 and i % 5 == 0:
                add_pair(row[0], row[1])

# warc: one mode byte (0: the bytes as they are; 1: gzipped as one stream; 2: a gzip
# member per record), then the file; gzipped files also decompressed, each cut to 64 KiB.
import gzip
for data in files(f"{root}/fixtures/warc/*", f"{shared}/warc/**/*"):
    if data[:2] == b"\x1f\x8b":
        add("warc", b"\x00" + data[:65536])
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            continue
    for mode in (0, 1, 2):
        add("warc", bytes([mode]) + data[:65536])

# feed: a chunk size byte, a byte that says whether a feed's start is prepended (0: no),
# then the feed (fixtures/feed and the feed records of the corpora are whole feeds).
for data in files(f"{root}/fixtures/feed/*"):
    add("feed", b"\x40\x00" + data[:65536])

for target, n in sorted(counts.items()):
    print(f"{target}: {n} new seeds")
EOF
