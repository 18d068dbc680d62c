"""One options type: Python checks its arguments as the CLI checks its flags (the same
library constructor, the same words), and says what the CLI says, as warnings."""

import os
import subprocess
import sys
import warnings

import pytest

import absolve
from conftest import cli_binary


BAD_URLS = [
    ("http://", r'^url: "http://" has no host: http URLs need one$'),
    ("http://h/a b", r'^url: "http://h/a b" contains whitespace: a URL cannot$'),
    ("https:///x", r"^url: .* has no host"),
]


@pytest.mark.parametrize(("url", "message"), BAD_URLS)
@pytest.mark.parametrize("function", [absolve.rewrite, absolve.links])
def test_a_url_the_cli_refuses_is_refused(function, url, message):
    with pytest.raises(ValueError, match=message):
        function(b"<a href=x>", url)


@pytest.mark.parametrize(("url", "_"), BAD_URLS)
def test_the_words_are_the_clis(tmp_path, url, _):
    binary = cli_binary()
    if binary is None:
        pytest.skip("the absolve CLI is not built (ABSOLVE_BIN unset, target/release/absolve missing)")
    page = tmp_path / "p.html"
    page.write_bytes(b"<a href=x>")
    done = subprocess.run([binary, "links", "--url", url, page], capture_output=True)
    assert done.returncode == 2
    with pytest.raises(ValueError) as raised:
        absolve.links(b"", url)
    assert done.stderr.decode().strip() == "absolve: --" + str(raised.value)


def test_resolve_refuses_a_base_without_a_scheme_as_the_cli_does():
    with pytest.raises(ValueError, match=r'^base: "a/b" has no scheme'):
        absolve.resolve("a/b", "c")
    # An empty base is §3.4: the reference as it is.
    assert absolve.resolve("", "c") == "c"


def test_no_base_url_is_a_warning_as_on_the_command_line():
    with pytest.warns(absolve.AbsolveWarning, match=r"^no base URL: links left relative \(pass url=\)$"):
        found = absolve.links(b"<a href=x>")
    assert [link.resolved for link in found] == ["x"]
    with pytest.warns(absolve.AbsolveWarning, match="no base URL"):
        assert absolve.rewrite(b"<a href=x>") == b"<a href=x>"
    # An absolute reference needs no base: nothing to say.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        absolve.links(b"<a href=http://h/x>")


@pytest.mark.parametrize("name", ["HTML", "Html", "html"])
def test_format_in_any_case_as_on_the_command_line(name):
    found = absolve.links(b"Subject: x\r\n\r\n<a href=x>", "http://h/", format=name)
    assert [link.resolved for link in found] == ["http://h/x"]


def test_an_unknown_format_names_every_format():
    with pytest.raises(ValueError, match=r'^format: invalid value "pdf": expected one of "auto", "html", "mime", "mbox", "css", "feed", "warc", "wacz", "webarchive", "svg"$'):
        absolve.links(b"", format="pdf")


def test_keep_local_keeps_references_to_files_beside_a_page(tmp_path):
    (tmp_path / "page_files").mkdir()
    (tmp_path / "page_files" / "style.css").write_bytes(b"a{}")
    page = tmp_path / "page.html"
    page.write_bytes(b'<link href="page_files/style.css"><a href="other.html">')
    kept = absolve.rewrite(page, "https://example.com/a/page.html", keep_local=True)
    assert kept == b'<link href="page_files/style.css"><a href="https://example.com/a/other.html">'
    assert [link.kept for link in absolve.links(page, "https://example.com/a/", keep_local=True)] == ["local", None]
    resolved = absolve.rewrite(page, "https://example.com/a/page.html")
    assert b"https://example.com/a/page_files/style.css" in resolved


def test_a_path_is_read_as_the_cli_reads_the_file(tmp_path):
    page = tmp_path / "p.html"
    page.write_bytes(b"<!-- saved from url=(0016)http://h/d/p.html -->\n<a href=x>")
    assert absolve.rewrite(page) == absolve.rewrite(page.read_bytes())
    assert [link.base_from for link in absolve.links(page)] == ["saved-from"]
    with pytest.raises(ValueError, match="No such file"):
        absolve.links(tmp_path / "missing.html")


def test_max_held_limits_a_message_read_from_a_file(tmp_path):
    message = (
        b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n<a href=x>x</a>\r\n"
        + b"<p>filler</p>\r\n" * 4000
    )
    eml = tmp_path / "big.eml"
    eml.write_bytes(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert absolve.rewrite(eml, max_held=1024) == message
        assert absolve.links(eml, max_held=1024) == []
        assert absolve.links_table(eml, max_held=1024).num_rows == 0
    said = [str(w.message) for w in caught]
    assert len(said) == 3 and all("max_held=" in s and "1024 bytes" in s for s in said), said
    assert not any("Options::with_max_held" in s for s in said), said
    # Within the limit (and by default), it is read; bytes given are held already.
    for kwargs in ({"max_held": len(message)}, {}):
        assert [l.resolved for l in absolve.links(eml, **kwargs)] == ["http://h/d/x"]
    assert [l.resolved for l in absolve.links(message, max_held=1024)] == ["http://h/d/x"]
    with pytest.raises(ValueError, match="max_held"):
        absolve.rewrite(eml, max_held=0)


def test_version_is_the_packages():
    assert absolve.__version__ == "0.1.0"
    assert isinstance(os.fspath(absolve.__file__), str)


def test_spec_whatwg_gives_the_browsers_urls_on_every_function():
    page = b'<a href="../upload/x.jpg">a</a><a href="//i0.wp.com">b</a>'
    base = "http://ipf.example.cn/?p=1"
    assert [link.resolved for link in absolve.links(page, base, spec="whatwg")] == [
        "http://ipf.example.cn/upload/x.jpg",
        "http://i0.wp.com/",
    ]
    assert [link.resolved for link in absolve.links(page, base)] == [
        "http://ipf.example.cn/../upload/x.jpg",
        "http://i0.wp.com",
    ]
    assert absolve.rewrite(page, base, spec="WHATWG").startswith(b'<a href="http://ipf.example.cn/upload/x.jpg">')
    assert absolve.resolve(base, "../g", spec="whatwg") == "http://ipf.example.cn/g"
    rewriter = absolve.Rewriter(base, spec="whatwg")
    assert (rewriter.write(page) + rewriter.end()).startswith(b'<a href="http://ipf.example.cn/upload/')
    # rfc= is still accepted; spec= and rfc= together are refused.
    assert absolve.resolve("http://a/b/c/d", "../../../g", rfc=3986) == "http://a/g"
    with pytest.raises(ValueError, match="^spec: give spec= or its older spelling rfc=, not both$"):
        absolve.links(page, base, spec="whatwg", rfc=1808)
    with pytest.raises(ValueError, match=r'^spec: unknown standard "rfc2396"'):
        absolve.links(page, base, spec="rfc2396")


def test_a_reference_the_url_standard_rejects_is_left_with_a_warning():
    with pytest.warns(absolve.AbsolveWarning, match=r'the URL "http://\[::1" at byte 9 is not a URL by the URL Standard'):
        found = absolve.links(b'<a href="http://[::1">', "http://h/", spec="whatwg")
    assert found[0].resolved == "http://[::1"


@pytest.mark.parametrize("rows", [0, -1])
def test_batch_rows_below_one_is_a_value_error(rows):
    with pytest.raises(ValueError, match="batch_rows: must be 1 or more"):
        absolve.warc_link_batches("/dev/null", rows)


@pytest.mark.parametrize("flag,value", [("--batch-rows", "0"), ("--batch-rows", "-1"), ("--num-input-partitions", "-2"), ("--batch-rows", "x")])
def test_a_bad_spark_count_is_a_usage_error_before_the_output_is_touched(tmp_path, flag, value):
    listing = tmp_path / "list.txt"
    listing.write_text("crawl.warc\n")
    output = tmp_path / "out"
    output.mkdir()
    (output / "kept.parquet").write_bytes(b"a table from before")
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", str(listing), str(output), "--overwrite", flag, value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert f"argument {flag}:" in done.stderr
    assert (output / "kept.parquet").read_bytes() == b"a table from before"


@pytest.mark.parametrize("form", ["path", "file:"])
def test_a_missing_spark_list_is_said_before_spark_starts(tmp_path, form):
    missing = tmp_path / "no such list.paths"
    given = str(missing) if form == "path" else missing.as_uri()
    output = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "absolve.spark", given, str(output)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"absolve.spark: {given}: no such file (INPUT_LIST: a text file naming one WARC file a line)\n"
    assert not output.exists()
