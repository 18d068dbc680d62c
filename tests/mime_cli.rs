//! Issue 8 items 2 and 3 through the command line: a message nested 10,000 levels deep
//! is passed through with a warning (no crash), alone, in an mbox between good messages,
//! and in place; nested encapsulated messages and RFC 2231 boundaries are rewritten.

mod common;

use common::{absolve, stderr};

/// The generator: `multipart/mixed` and `message/rfc822` alternating `depth`
/// levels, an HTML part at the bottom.
fn alternating(depth: usize) -> Vec<u8> {
    let mut head = b"MIME-Version: 1.0\r\n".to_vec();
    let mut tail = Vec::new();
    for i in 0..depth {
        head.extend(
            format!("Content-Type: multipart/mixed; boundary=\"b{i:06}x\"\r\n\r\n--b{i:06}x\r\nContent-Type: message/rfc822\r\n\r\n")
                .as_bytes(),
        );
        tail.push(format!("\r\n--b{i:06}x--\r\n"));
    }
    head.extend_from_slice(b"Content-Type: text/html\r\n\r\n<a href=\"deep\">x</a>");
    for t in tail.iter().rev() {
        head.extend_from_slice(t.as_bytes());
    }
    head
}

#[test]
fn a_message_ten_thousand_levels_deep_passes_through_with_a_warning() {
    let message = alternating(10_000);
    let out = absolve(
        &["rewrite", "--format", "mime", "--url", "http://h/"],
        &message,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout == message);
    assert!(stderr(&out).contains("levels deep"), "{}", stderr(&out));
}

fn good(n: usize) -> Vec<u8> {
    format!("From a@b Mon Jan  1 00:00:00 2024\r\nContent-Type: text/html\r\n\r\n<a href=good{n}>\r\n\r\n").into_bytes()
}

fn archive_around_a_deep_message() -> Vec<u8> {
    let mut archive = good(1);
    archive.extend_from_slice(b"From deep@b Mon Jan  1 00:00:00 2024\r\n");
    archive.extend(alternating(10_000));
    archive.extend_from_slice(b"\r\n\r\n");
    archive.extend(good(3));
    archive
}

#[test]
fn in_an_mbox_the_messages_before_and_after_the_deep_one_are_rewritten() {
    let archive = archive_around_a_deep_message();
    let out = absolve(&["rewrite", "--url", "http://h/"], &archive);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = String::from_utf8(archive)
        .unwrap()
        .replace("href=good", "href=http://h/good");
    assert!(String::from_utf8(out.stdout.clone()).unwrap() == expected);
    assert!(stderr(&out).contains("message 2"), "{}", stderr(&out));

    let out = absolve(
        &["links", "--url", "http://h/"],
        &archive_around_a_deep_message(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let found: Vec<_> = lines
        .iter()
        .map(|l| {
            (
                l["message"].as_u64().unwrap(),
                l["resolved"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found, [(1, "http://h/good1"), (3, "http://h/good3")]);
}

#[test]
fn in_place_a_deep_message_leaves_the_file_whole_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.mbox");
    std::fs::write(&path, archive_around_a_deep_message()).unwrap();
    let out = absolve(
        &[
            "rewrite",
            "-i",
            "--url",
            "http://h/",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    assert!(text.contains("<a href=http://h/good1>") && text.contains("<a href=http://h/good3>"));
    assert!(text.contains("<a href=\"deep\">"));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file left");
}

#[test]
fn nested_encapsulated_messages_and_rfc2231_boundaries_are_rewritten() {
    let nested = b"Content-Type: message/rfc822\r\n\r\nContent-Type: message/rfc822\r\n\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n";
    let out = absolve(&["links", "--format", "mime", "--url", "http://h/"], nested);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (line["part"].as_str(), line["resolved"].as_str()),
        (Some("1.1.1"), Some("http://h/x"))
    );

    let rfc2231 = b"Content-Type: multipart/mixed; boundary*=\"ansi-x3.4-1968''XYZ\"\r\n\r\n--XYZ\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--XYZ--\r\n";
    let out = absolve(
        &["rewrite", "--format", "mime", "--url", "http://h/"],
        rfc2231,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8(out.stdout.clone())
            .unwrap()
            .contains("<a href=http://h/x>")
    );
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// Bytes before an mbox's first `From ` line are kept as they are, and are no message:
/// the first message is message 1 (it was numbered 2).
#[test]
fn bytes_before_the_first_message_of_an_mbox_are_not_numbered() {
    let mut archive = b"stray bytes\n\n".to_vec();
    archive.extend(good(1));
    archive.extend(good(2));
    let out = absolve(
        &["links", "--format", "mbox", "--url", "http://h/"],
        &archive,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let numbered: Vec<(u64, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|l| {
            (
                l["message"].as_u64().unwrap(),
                l["resolved"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        numbered,
        [
            (1, "http://h/good1".to_owned()),
            (2, "http://h/good2".to_owned())
        ]
    );
    let out = absolve(
        &["rewrite", "--format", "mbox", "--url", "http://h/"],
        &archive,
    );
    assert!(out.stdout.starts_with(b"stray bytes\n\nFrom a@b"));
}
