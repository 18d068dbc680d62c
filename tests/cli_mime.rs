//! `absolve rewrite` and `absolve links` on MIME messages and mbox archives: a message is
//! told from HTML by its content, links carry their message and part, broken input is
//! warned about naming the part; a message nested 10,000 levels deep passes through with a
//! warning (alone, in an mbox between good messages, and in place), nested encapsulated
//! messages and RFC 2231 boundaries are rewritten; a heading with no blank line after it
//! ends at its first line that is no header field, with a warning; an mbox message's
//! consistent Content-Length keeps an unquoted From_ line in its body; a From_ line that
//! no blank line precedes starts a message when a heading follows it; a base header the
//! URL Standard rejects is passed over with a warning naming the part; a `text/xml` part
//! is read as a feed when its root element, past any prolog, is a feed's; an Outlook TNEF
//! attachment, an S/MIME body and a PGP/MIME encrypted one, which absolve does not read,
//! are named in a warning.

use crate::common::{absolve, alternating, stderr};

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

/// Three messages, each From_ line right after the last line of the message before, with
/// no blank line (as in MimeKit's `simple.mbox`); the second an HTML part with its own
/// `Content-Base`, in quoted-printable and Latin-1.
fn archive_without_blank_lines() -> String {
    [
        "From - Mon Jan  1 00:00:00 2024\nFrom: a@example.com\nSubject: one\n\
         Content-Type: text/plain\n\nsee page.html\n",
        "From - Tue Jan  2 00:00:00 2024\nFrom: b@example.com\nSubject: two\n\
         MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"b\"\n\n--b\n\
         Content-Type: text/plain\n\nsee page.html\n--b\n\
         Content-Type: text/html; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\
         Content-Base: http://two.example/dir/\n\n<p>caf=E9 <a href=3D\"page.html\">page</a>\n--b--\n",
        "From c@example.com Wed Jan  3 00:00:00 2024\nFrom: c@example.com\nSubject: three\n\
         Content-Type: text/html\n\n<a href=\"three.html\">3</a>\n",
    ]
    .concat()
}

/// An mbox whose From_ lines follow no blank line (Python's mailbox reads 3 messages) was
/// read as one message: the later headings were body text of the first, a text/plain
/// part, so message 2's HTML, its Content-Base and its encoding were lost and its link
/// neither listed nor rewritten. A From_ line a heading follows is now a separator there
/// too, with one warning for the archive naming the message and the offset.
#[test]
fn an_mbox_whose_from_lines_follow_no_blank_line_is_split_at_them() {
    let archive = archive_without_blank_lines();
    assert_eq!(
        message_links(archive.as_bytes()),
        [
            (2, "\"http://two.example/dir/page.html\"".to_owned()),
            (3, "\"http://h/three.html\"".to_owned())
        ]
    );
    let out = absolve(&["rewrite", "--url", "http://h/"], archive.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = archive
        .replace(
            "=3D\"page.html\"",
            "=3D\"http://two.example/dir/page.html\"",
        )
        .replace("\"three.html\"", "\"http://h/three.html\"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    let offset = archive.find("From - Tue").unwrap();
    let warnings = stderr(&out);
    assert_eq!(
        warnings.lines().count(),
        1,
        "one warning per archive: {warnings}"
    );
    assert!(
        warnings.contains(&format!(
            "message 1: no blank line ends it: the From_ line at byte {offset} of the mbox"
        )),
        "{warnings}"
    );
}

/// A heading not ended by a blank line ends at its first line that is no header field, as
/// Python's email reads it: the body's links are listed and rewritten, with a warning
/// naming the message, the part and the offset where the body was taken to start.
#[test]
fn a_heading_without_its_blank_line_ends_where_the_body_starts_with_a_warning() {
    let two = "Subject: two\nContent-Type: text/html\n<a href=\"two.html\">2</a>\n<p><a href=\"two-b.html\">x</a>\n\n";
    let archive = format!(
        "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=\"one.html\">1</a>\n\nFrom b@b Mon Jan  1 00:00:00 2024\n{two}"
    );
    let out = absolve(&["links", "--url", "http://h/"], archive.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let found: Vec<_> = crate::common::json_lines(&out.stdout)
        .iter()
        .map(|l| (l["message"].as_u64().unwrap(), l["resolved"].to_string()))
        .collect();
    assert_eq!(
        found,
        [
            (1, "\"http://h/one.html\"".to_owned()),
            (2, "\"http://h/two.html\"".to_owned()),
            (2, "\"http://h/two-b.html\"".to_owned()),
        ]
    );
    let body_at = two.find('<').unwrap();
    let warning = stderr(&out);
    assert!(
        warning.contains(&format!(
            "message 2: part 1: no blank line ends its heading: its body is read from byte {body_at} "
        )),
        "{warning}"
    );
    let out = absolve(&["rewrite", "--url", "http://h/"], archive.as_bytes());
    let expected = archive.replace("href=\"", "href=\"http://h/");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

/// A header line without its colon in the first heading (`X-Mailer Foo 1.0`) made the
/// whole input HTML by content: every message resolved against `--url` instead of its
/// own base, a quoted-printable `href=3D"a.html"` mangled, and no warning. The heading
/// is read as the walk reads it (to its first line that is no field, RFC 5322 §2.2, as
/// Python's email does): the input is an mbox, or a message, with a warning naming it.
#[test]
fn a_heading_line_without_its_colon_keeps_an_mbox_or_message_one() {
    let one = "Subject: one\nX-Mailer Foo 1.0\nContent-Type: text/html\n\
               Content-Transfer-Encoding: quoted-printable\nContent-Base: http://one/\n\n\
               <a href=3D\"a.html\">a</a>\n";
    let two = "Content-Type: text/html\nContent-Base: http://two/\n\n<a href=\"b.html\">b</a>\n";
    let archive = format!(
        "From a@b Mon Jan  1 00:00:00 2024\n{one}\nFrom c@d Mon Jan  1 00:00:00 2024\n{two}"
    );
    let out = absolve(&["rewrite", "--url", "http://r/"], archive.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = archive.replace("\"b.html\"", "\"http://two/b.html\"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    assert!(stderr(&out).contains("message 1: part 1: no blank line ends its heading"));
    let out = absolve(&["rewrite", "--url", "http://r/"], one.as_bytes());
    assert_eq!(
        out.stdout,
        one.as_bytes(),
        "a message: its heading is not HTML"
    );
    assert!(stderr(&out).contains("message 1: part 1: no blank line ends its heading"));
}

/// An mboxcl2 message: its body counted by `Content-Length` (`extra` bytes more).
fn counted(sender: &str, body: &str, extra: usize) -> String {
    let length = body.len() + extra;
    format!(
        "From {sender} Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Length: {length}\n\n{body}\n"
    )
}

/// `(message, resolved)` of each link `absolve links` lists in `archive`.
fn message_links(archive: &[u8]) -> Vec<(u64, String)> {
    let out = absolve(
        &["links", "--format", "mbox", "--url", "http://h/"],
        archive,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    crate::common::json_lines(&out.stdout)
        .iter()
        .map(|l| (l["message"].as_u64().unwrap(), l["resolved"].to_string()))
        .collect()
}

/// mboxcl2 leaves a body's `From ` lines unquoted: a consistent `Content-Length` keeps
/// them in their message (as mutt reads it), and the rewrite keeps the count right; a
/// count that is not consistent is not trusted, with a warning naming the message and
/// the line's offset.
#[test]
fn an_mbox_content_length_keeps_an_unquoted_from_line_in_its_message() {
    let body = "<p><a href=\"one.html\">1</a>\n\nFrom Monday 3 people will join.\n<p><a href=\"one-b.html\">1b</a>\n";
    let two = counted("c@d", "<a href=\"two.html\">2</a>\n", 0);
    let archive = counted("a@b", body, 0) + &two;
    let expected = [
        (1, "\"http://h/one.html\"".to_owned()),
        (1, "\"http://h/one-b.html\"".to_owned()),
        (2, "\"http://h/two.html\"".to_owned()),
    ];
    assert_eq!(message_links(archive.as_bytes()), expected);
    let out = absolve(&["rewrite", "--url", "http://h/"], archive.as_bytes());
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Content-Length: 110\n"));
    assert_eq!(message_links(&out.stdout), expected);

    let wrong = counted("a@b", body, 5) + &two;
    let out = absolve(&["links", "--url", "http://h/"], wrong.as_bytes());
    assert!(out.status.success());
    let offset = wrong.find("From Monday").unwrap();
    assert!(
        stderr(&out).contains(&format!(
            "message 1: its Content-Length (97) covers the From_ line at byte {offset} of the mbox"
        )),
        "{}",
        stderr(&out)
    );
}

/// `--spec whatwg`: a part's `Content-Location` the URL Standard does not parse is passed
/// over as a base (the `--url` is used), with a warning naming the part and the header;
/// it was passed over without a word. By RFC 1808 it is a base, as written.
#[test]
fn a_base_header_the_url_standard_rejects_is_warned_about() {
    let message = b"MIME-Version: 1.0\r\nContent-Type: text/html\r\nContent-Location: http://[::1/x\r\n\r\n<a href=\"y.html\">y</a>\r\n";
    let out = absolve(
        &["links", "--spec", "whatwg", "--url", "http://h/d/"],
        message,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(text.contains(r#""resolved":"http://h/d/y.html""#), "{text}");
    assert!(
        stderr(&out).contains(
            "part 1: its Content-Location header: \"http://[::1/x\" cannot be a base URL: the URL Standard does not parse it (invalid IPv6 address): passed over as a base"
        ),
        "{}",
        stderr(&out)
    );
    let out = absolve(&["links", "--url", "http://h/d/"], message);
    assert!(
        String::from_utf8(out.stdout.clone())
            .unwrap()
            .contains(r#""base_from":"content-location""#)
    );
    assert!(!stderr(&out).contains("passed over"), "{}", stderr(&out));
}

/// A `text/xml` part that is an RSS feed after an 8 KB prolog (a DOCTYPE with an internal
/// subset, comments) is read as a feed: only its first 4 KiB were sniffed (0 links).
#[test]
fn a_text_xml_feed_after_a_long_prolog_is_read() {
    let prolog = format!(
        "<?xml version=\"1.0\"?>\r\n<!DOCTYPE rss [<!ENTITY site \"x\">]>\r\n{}",
        "<!-- a comment that goes on and on -->\r\n".repeat(200)
    );
    let feed = format!(
        "{prolog}<rss version=\"2.0\"><channel><link>a/</link><item><link>b.html</link></item></channel></rss>\r\n"
    );
    let message = format!(
        "MIME-Version: 1.0\r\nContent-Type: text/xml\r\nContent-Location: http://h/d/feed.xml\r\n\r\n{feed}"
    );
    let out = absolve(&["links"], message.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r#""resolved":"http://h/d/a/""#), "{text}");
    assert!(text.contains(r#""resolved":"http://h/d/b.html""#), "{text}");
}

/// Outlook sends a message's body in a TNEF attachment (`winmail.dat`) with only a plain
/// text part beside it: the links in it are not read, and a warning says so, naming the
/// part. Before: nothing was said, and the message seemed to have no links.
#[test]
fn an_outlook_tnef_attachment_is_said_to_be_unread() {
    let message = b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/plain\r\n\r\nsee the offer\r\n\
--b\r\nContent-Type: application/ms-tnef; name=\"winmail.dat\"\r\n\
Content-Transfer-Encoding: base64\r\n\r\neJ8+IgAAAQaQCAAEAAAAAAABAAEAAQeQBgAIAAAA5AQAAAAAAADoAAEIgAcAGAAAAElQTS5NaWNy\r\n\
--b--\r\n";
    for command in ["links", "rewrite"] {
        let out = absolve(&[command], message);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("message 1: part 2: an Outlook TNEF attachment (winmail.dat)"),
            "{command}: {}",
            stderr(&out)
        );
    }
    assert_eq!(absolve(&["rewrite"], message).stdout, message);
}

/// S/MIME and PGP/MIME hold the message inside: a warning names the part, and the message
/// passes through unchanged. Before: nothing was said.
#[test]
fn s_mime_and_pgp_mime_bodies_are_said_to_be_unread() {
    let smime = b"MIME-Version: 1.0\r\nContent-Type: application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m\r\n\
Content-Transfer-Encoding: base64\r\n\r\nMIAGCSqGSIb3DQEHA6CAMIACAQAxggFO\r\n";
    let pgp = b"MIME-Version: 1.0\r\nContent-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\"; boundary=b\r\n\r\n\
--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\
--b\r\nContent-Type: application/octet-stream\r\n\r\n-----BEGIN PGP MESSAGE-----\r\n\r\nhQEMA\r\n-----END PGP MESSAGE-----\r\n\
--b--\r\n";
    for (message, said) in [
        (
            &smime[..],
            "message 1: part 1: an S/MIME body (application/pkcs7-mime)",
        ),
        (
            &pgp[..],
            "message 1: part 1: a PGP/MIME message (multipart/encrypted)",
        ),
    ] {
        let out = absolve(&["rewrite"], message);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).contains(said), "{}", stderr(&out));
        assert_eq!(out.stdout, message);
    }
}

/// AMP for Email sends a `text/x-amp-html` part beside the `text/html` one: an HTML
/// document, its links listed and rewritten as the other part's. Before: not read.
#[test]
fn an_amp_for_email_part_is_html() {
    let message = b"MIME-Version: 1.0\r\nContent-Base: http://h.example/news/\r\n\
Content-Type: multipart/alternative; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/x-amp-html; charset=utf-8\r\n\r\n<!doctype html><html \xE2\x9A\xA14email><a href=offer.html>o</a></html>\r\n\
--b\r\nContent-Type: text/html\r\n\r\n<a href=offer.html>o</a>\r\n--b--\r\n";
    let out = absolve(&["rewrite"], message);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.matches("<a href=http://h.example/news/offer.html>")
            .count(),
        2,
        "{text}"
    );
}
