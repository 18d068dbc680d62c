//! `absolve rewrite` and `absolve links` on HTML from the command line: standard input and
//! output, files in place and recursive, errors naming what is wrong, JSON lines.

use crate::common::absolve;
use crate::common::stderr;
use std::fs;

#[test]
fn standard_input_to_standard_output() {
    let out = absolve(&["rewrite", "--url", "http://h/a/b"], b"<a href=c>");
    assert!(out.status.success());
    assert_eq!(out.stdout, b"<a href=http://h/a/c>");
    let dash = absolve(&["rewrite", "--url", "http://h/a/b", "-"], b"<a href=c>");
    assert_eq!(dash.stdout, b"<a href=http://h/a/c>");
}

#[test]
fn a_url_without_scheme_is_an_error_naming_it_and_no_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.html");
    fs::write(&input, "<a href=x>").unwrap();
    let target = dir.path().join("out.html");
    let out = absolve(
        &[
            "rewrite",
            "--url",
            "example.com/x",
            "-o",
            target.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("example.com/x"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(!target.exists());
}

#[test]
fn an_unknown_charset_is_an_error_naming_it() {
    let out = absolve(
        &["rewrite", "--charset", "klingon", "--url", "http://h/"],
        b"<a href=x>",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("klingon"));
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unreadable_file_is_an_error_naming_it_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.html");
    fs::write(&good, "<a href=x>").unwrap();
    let missing = dir.path().join("missing.html");
    let out = absolve(
        &[
            "rewrite",
            "-i",
            "--url",
            "http://h/",
            good.to_str().unwrap(),
            missing.to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("missing.html"), "{}", stderr(&out));
    assert_eq!(fs::read(&good).unwrap(), b"<a href=x>");
}

#[test]
fn in_place_rewrites_each_file_and_recursive_finds_html_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("a.html"), "<a href=x>").unwrap();
    fs::write(dir.path().join("sub/b.htm"), "<img src=y>").unwrap();
    fs::write(dir.path().join("notes.txt"), "<a href=x>").unwrap();
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "-i",
            "--url",
            "http://h/",
            dir.path().to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read(dir.path().join("a.html")).unwrap(),
        b"<a href=http://h/x>"
    );
    assert_eq!(
        fs::read(dir.path().join("sub/b.htm")).unwrap(),
        b"<img src=http://h/sub/y>"
    );
    assert_eq!(
        fs::read(dir.path().join("notes.txt")).unwrap(),
        b"<a href=x>"
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".absolve-")
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_directory_without_recursive_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = absolve(
        &[
            "rewrite",
            "--url",
            "http://h/",
            dir.path().to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("-r"));
}

#[test]
fn output_to_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.html");
    let out = absolve(
        &[
            "rewrite",
            "--url",
            "http://h/",
            "-o",
            target.to_str().unwrap(),
        ],
        b"<a href=x>",
    );
    assert!(out.status.success());
    assert_eq!(fs::read(target).unwrap(), b"<a href=http://h/x>");
}

#[test]
fn links_are_json_lines_with_the_required_keys() {
    let out = absolve(
        &["links", "--url", "http://h/d/p"],
        b"<base href=/b/><img srcset='x 1x, y 2x'><a href=#f>",
    );
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for key in [
        "file",
        "element",
        "attribute",
        "original",
        "resolved",
        "base",
        "base_from",
    ] {
        assert!(lines.iter().all(|l| l.get(key).is_some()), "{key}");
    }
    assert_eq!(lines[0]["base_from"], "retrieval-url");
    assert_eq!(lines[1]["resolved"], "http://h/b/x");
    assert_eq!(lines[2]["resolved"], "http://h/b/y");
    assert_eq!(lines[2]["base_from"], "base-element");
    assert_eq!(lines[3]["resolved"], "#f");
    assert_eq!(lines[0]["file"], "-");
}

#[test]
fn no_url_means_no_base() {
    let out = absolve(&["links"], b"<a href=x>");
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["base_from"], "none");
    assert_eq!(line["base"], serde_json::Value::Null);
    assert_eq!(line["resolved"], "x");
}

/// The --url help says what happens without a base: an absolute `<base href>` still
/// applies, and is applied.
#[test]
fn without_url_an_absolute_base_element_still_applies_as_the_help_says() {
    let help = String::from_utf8(absolve(&["rewrite", "--help"], b"").stdout).unwrap();
    assert!(
        help.contains("unless the document has an absolute <base href>"),
        "{help}"
    );
    assert!(!help.contains("without any, nothing changes"), "{help}");
    let out = absolve(&["rewrite"], b"<base href=http://b/d/><a href=x>");
    assert_eq!(out.stdout, b"<base href=http://b/d/><a href=http://b/d/x>");
}
