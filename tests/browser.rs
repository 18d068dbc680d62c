//! Headless Chromium as the judge of a rewrite: every URL of a page leads where it led.
//!
//! `tests/browser/oracle.py` serves a page at its retrieval URL on 127.0.0.1, takes the
//! output of `absolve rewrite --url URL`, serves it at another origin and path, and has
//! Chromium list every URL it resolves in both (every URL attribute of every element,
//! srcset candidates, CSS `url()`, `@import` and `image-set()`, SVG and MathML, `<iframe
//! srcdoc>` documents, `<template>` and `<noscript>` contents). Each URL of the original
//! must be the URL the rewrite's value gives on its own, against an unrelated https base;
//! everything that is not a URL must be unchanged. The oracle's summary line for each page
//! (`N urls compared, M mismatches`) is printed: `cargo test --test tests browser -- --nocapture`.
//!
//! The exact mode (issue 20; `kitchen_sink_exact` and the other `*_exact` tests) judges
//! `rewrite --spec whatwg --resolve-fragments` by another rule: each value written must be,
//! byte for byte, what Chromium resolves for the original page at its retrieval URL (see
//! the section "Exact mode" below, and `tests/browser/exact-known.jsonl` for the known
//! differences and their causes).
//!
//! One Chromium at a time (a lock), on OS-chosen loopback ports; the oracle stops its
//! browser and removes its temporary profile however it ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;

/// Held while a Chromium runs: the tests of this file run in parallel threads.
static ONE_BROWSER: Mutex<()> = Mutex::new(());

/// The fixture written for this test, and the retrieval path it is served at.
const KITCHEN_SINK: (&str, &str) = (
    "fixtures/browser/kitchen-sink.html",
    "/site/docs/guide/kitchen-sink.html",
);

/// The real pages of ../shared/corpus/html/, each at the path of its real URL.
const REAL_PAGES: [(&str, &str); 3] = [
    ("cloudflare.com.html", "/"),
    ("ecma402-spec.html", "/ecma402/"),
    ("html-parsing-spec.html", "/multipage/parsing.html"),
];

/// What the oracle said about one page.
struct Verdict {
    /// Its whole standard output.
    report: String,
    /// Its exit status: 0 all equal, 1 mismatches or content changes, 2 could not run.
    status: Option<i32>,
}

impl Verdict {
    /// The summary line, `oracle: N urls compared, M mismatches`.
    fn summary(&self) -> &str {
        self.report
            .lines()
            .rev()
            .find(|l| l.contains(" urls compared, "))
            .unwrap_or("(no summary line)")
    }

    /// N and M of the summary line.
    fn counts(&self) -> (usize, usize) {
        let words: Vec<&str> = self.summary().split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse().ok());
        match (number(1), number(4)) {
            (Some(n), Some(m)) => (n, m),
            _ => panic!("no summary line in the oracle's output:\n{}", self.report),
        }
    }

    /// The number of changed content items, from `oracle: content: K items compared, C changed`.
    fn content_changes(&self) -> usize {
        self.report
            .lines()
            .find_map(|l| l.strip_prefix("oracle: content: "))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no content line in:\n{}", self.report))
    }
}

/// Rewrites `page` with absolve for the retrieval URL the oracle chose, passes the result
/// through `damage` (the identity, except in the tests of the oracle itself), and returns
/// what the oracle said.
fn judge(
    page: &Path,
    retrieval_path: &str,
    absolve_args: &[&str],
    oracle_args: &[&str],
    damage: impl FnOnce(Vec<u8>) -> Vec<u8>,
) -> Verdict {
    let _browser = ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/oracle.py");
    let mut oracle = Command::new("python3")
        .arg(&script)
        .arg(page)
        .arg(retrieval_path)
        .args(oracle_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs tests/browser/oracle.py (apt-get install python3)");
    let mut stderr = oracle.stderr.take().unwrap();
    let errors = thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).ok();
        text
    });
    let mut stdout = BufReader::new(oracle.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let Some(url) = first.trim_end().strip_prefix("oracle: retrieval URL ") else {
        oracle.wait().ok();
        panic!(
            "the oracle did not start: {first}{}",
            errors.join().unwrap()
        );
    };
    let rewrite = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "--url", url])
        .args(absolve_args)
        .arg(page)
        .output()
        .unwrap();
    assert!(
        rewrite.status.success(),
        "absolve rewrite --url {url} {} {}: {}",
        absolve_args.join(" "),
        page.display(),
        String::from_utf8_lossy(&rewrite.stderr)
    );
    let mut stdin = oracle.stdin.take().unwrap();
    stdin.write_all(&damage(rewrite.stdout)).unwrap();
    drop(stdin);
    let mut report = first;
    stdout.read_to_string(&mut report).unwrap();
    let status = oracle.wait().unwrap().code();
    let errors = errors.join().unwrap();
    assert!(
        status == Some(0) || status == Some(1),
        "the oracle could not judge {}: status {status:?}\n{report}{errors}",
        page.display()
    );
    Verdict { report, status }
}

/// Judges `page`, prints its summary line, and returns a description of what failed.
fn check(name: &str, page: &Path, retrieval_path: &str, oracle_args: &[&str]) -> Option<String> {
    let verdict = judge(page, retrieval_path, &[], oracle_args, |rewrite| rewrite);
    println!("{name}: {}", verdict.summary());
    (verdict.status != Some(0)).then(|| format!("{name}:\n{}", verdict.report))
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(KITCHEN_SINK.0)
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn kitchen_sink_leads_where_it_led() {
    let failure = check("kitchen-sink.html", &fixture(), KITCHEN_SINK.1, &[]);
    assert!(failure.is_none(), "{}", failure.unwrap());
}

/// The kitchen sink in a charset that is not ASCII-compatible, written for the test:
/// UTF-16LE with a BOM, and ISO-2022-JP named by its `<meta>` (a character JIS lacks as a
/// character reference, as the Encoding Standard's encoder writes it).
fn kitchen_sink_in(encoding: &'static encoding_rs::Encoding) -> PathBuf {
    let page = std::fs::read_to_string(fixture()).unwrap();
    let page = page.replace(
        "<meta charset=\"utf-8\">",
        &format!("<meta charset=\"{}\">", encoding.name()),
    );
    let bytes: Vec<u8> = if encoding == encoding_rs::UTF_16LE {
        let units = std::iter::once('\u{FEFF}')
            .chain(page.chars())
            .collect::<String>();
        units.encode_utf16().flat_map(u16::to_le_bytes).collect()
    } else {
        encoding.encode(&page).0.into_owned()
    };
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("kitchen-sink-{}.html", encoding.name()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn kitchen_sink_in_utf16_and_iso_2022_jp_leads_where_it_led() {
    for encoding in [encoding_rs::UTF_16LE, encoding_rs::ISO_2022_JP] {
        let page = kitchen_sink_in(encoding);
        let name = format!("kitchen-sink in {}", encoding.name());
        // The URL Standard's query encoding: a query's `é`, which ISO-2022-JP lacks, is
        // `%26%23233%3B` in the page's URL; RFC 1808 writes it as the page has it (a
        // character reference), which the judge reads on its own, as UTF-8.
        let verdict = judge(&page, KITCHEN_SINK.1, &["--spec", "whatwg"], &[], |r| r);
        println!("{name}: {}", verdict.summary());
        assert_eq!(verdict.status, Some(0), "{name}:\n{}", verdict.report);
        assert!(verdict.counts().0 > 150, "{}", verdict.report);
    }
}

#[test]
#[cfg_attr(
    not(any(has_chromium, has_shared)),
    ignore = "chromium and ../shared/corpus/html not found (apt-get install chromium; the shared corpora are optional)"
)]
#[cfg_attr(
    all(has_shared, not(has_chromium)),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
#[cfg_attr(
    all(has_chromium, not(has_shared)),
    ignore = "../shared/corpus/html not found (the shared corpora are optional)"
)]
fn real_pages_lead_where_they_led() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/html");
    let failures: Vec<String> = REAL_PAGES
        .iter()
        .filter_map(|(name, path)| check(name, &dir.join(name), path, &[]))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The snapshot fixtures of fixtures/html/ too, at the URL their snapshots use. Several
/// have no `<meta charset>`: the pages are sent as UTF-8, absolve's default, where
/// Chromium's own default would be windows-1252.
#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn snapshot_fixtures_lead_where_they_led() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/html");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 10, "{}", dir.display());
    let failures: Vec<String> = pages
        .iter()
        .filter_map(|page| {
            let name = page.file_name().unwrap().to_string_lossy();
            check(&name, page, "/dir/page.html", &["--charset", "utf-8"])
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The oracle is not vacuous: a "rewrite" that changes nothing, and one that changes
/// text, an empty `src` and a fragment, are caught.
#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn the_oracle_catches_what_it_must() {
    let untouched = judge(&fixture(), KITCHEN_SINK.1, &[], &[], |_| {
        std::fs::read(fixture()).unwrap()
    });
    let (compared, mismatches) = untouched.counts();
    assert!(compared > 150, "{}", untouched.report);
    assert!(mismatches > 100, "{}", untouched.report);
    assert_eq!(untouched.content_changes(), 0, "{}", untouched.report);

    let damaged = judge(&fixture(), KITCHEN_SINK.1, &[], &[], |rewrite| {
        String::from_utf8(rewrite)
            .unwrap()
            .replace("mentioning page.html", "mentioning elsewhere.html")
            .replace(
                r#"<img src="" alt="empty src">"#,
                r#"<img src="x" alt="empty src">"#,
            )
            .replace(r##"href="#top""##, r#"href="top.html#top""#)
            .into_bytes()
    });
    assert_eq!(damaged.content_changes(), 1, "{}", damaged.report);
    for why in ["empty value filled", "fragment changed"] {
        assert!(damaged.report.contains(why), "{why}:\n{}", damaged.report);
    }
    assert_eq!(damaged.status, Some(1));
}

// ---------------------------------------------------------------------------------------
// Exact mode (issue 20): with `--spec whatwg` every URL absolve writes must be, byte for
// byte, what Chromium resolves for the original page at its retrieval URL. The oracle
// (`--exact`) reads each value of the rewrite as written (character references and CSS
// escapes decoded, never resolved again) and compares it with the browser's resolution of
// the same value of the original. Values absolve deliberately writes as they are must be
// unchanged instead: empty values that mean "no resource", fragment-only references in
// SVG, MathML and CSS (HTML ones are resolved: the rewrite is made with
// `--resolve-fragments`), values the browser's URL parser rejected, javascript: and data:
// URLs. Differences whose cause is known are listed with it in tests/browser/exact-known.jsonl;
// any other difference, or a listed one no longer seen, fails.
// ---------------------------------------------------------------------------------------

/// The options of an exact rewrite: the URL Standard, fragment-only references resolved.
const EXACT_REWRITE: [&str; 3] = ["--spec", "whatwg", "--resolve-fragments"];

/// The fixtures written for the exact mode, beside the kitchen sink.
const URL_STANDARD: &str = "fixtures/browser/url-standard.html";
const WINDOWS_1251: &str = "fixtures/browser/windows-1251.html";

/// The ledger of known differences, each with its cause.
fn ledger() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/browser/exact-known.jsonl")
        .display()
        .to_string()
}

/// Rewrites `page` with `--spec whatwg --resolve-fragments` (and `--charset`, which is
/// also the charset the oracle sends with the page), judges it in exact mode after
/// `damage`, and returns the verdict.
fn judge_exact(
    page: &Path,
    retrieval_path: &str,
    charset: Option<&str>,
    known: bool,
    absolve_args: &[&str],
    damage: impl FnOnce(Vec<u8>) -> Vec<u8>,
) -> Verdict {
    let ledger = ledger();
    let mut absolve: Vec<&str> = absolve_args.to_vec();
    let mut oracle = vec!["--exact", "--resolve-fragments"];
    if let Some(charset) = charset {
        absolve.extend(["--charset", charset]);
        oracle.extend(["--charset", charset]);
    }
    if known {
        oracle.extend(["--known", &ledger]);
    }
    judge(page, retrieval_path, &absolve, &oracle, damage)
}

/// Judges `page` in exact mode, prints the oracle's summary, and fails with its report
/// unless every value is the browser's (or a known difference).
fn assert_exact(page: &Path, retrieval_path: &str, charset: Option<&str>) -> Verdict {
    let name = page.file_name().unwrap().to_string_lossy().into_owned();
    let verdict = judge_exact(page, retrieval_path, charset, true, &EXACT_REWRITE, |r| r);
    for line in verdict.report.lines() {
        if line.starts_with("oracle: exact: ") || line.starts_with("known\t") {
            println!("{name}: {line}");
        }
    }
    println!("{name}: {}", verdict.summary());
    assert_eq!(verdict.status, Some(0), "{name}:\n{}", verdict.report);
    assert_eq!(verdict.counts().1, 0, "{name}:\n{}", verdict.report);
    verdict
}

fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn kitchen_sink_exact() {
    let verdict = assert_exact(&fixture(), KITCHEN_SINK.1, None);
    assert!(verdict.counts().0 > 150, "{}", verdict.report);
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn url_standard_exact() {
    let verdict = assert_exact(
        &manifest(URL_STANDARD),
        "/site/docs/guide/url-standard.html",
        None,
    );
    assert!(verdict.counts().0 > 50, "{}", verdict.report);
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn windows_1251_exact() {
    let verdict = assert_exact(
        &manifest(WINDOWS_1251),
        "/site/docs/guide/windows-1251.html",
        None,
    );
    assert!(verdict.counts().0 > 10, "{}", verdict.report);
}

/// One exact test per page of fixtures/html/, served as UTF-8 at the URL their snapshots
/// use; [`every_html_fixture_has_an_exact_test`] keeps the list whole.
macro_rules! exact_html_fixtures {
    ($($test:ident: $file:literal,)*) => {
        const EXACT_HTML_FIXTURES: &[&str] = &[$($file),*];
        $(
            #[test]
            #[cfg_attr(
                not(has_chromium),
                ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
            )]
            fn $test() {
                let page = manifest(concat!("fixtures/html/", $file));
                assert_exact(&page, "/dir/page.html", Some("utf-8"));
            }
        )*
    };
}

exact_html_fixtures! {
    attributes_html_living_standard_exact: "attributes-html-living-standard.html",
    attributes_legacy_html4_exact: "attributes-legacy-html4.html",
    base_element_first_wins_exact: "base-element-first-wins.html",
    character_references_and_quotes_exact: "character-references-and-quotes.html",
    css_in_style_attributes_and_elements_exact: "css-in-style-attributes-and-elements.html",
    css_tokens_closed_by_the_end_exact: "css-tokens-closed-by-the-end.html",
    empty_values_exact: "empty-values.html",
    fragments_resolve_fragments_exact: "fragments.resolve-fragments.html",
    left_alone_exact: "left-alone.html",
    malformed_markup_exact: "malformed-markup.html",
    meta_refresh_exact: "meta-refresh.html",
    noscript_contents_exact: "noscript-contents.html",
    srcdoc_documents_exact: "srcdoc-documents.html",
    svg_and_mathml_exact: "svg-and-mathml.html",
    svg_presentation_and_image_set_exact: "svg-presentation-and-image-set.html",
    svg_style_character_references_exact: "svg-style-character-references.html",
    svg_style_with_elements_exact: "svg-style-with-elements.html",
}

/// A page added to fixtures/html/ gets its exact test too.
#[test]
fn every_html_fixture_has_an_exact_test() {
    let mut found: Vec<String> = std::fs::read_dir(manifest("fixtures/html"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".html"))
        .collect();
    found.sort();
    let mut listed: Vec<String> = EXACT_HTML_FIXTURES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "add the new page to exact_html_fixtures!");
}

/// One exact test per real page of ../shared/corpus/html/, at the path of its real URL.
macro_rules! exact_real_pages {
    ($($test:ident: $index:literal,)*) => {
        $(
            #[test]
            #[cfg_attr(
                not(any(has_chromium, has_shared)),
                ignore = "chromium and ../shared/corpus/html not found (apt-get install chromium; the shared corpora are optional)"
            )]
            #[cfg_attr(
                all(has_shared, not(has_chromium)),
                ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
            )]
            #[cfg_attr(
                all(has_chromium, not(has_shared)),
                ignore = "../shared/corpus/html not found (the shared corpora are optional)"
            )]
            fn $test() {
                let (name, path) = REAL_PAGES[$index];
                let page = manifest("../shared/corpus/html").join(name);
                let verdict = assert_exact(&page, path, None);
                assert!(verdict.counts().0 > 300, "{}", verdict.report);
            }
        )*
    };
}

exact_real_pages! {
    cloudflare_com_exact: 0,
    ecma402_spec_exact: 1,
    html_parsing_spec_exact: 2,
}

/// The exact mode is not vacuous: a value changed into another spelling of the same URL
/// (which relocation invariance accepts), a known difference that is no longer there, and
/// the RFC 1808 rewrite are all caught.
#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "chromium not found (/usr/bin/chromium, or the path in ABSOLVE_CHROMIUM): apt-get install chromium"
)]
fn the_exact_mode_catches_what_it_must() {
    let respelled = judge_exact(
        &fixture(),
        KITCHEN_SINK.1,
        None,
        true,
        &EXACT_REWRITE,
        |r| {
            let text = String::from_utf8(r).unwrap();
            assert!(text.contains("/first.html\""), "{text}");
            text.replacen("/first.html\"", "/./first.html\"", 1)
                .into_bytes()
        },
    );
    assert_eq!(respelled.counts().1, 1, "{}", respelled.report);
    assert!(
        respelled
            .report
            .lines()
            .any(|l| l.contains("/first.html\t") && l.ends_with("not the browser's URL")),
        "{}",
        respelled.report
    );
    assert_eq!(respelled.status, Some(1));

    // A ledger entry (`http://a b/`, which the URL Standard rejects and Chromium accepts)
    // must be seen: a rewrite without that difference is reported.
    let fixed = judge_exact(
        &manifest(URL_STANDARD),
        "/site/docs/guide/url-standard.html",
        None,
        true,
        &EXACT_REWRITE,
        |r| {
            String::from_utf8(r)
                .unwrap()
                .replace("\"http://a b/\"", "\"http://a%20b/\"")
                .into_bytes()
        },
    );
    assert_eq!(fixed.counts().1, 1, "{}", fixed.report);
    assert!(
        fixed.report.contains("known difference not seen"),
        "{}",
        fixed.report
    );
    assert_eq!(fixed.status, Some(1));

    let rfc1808 = judge_exact(&fixture(), KITCHEN_SINK.1, None, false, &[], |r| r);
    assert!(rfc1808.counts().1 > 0, "{}", rfc1808.report);
    assert_eq!(rfc1808.status, Some(1));
}
