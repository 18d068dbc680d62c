//! MMDF mailboxes (each message between two lines of four Control-A bytes, as Python's
//! `mailbox.MMDF` writes them): told by content and by the `.mmdf` name, each message
//! numbered and read with its own bases, every delimiter and From_ line kept by a
//! rewrite; a last message no delimiter closes is warned about, and one larger than
//! `--max-held` passes through whole with a warning.

use crate::common::{absolve, arg, json_lines, stderr};

const D: &str = "\u{1}\u{1}\u{1}\u{1}\n";

/// A message as Python's `mailbox.MMDF` writes it: a From_ line after the opening line.
fn message(n: usize, base: &str) -> String {
    format!(
        "{D}From MAILER-DAEMON Tue Nov  3 09:14:0{n} 2026\nSubject: {n}\nContent-Type: text/html\n\
         Content-Base: {base}\n\n<a href=\"p{n}.html\">{n}</a>\n\n{D}"
    )
}

fn mailbox() -> String {
    [
        message(1, "http://one.example/d/"),
        message(2, "http://two.example/"),
    ]
    .concat()
}

/// Before: the mailbox was read as one HTML page: its links left relative with "no
/// base URL", not located by message.
#[test]
fn each_message_is_numbered_and_read_with_its_own_base() {
    let out = absolve(&["links"], mailbox().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let links = json_lines(&out.stdout);
    let found: Vec<_> = links
        .iter()
        .map(|l| {
            (
                l["message"].as_u64().unwrap(),
                l["resolved"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (1, "http://one.example/d/p1.html"),
            (2, "http://two.example/p2.html")
        ]
    );
    assert!(links.iter().all(|l| l["base_from"] == "content-base"));
}

/// The delimiter lines and the From_ lines pass through; only the links change.
#[test]
fn a_rewrite_keeps_every_delimiter_and_from_line() {
    let out = absolve(&["rewrite"], mailbox().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = mailbox()
        .replace("\"p1.html\"", "\"http://one.example/d/p1.html\"")
        .replace("\"p2.html\"", "\"http://two.example/p2.html\"");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn an_mmdf_is_found_in_a_tree_by_its_name_and_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("saved.mmdf"), mailbox()).unwrap();
    std::fs::write(dir.path().join("inbox"), mailbox()).unwrap();
    let out = absolve(&["links", "-r", arg(dir.path())], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    assert_eq!(links.len(), 4, "{}", stderr(&out));
    assert!(links.iter().all(|l| l["base_from"] == "content-base"));
}

/// A mailbox cut short: its last message is read to the end, with a warning.
#[test]
fn a_last_message_no_delimiter_closes_is_warned_about() {
    let mut cut = mailbox();
    cut.truncate(cut.len() - D.len());
    let out = absolve(&["rewrite", "--format", "mbox"], cut.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("message 2: no line of four Control-A bytes ends it"),
        "{}",
        stderr(&out)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"http://two.example/p2.html\""));
    assert!(text.ends_with("</a>\n\n"));
}

/// A message larger than `--max-held` is given in pieces and passes through whole;
/// the messages around it are rewritten.
#[test]
fn a_message_larger_than_max_held_passes_through_whole() {
    let large = message(2, "http://two.example/").replace("</a>", &"x".repeat(5000));
    let mailbox = [
        message(1, "http://one.example/d/"),
        large.clone(),
        message(3, "http://three.example/"),
    ]
    .concat();
    let out = absolve(&["rewrite", "--max-held", "2K"], mailbox.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("message 2"), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&large), "the large message is whole");
    assert!(text.contains("\"http://one.example/d/p1.html\""));
    assert!(text.contains("\"http://three.example/p3.html\""));
    let grown = "http://one.example/d/".len() + "http://three.example/".len();
    assert_eq!(text.len(), mailbox.len() + grown);
}
