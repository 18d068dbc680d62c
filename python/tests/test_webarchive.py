"""absolve.rewrite and absolve.links over Safari web archives (.webarchive): each resource
against its own WebResourceURL, the same records as the CLI, and a rewritten archive that
Python's plistlib reads back in the form it was given, every other key kept."""

import json
import plistlib
import warnings

import pytest

import absolve
from conftest import FIXTURES

WEBARCHIVES = sorted((FIXTURES / "webarchive").glob("*.webarchive"))


def archive(fmt=plistlib.FMT_BINARY):
    return plistlib.dumps(
        {
            "WebMainResource": {
                "WebResourceData": b'<a href="b.html">b</a>',
                "WebResourceMIMEType": "text/html",
                "WebResourceTextEncodingName": "UTF-8",
                "WebResourceURL": "http://h.example/a/page.html",
                "WebResourceFrameName": "",
            },
            "WebSubresources": [
                {
                    "WebResourceData": b"p { background: url(i.png) }",
                    "WebResourceMIMEType": "text/css",
                    "WebResourceURL": "http://cdn.example/s/site.css",
                },
                {"WebResourceData": b"\x89PNG", "WebResourceMIMEType": "image/png", "WebResourceURL": "http://h.example/i.png"},
            ],
        },
        fmt=fmt,
    )


@pytest.mark.parametrize("path", WEBARCHIVES, ids=lambda p: p.name)
def test_webarchive_fixture_matches_the_cli(path, cli):
    document = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", absolve.AbsolveWarning)
        rewritten = absolve.rewrite(document)
        found = [link.dict() for link in absolve.links(document)]
    assert rewritten == cli("rewrite", path)
    # The dict names the resource as `file`; the CLI puts the archive's name before it.
    expected = [json.loads(line) for line in cli("links", path).splitlines()]
    for link in found:
        link["file"] = f"{path}!/{link['file']}"
    assert found == expected


@pytest.mark.parametrize("fmt", [plistlib.FMT_BINARY, plistlib.FMT_XML])
def test_rewrite_is_a_property_list_plistlib_reads(fmt):
    original = archive(fmt)
    rewritten = absolve.rewrite(original)
    assert rewritten.startswith(b"bplist00") == (fmt == plistlib.FMT_BINARY)
    before, after = plistlib.loads(original), plistlib.loads(rewritten)
    main = after["WebMainResource"]
    assert main["WebResourceData"] == b'<a href="http://h.example/a/b.html">b</a>'
    assert after["WebSubresources"][0]["WebResourceData"] == b"p { background: url(http://cdn.example/s/i.png) }"
    for archive_dict in (before, after):
        archive_dict["WebMainResource"].pop("WebResourceData")
        archive_dict["WebSubresources"][0].pop("WebResourceData")
    assert before == after


def test_links_give_the_resource_url_as_target_uri():
    links = absolve.links(archive(), format="webarchive")
    assert [(link.target_uri, link.resolved) for link in links] == [
        ("http://h.example/a/page.html", "http://h.example/a/b.html"),
        ("http://cdn.example/s/site.css", "http://cdn.example/s/i.png"),
    ]


def test_warnings_name_the_resource():
    damaged = plistlib.loads(archive())
    damaged["WebSubresources"][0]["WebResourceData"] = "not bytes"
    with pytest.warns(absolve.AbsolveWarning, match=r"^WebSubresources/0: its WebResourceData is a string"):
        absolve.links(plistlib.dumps(damaged, fmt=plistlib.FMT_BINARY))


def test_a_damaged_property_list_raises():
    with pytest.raises(ValueError, match="a property list that does not parse"):
        absolve.links(archive()[:40], format="webarchive")
