"""absolve.resolve: RFC 1808 §5's examples, RFC 3986 beside it, bad arguments."""

import pytest

import absolve

BASE = "http://a/b/c/d;p?q#f"

# RFC 1808 §5.1 and §5.2, as printed.
RFC1808_EXAMPLES = [
    ("g:h", "g:h"),
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    (";x", "http://a/b/c/d;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("", "http://a/b/c/d;p?q#f"),
    (".", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../..", "http://a/"),
    ("../../g", "http://a/g"),
    ("../../../g", "http://a/../g"),
    ("/./g", "http://a/./g"),
    ("g.", "http://a/b/c/g."),
    ("g/../h", "http://a/b/c/h"),
    ("http:g", "http:g"),
]


@pytest.mark.parametrize(("reference", "expected"), RFC1808_EXAMPLES)
def test_rfc1808_section5(reference, expected):
    assert absolve.resolve(BASE, reference) == expected


def test_rfc3986_differs_where_the_standards_do():
    assert absolve.resolve(BASE, "../../../g", rfc=3986) == "http://a/g"
    assert absolve.resolve(BASE, "../../../g", rfc="3986") == "http://a/g"
    assert absolve.resolve(BASE, "../../../g", rfc=1808) == "http://a/../g"


def test_no_base_leaves_the_reference_alone():
    assert absolve.resolve("", "../g") == "../g"


def test_every_line_of_the_rfc_fixture_matches_the_cli(cli):
    from conftest import FIXTURES

    references = (FIXTURES / "resolve" / "rfc1808-section5.txt").read_text().splitlines()
    expected = cli("resolve", BASE, *references).decode().splitlines()
    assert [absolve.resolve(BASE, r) for r in references] == expected


def test_a_bad_rfc_is_a_value_error_with_the_cli_message():
    with pytest.raises(ValueError, match=r'^rfc: unknown RFC "2396": expected 1808 or 3986$'):
        absolve.resolve(BASE, "g", rfc=2396)
    with pytest.raises(TypeError, match="rfc: expected 1808 or 3986, not float"):
        absolve.resolve(BASE, "g", rfc=1808.0)


def test_arguments_must_be_str():
    with pytest.raises(TypeError):
        absolve.resolve(b"http://a/", "g")


@pytest.mark.parametrize("url", ["http://a:99999/", "http://1.2.3.256/", "http://[::1/"])
def test_a_url_the_url_standard_rejects_is_a_value_error_under_whatwg(url):
    # It was taken, named as every link's base, and resolved nothing.
    with pytest.raises(ValueError, match="does not parse by the URL Standard"):
        absolve.links(b"<a href=g>", url=url, spec="whatwg")
    # The RFCs take it.
    assert [link.resolved for link in absolve.links(b"<a href=g>", url=url)] == [url + "g"]
