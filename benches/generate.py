#!/usr/bin/env python3
"""Generates inputs for benches/scale.sh: an mbox of HTML mail, a long HTML stream, and a
directory of pages. Everything is derived from the real pages of ../shared/corpus/html/
(when present) so that link density is realistic.

usage: generate.py mbox SIZE_MB OUT | html SIZE_MB OUT | pages COUNT DIR
"""
import base64
import os
import quopri
import sys

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus", "html")


def sample_html():
    path = os.path.join(CORPUS, "cloudflare.com.html")
    if os.path.exists(path):
        return open(path, "rb").read()
    links = b"".join(b'<p><a href="page%d.html">link</a> <img src="img/%d.png"></p>\n' % (i, i) for i in range(2000))
    return b"<!doctype html><html><head><title>t</title></head><body>\n" + links + b"</body></html>\n"


def message(index, html):
    chunk = html[(index * 7919) % (len(html) // 2):][:20000]
    qp = quopri.encodestring(chunk).replace(b"\n", b"\r\n")
    b64 = base64.encodebytes(chunk).replace(b"\n", b"\r\n")
    return (
        b"From sender%d@example.com Mon Jan  1 00:00:00 2024\r\n" % index
        + b"Subject: message %d\r\nMIME-Version: 1.0\r\nContent-Base: http://example.com/m%d/\r\n" % (index, index)
        + b'Content-Type: multipart/alternative; boundary="b%d"\r\n\r\n' % index
        + b"--b%d\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" % index
        + qp
        + b"\r\n--b%d\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" % index
        + b64
        + b"\r\n--b%d--\r\n\r\n" % index
    )


def write_mbox(size_mb, out):
    html = sample_html()
    limit = size_mb * 1024 * 1024
    written = 0
    with open(out, "wb") as f:
        index = 0
        while written < limit:
            m = message(index, html)
            f.write(m)
            written += len(m)
            index += 1


def write_html(size_mb, out):
    html = sample_html()
    body_start = html.find(b"<body")
    body = html[body_start:] if body_start >= 0 else html
    limit = size_mb * 1024 * 1024
    with open(out, "wb") as f:
        f.write(html[:body_start] if body_start > 0 else b"")
        written = 0
        while written < limit:
            f.write(body)
            written += len(body)


def write_pages(count, directory):
    html = sample_html()
    os.makedirs(directory, exist_ok=True)
    for i in range(count):
        with open(os.path.join(directory, "page%04d.html" % i), "wb") as f:
            f.write(html)


if __name__ == "__main__":
    kind, amount, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    {"mbox": write_mbox, "html": write_html, "pages": write_pages}[kind](amount, out)
