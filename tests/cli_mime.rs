//! `absolve rewrite` and `absolve links` on messages and archives: the MIME issue's
//! command-line contract.

mod common;

use common::{absolve, stderr};

const MESSAGE: &[u8] = b"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee x.html\r\n--b\r\nContent-Type: text/html\r\n\r\n<a href=x.html>x</a>\r\n--b--\r\n";

#[test]
fn auto_tells_a_message_from_html_by_content() {
    let out = absolve(&["rewrite", "--url", "http://h/d/"], MESSAGE);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("<a href=http://h/d/x.html>x</a>\r\n"));
    assert!(text.contains("see x.html\r\n"), "text parts are not HTML");
    assert_eq!(text.len(), MESSAGE.len() + "http://h/d/".len());
}

/// As HTML, the whole message is one document: its `<a>` is rewritten all the same,
/// but nothing is decoded or re-encoded.
#[test]
fn format_html_forces_html() {
    let out = absolve(
        &["rewrite", "--format", "html", "--url", "http://h/d/"],
        MESSAGE,
    );
    let expected = String::from_utf8(MESSAGE.to_vec())
        .unwrap()
        .replace("href=x.html", "href=http://h/d/x.html");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn links_carry_message_and_part() {
    let out = absolve(
        &["links", "--format", "mime", "--url", "http://h/d/"],
        MESSAGE,
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["message"], 1);
    assert_eq!(line["part"], "2");
    assert_eq!(line["base_from"], "retrieval-url");
    assert_eq!(line["resolved"], "http://h/d/x.html");
}

#[test]
fn an_mbox_numbers_its_messages() {
    let archive = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=1.html>\n\nFrom c@d Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Base: http://two/\n\n<a href=2.html>\n";
    let out = absolve(&["links"], archive);
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (lines[0]["message"].clone(), lines[0]["base_from"].clone()),
        (1.into(), "none".into())
    );
    assert_eq!(
        (lines[1]["message"].clone(), lines[1]["resolved"].clone()),
        (2.into(), "http://two/2.html".into())
    );
}

#[test]
fn broken_input_warns_names_the_part_and_still_succeeds() {
    let broken = b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\nContent-Transfer-Encoding: base64\n\n!!!not base64!!!\n--b--\n";
    let out = absolve(&["rewrite", "--url", "http://h/"], broken);
    assert!(out.status.success());
    assert_eq!(out.stdout, broken);
    let warning = stderr(&out);
    assert!(
        warning.contains("message 1") && warning.contains("part 1"),
        "{warning}"
    );
}
