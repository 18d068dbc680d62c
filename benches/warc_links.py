#!/usr/bin/env python3
"""The Python peers of `absolve links` over a WARC file, for benches/warc_links.sh.

    warc_links.py warcio FILE     cc-pyspark's way: warcio + lxml iterlinks + urljoin
    warc_links.py fastwarc FILE   FastWARC + selectolax (Lexbor) + urljoin
    warc_links.py absolve FILE    absolve.warc_links (the binding: Link objects, no JSON)
    warc_links.py arc WARC OUT    writes WARC's response records as an ARC v1 file, gzipped a
                                  member per record (the input of benches/arc_links.sh; the
                                  warcio peer reads ARC as it is)
    warc_links.py payloads FILE OUT
                                  the HTML payloads of FILE's response records, decoded,
                                  each written to OUT as a 4-byte little-endian length and
                                  its bytes (the input of examples/lol_html_floor.rs)

Each writes a line per link found (the shell script counts lines, as it does for
`absolve links`) and, on standard error, the count and the seconds it took; the script
measures CPU time, wall time and peak RSS around it. The peers take <base href> (the
first, for fairness) over the target URI.
"""

import sys
import time
from urllib.parse import urljoin


def warcio_lxml(path):
    from warcio.archiveiterator import ArchiveIterator
    import lxml.html

    count = 0
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response" or not record.http_headers:
                continue
            content_type = record.http_headers.get_header("Content-Type") or ""
            if "html" not in content_type.lower():
                continue
            body = record.content_stream().read()
            if not body.strip():
                continue
            try:
                tree = lxml.html.document_fromstring(body)
            except Exception:
                continue
            base = record.rec_headers.get_header("WARC-Target-URI")
            bases = tree.xpath("//base/@href")
            if bases:
                base = urljoin(base, bases[0])
            for _element, _attribute, link, _pos in tree.iterlinks():
                urljoin(base, link)
                count += 1
    return count


# What a crawler engineer writes for speed (absolve covers far more: srcset, style, CSS,
# cite, poster, ...). Resiliparse's own HTML parser is not used for (b): in resiliparse
# 2.0.1 each element object costs ~1.7 ms to make (a weakref cache), 100x its parse time;
# selectolax (Lexbor), which the issue names as the alternative, is the fast choice.
SELECTOR = "[href], [src]"


def fastwarc_selectolax(path):
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    from selectolax.lexbor import LexborHTMLParser

    count = 0
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=True):
            content_type = record.http_content_type or ""
            if "html" not in content_type.lower():
                continue
            tree = LexborHTMLParser(record.reader.read())
            base = record.headers.get("WARC-Target-URI")
            first_base = tree.css_first("base[href]")
            if first_base is not None:
                base = urljoin(base, first_base.attributes.get("href") or "")
            for element in tree.css(SELECTOR):
                attributes = element.attributes
                for name in ("href", "src"):
                    value = attributes.get(name)
                    if value is not None:
                        urljoin(base, value)
                        count += 1
    return count


def absolve_warc_links(path):
    import absolve

    count = 0
    for _link in absolve.warc_links(path):
        count += 1
    return count


def write_payloads(path, out_path):
    """The bodies lol_html parses in `absolve links` (HTML responses), length-prefixed."""
    import struct
    from warcio.archiveiterator import ArchiveIterator

    count = 0
    with open(path, "rb") as stream, open(out_path, "wb") as out:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response" or not record.http_headers:
                continue
            content_type = record.http_headers.get_header("Content-Type") or ""
            if "html" not in content_type.lower():
                continue
            body = record.content_stream().read()
            out.write(struct.pack("<I", len(body)))
            out.write(body)
            count += 1
    return count


def write_arc(path, out_path):
    """The response records of the WARC file `path` as an ARC v1 file (a filedesc version
    block, then `URL IP-address Archive-date Content-type Archive-length` and the HTTP
    message), a gzip member per record, as the Internet Archive's `.arc.gz` files are."""
    import gzip
    from warcio.archiveiterator import ArchiveIterator

    names = b"1 0 absolve benchmark\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://bench.arc 0.0.0.0 20240101000000 text/plain %d\n" % len(names)
    count = 0
    with open(path, "rb") as stream, open(out_path, "wb") as out:
        out.write(gzip.compress(head + names + b"\n", 1, mtime=0))
        for record in ArchiveIterator(stream, no_record_parse=True):
            if record.rec_type != "response":
                continue
            headers = record.rec_headers
            url = headers.get_header("WARC-Target-URI").replace(" ", "%20")
            ip = headers.get_header("WARC-IP-Address") or "0.0.0.0"
            date = "".join(c for c in headers.get_header("WARC-Date") or "" if c.isdigit())[:14]
            block = record.raw_stream.read()
            line = f"{url} {ip} {date or '20240101000000'} text/html {len(block)}\n".encode()
            out.write(gzip.compress(line + block + b"\n", 1, mtime=0))
            count += 1
    return count


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "payloads":
        print(f"{write_payloads(path, sys.argv[3])} payloads")
        sys.exit(0)
    if mode == "arc":
        print(f"{write_arc(path, sys.argv[3])} records")
        sys.exit(0)
    start = time.perf_counter()
    found = {
        "warcio": warcio_lxml,
        "fastwarc": fastwarc_selectolax,
        "absolve": absolve_warc_links,
    }[mode](path)
    # One line per link, as `absolve links` prints, so that the caller counts both alike.
    sys.stdout.write("link\n" * found)
    print(f"{mode}: {found} links in {time.perf_counter() - start:.2f} s", file=sys.stderr)
