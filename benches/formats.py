#!/usr/bin/env python3
"""Throughput of the newer ways in, each as a ratio against its peer in the same run:

- `links --spec whatwg` against the default RFC 1808 mode, on the real pages of
  ../shared/corpus/html/ (goal: >= 0.8x);
- `links` on a gzipped mbox against `zcat | absolve links` (goal: >= 0.9x);
- `links` on a WACZ against `unzip -p | absolve links` over its WARC members (>= 0.9x);
- `links` on an MMDF mailbox against the same messages as an mbox (>= 0.9x);
- `links -r` over a folder of Apple Mail `.emlx` files against the same messages as `.eml`
  files (>= 0.9x);
- `links` on an SVG image against the same SVG inline in an HTML page (>= 0.7x: the XML
  reader hands each tag that may hold a URL to the HTML rewriter on its own).

    cargo build --release && python3 benches/formats.py [ROUNDS]

Inputs are made in a temporary directory from the corpus and the repository's fixtures
(the mbox: the MIME corpus's mboxes and the fixture mbox, concatenated to ~20 MB; the
WACZ: fixtures/warc/*.warc repeated to ~20 MB, zipped by the `zip` module as py-wacz
does, stored; the MMDF mailbox and the `.emlx` folder: benches/generate.py's HTML
messages, ~20 MB, framed each way; the SVG: a generated map of ~20 MB, paths with
`fill="url(#...)"` and `style`, tiles as `<image xlink:href>`, `<use>` and `<a>`). Each figure is the best of ROUNDS (default 5) runs, by CPU time (user +
system of the processes: the fairer measure on a shared machine) and by wall time.
"""

import gzip
import json
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
REPO = pathlib.Path(__file__).resolve().parents[1]
ABSOLVE = str(REPO / "target" / "release" / "absolve")
CORPUS = REPO.parent / "shared" / "corpus"


def best(command, *, shell=False):
    """Best CPU and wall seconds of a command (output to a pipe that is drained)."""
    cpu, wall = [], []
    for _ in range(ROUNDS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        assert done.returncode == 0, command
        lines = done.stdout.count(b"\n")
    return min(cpu), min(wall), lines


def report(name, ours, peer, goal, same_lines=True):
    if same_lines:
        assert ours[2] == peer[2], f"{name}: {ours[2]} lines, the peer {peer[2]}"
    cpu_ratio, wall_ratio = peer[0] / ours[0], peer[1] / ours[1]
    print(f"{name}: {ours[2]} lines; ours {ours[0]:.3f} s CPU, {ours[1]:.3f} s wall; "
          f"peer {peer[0]:.3f} s CPU, {peer[1]:.3f} s wall; "
          f"throughput ratio {cpu_ratio:.2f}x CPU, {wall_ratio:.2f}x wall (goal >= {goal}x)")


def whatwg(tmp):
    pages = sorted((CORPUS / "html").glob("*.html"))
    if not pages:
        print("whatwg: skipped: ../shared/corpus/html not found")
        return
    page = tmp / "pages.html"
    with page.open("wb") as out:
        for _ in range(20):
            for path in pages:
                out.write(path.read_bytes())
    url = ["--url", "https://example.com/a/b.html"]
    default = best([ABSOLVE, "links", *url, str(page)])
    browser = best([ABSOLVE, "links", "--spec", "whatwg", *url, str(page)])
    report("links --spec whatwg vs rfc1808", browser, default, 0.8, same_lines=False)


def gzipped_mbox(tmp):
    parts = sorted((CORPUS / "mime").glob("*.mbox")) + [REPO / "fixtures/mime/archive-two-messages.mbox"]
    one = b"".join(p.read_bytes().rstrip(b"\n") + b"\n\n" for p in parts if p.exists())
    plain = tmp / "archive.mbox"
    plain.write_bytes(one * max(1, 20_000_000 // len(one)))
    packed = tmp / "archive.mbox.gz"
    with open(plain, "rb") as source, gzip.open(packed, "wb", compresslevel=6) as out:
        shutil.copyfileobj(source, out)
    url = "--url https://lists.example.org/archive/"
    ours = best([ABSOLVE, "links", *url.split(), str(packed)])
    peer = best(f"zcat {packed} | {ABSOLVE} links --format mbox {url}", shell=True)
    report("links x.mbox.gz vs zcat | links", ours, peer, 0.9)


def wacz(tmp):
    warcs = sorted((REPO / "fixtures" / "warc").glob("*.warc"))
    body = b"".join(p.read_bytes() for p in warcs)
    data = body * max(1, 20_000_000 // len(body))
    archive = tmp / "crawl.wacz"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        z.writestr("datapackage.json", json.dumps({"profile": "data-package", "wacz_version": "1.1.1",
                                                    "resources": [{"path": "archive/data.warc"}]}))
        z.writestr("archive/data.warc", data)
    ours = best([ABSOLVE, "links", str(archive)])
    peer = best(f"unzip -p {archive} archive/data.warc | {ABSOLVE} links --format warc", shell=True)
    report("links x.wacz vs unzip -p | links", ours, peer, 0.9)


def generated_messages(total):
    """benches/generate.py's messages (HTML, quoted-printable and base64), their From_
    lines apart, up to `total` bytes."""
    sys.path.insert(0, str(REPO / "benches"))
    import generate

    html, size, index = generate.sample_html(), 0, 0
    while size < total:
        message = generate.message(index, html)
        separator, rest = message.split(b"\r\n", 1)
        yield separator + b"\r\n", rest
        size += len(message)
        index += 1


def mmdf(tmp):
    mbox, mmdf = tmp / "mail.mbox", tmp / "mail.mmdf"
    with mbox.open("wb") as plain, mmdf.open("wb") as framed:
        for separator, message in generated_messages(20_000_000):
            plain.write(separator + message)
            # As Python's mailbox.MMDF writes one: a From_ line after the opening line.
            framed.write(b"\x01\x01\x01\x01\r\n" + separator + message + b"\x01\x01\x01\x01\r\n")
    ours = best([ABSOLVE, "links", str(mmdf)])
    peer = best([ABSOLVE, "links", str(mbox)])
    report("links x.mmdf vs the same messages as x.mbox", ours, peer, 0.9)


def emlx(tmp):
    emls, emlxs = tmp / "eml", tmp / "emlx"
    emls.mkdir()
    emlxs.mkdir()
    plist = b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict/>\n</plist>\n'
    for n, (_, message) in enumerate(generated_messages(20_000_000)):
        (emls / f"{n}.eml").write_bytes(message)
        (emlxs / f"{n}.emlx").write_bytes(b"%-10d\n" % len(message) + message + plist)
    ours = best([ABSOLVE, "links", "-r", "-j", "1", str(emlxs)])
    peer = best([ABSOLVE, "links", "-r", "-j", "1", str(emls)])
    report("links -r over .emlx files vs the same messages as .eml", ours, peer, 0.9)


def svg_map(shapes, gradient_every):
    """An SVG map of `shapes` shapes, as drawing programs write them: most attributes hold
    no URL, every `gradient_every`th shape's fill a fragment (`url(#g)`), a few a file."""
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
             'viewBox="0 0 1000 1000">\n<defs><linearGradient id="g"><stop offset="0" '
             'stop-color="#fff"/></linearGradient><path id="pin" d="M0 0l5 10l5-10z"/></defs>\n']
    for i in range(shapes):
        x, y = i % 997, i % 991
        fill = "url(#g)" if i % gradient_every == 0 else f"#{i % 4096:03x}"
        parts.append(f'<path id="p{i}" d="M{x} {y}l10 0l0 10l-10 0z" fill="{fill}" '
                     f'stroke="#333" stroke-width="0.5" style="opacity:0.9"/>\n')
        if i % 10 == 0:
            parts.append(f'<use xlink:href="#pin" x="{x}" y="{y}"/>\n')
        if i % 50 == 0:
            parts.append(f'<image xlink:href="tiles/{i}.png" x="{x}" y="{y}" width="10" height="10"/>\n')
        if i % 100 == 0:
            parts.append(f'<a xlink:href="places/{i}.html"><text x="{x}" y="{y}">{i}</text></a>\n')
    parts.append('</svg>\n')
    return "".join(parts).encode()


def svg(tmp):
    # Typical: one shape in 20 filled with a gradient. Worst: every one.
    for what, gradient_every in (("1 fill in 20 a url(#g)", 20), ("every fill a url(#g)", 1)):
        image = svg_map(150_000, gradient_every)
        (tmp / "map.svg").write_bytes(b'<?xml version="1.0" encoding="UTF-8"?>\n' + image)
        (tmp / "map.html").write_bytes(b"<!DOCTYPE html>\n<html><body>\n" + image + b"</body></html>\n")
        url = ["--url", "https://example.com/maps/map.svg"]
        ours = best([ABSOLVE, "links", *url, str(tmp / "map.svg")])
        peer = best([ABSOLVE, "links", *url, str(tmp / "map.html")])
        report(f"links map.svg ({len(image) >> 20} MB, {what}) vs the same SVG in HTML", ours, peer, 0.7)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        whatwg(tmp)
        gzipped_mbox(tmp)
        mmdf(tmp)
        emlx(tmp)
        svg(tmp)
        if shutil.which("unzip"):
            wacz(tmp)
        else:
            print("wacz: skipped: unzip not found (apt-get install unzip)")


main()
