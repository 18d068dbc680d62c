//! What a newcomer meets on the command line: usage, usage errors (status 2,
//! clap's whole message), bad base URLs, warnings on a forced format, records with the
//! same keys, help texts with examples.

use crate::common::{absolve, stderr};
use std::fs;

#[test]
fn bare_absolve_prints_the_usage_with_the_subcommands() {
    let out = absolve(&[], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    for expected in [
        "Usage: absolve <COMMAND>",
        "resolve",
        "rewrite",
        "links",
        "Examples:",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
}

#[test]
fn a_usage_error_prints_clap_s_whole_message() {
    let format = absolve(&["rewrite", "--format", "xml"], b"");
    assert_eq!(format.status.code(), Some(2));
    let text = stderr(&format);
    for value in ["auto", "html", "mime", "mbox", "css"] {
        assert!(text.contains(value), "{value} in {text}");
    }
    let typo = absolve(&["rewrite", "--urll", "http://h/"], b"");
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        stderr(&typo).contains("tip: a similar argument exists: '--url'"),
        "{}",
        stderr(&typo)
    );
}

#[test]
fn help_goes_to_standard_output_with_examples() {
    for command in ["rewrite", "links", "resolve"] {
        let out = absolve(&[command, "--help"], b"");
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.contains("Examples:"), "{command}: {help}");
    }
    let rewrite = String::from_utf8(absolve(&["rewrite", "--help"], b"").stdout).unwrap();
    assert!(rewrite.contains("standard output"), "{rewrite}");
    assert!(
        rewrite.contains("relative links stay as they are"),
        "{rewrite}"
    );
    assert!(!rewrite.contains("every file"), "{rewrite}");
    // `-h`'s one line for --format names every format before clap's list (it left out
    // wacz and feed).
    let short = String::from_utf8(absolve(&["links", "-h"], b"").stdout).unwrap();
    let format = short.lines().find(|l| l.contains("--format")).unwrap();
    let format = format.split(" [default").next().unwrap();
    for name in [
        "html",
        "mime",
        "mbox",
        "css",
        "warc",
        "wacz",
        "feed",
        "webarchive",
    ] {
        assert!(format.contains(name), "{format}");
    }
}

#[test]
fn output_with_several_inputs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    fs::write(&a, "<a href=x>").unwrap();
    fs::write(&b, "<a href=y>").unwrap();
    let target = dir.path().join("out.html");
    let out = absolve(
        &[
            "rewrite",
            "--url",
            "http://h/",
            "-o",
            target.to_str().unwrap(),
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("-o takes exactly one input"),
        "{}",
        stderr(&out)
    );
    assert!(!target.exists());
}

#[test]
fn in_place_on_standard_input_is_a_usage_error() {
    let out = absolve(&["rewrite", "-i", "--url", "http://h/"], b"<a href=x>");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_base_urls_are_usage_errors() {
    for url in [
        "http://",
        "https:///a",
        "http://h/a b",
        "http://h/\tx",
        "example.com/x",
    ] {
        let out = absolve(&["rewrite", "--url", url], b"<a href=x>");
        assert_eq!(out.status.code(), Some(2), "{url}");
        assert!(out.stdout.is_empty(), "{url}");
        assert!(stderr(&out).contains("--url"), "{url}: {}", stderr(&out));
    }
    let ok = absolve(&["rewrite", "--url", "file:///srv/site/"], b"<a href=x>");
    assert_eq!(ok.stdout, b"<a href=file:///srv/site/x>");
}

#[test]
fn format_mbox_without_a_from_line_warns() {
    let out = absolve(
        &["rewrite", "--format", "mbox", "--url", "http://h/"],
        b"<a href=x>",
    );
    assert!(out.status.success());
    assert_eq!(out.stdout, b"<a href=x>");
    assert!(
        stderr(&out).contains("--format mbox: it does not start with a From_ line"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn format_mime_on_html_warns() {
    let out = absolve(
        &["rewrite", "--format", "mime", "--url", "http://h/"],
        b"<!doctype html><a href=x>",
    );
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("--format mime: it does not start with a header block"),
        "{}",
        stderr(&out)
    );
    let message = absolve(
        &["rewrite", "--format", "mime", "--url", "http://h/"],
        b"Content-Type: text/html\n\n<a href=x>",
    );
    assert!(stderr(&message).is_empty(), "{}", stderr(&message));
}

/// `--format feed` on an HTML page read it as XML, found no link, and said nothing.
#[test]
fn format_feed_on_html_warns() {
    let out = absolve(
        &["links", "--format", "feed", "--url", "http://h/"],
        b"<html><body><a href=\"x\">y</a></body></html>",
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("--format feed: its root element is not a feed's"),
        "{}",
        stderr(&out)
    );
    // One line of words, not runs of spaces where the source's lines were broken.
    assert!(!stderr(&out).contains("  "), "{}", stderr(&out));
    let feed = absolve(
        &["links", "--format", "feed", "--url", "http://h/"],
        b"<?xml version='1.0'?><rss><channel><link>x</link></channel></rss>",
    );
    assert!(stderr(&feed).is_empty(), "{}", stderr(&feed));
}

/// A feed after `size` bytes of prolog: an XML declaration, a DOCTYPE with an internal
/// subset, then comments and processing instructions.
fn feed_after_prolog(size: usize) -> Vec<u8> {
    let mut feed =
        b"<?xml version='1.0'?>\n<!DOCTYPE rss [ <!ENTITY site 'http://x/'> ]>\n".to_vec();
    while feed.len() < size {
        feed.extend(b"<!-- lorem ipsum dolor sit amet -->\n<?pi data?>\n\t\n");
    }
    feed.extend(b"<rss version='2.0'><channel><link>news/</link></channel></rss>\n");
    feed
}

/// `--format feed` on a feed whose prolog runs past the 64 KiB the format is told from
/// said its root element was not a feed's; and without `--format` such a feed was read
/// as HTML without a word. Now the first is quiet and the second says why.
#[test]
fn a_long_prolog_is_no_format_mismatch() {
    for size in [7000, 70 * 1024] {
        let forced = absolve(
            &["links", "--format", "feed", "--url", "http://h/"],
            &feed_after_prolog(size),
        );
        assert!(forced.status.success());
        assert!(!stderr(&forced).contains("--format"), "{}", stderr(&forced));
        let links = crate::common::json_lines(&forced.stdout);
        assert_eq!(links.len(), 1);
        assert_eq!(links[0]["resolved"], "http://h/news/");
    }
    let told = absolve(&["links", "--url", "http://h/"], &feed_after_prolog(7000));
    assert_eq!(crate::common::json_lines(&told.stdout).len(), 1);
    let past = absolve(
        &["links", "--url", "http://h/"],
        &feed_after_prolog(70 * 1024),
    );
    assert!(past.status.success());
    assert!(
        stderr(&past).contains(
            "its first 64 KiB are an XML prolog: its root element was not looked for past \
             them, read as HTML (pass --format feed if it is a feed)"
        ),
        "{}",
        stderr(&past)
    );
    // Named `.xml` (a name `-r` skips unless the root tells), it is not passed through as
    // no document: its root is not known yet.
    let dir = tempfile::tempdir().unwrap();
    let named = dir.path().join("feed.xml");
    std::fs::write(&named, feed_after_prolog(70 * 1024)).unwrap();
    let out = absolve(
        &["links", "--url", "http://h/", crate::common::arg(&named)],
        b"",
    );
    assert!(
        stderr(&out).contains("its first 64 KiB are an XML prolog"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("not a document"), "{}", stderr(&out));
}

/// "From " starting a page is not enough for an mbox.
#[test]
fn auto_takes_an_mbox_only_with_a_from_line_and_a_header_block() {
    let page = b"From the editor: welcome!<p><a href=\"news.html\">";
    let out = absolve(&["rewrite", "--url", "http://h/"], page);
    assert_eq!(
        out.stdout,
        b"From the editor: welcome!<p><a href=\"http://h/news.html\">"
    );
    let dated = b"From the editor 2024\n<p><a href=\"news.html\">";
    let out = absolve(&["rewrite", "--url", "http://h/"], dated);
    assert_eq!(
        out.stdout,
        b"From the editor 2024\n<p><a href=\"http://h/news.html\">"
    );
    let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x>\n";
    let links = absolve(&["links", "--url", "http://h/"], mbox);
    let record: serde_json::Value = serde_json::from_slice(&links.stdout).unwrap();
    assert_eq!(record["message"], 1);
}

#[test]
fn every_record_has_the_same_keys() {
    let html = absolve(&["links", "--url", "http://h/"], b"<a href=x>");
    let message = absolve(
        &["links", "--url", "http://h/"],
        b"Content-Type: text/html\n\n<a href=x>",
    );
    let html: serde_json::Value = serde_json::from_slice(&html.stdout).unwrap();
    let message: serde_json::Value = serde_json::from_slice(&message.stdout).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&html), keys(&message));
    assert_eq!(html["message"], serde_json::Value::Null);
    assert_eq!(html["part"], serde_json::Value::Null);
    assert_eq!(html["kept"], serde_json::Value::Null);
    assert_eq!(message["message"], 1);
}

#[test]
fn a_saved_from_comment_on_standard_input_gives_the_base() {
    let page = b"<!-- saved from url=(0016)http://h/a/b.html -->\n<a href=c>";
    let out = absolve(&["links"], page);
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["base_from"], "saved-from");
    assert_eq!(record["resolved"], "http://h/a/c");
}

#[test]
fn keep_local_resolves_against_the_document_s_own_directory() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/a b.png"), "").unwrap();
    fs::write(dir.path().join("top.css"), "").unwrap();
    let page = dir.path().join("sub/p.html");
    fs::write(
        &page,
        "<img src='a%20b.png?v=1#x'><link href=../top.css><a href=missing.html><a href=//cdn/x>",
    )
    .unwrap();
    let out = absolve(
        &[
            "rewrite",
            "--keep-local",
            "--url",
            "http://h/d/p.html",
            page.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "<img src='a%20b.png?v=1#x'><link href=../top.css><a href=http://h/d/missing.html><a href=http://cdn/x>"
    );
}
