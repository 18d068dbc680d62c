#!/usr/bin/env python3
"""Generates the MIME memory cases of issue 8 item 5 (peak RSS is measured by
benches/mime_memory.sh):

  html-part SIZE_MB OUT   one message, one text/html part of SIZE_MB (8bit, many links)
  b64-part SIZE_MB OUT    the same part in base64
  qp-part SIZE_MB OUT     the same part in quoted-printable
  mbox SIZE_MB OUT        an mbox: a small message, one SIZE_MB message, a small message
  many-parts COUNT OUT    one multipart/mixed message with COUNT tiny HTML parts
  nul SIZE_MB OUT         SIZE_MB of NUL bytes
  deep DEPTH OUT          multipart/mixed and message/rfc822 alternating DEPTH levels
"""
import base64
import quopri
import sys

ROW = b'<tr><td><a href="page/%07d.html">row %07d</a> <img src="img/%07d.png" alt=""></td></tr>\n'


def html(size):
    parts, total, i = [b"<!doctype html><html><head><title>t</title></head><body><table>\n"], 0, 0
    while total < size:
        row = ROW % (i, i, i)
        parts.append(row)
        total += len(row)
        i += 1
    parts.append(b"</table></body></html>\n")
    return b"".join(parts)


def message(body, cte=b"8bit"):
    return (b"MIME-Version: 1.0\nSubject: big\nContent-Location: http://example.com/d/p.html\n"
            b"Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: " + cte + b"\n\n" + body)


def small(n):
    return (b"From a@b Mon Jan  1 00:00:00 2024\nSubject: small %d\nContent-Type: text/html\n"
            b"Content-Base: http://example.com/s/\n\n<a href=\"x%d\">x</a>\n\n" % (n, n))


def main():
    kind, arg, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mb = arg * 1_000_000
    with open(out, "wb") as f:
        if kind == "html-part":
            f.write(message(html(mb)))
        elif kind == "b64-part":
            f.write(message(base64.encodebytes(html(mb * 3 // 4)), b"base64"))
        elif kind == "qp-part":
            f.write(message(quopri.encodestring(html(mb)), b"quoted-printable"))
        elif kind == "mbox":
            f.write(small(1))
            f.write(b"From big@b Mon Jan  1 00:00:00 2024\n" + message(html(mb)) + b"\n")
            f.write(small(2))
        elif kind == "many-parts":
            f.write(b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n")
            for i in range(arg):
                f.write(b"--b\r\nContent-Type: text/html\r\n\r\n<a href=x%06d>\r\n" % i)
            f.write(b"--b--\r\n")
        elif kind == "nul":
            chunk = b"\0" * 1_000_000
            for _ in range(arg):
                f.write(chunk)
        elif kind == "deep":
            head, tail = [], []
            for i in range(arg):
                head.append(b'Content-Type: multipart/mixed; boundary="b%06dx"\r\n\r\n--b%06dx\r\n'
                            b'Content-Type: message/rfc822\r\n\r\n' % (i, i))
                tail.append(b'\r\n--b%06dx--\r\n' % i)
            f.write(b'MIME-Version: 1.0\r\n' + b''.join(head)
                    + b'Content-Type: text/html\r\n\r\n<a href="deep">x</a>' + b''.join(reversed(tail)))
        else:
            sys.exit(__doc__)


main()
