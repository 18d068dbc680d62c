"""SVG images through the Python functions: read as the CLI reads them, and the rewrite
still an SVG an XML parser reads, with every link of its elements absolute (Python's own
xml.etree, expat, as the parser; fragment-only references stay)."""

import xml.etree.ElementTree as ET

import absolve
from conftest import FIXTURES

URL = "http://images.example.com/icons/drawing.svg"
XLINK = "{http://www.w3.org/1999/xlink}href"


def test_an_svg_is_told_by_content_and_named_svg():
    svg = (FIXTURES / "svg" / "inkscape-drawing.svg").read_bytes()
    found = absolve.links(svg, URL)
    assert [link.resolved for link in found][:3] == [
        "http://images.example.com/icons/textures/hatch.png",
        "http://images.example.com/photos/harbour%20view.jpg",
        "http://images.example.com/icons/stations.html?line=2&stop=5",
    ]
    named = absolve.links(svg, URL, format="SVG")
    assert [link.resolved for link in named] == [link.resolved for link in found]


def test_the_rewrite_parses_as_xml_with_every_link_absolute():
    svg = (FIXTURES / "svg" / "links-every-kind.svg").read_bytes()
    root = ET.fromstring(absolve.rewrite(svg, URL))
    hrefs = [
        element.get(name)
        for element in root.iter()
        for name in ("href", XLINK)
        if element.get(name) is not None
    ]
    assert len(hrefs) == 8
    for href in hrefs:
        assert href.startswith(("http://", "#")), href
    assert sum(href.startswith("#") for href in hrefs) == 2
