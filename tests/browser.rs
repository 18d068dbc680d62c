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
        .arg(page)
        .output()
        .unwrap();
    assert!(
        rewrite.status.success(),
        "absolve rewrite --url {url} {}: {}",
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
    let verdict = judge(page, retrieval_path, oracle_args, |rewrite| rewrite);
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
    let untouched = judge(&fixture(), KITCHEN_SINK.1, &[], |_| {
        std::fs::read(fixture()).unwrap()
    });
    let (compared, mismatches) = untouched.counts();
    assert!(compared > 150, "{}", untouched.report);
    assert!(mismatches > 100, "{}", untouched.report);
    assert_eq!(untouched.content_changes(), 0, "{}", untouched.report);

    let damaged = judge(&fixture(), KITCHEN_SINK.1, &[], |rewrite| {
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
