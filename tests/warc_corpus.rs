//! `absolve links --format warc` over every file of ../shared/corpus/warc/ (real archives
//! from warcio, jwarc, ia-web-commons and resiliparse), and Common Crawl's WAT generator's
//! link-extraction test (ia-web-commons `ExtractingParseObserverTest`) against ours.

use crate::common::warc;
use absolve::warc::{Links, Warning};
use absolve::{Event, Link, Options, Problem};
use std::fs::File;
use std::path::Path;
use std::process::Command;

const CORPUS: &str = "../shared/corpus/warc";

fn links_cli(path: &Path) -> (bool, Vec<serde_json::Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["links", "--format", "warc"])
        .arg(path)
        .output()
        .expect("absolve runs");
    let links = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.success(),
        links,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file: WARC files (`.warc.lz4` ones too) and ARC files exit 0 and list links where
/// they have HTML; nothing panics.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn every_corpus_file() {
    let mut seen = 0;
    for folder in ["warcio", "jwarc", "ia-web-commons", "resiliparse"] {
        for entry in std::fs::read_dir(Path::new(CORPUS).join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let (ok, links, stderr) = links_cli(&path);
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
            seen += 1;
            if name.ends_with(".arc") || name.ends_with(".arc.gz") {
                // Read as WARC files are (tests/arc.rs compares them with warcio).
                assert!(ok, "{name}: {stderr}");
                assert_eq!(links.is_empty(), name == "bad.arc", "{name}");
                continue;
            }
            assert!(ok, "{name}: {stderr}");
            // ia-web-commons' test files write records without a WARC-Record-ID.
            let without_ids = matches!(
                name.as_str(),
                "link-extraction-test.warc" | "meta-itemprop.warc" | "text-extraction-test.warc"
            );
            for link in &links {
                match without_ids {
                    true => assert!(link["record"].is_string() || link["record"].is_null()),
                    false => assert!(link["record"].is_string(), "{name}: {link}"),
                }
                assert!(link.get("target_uri").is_some(), "{name}: {link}");
            }
            let expect_links = !matches!(
                name.as_str(),
                "html-lang-attribute.warc"
                    | "title-extraction-embedded-SVG.warc"
                    | "gzip_extra_sl.warc.gz"
                    | "block-sized-records.warc"
                    | "block-sized-records.warc.gz"
                    | "block-sized-records.warc.lz4"
                    | "example-digest.warc"
                    | "example-space-in-target-uri.warc.gz"
                    | "post-test.warc.gz"
            );
            assert_eq!(
                !links.is_empty(),
                expect_links,
                "{name}: {} links",
                links.len()
            );
        }
    }
    assert_eq!(seen, 35, "files in the corpus");
}

/// The links of a WARC file of the corpus, and its warnings (every one a WARC one).
fn library_links(name: &str) -> (Vec<Link>, Vec<Warning>) {
    let file = File::open(Path::new(CORPUS).join(name)).unwrap();
    split(Links::new(file, Options::default()).map(Result::unwrap))
}

/// Events parted into links and WARC warnings (a warning of another kind is a failure).
fn split(events: impl Iterator<Item = Event>) -> (Vec<Link>, Vec<Warning>) {
    let (mut links, mut warnings) = (Vec::new(), Vec::new());
    for event in events {
        match event {
            Event::Link(link) => links.push(link),
            Event::Warning(absolve::Warning {
                problem: Problem::Warc(warning),
                ..
            }) => warnings.push(warning),
            Event::Warning(other) => panic!("not a WARC warning: {other:?}"),
        }
    }
    (links, warnings)
}

/// The damaged files give warnings that name the record, and their links all the same.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn damaged_files_warn_and_go_on() {
    // A Content-Length too short: the bytes after the record are skipped to the next one.
    let (links, warnings) = library_links("warcio/example-trunc.warc");
    assert_eq!(links.len(), 1);
    assert!(
        warnings.iter().any(
            |w| matches!(w, Warning::Resynchronised { after: Some(r), .. }
            if r.id.as_deref() == Some("<urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>"))
        ),
        "{warnings:?}"
    );
    // A file cut inside its only record: what there is is read, with a warning.
    let (links, warnings) = library_links("resiliparse/clipped.warc.gz");
    assert!(links.len() > 100);
    assert!(
        matches!(&warnings[..], [Warning::Truncated { missing: 13068, .. }]),
        "{warnings:?}"
    );
    // ClueWeb09: `Content-Encoding: gzip` on bodies stored decoded; WARC/0.18, LF lines.
    let (links, warnings) = library_links("resiliparse/clueweb-quirk.warc.gz");
    assert!(links.len() > 1000);
    assert!(
        warnings
            .iter()
            .all(|w| matches!(w, Warning::Decoding { .. })),
        "{warnings:?}"
    );
    assert!(
        warnings[0]
            .to_string()
            .contains("<urn:uuid:8789ea4e-e914-4ec6-8b7a-ecdd45d340a7>")
    );
    // A Content-Length that ends the record inside its HTML (warcio gives up on the file):
    // the page's link is listed, and the records after it are found again.
    let (links, _) = library_links("warcio/example-wrong-chunks.warc.gz");
    assert!(
        links
            .iter()
            .any(|l| l.resolved == "http://www.iana.org/domains/example")
    );
    // One gzip stream for the whole file (warcio refuses it): read all the same.
    let (links, warnings) = library_links("warcio/example-bad.warc.gz.bad");
    assert!(!links.is_empty() && warnings.is_empty(), "{warnings:?}");
}

/// wget 1.14 writes `WARC-Target-URI: <http://...>`: the brackets are not part of it.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn wget_target_uris_lose_their_brackets() {
    let (links, warnings) = library_links("warcio/example-wget-bad-target-uri.warc.gz");
    assert!(warnings.is_empty());
    assert_eq!(
        links[0].location.target_uri.as_deref(),
        Some("http://example.com/")
    );
    assert_eq!(links[0].base.as_deref(), Some("http://example.com/"));
}

/// Common Crawl stores bodies decoded and renames the headers `X-Crawler-...`; its `Link:`
/// headers are links too.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn common_crawl_records() {
    let (links, warnings) = library_links("jwarc/cc.warc.gz");
    assert!(warnings.is_empty(), "{warnings:?}");
    let http: Vec<_> = links
        .iter()
        .filter(|l| l.element == "http")
        .map(|l| (l.attribute.as_deref().unwrap(), l.resolved.as_str()))
        .collect();
    assert_eq!(
        http,
        [
            ("link", "http://commoncrawl.org/wp-json/"),
            ("link", "http://commoncrawl.org/")
        ]
    );
    assert!(links.len() > 50);
}

/// The links ia-web-commons' WAT generator test expects in `link-extraction-test.warc`
/// (`ExtractingParseObserverTest.testLinkExtraction`), record by record (URL as the WAT
/// lists it, its element and attribute), and the base each record's links resolve against.
/// A record's target URI, the base its links resolve against, and the expected links
/// (URL, element, attribute).
type WatRecord = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str, &'static str)],
);

const WAT_EXPECTED: [WatRecord; 6] = [
    (
        "http://www.example.com/html4.html",
        // The record's <base href> (§3.1).
        "http://www.example.com/",
        &[
            ("http://www.example.com/", "base", "href"),
            ("http://www.example.com/redirected.html", "meta", "content"),
            ("background.jpg", "body", "background"),
            ("http://www.example.com/a-href.html", "a", "href"),
            ("#anchor", "a", "href"),
            ("image.png", "img", "src"),
            ("image.gif", "img", "src"),
            (
                "http://example.com/image-description.html#image.gif",
                "img",
                "longdesc",
            ),
            ("helloworld.swf", "object", "data"),
            ("http://www.example.com/shakespeare.html", "q", "cite"),
            (
                "http://www.example.com/shakespeare-long.html",
                "blockquote",
                "cite",
            ),
        ],
    ),
    (
        "http://www.example.com/link-extraction-test-html5-video.html",
        "http://www.example.com/link-extraction-test-html5-video.html",
        &[
            ("http:///www.example.com/video.html", "link", "href"),
            ("video.rss", "link", "href"),
            (
                "https://archive.org/download/WebmVp8Vorbis/webmvp8.gif",
                "video",
                "poster",
            ),
            (
                "https://archive.org/download/WebmVp8Vorbis/webmvp8.webm",
                "source",
                "src",
            ),
            (
                "https://archive.org/download/WebmVp8Vorbis/webmvp8_512kb.mp4",
                "source",
                "src",
            ),
            (
                "https://archive.org/download/WebmVp8Vorbis/webmvp8.ogv",
                "source",
                "src",
            ),
        ],
    ),
    (
        "http://www.example.com/poor_html5.html",
        "http://www.example.com/poor_html5.html",
        &[("http://www.example.com/", "a", "href")],
    ),
    (
        "http://www.example.com/fb-video.html",
        "http://www.example.com/fb-video.html",
        &[
            (
                "https://www.facebook.com/facebook/videos/10153231379946729/",
                "blockquote",
                "cite",
            ),
            (
                "https://www.facebook.com/facebook/videos/10153231379946729/",
                "a",
                "href",
            ),
            ("https://www.facebook.com/facebook/", "a", "href"),
        ],
    ),
    (
        "http://www.example.com/data-href.examples.html",
        "http://www.example.com/data-href.examples.html",
        &[
            ("standard.css", "link", "href"),
            (
                "https://www.facebook.com/facebook/videos/10153231379946729/",
                "blockquote",
                "cite",
            ),
            (
                "https://www.facebook.com/facebook/videos/10153231379946729/",
                "a",
                "href",
            ),
            ("https://www.facebook.com/facebook/", "a", "href"),
            ("//edge.flowplayer.org/bauhaus.webm", "source", "src"),
            ("//edge.flowplayer.org/bauhaus.mp4", "source", "src"),
            ("/content-page", "a", "href"),
            ("/tags/content", "a", "href"),
            ("/tags/headlines", "a", "href"),
            ("jackbox/img/thumbs/4.jpg", "img", "src"),
            ("#", "a", "href"),
            // The WAT lists the attribute's source text; HTML decodes `&amp;` to `&`.
            (
                "http://www.youtube.com/v/itTskyFLSS8&rel=0&autohide=1&showinfo=0",
                "iframe",
                "src",
            ),
        ],
    ),
    (
        "http://www.example.com/fb-social-plugins.html",
        "http://www.example.com/fb-social-plugins.html",
        &[
            ("https://www.facebook.com/facebook", "blockquote", "cite"),
            ("https://www.facebook.com/facebook", "a", "href"),
        ],
    ),
];

/// Every link the WAT generator's test expects is among ours, resolved against the base
/// given above. Where we differ, on purpose:
/// - `data-href`, `data-uri` (on div, button, article, link, a) are left out: `data-*`
///   attributes are the page's own data, not URLs, in HTML (the WAT lists them as
///   `DIV@/data-href`; 15 such expectations in this test);
/// - the WAT gives URLs unresolved (`background.jpg`); ours are resolved, against the
///   first `<base href>` (HTML's rule: the WAT keeps the last one), except a
///   fragment-only reference (`#anchor`), a same-document reference left as it is
///   unless `--resolve-fragments` is given.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn wat_link_extraction_expectations_are_among_ours() {
    let (links, warnings) = library_links("ia-web-commons/link-extraction-test.warc");
    // Its records lack the CRLF CRLF that ends a record (ISO 28500 §4): said, and read.
    assert!(
        !warnings.is_empty()
            && warnings
                .iter()
                .all(|w| w.to_string().contains("not the CRLF CRLF")),
        "{warnings:?}"
    );
    for (target, base, expected) in WAT_EXPECTED {
        let ours: Vec<_> = links
            .iter()
            .filter(|l| l.location.target_uri.as_deref() == Some(target))
            .collect();
        for (url, element, attribute) in expected {
            let resolved = if *element == "base" || url.starts_with('#') {
                (*url).to_owned()
            } else {
                absolve::resolve(base, url)
            };
            assert!(
                ours.iter().any(|l| l.element == *element
                    && l.attribute.as_deref() == Some(attribute)
                    && l.original == *url
                    && l.resolved == resolved),
                "{target}: {element}@{attribute} {url} -> {resolved} not found"
            );
        }
    }
}

/// A page with two `<base href>` elements: the first one is the base (HTML; RFC 1808
/// §3.1 has one). cc-pyspark's WAT-based extraction keeps the last.
#[test]
fn the_first_base_wins() {
    let body = "<base href='http://first.example/'><base href='http://last.example/'><a href=x>";
    let http = warc::http_ok("Content-Type: text/html\r\n", body.as_bytes());
    let warc = warc::response_without_id("http://h/", &http);
    let (links, _) = split(Links::new(&warc[..], Options::default()).map(Result::unwrap));
    let a = links.iter().find(|l| l.element == "a").unwrap();
    assert_eq!(a.resolved, "http://first.example/x");
    assert_eq!(a.location.record, None, "no WARC-Record-ID");
}
