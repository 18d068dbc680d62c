//! Apple Mail's `.emlx` files (a line with the message's length, the message, a property
//! list): told by their name and by their content, their message read with its own
//! bases, a rewrite's new length written on the first line (its padding kept) and the
//! property list passed through; a length past the file's end, or short of the message,
//! is warned about naming the file, and the file is left as it is.

use crate::common::{absolve, arg, json_lines, stderr};
use std::path::Path;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/mime/apple-mail-padded-length.emlx"
);

/// A message with a base of its own and a relative link in its HTML part.
const MESSAGE: &[u8] = b"From: a@b.example\nSubject: one\nContent-Type: text/html\n\
Content-Base: http://ex.example/one/\n\n<a href='x.html'>x</a>\n";

const PLIST: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\
<dict>\n\t<key>flags</key>\n\t<integer>8590195713</integer>\n</dict>\n</plist>\n";

/// An `.emlx` of `message`, its length written `{:<width}` on the first line.
fn emlx(message: &[u8], width: usize) -> Vec<u8> {
    let mut file = format!("{:<width$}\n", message.len()).into_bytes();
    file.extend_from_slice(message);
    file.extend_from_slice(PLIST);
    file
}

/// The first line's length, the message it counts, and what follows it.
fn parts(file: &[u8]) -> (String, &[u8], &[u8]) {
    let end = file.iter().position(|&b| b == b'\n').unwrap();
    let line = String::from_utf8(file[..end].to_vec()).unwrap();
    let length: usize = line.trim_end().parse().unwrap();
    let message = &file[end + 1..end + 1 + length];
    (line, message, &file[end + 1 + length..])
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    arg(&path).to_owned()
}

/// Before: the file was read as one HTML page (its first line and headers as text), the
/// message's Content-Base unseen, the link left relative with "no base URL".
#[test]
fn the_links_of_an_emlx_resolve_against_its_messages_base() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "1.emlx", &emlx(MESSAGE, 0));
    let out = absolve(&["links", &path], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let links = json_lines(&out.stdout);
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["resolved"], "http://ex.example/one/x.html");
    assert_eq!(links[0]["base_from"], "content-base");
    assert_eq!(
        (&links[0]["message"], &links[0]["part"]),
        (&1.into(), &"1".into())
    );
}

/// The fixture's length is padded to ten characters, as Mail writes it; the rewrite
/// makes it the rewritten message's, padded the same, and the property list follows.
#[test]
fn a_rewrite_writes_the_new_length_padded_as_the_old_one() {
    let file = std::fs::read(FIXTURE).unwrap();
    let (old_line, old_message, old_after) = parts(&file);
    assert_eq!(old_line.len(), 10, "the fixture's length is padded");
    let out = absolve(&["rewrite", FIXTURE], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let (line, message, after) = parts(&out.stdout);
    assert_eq!(line.len(), 10, "{line:?}");
    assert_ne!(message.len(), old_message.len());
    assert_eq!(after, old_after, "the property list is passed through");
    // The message is rewritten as the same message in an .eml is.
    let eml = absolve(&["rewrite", "--format", "mime"], old_message);
    assert_eq!(message, eml.stdout.as_slice());
    assert!(String::from_utf8_lossy(message).contains("https://shop.example/offers/november.html"));
}

/// A message whose links are all absolute: the file comes out byte for byte.
#[test]
fn an_emlx_nothing_changes_in_comes_out_whole() {
    let message = b"Subject: x\nContent-Type: text/html\n\n<a href='http://h.example/'>\n";
    let file = emlx(message, 10);
    let out = absolve(&["rewrite", "--url", "http://other.example/"], &file);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, file);
}

/// Before: `-r` passed `.emlx` files over (their first bytes sniffed as no document), and a
/// file named otherwise was read as HTML.
#[test]
fn an_emlx_is_found_in_a_tree_and_told_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let messages = dir.path().join("INBOX.mbox/Data/Messages");
    std::fs::create_dir_all(&messages).unwrap();
    write(&messages, "42.emlx", &emlx(MESSAGE, 10));
    write(&messages, "43.partial.emlx", &emlx(MESSAGE, 0));
    let out = absolve(&["links", "-r", arg(dir.path())], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    assert_eq!(links.len(), 2, "{}", stderr(&out));
    assert!(links.iter().all(|l| l["base_from"] == "content-base"));
    // Unnamed, from standard input: told by its content.
    let out = absolve(&["links"], &emlx(MESSAGE, 10));
    assert_eq!(json_lines(&out.stdout)[0]["base_from"], "content-base");
}

/// A length past the file's end (a file cut short): the links of what there is are
/// listed, and the file is written as it is, with a warning naming it.
#[test]
fn a_length_past_the_end_leaves_the_file_as_it_is_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = format!("{}\n", MESSAGE.len() + 500).into_bytes();
    file.extend_from_slice(MESSAGE);
    let path = write(dir.path(), "cut.emlx", &file);
    let out = absolve(&["rewrite", &path], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, file);
    let warning = format!(
        "cut.emlx message 1: its first line gives the message's length as {} bytes, but only {} follow it",
        MESSAGE.len() + 500,
        MESSAGE.len()
    );
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
    let out = absolve(&["links", &path], b"");
    assert_eq!(
        json_lines(&out.stdout)[0]["resolved"],
        "http://ex.example/one/x.html"
    );
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
}

/// A length short of the message: the rest of it is no property list, and is said to be
/// passed through unread (its link is neither listed nor rewritten).
#[test]
fn a_length_short_of_the_message_is_warned_about() {
    let mut file = emlx(MESSAGE, 0);
    let short = MESSAGE.len() - 24;
    let line = format!("{}\n", MESSAGE.len());
    file.splice(..line.len(), format!("{short}\n").into_bytes());
    let out = absolve(&["links"], &file);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(json_lines(&out.stdout).is_empty());
    let at = format!("{short}\n").len() + short;
    assert!(
        stderr(&out).contains(&format!(
            "message 1: the bytes from {at} on, after the message its first line counts, are not Apple Mail's property list"
        )),
        "{}",
        stderr(&out)
    );
}
