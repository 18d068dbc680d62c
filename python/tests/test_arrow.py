"""Arrow out: warc_link_batches and links_table give the rows warc_links and links give, as
pyarrow batches and tables; pandas, Polars and DuckDB read them (the GUIDE's examples)."""

import gzip
import io
import os
import warnings

import pytest

import absolve
from conftest import CORPUS, FIXTURES, peak_rss_kib, warc_record

pa = pytest.importorskip("pyarrow", reason="needs pyarrow (python/requirements-test.txt)")
import pyarrow.compute  # noqa: E402 (pa.compute)

WARC_COLUMNS = ["page_url", "record_id", "element", "attribute", "original", "resolved", "base", "base_from"]


def link_row(link):
    return (link.target_uri, link.record, link.element, link.attribute, link.original, link.resolved, link.base, link.base_from)


def table_rows(table):
    return list(zip(*(table.column(name).to_pylist() for name in table.column_names)))


def made_warc(pages=5):
    records = [
        warc_record(b"http://h.example/d/%d.html" % i, b"<a href=../up.html><img src=i%d.png><base href=/b/><a href=x>" % i, b"<urn:uuid:%d>" % i)
        for i in range(pages)
    ]
    return b"".join(gzip.compress(r) for r in records)


def warc_files():
    found = sorted(p for p in (CORPUS / "warc").rglob("*.warc*") if p.is_file()) if CORPUS.is_dir() else []
    return found + sorted((FIXTURES / "warc").rglob("*.warc*"))


def links_or_error(source, function, **options):
    """The rows a reader gives before it stops, and the error it stops with (or None)."""
    rows = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", absolve.AbsolveWarning)
        try:
            for item in function(source, **options):
                if isinstance(item, pa.RecordBatch):
                    rows.extend(table_rows(item))
                else:
                    rows.append(link_row(item))
        except (OSError, ValueError) as error:
            return rows, str(error), [str(w.message) for w in seen]
    return rows, None, [str(w.message) for w in seen]


@pytest.mark.parametrize("path", warc_files(), ids=lambda p: p.name)
def test_batches_hold_the_rows_of_warc_links(path):
    expected = links_or_error(str(path), absolve.warc_links)
    got = links_or_error(str(path), lambda s: absolve.warc_link_batches(s, batch_rows=7))
    assert got == expected


def test_batches_have_the_spark_columns_and_at_most_batch_rows():
    batches = list(absolve.warc_link_batches(io.BytesIO(made_warc(5)), 4))
    assert [b.num_rows for b in batches] == [4, 4, 4, 4, 4]
    schema = batches[0].schema
    assert schema.names == WARC_COLUMNS
    assert all(field.type == pa.string() for field in schema)
    assert [f.name for f in schema if not f.nullable] == ["element", "original", "resolved", "base_from"]
    assert table_rows(batches[0])[1] == (
        "http://h.example/d/0.html",
        "<urn:uuid:0>",
        "img",
        "src",
        "i0.png",
        "http://h.example/b/i0.png",
        "http://h.example/b/",
        "base-element",
    )


def test_options_reach_the_batches():
    data = warc_record(b"http://h/a/b", b"<a href='#f'><a href='../c'>", b"<urn:x>")
    plain = pa.Table.from_batches(absolve.warc_link_batches(io.BytesIO(data)))
    assert plain.column("resolved").to_pylist() == ["#f", "http://h/c"]
    fragments = pa.Table.from_batches(absolve.warc_link_batches(io.BytesIO(data), resolve_fragments=True, spec="rfc3986"))
    assert fragments.column("resolved").to_pylist() == ["http://h/a/b#f", "http://h/c"]


def test_bad_arguments_and_inputs_raise_as_warc_links_does(tmp_path):
    with pytest.raises(ValueError, match="batch_rows"):
        absolve.warc_link_batches(io.BytesIO(b""), 0)
    with pytest.raises(ValueError, match="charset"):
        absolve.warc_link_batches(io.BytesIO(b""), charset="no-such-charset")
    with pytest.raises(FileNotFoundError):
        absolve.warc_link_batches(tmp_path / "missing.warc")
    not_warc = tmp_path / "page.warc"
    not_warc.write_bytes(b"<html>no WARC here</html>")
    with pytest.raises(ValueError, match="not a WARC"):
        list(absolve.warc_link_batches(not_warc))


def test_a_damaged_file_gives_its_links_and_a_warning_as_warc_links_does():
    data = made_warc(3) + b"\x1f\x8b\x08\x00garbage that is not deflate data"
    rows, error, said = links_or_error(io.BytesIO(data), absolve.warc_link_batches)
    assert error is None and len(rows) == 3 * 4
    assert any("gzip" in warning for warning in said), said
    assert (rows, error, said) == links_or_error(io.BytesIO(data), absolve.warc_links)


def test_an_empty_warc_gives_no_batch():
    assert list(absolve.warc_link_batches(io.BytesIO(b""))) == []


DOCUMENTS = [
    (b'<base href="/s/"><img srcset="a.png 1x, b.png 2x"><style>p{background:url(c.png)}</style>', "http://h/d/p.html", {}),
    (b"<a href=../x>", None, {}),
    (b"<a href='#f'>", "http://h/d/p.html", {"resolve_fragments": True}),
]


@pytest.mark.parametrize("document,url,options", DOCUMENTS)
def test_links_table_holds_what_links_gives(document, url, options):
    table = absolve.links_table(document, url, **options)
    expected = [link.dict() for link in absolve.links(document, url, **options)]
    assert table.column_names == list(expected[0].keys())
    assert table.to_pylist() == expected


def test_links_table_of_a_mime_message_and_a_warc(corpus):
    for path in [p for p in sorted((FIXTURES / "mime").rglob("*.eml"))[:5]] + [CORPUS / "warc/jwarc/cc.warc.gz"]:
        data = path.read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", absolve.AbsolveWarning)
            table = absolve.links_table(data, "http://h/")
            expected = [link.dict() for link in absolve.links(data, "http://h/")]
        assert table.num_rows == len(expected)
        assert table.to_pylist() == expected
    assert table.schema.field("offset").type == pa.uint64()
    assert table.schema.field("message").type == pa.uint64()


def test_links_table_of_nothing_has_the_columns_and_no_row():
    table = absolve.links_table(b"<p>no links</p>", "http://h/")
    assert table.num_rows == 0
    assert "resolved" in table.column_names


# The GUIDE's examples, one per library.


def test_pandas_reads_the_batches():
    pd = pytest.importorskip("pandas")
    table = pa.Table.from_batches(absolve.warc_link_batches(io.BytesIO(made_warc(3))))
    frame = table.to_pandas()
    counts = frame.groupby("element").size().to_dict()
    assert counts == {"a": 6, "base": 3, "img": 3}
    assert isinstance(frame, pd.DataFrame)


def test_polars_reads_the_batches():
    pl = pytest.importorskip("polars")
    frame = pl.from_arrow(pa.Table.from_batches(absolve.warc_link_batches(io.BytesIO(made_warc(3)))))
    hosts = frame.filter(pl.col("element") == "a").get_column("resolved").to_list()
    assert hosts == ["http://h.example/up.html", "http://h.example/b/x"] * 3


def test_duckdb_queries_the_batches():
    duckdb = pytest.importorskip("duckdb")
    links = pa.Table.from_batches(absolve.warc_link_batches(io.BytesIO(made_warc(3))))
    found = duckdb.sql("SELECT base_from, count(*) AS n FROM links GROUP BY base_from ORDER BY base_from").fetchall()
    assert found == [("base-element", 9), ("retrieval-url", 3)]


# A batch ends at a byte budget too: rows that repeat a long page URL (or base) would
# otherwise pass the 2 GiB an Arrow string column's 32-bit offsets address (a panic), and
# take gigabytes, whatever batch_rows says. The budget is the batch's, all its columns
# together (it was each column's: eight times as much).

BATCH_TEXT_BYTES = 32 << 20
LONG = b"http://example.com/" + b"a" * 300_000 + b"/"


def column_bytes(array):
    return pa.compute.sum(pa.compute.binary_length(array)).as_py() or 0


def test_a_batch_ends_before_its_text_passes_32_mib():
    data = warc_record(LONG + b"p.html", b"<a href=x>" * 200, b"<urn:uuid:1>")
    batches = list(absolve.warc_link_batches(io.BytesIO(data)))
    assert len(batches) > 1
    assert sum(b.num_rows for b in batches) == 200
    for batch in batches:
        assert sum(column_bytes(column) for column in batch.columns) <= BATCH_TEXT_BYTES
    assert [r for b in batches for r in table_rows(b)] == [link_row(link) for link in absolve.warc_links(io.BytesIO(data))]


def test_a_links_table_is_chunked_before_its_text_passes_32_mib():
    document = b'<base href="' + LONG + b'">' + b"<a href=x>" * 200
    table = absolve.links_table(document)
    resolved = table.column("resolved")
    assert resolved.num_chunks > 1
    for batch in table.to_batches():
        assert sum(column_bytes(column) for column in batch.columns if column.type == pa.string()) <= BATCH_TEXT_BYTES
    assert table.num_rows == 201
    assert table.to_pylist() == [link.dict() for link in absolve.links(document)]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc/self/status (VmHWM) here")
def test_batches_of_links_that_repeat_a_long_page_url_stay_small(tmp_path):
    # 400,000 links whose rows each repeat a 2 KB page URL (and base, and the resolved URL
    # under it): 2.4 GB of text in all, in batches of 32 MiB built at their size: 104 MB
    # above pyarrow's own. 154 MB when each column had 32 MiB (three long ones a batch),
    # 219 MB with 32 MiB a batch but columns grown by doubling as rows came.
    page = b"http://h.example/" + b"p" * 2000
    path = tmp_path / "long-page-urls.warc.gz"
    with open(path, "wb") as f:
        for n in range(2):
            f.write(gzip.compress(warc_record(page, b"<a href=x>" * 200_000, b"<urn:uuid:%d>" % n), 1))
    code = f"""
import warnings
warnings.simplefilter("ignore")
assert sum(b.num_rows for b in absolve.warc_link_batches({str(path)!r})) == 400_000
"""
    baseline = peak_rss_kib("import pyarrow")
    peak = peak_rss_kib(code)
    assert peak - baseline < 128 * 1024, (peak, baseline)


def damaged_warc(records=60):
    """`records` pages of 30 links; every 7th says its body is gzip when it is not (a warning)."""
    out = []
    for i in range(records):
        html = b"".join(b'<a href="p%d-%d.html">' % (i, j) for j in range(30))
        headers = b"Content-Encoding: gzip\r\n" if i % 7 == 3 else b""
        out.append(warc_record(b"http://example.com/d/%d.html" % i, html, b"<urn:uuid:%d>" % i, headers))
    return b"".join(out)


def drained(iterator, rows):
    """What an iterator gives when every AbsolveWarning raises and is caught: its rows and
    the warnings raised."""
    got, raised = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("error", absolve.AbsolveWarning)
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                return got, raised
            except absolve.AbsolveWarning as warning:
                raised.append(str(warning))
                continue
            got.extend(rows(item))


@pytest.mark.parametrize("reader", ["warc_link_batches", "warc_links"])
def test_a_warning_raised_as_an_error_loses_no_row_and_no_other_warning(reader):
    data = damaged_warc()
    if reader == "warc_link_batches":
        read, rows = (lambda: absolve.warc_link_batches(io.BytesIO(data), 100)), table_rows
    else:
        read, rows = (lambda: absolve.warc_links(io.BytesIO(data))), lambda link: [link_row(link)]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", absolve.AbsolveWarning)
        expected = [row for item in read() for row in rows(item)]
    assert len(expected) == 60 * 30 and len(seen) == 9
    assert drained(read(), rows) == (expected, [str(w.message) for w in seen])
