"""absolve.Rewriter: chunked input gives the same bytes as the whole document at once."""

import warnings

import pytest

import absolve
from conftest import FIXTURES

URL = "http://example.com/dir/page.html"


def stream(document, chunk_size, **kwargs):
    rewriter = absolve.Rewriter(URL, **kwargs)
    out = [rewriter.write(document[i : i + chunk_size]) for i in range(0, len(document), chunk_size)]
    out.append(rewriter.end())
    return b"".join(out)


def documents():
    pages = sorted((FIXTURES / "html").glob("*.html"))
    from conftest import CORPUS

    if (CORPUS / "html").is_dir():
        pages += sorted((CORPUS / "html").glob("*.html"))
    return pages


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.name)
@pytest.mark.parametrize("chunk_size", [1, 7, 4096, 1 << 20])
def test_chunked_equals_whole(path, chunk_size):
    document = path.read_bytes()
    if chunk_size == 1 and len(document) > 20_000:
        document = document[:20_000]
    kwargs = {"resolve_fragments": path.name.endswith(".resolve-fragments.html")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        whole = absolve.rewrite(document, URL, format="html", **kwargs)
        assert stream(document, chunk_size, **kwargs) == whole


def test_a_late_base_holds_output_back_until_known():
    rewriter = absolve.Rewriter(URL)
    assert rewriter.write(b"<img src=a.png>") == b""
    rest = rewriter.write(b"<base href=/s/><p>") + rewriter.end()
    assert rest == b"<img src=http://example.com/s/a.png><base href=http://example.com/s/><p>"


def test_output_flows_once_the_base_is_settled():
    rewriter = absolve.Rewriter(URL)
    first = rewriter.write(b"<html><head></head><body>" + b"<a href=x>" * 10)
    # No <base> can come after <body> has begun? It can (browsers take it anywhere), so
    # output waits for the lookahead; yet whatever it gives is a prefix of the whole.
    whole = absolve.rewrite(b"<html><head></head><body>" + b"<a href=x>" * 10, URL)
    assert whole.startswith(first)
    assert first + rewriter.end() == whole


def test_lookahead_exceeded_is_a_warning_and_output_flows():
    rewriter = absolve.Rewriter(URL)
    with pytest.warns(absolve.AbsolveWarning, match="no <base href> in the first"):
        out = rewriter.write(b"<a href=x>" + b" " * (1 << 20) + b"<p>")
    assert out.startswith(b"<a href=http://example.com/dir/x>")


def test_take_links_gives_the_links_so_far():
    rewriter = absolve.Rewriter(URL, keep_links=True)
    rewriter.write(b"<a href=x><img src=y>")
    rewriter.end()
    assert [l.resolved for l in rewriter.take_links()] == [
        "http://example.com/dir/x",
        "http://example.com/dir/y",
    ]
    assert rewriter.take_links() == []
    quiet = absolve.Rewriter(URL)
    quiet.write(b"<a href=x>")
    quiet.end()
    assert quiet.take_links() == []


def test_after_end_it_refuses():
    rewriter = absolve.Rewriter(URL)
    rewriter.end()
    with pytest.raises(ValueError, match="after end"):
        rewriter.write(b"<p>")
    with pytest.raises(ValueError, match="end\\(\\) twice"):
        rewriter.end()


def test_bad_arguments():
    with pytest.raises(ValueError, match="^url: "):
        absolve.Rewriter("no-scheme")
    with pytest.raises(ValueError, match="^charset: unknown charset label"):
        absolve.Rewriter(URL, charset="nope")
    with pytest.raises(TypeError, match="^chunk: expected bytes"):
        absolve.Rewriter(URL).write("<p>")


@pytest.mark.parametrize("chunk_size", [1, 64, 1 << 20])
def test_a_warning_raised_as_an_error_loses_no_byte(chunk_size):
    """The bytes a write() or end() had settled when a warning raised come with the next call."""
    document = b'<p><base href="http://h/b/">' + b"x" * 100 + b'<a href="a\xff.html">a</a>' + b"y" * 100 + b'<img src="b.png">' * 3 + b'<a href="c.html">tail'
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", absolve.AbsolveWarning)
        whole = absolve.rewrite(document, URL, format="html")
    assert seen
    pieces, raised = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", absolve.AbsolveWarning)
        rewriter = absolve.Rewriter(URL)
        for i in range(0, len(document), chunk_size):
            try:
                pieces.append(rewriter.write(document[i : i + chunk_size]))
            except absolve.AbsolveWarning:
                raised += 1
        while True:
            try:
                pieces.append(rewriter.end())
                break
            except absolve.AbsolveWarning:
                raised += 1
    assert raised == len(seen)
    assert b"".join(pieces) == whole
