"""absolve.rewrite and absolve.links over HTML, MIME messages and mbox archives: the same
bytes and the same link records as the CLI on the same files, and what a crawler needs."""

import contextlib
import copy
import os
import pickle
import signal
import subprocess
import threading
import time
import warnings

import pytest

import absolve
from conftest import FIXTURES, warc_record

URL = "http://example.com/dir/page.html"

HTML_FIXTURES = sorted((FIXTURES / "html").glob("*.html"))
MIME_FIXTURES = sorted((FIXTURES / "mime").iterdir())


def options_for(path):
    """The fixture's options, as tests/snapshots_html.rs runs it."""
    fragments = path.name.endswith(".resolve-fragments.html")
    return {"resolve_fragments": fragments}, (["--resolve-fragments"] if fragments else [])


@pytest.mark.parametrize("path", HTML_FIXTURES, ids=lambda p: p.name)
def test_html_fixture_matches_the_cli(path, cli, cli_links):
    kwargs, flags = options_for(path)
    document = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        rewritten = absolve.rewrite(document, URL, **kwargs)
        found = [link.dict() for link in absolve.links(document, URL, **kwargs)]
    assert rewritten == cli("rewrite", "--url", URL, *flags, path)
    assert found == cli_links("--url", URL, *flags, path)
    assert found, "every HTML fixture has links"


@pytest.mark.parametrize("path", MIME_FIXTURES, ids=lambda p: p.name)
def test_message_fixture_matches_the_cli(path, cli, cli_links):
    document = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        rewritten = absolve.rewrite(document)
        found = [link.dict() for link in absolve.links(document)]
    assert rewritten == cli("rewrite", path)
    assert found == cli_links(path)


def test_real_pages_match_the_cli(corpus, cli, cli_links):
    pages = sorted((corpus / "html").glob("*.html"))
    assert pages
    for page in pages:
        url = "https://" + page.stem + "/"
        document = page.read_bytes()
        assert absolve.rewrite(document, url) == cli("rewrite", "--url", url, page)
        assert [l.dict() for l in absolve.links(document, url)] == cli_links("--url", url, page)


def test_real_messages_match_the_cli(corpus, cli, cli_links):
    messages = sorted(p for p in (corpus / "mime").iterdir() if p.suffix != ".md")
    assert messages
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        for message in messages:
            document = message.read_bytes()
            assert absolve.rewrite(document) == cli("rewrite", message), message.name
            assert [l.dict() for l in absolve.links(document)] == cli_links(message), message.name


def test_rewrite_keeps_every_other_byte():
    page = b"<a  href='../x?a=1&amp;b=2'>x</a>\n<img\tsrc=y.png alt=''>"
    assert absolve.rewrite(page, "http://h/d/p.html") == (
        b"<a  href='http://h/x?a=1&amp;b=2'>x</a>\n<img\tsrc=http://h/d/y.png alt=''>"
    )


def test_without_url_relative_references_stay():
    assert absolve.rewrite(b'<a href="x">') == b'<a href="x">'
    (link,) = absolve.links(b'<a href="x">')
    assert (link.resolved, link.base, link.base_from) == ("x", None, "none")


def test_link_fields_and_mapping_form():
    (base, img) = absolve.links(b'<base href="/s/"><img src="a.png">', URL)
    assert (img.element, img.attribute, img.original) == ("img", "src", "a.png")
    assert (img.resolved, img.base, img.base_from) == ("http://example.com/s/a.png", "http://example.com/s/", "base-element")
    assert img.offset == len(b'<base href="/s/"><img src="')
    assert (img.message, img.part, img.record, img.target_uri) == (None, None, None, None)
    # Every record has the same keys, as every line of `absolve links` does (less "file").
    expected = {
        "message": None,
        "part": None,
        "record": None,
        "target_uri": None,
        "element": "img",
        "attribute": "src",
        "original": "a.png",
        "resolved": "http://example.com/s/a.png",
        "base": "http://example.com/s/",
        "base_from": "base-element",
        "offset": img.offset,
        "srcdoc": 0,
        "kept": None,
    }
    assert img.dict() == expected
    assert dict(img) == expected
    assert list(img) == list(expected) and len(img) == 13
    assert img["resolved"] == img.resolved and img["part"] is None and "part" in img
    assert "file" not in img
    with pytest.raises(KeyError):
        img["no-such-key"]
    assert base.base_from == "retrieval-url"
    assert img == absolve.links(b'<base href="/s/"><img src="a.png">', URL)[1]
    assert len({img, base, img}) == 2
    assert "a.png" in repr(img)


def test_links_pickle_and_copy_to_equal_links():
    # What multiprocessing and Spark do with a result: pickle it (every protocol), and
    # copy.copy/deepcopy; each gives a Link equal to the first, field for field.
    message = (FIXTURES / "mime" / "base-headers-nested-multiparts-crlf.eml").read_bytes()
    with pytest.warns(absolve.AbsolveWarning, match="no base URL"):
        no_base = absolve.links(b'<a href="rel">')  # base None, base_from "none"
    found = [
        *absolve.links(b'<base href="/s/"><img src="a.png"><a href="#x">', URL),
        *no_base,
        *absolve.links(message)[:2],  # message and part
        *absolve.links(warc_record(b"http://h/d/p.html", b'<a href="x">', b"<urn:uuid:1>")),  # record, target_uri
    ]
    assert {link.base_from for link in found} >= {"base-element", "none", "retrieval-url"}
    assert any(link.part for link in found) and any(link.record for link in found)
    for link in found:
        copies = [pickle.loads(pickle.dumps(link, protocol)) for protocol in range(pickle.HIGHEST_PROTOCOL + 1)]
        copies += [copy.copy(link), copy.deepcopy(link)]
        for again in copies:
            assert type(again) is absolve.Link
            assert again == link and hash(again) == hash(link)
            assert again.dict() == link.dict() and repr(again) == repr(link)
    assert pickle.loads(pickle.dumps(found)) == found


def test_a_message_gives_message_and_part():
    message = (FIXTURES / "mime" / "base-headers-nested-multiparts-crlf.eml").read_bytes()
    found = absolve.links(message)
    assert found and all(l.message == 1 and l.part for l in found)
    assert found[0].dict()["message"] == 1 and found[0].dict()["record"] is None


def test_an_mbox_numbers_its_messages():
    archive = (FIXTURES / "mime" / "archive-two-messages.mbox").read_bytes()
    numbers = {l.message for l in absolve.links(archive)}
    assert numbers == {1, 2}
    assert {l.message for l in absolve.links(archive, format="mbox")} == {1, 2}


def test_an_mmdf_mailbox_python_writes_reads_back_rewritten(tmp_path):
    import email.message
    import mailbox

    written = mailbox.MMDF(tmp_path / "in.mmdf", create=True)
    for n in range(3):
        message = email.message.EmailMessage()
        message["Subject"] = f"message {n}"
        message.set_content(f'<a href="p{n}.html">{n}</a>', subtype="html")
        message["Content-Base"] = f"http://h{n}.example/d/"
        written.add(message)
    written.close()
    rewritten = absolve.rewrite((tmp_path / "in.mmdf").read_bytes())
    (tmp_path / "out.mmdf").write_bytes(rewritten)
    read = mailbox.MMDF(tmp_path / "out.mmdf", create=False)
    bodies = [m.get_payload().strip() for m in read]
    assert bodies == [f'<a href="http://h{n}.example/d/p{n}.html">{n}</a>' for n in range(3)]
    assert [m["Subject"] for m in read] == ["message 0", "message 1", "message 2"]


def test_an_emlx_rewrite_keeps_the_length_mail_reads_it_by():
    message = b"Subject: x\nContent-Type: text/html\nContent-Base: http://h.example/\n\n<a href=y>\n"
    plist = b'<?xml version="1.0"?>\n<plist version="1.0"><dict/></plist>\n'
    emlx = b"%-10d\n" % len(message) + message + plist
    rewritten = absolve.rewrite(emlx)
    length, rest = rewritten.split(b"\n", 1)
    assert rest[: int(length)].endswith(b"<a href=http://h.example/y>\n")
    assert rest[int(length) :] == plist and len(length) == 10


def test_format_forces_html():
    message = b"Content-Type: text/html\r\nContent-Location: http://h/d/\r\n\r\n<a href=x>\r\n"
    assert absolve.links(message)[0].resolved == "http://h/d/x"
    assert absolve.links(message, format="html")[0].resolved == "x"


def test_resolve_fragments_and_rfc():
    assert absolve.rewrite(b"<a href=#s>", URL) == b"<a href=#s>"
    assert absolve.rewrite(b"<a href=#s>", URL, resolve_fragments=True) == (
        b"<a href=http://example.com/dir/page.html#s>"
    )
    base = "http://a/b/c/d;p?q"
    assert absolve.rewrite(b"<a href=../../../g>", base) == b"<a href=http://a/../g>"
    assert absolve.rewrite(b"<a href=../../../g>", base, rfc=3986) == b"<a href=http://a/g>"


def test_charset_decides_how_values_are_read():
    page = "<a href='caf\u00e9.html'>".encode("latin-1")
    assert absolve.links(page, URL, charset="latin1")[0].original == "caf\u00e9.html"
    # The rewritten value is written back in the document's charset.
    assert absolve.rewrite(page, URL, charset="latin1") == (
        "<a href='http://example.com/dir/caf\u00e9.html'>".encode("latin-1")
    )


class ScrapyHeaders(dict):
    """Like scrapy.http.Headers: bytes keys, each value a list of bytes."""


def scrapy_links(response_body, response_url, response_headers):
    """What a Scrapy callback does: the response in, absolute URLs out."""
    return [
        link.resolved
        for link in absolve.links(response_body, response_url, headers=response_headers)
        if link.element == "a"
    ]


def test_scrapy_style_response_in_absolute_links_out():
    body = (
        "<html><head><title>Caf\u00e9</title></head><body>"
        "<a href='men\u00fc.html'>menu</a> <a href='/about?x=1&amp;y=2'>about</a>"
        "<a href='//cdn.example.net/a.js'>cdn</a> <a href='mailto:a@b'>mail</a>"
        "</body></html>"
    ).encode("iso-8859-1")
    headers = ScrapyHeaders({b"Content-Type": [b"text/html; charset=ISO-8859-1"], b"Server": [b"x"]})
    assert scrapy_links(body, "https://shop.example.org/fr/index.html", headers) == [
        "https://shop.example.org/fr/men\u00fc.html",
        "https://shop.example.org/about?x=1&y=2",
        "https://cdn.example.net/a.js",
        "mailto:a@b",
    ]
    # The header's charset is what makes the menu link right: without it, UTF-8 is assumed.
    with pytest.warns(absolve.AbsolveWarning, match="not valid UTF-8"):
        utf8 = absolve.links(body, "https://h/", headers={"content-type": "text/html"})
    assert utf8[0].original != "men\u00fc.html"
    # Pairs work too (http.client.HTTPMessage.items(), requests' headers, WSGI environ lists).
    pairs = [("Content-Type", "text/html;charset=latin1")]
    assert absolve.links(body, "https://h/", headers=pairs)[0].original == "men\u00fc.html"


def test_explicit_charset_wins_over_headers():
    body = "<a href='\u00e9'>".encode("utf-8")
    headers = {"Content-Type": "text/html; charset=latin1"}
    assert absolve.links(body, URL, headers=headers, charset="utf-8")[0].original == "\u00e9"


def test_bytearray_and_memoryview_are_documents_too():
    page = b"<a href=x>"
    expected = absolve.rewrite(page, URL)
    assert absolve.rewrite(bytearray(page), URL) == expected
    assert absolve.rewrite(memoryview(page), URL) == expected


def test_warnings_are_absolve_warnings():
    with pytest.warns(absolve.AbsolveWarning, match="gives no usable absolute URL"):
        absolve.rewrite(b'<base href="data:,x"><a href=y>', URL)


BAD_ARGUMENTS = [
    ({"url": "example.com/page"}, ValueError, r'^url: "example.com/page" cannot be a base URL: it needs a scheme'),
    ({"url": "mailto:a@b"}, ValueError, r"^url: .* cannot be a base URL"),
    ({"charset": "no-such-charset"}, ValueError, r'^charset: unknown charset label "no-such-charset"$'),
    ({"rfc": 2396}, ValueError, r'^rfc: unknown RFC "2396": expected 1808 or 3986$'),
    ({"format": "pdf"}, ValueError, r'^format: invalid value "pdf"'),
    ({"headers": 5}, TypeError, r"^headers: expected a mapping or a list of \(name, value\) pairs, not int$"),
    ({"headers": {"Content-Type": 5}}, TypeError, r"^headers: names and values must be str or bytes"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD_ARGUMENTS)
@pytest.mark.parametrize("function", [absolve.rewrite, absolve.links])
def test_bad_arguments_raise_with_the_cli_message(function, kwargs, error, message):
    with pytest.raises(error, match=message):
        function(b"<a href=x>", **kwargs)


def test_the_cli_says_the_same_about_a_bad_url(tmp_path):
    from conftest import cli_binary
    import subprocess

    binary = cli_binary()
    if binary is None:
        pytest.skip("needs the absolve CLI")
    page = tmp_path / "p.html"
    page.write_bytes(b"<a href=x>")
    done = subprocess.run([binary, "links", "--url", "example.com/page", page], capture_output=True)
    with pytest.raises(ValueError) as raised:
        absolve.links(b"", "example.com/page")
    cli_message = done.stderr.decode().strip().removeprefix("absolve: --url: ")
    assert str(raised.value).removeprefix("url: ") == cli_message


def test_a_str_document_is_a_type_error():
    with pytest.raises(TypeError, match="^document: expected bytes"):
        absolve.links("<a href=x>", URL)
    with pytest.raises(TypeError, match=r"^document: expected bytes or a path \(os.PathLike\), not int$"):
        absolve.rewrite(5, URL)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("function", ["links", "rewrite", "links_table"])
def test_a_fifo_path_is_read_and_ctrl_c_stops_the_wait_for_its_writer(tmp_path, function, ctrl_c):
    if function == "links_table":
        pytest.importorskip("pyarrow", reason="needs pyarrow (python/requirements-test.txt)")
    call = getattr(absolve, function)
    page = b'<a href="../x">x</a>'
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    source = tmp_path / "page.html"
    source.write_bytes(page)
    # Its writer comes after 0.5 s: the page is read from the FIFO as from its bytes.
    writer = subprocess.Popen(["sh", "-c", 'sleep 0.5; cat "$0" > "$1"', str(source), str(fifo)])
    assert call(fifo, URL) == call(page, URL)
    writer.wait(timeout=30)
    # No writer: Ctrl-C (SIGINT) ends the wait, as it ends Python's own open().
    def writer_comes():
        with contextlib.suppress(OSError):  # no reader left: nothing waits
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    interrupt = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    # Were Ctrl-C not heard, a writer coming at last ends the wait (and the test fails).
    unblock = threading.Timer(5, writer_comes)
    start = time.monotonic()
    interrupt.start()
    unblock.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call(fifo, URL)
        assert time.monotonic() - start < 2.0
    finally:
        interrupt.join()
        unblock.cancel()
        # The open() left waiting ends once a writer comes.
        writer_comes()


def test_an_image_body_is_passed_through_with_a_warning():
    # A crawler hands every body it fetched: an image's bytes are no page, and none of
    # them is read as a link or changed (format="html" still reads them as one).
    png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR<a href=x>"
    with pytest.warns(absolve.AbsolveWarning, match="a PNG image, not a document"):
        assert absolve.links(png, URL) == []
    with pytest.warns(absolve.AbsolveWarning, match="a PNG image"):
        assert absolve.rewrite(png, URL) == png
    assert [link.original for link in absolve.links(png, URL, format="html")] == ["x"]


def test_a_json_body_is_passed_through_with_a_warning():
    # A JSON Feed or an API's answer escapes HTML's quotes in its strings: read as HTML,
    # the backslashes went into the URLs and the JSON came out broken.
    body = b'{"items": [{"content_html": "<a href=\\"p/2\\">two</a>"}]}'
    with pytest.warns(absolve.AbsolveWarning, match="JSON data, not a document"):
        assert absolve.rewrite(body, URL) == body
