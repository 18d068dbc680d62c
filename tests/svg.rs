//! SVG images (`.svg`, `.svgz`, SVG records of a WARC, SVG parts of an MHTML page, SVG
//! inline in an Atom entry): every link an SVG keeps, read as the same SVG inline in HTML,
//! each against its `xml:base`. Snapshots of `absolve rewrite` and `absolve links` over
//! fixtures/svg/ with a retrieval URL; each fixture also streamed in small chunks (the
//! same bytes) and rewritten twice (nothing changes the second time). SVG files were
//! skipped by `-r` and their records and parts passed through relative.

use crate::common::warc::{http_ok, response};
use crate::common::{absolve, arg, gzipped, json_lines, stderr};
use absolve::base::Base;
use absolve::document;
use absolve::format::Format;
use absolve::html::Options as HtmlOptions;
use absolve::{Collected, Options};
use std::process::Command;

const URL: &str = "http://images.example.com/icons/drawing.svg";

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .output()
        .expect("absolve runs")
}

/// The SVG rewritten by the streaming rewriter `chunk` bytes at a time.
fn in_chunks(svg: &[u8], chunk: usize) -> Vec<u8> {
    let base = Base::retrieval_url(URL).unwrap();
    let options = HtmlOptions::default();
    let mut rewriter = absolve::feed::Rewriter::new(&base, &options, None, Collected::default());
    for piece in svg.chunks(chunk) {
        rewriter.write(piece).unwrap();
    }
    rewriter.end().unwrap().output
}

#[test]
fn rewrite_and_links_of_every_svg_fixture() {
    insta::glob!("../fixtures/svg", "*.svg", |path| {
        let file = path.to_str().unwrap();
        let shown = path.display().to_string();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rewritten = run(&["rewrite", "--url", URL, file]);
        assert!(rewritten.status.success(), "{name}: {}", stderr(&rewritten));
        let listed = run(&["links", "--url", URL, file]);
        let stderr = String::from_utf8_lossy(&listed.stderr).replace(&shown, &name);
        let links = String::from_utf8(listed.stdout)
            .unwrap()
            .replace(&shown, &name);
        insta::assert_snapshot!(
            "rewrite",
            String::from_utf8(rewritten.stdout.clone()).unwrap()
        );
        insta::assert_snapshot!("links", format!("{links}--- stderr\n{stderr}"));

        let svg = std::fs::read(path).unwrap();
        let options = Options::new().with_url(URL).unwrap();
        assert_eq!(document::links(&svg, &options).unwrap().format, Format::Svg);
        for chunk in [1, 7, 4096] {
            assert_eq!(
                String::from_utf8(in_chunks(&svg, chunk)).unwrap(),
                String::from_utf8(rewritten.stdout.clone()).unwrap(),
                "{name} in chunks of {chunk}"
            );
        }
        let again = document::rewrite(&rewritten.stdout, &options).unwrap();
        assert_eq!(again.output, rewritten.stdout, "{name} twice");
    });
}

/// `-r` rewrites `.svg` and `.svgz` files and `.xml` files whose root is SVG's; an `.svg`
/// whose `<svg>` is in no namespace (a browser shows it as an XML tree, not an image) is
/// copied unchanged. A `.svgz` stays gzip.
#[test]
fn a_tree_rewrites_its_svg_files() {
    let dir = tempfile::tempdir().unwrap();
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><image href="a.png"/></svg>"#;
    std::fs::create_dir(dir.path().join("site")).unwrap();
    let site = dir.path().join("site");
    std::fs::write(site.join("logo.svg"), svg).unwrap();
    std::fs::write(site.join("map.svgz"), gzipped(svg)).unwrap();
    std::fs::write(site.join("chart.xml"), svg).unwrap();
    let no_namespace = br#"<svg><image href="a.png"/></svg>"#;
    std::fs::write(site.join("tree.svg"), no_namespace).unwrap();
    let out = dir.path().join("out");
    let done = run(&[
        "rewrite",
        "-r",
        "--url",
        "http://h/s/",
        arg(&site),
        "-o",
        arg(&out),
    ]);
    assert!(done.status.success(), "{}", stderr(&done));
    let expected =
        br#"<svg xmlns="http://www.w3.org/2000/svg"><image href="http://h/s/a.png"/></svg>"#;
    assert_eq!(std::fs::read(out.join("logo.svg")).unwrap(), expected);
    assert_eq!(std::fs::read(out.join("chart.xml")).unwrap(), expected);
    let svgz = std::fs::read(out.join("map.svgz")).unwrap();
    assert!(svgz.starts_with(b"\x1f\x8b"), "still gzip");
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&svgz[..]), &mut unzipped)
        .unwrap();
    assert_eq!(unzipped, expected);
    assert_eq!(std::fs::read(out.join("tree.svg")).unwrap(), no_namespace);
    let stderr = stderr(&done);
    assert!(stderr.contains("3 files processed, 3 changed"), "{stderr}");
}

/// An `image/svg+xml` record of a WARC is rewritten against its target URI, as is a
/// `text/xml` one whose root is SVG's; an `image/png` is not touched.
#[test]
fn a_warc_rewrites_its_svg_records() {
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="sprite.svg#i"/></svg>"#;
    let warc = [
        response(
            "00000000-0000-4000-8000-000000000001",
            "http://example.com/img/icon.svg",
            &http_ok("Content-Type: image/svg+xml\r\n", svg),
        ),
        response(
            "00000000-0000-4000-8000-000000000002",
            "http://example.com/xml/icon",
            &http_ok("Content-Type: text/xml; charset=utf-8\r\n", svg),
        ),
        response(
            "00000000-0000-4000-8000-000000000003",
            "http://example.com/png/icon",
            &http_ok("Content-Type: image/png\r\n", svg),
        ),
    ]
    .concat();
    let links = json_lines(&absolve(&["links", "--format", "warc", "-"], &warc).stdout);
    let resolved: Vec<_> = links
        .iter()
        .map(|l| l["resolved"].as_str().unwrap())
        .collect();
    assert_eq!(
        resolved,
        [
            "http://example.com/img/sprite.svg#i",
            "http://example.com/xml/sprite.svg#i"
        ]
    );
    assert_eq!(links[0]["element"], "use");
    assert_eq!(links[0]["attribute"], "xlink:href");
    let out = absolve(&["rewrite", "--format", "warc", "-"], &warc);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#"<use xlink:href="http://example.com/img/sprite.svg#i"/>"#));
    assert_eq!(
        text.matches(r#"xlink:href="sprite.svg#i""#).count(),
        1,
        "the PNG's"
    );
}

/// An MHTML page's SVG part is rewritten against its `Content-Location`.
#[test]
fn an_mhtml_page_rewrites_its_svg_parts() {
    let mhtml = b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/html\r\nContent-Location: http://example.com/page.html\r\n\r\n<img src=\"img/logo.svg\">\r\n--b\r\nContent-Type: image/svg+xml\r\nContent-Location: http://example.com/img/logo.svg\r\n\r\n<svg xmlns=\"http://www.w3.org/2000/svg\"><image href=\"bits/a.png\"/></svg>\r\n--b--\r\n";
    let found = document::links(mhtml, &Options::new()).unwrap();
    assert_eq!(found.format, Format::Mime);
    let resolved: Vec<_> = found
        .links
        .iter()
        .map(|l| (l.element.as_str(), l.resolved.as_str()))
        .collect();
    assert_eq!(
        resolved,
        [
            ("img", "http://example.com/img/logo.svg"),
            ("image", "http://example.com/img/bits/a.png")
        ]
    );
    assert_eq!(found.links[1].location.part.as_deref(), Some("2"));
}

/// SVG inline in an Atom entry's content of an XML type (RFC 4287 §4.1.3.3) is read as
/// SVG, under the entry's `xml:base`.
#[test]
fn svg_inline_in_atom_content_is_read_as_svg() {
    let feed = br##"<feed xmlns="http://www.w3.org/2005/Atom"><entry xml:base="http://blog.example/p/"><content type="image/svg+xml"><svg xmlns="http://www.w3.org/2000/svg"><image href="chart.png"/><use href="#x"/></svg></content></entry></feed>"##;
    let found = document::links(feed, &Options::new()).unwrap();
    assert_eq!(found.format, Format::Feed);
    let resolved: Vec<_> = found.links.iter().map(|l| l.resolved.as_str()).collect();
    assert_eq!(resolved, ["http://blog.example/p/chart.png", "#x"]);
}

/// `--format svg` is a format of its own, named in the JSON of `links` as read.
#[test]
fn svg_is_a_format_of_its_own() {
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><a href="x.html"/></svg>"#;
    let out = absolve(
        &[
            "rewrite",
            "--format",
            "svg",
            "--url",
            "http://h/d/f.svg",
            "-",
        ],
        svg,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        out.stdout,
        br#"<svg xmlns="http://www.w3.org/2000/svg"><a href="http://h/d/x.html"/></svg>"#
    );
    assert_eq!("svg".parse::<Format>().unwrap(), Format::Svg);
    assert_eq!(absolve::format::sniff(svg), Some(Format::Svg));
}

/// A CSS value spelled with a character reference (`url&#40;...)`) is read as the same
/// value written plainly: the check that keeps colours (`fill="#333"`) from the HTML
/// rewriter looks for the reference too.
#[test]
fn a_css_value_written_with_references_is_read() {
    let svg = br##"<svg xmlns="http://www.w3.org/2000/svg"><rect fill="#333" style="opacity:1"/><rect style="background:url&#40;a.png)" fill="url&#x28;b.svg#p)"/></svg>"##;
    let options = Options::new().with_url("http://h/d/").unwrap();
    let found = document::links(svg, &options).unwrap();
    let resolved: Vec<_> = found
        .links
        .iter()
        .map(|l| (l.attribute.as_deref(), l.resolved.as_str()))
        .collect();
    assert_eq!(
        resolved,
        [
            (Some("style"), "http://h/d/a.png"),
            (Some("fill"), "http://h/d/b.svg#p")
        ]
    );
}

/// Adobe Illustrator writes its namespaces as entities its DOCTYPE declares
/// (`xmlns="&ns_svg;"`), which browsers expand: such a file is an SVG image, told and
/// read so (fixtures/svg/illustrator-entity-namespaces.svg). `-r` skipped it and a file
/// given was read as HTML. An entity is read one level deep, its literal value: one that
/// names another, and a "billion laughs" one, name no namespace, in bounded time and
/// memory.
#[test]
fn namespaces_written_as_declared_entities_are_read() {
    let illustrator = std::fs::read("fixtures/svg/illustrator-entity-namespaces.svg").unwrap();
    assert!(absolve::feed::is_svg(&illustrator));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("logo.svg"), &illustrator).unwrap();
    let out = run(&["links", "-r", "--url", "http://h/img/", arg(dir.path())]);
    let resolved: Vec<_> = json_lines(&out.stdout)
        .iter()
        .map(|l| l["resolved"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        resolved,
        ["http://h/img/logo-bitmap.png", "http://h/index.html"]
    );

    let plain = br#"<!DOCTYPE svg [<!ENTITY svgns "http://www.w3.org/2000/svg">]><svg xmlns="&svgns;"><image href="a.png"/></svg>"#;
    let options = Options::new().with_url("http://h/d/").unwrap();
    let found = document::links(plain, &options).unwrap();
    assert_eq!(
        (found.format, found.links[0].resolved.as_str()),
        (Format::Svg, "http://h/d/a.png")
    );
    // One level: an entity an entity names is not read.
    let nested = br#"<!DOCTYPE svg [<!ENTITY w3 "http://www.w3.org"><!ENTITY svgns "&w3;/2000/svg">]><svg xmlns="&svgns;"/>"#;
    assert!(!absolve::feed::is_svg(nested));

    let mut laughs = String::from("<!DOCTYPE svg [<!ENTITY l0 \"http://www.w3.org/2000/svg\">");
    for i in 1..10 {
        laughs += &format!("<!ENTITY l{i} \"{}\">", format!("&l{};", i - 1).repeat(10));
    }
    laughs += "]><svg xmlns=\"&l9;\"><image href=\"a.png\"/></svg>";
    assert!(!absolve::feed::is_svg(laughs.as_bytes()));
    let done = document::rewrite(laughs.as_bytes(), &options).unwrap();
    assert_ne!(done.format, Format::Svg);
}
