//! The MIME walk in the library: deep nesting stops at the depth limit with a
//! warning (no stack overflow, every other part intact), nested encapsulated messages and
//! RFC 2231 boundaries are walked, nothing is skipped without a warning, and a message is
//! written out and its links reported as they are found.

use crate::common::alternating;
use absolve::base::Base;
use absolve::mime::walk::MAX_DEPTH;
use absolve::mime::{self, Warning};
use absolve::{Link, Problem, Sink};
use std::io;

/// Everything a walk reports, in order.
#[derive(Default)]
struct Recorded {
    output: Vec<u8>,
    links: Vec<(String, String)>,
    warnings: Vec<Warning>,
    /// How many bytes were out when each link was reported.
    out_at_link: Vec<usize>,
}

impl Sink for Recorded {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.output.extend_from_slice(bytes);
        Ok(())
    }
    fn link(&mut self, link: Link) {
        let part = link
            .location
            .part
            .as_deref()
            .expect("a link in a message names its part");
        self.links.push((part.to_owned(), link.resolved));
        self.out_at_link.push(self.output.len());
    }
    fn warning(&mut self, warning: absolve::Warning) {
        match warning.problem {
            Problem::Mime(warning) => self.warnings.push(warning),
            problem => panic!("not a MIME warning: {problem:?}"),
        }
    }
}

fn base() -> Base {
    Base::retrieval_url("http://h/a/b").unwrap()
}

fn write(message: &[u8]) -> Recorded {
    let mut recorded = Recorded::default();
    mime::write_message(message, 1, &base(), &Default::default(), &mut recorded).unwrap();
    recorded
}

fn too_deep(warnings: &[Warning]) -> usize {
    warnings
        .iter()
        .filter(|w| w.to_string().contains("levels deep"))
        .count()
}

#[test]
fn ten_thousand_alternating_levels_stop_at_the_limit_with_one_warning() {
    let message = alternating(10_000);
    let done = write(&message);
    assert!(done.output == message, "the deep message is passed through");
    assert_eq!(too_deep(&done.warnings), 1, "{:?}", done.warnings);
    assert_eq!(done.warnings.len(), 1);
    assert!(done.links.is_empty());
}

#[test]
fn alternating_levels_within_the_limit_are_walked_to_the_bottom() {
    // Each level is two entities deep (the part, then its encapsulated message).
    let levels = MAX_DEPTH / 2 - 1;
    let done = write(&alternating(levels));
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    assert_eq!(done.links.len(), 1);
    assert_eq!(done.links[0].1, "http://h/a/deep");
    assert_eq!(done.links[0].0, vec!["1"; levels + 1].join("."));
}

/// Plain multiparts nested past the limit: the shallow parts beside them are rewritten
/// (mailparse used to give up on the whole message).
#[test]
fn deep_plain_multiparts_leave_the_parts_beside_them_intact() {
    let depth = MAX_DEPTH + 50;
    let mut message = b"Content-Type: multipart/mixed; boundary=top\r\n\r\n--top\r\nContent-Type: text/html\r\n\r\n<a href=first>\r\n--top\r\n".to_vec();
    for i in 0..depth {
        message.extend(
            format!("Content-Type: multipart/mixed; boundary=d{i:04}x\r\n\r\n--d{i:04}x\r\n")
                .as_bytes(),
        );
    }
    message.extend_from_slice(b"Content-Type: text/html\r\n\r\n<a href=deep>");
    for i in (0..depth).rev() {
        message.extend(format!("\r\n--d{i:04}x--").as_bytes());
    }
    message.extend_from_slice(
        b"\r\n--top\r\nContent-Type: text/html\r\n\r\n<a href=last>\r\n--top--\r\n",
    );
    let done = write(&message);
    let text = String::from_utf8(done.output).unwrap();
    assert!(text.contains("<a href=http://h/a/first>"));
    assert!(text.contains("<a href=http://h/a/last>"));
    assert!(
        text.contains("<a href=deep>"),
        "beyond the limit: unchanged"
    );
    assert_eq!(too_deep(&done.warnings), 1, "{:?}", done.warnings);
    let paths: Vec<_> = done.links.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["1", "3"]);
}

#[test]
fn an_encapsulated_message_whose_body_is_encapsulated_at_the_top_level() {
    let message = b"Content-Type: message/rfc822\r\n\r\nContent-Type: message/rfc822\r\nContent-Base: http://in/\r\n\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n";
    let done = write(message);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    assert_eq!(done.links, [("1.1.1".to_owned(), "http://in/x".to_owned())]);
    assert!(done.output.ends_with(b"<a href=http://in/x>\r\n"));
}

#[test]
fn an_encapsulated_message_whose_body_is_encapsulated_inside_a_multipart() {
    let message = b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b\r\nContent-Type: message/rfc822\r\n\r\nContent-Type: message/rfc822\r\n\r\nSubject: in\r\nContent-Type: text/html\r\n\r\n<img src=i.png>\r\n--b--\r\n";
    let done = write(message);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    assert_eq!(
        done.links,
        [("2.1.1".to_owned(), "http://h/a/i.png".to_owned())]
    );
    assert!(
        String::from_utf8(done.output)
            .unwrap()
            .contains("<img src=http://h/a/i.png>\r\n--b--")
    );
}

fn html_in_multipart(content_type: &str, boundary: &str) -> Vec<u8> {
    format!("Content-Type: {content_type}\r\n\r\n--{boundary}\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--{boundary}--\r\n").into_bytes()
}

/// That `done` read one HTML part, `1`, whose one link `x` became `http://h/a/x`, with no
/// warning (`case` names the input in a failure).
fn one_link_read(done: &Recorded, case: &str) {
    assert!(done.warnings.is_empty(), "{case}: {:?}", done.warnings);
    assert_eq!(
        done.links,
        [("1".to_owned(), "http://h/a/x".to_owned())],
        "{case}"
    );
}

#[test]
fn an_rfc2231_boundary_with_a_charset_mailparse_does_not_know() {
    for content_type in [
        "multipart/mixed; boundary*=\"ansi-x3.4-1968''XYZ\"",
        "multipart/mixed;\r\n boundary*0*=ansi-x3.4-1968''X; boundary*1*=%59Z",
        "multipart/mixed; boundary*0=\"X\"; boundary*1=\"YZ\"",
    ] {
        let done = write(&html_in_multipart(content_type, "XYZ"));
        one_link_read(&done, content_type);
    }
}

/// RFC 2045 §5.1 and §6.1 fields are structured (RFC 822 §3.4.3): a comment may follow
/// any token, as in the RFC's own `Content-type: text/plain; charset=us-ascii (Plain text)`.
/// The comments were read as part of the media type, the boundary and the encoding: the
/// parts passed through with their links unlisted (found by the Python `email` fuzz).
#[test]
fn comments_in_content_type_and_transfer_encoding_are_no_part_of_their_values() {
    for (heading, body) in [
        ("Content-Type: text/html (HTML)", "<a href=x>"),
        (
            "Content-Type: text/html; charset=us-ascii (Plain text)",
            "<a href=x>",
        ),
        (
            "Content-Type: text/html\r\nContent-Transfer-Encoding: base64 (encoded)",
            "PGEgaHJlZj14Pg==\r\n",
        ),
        (
            "Content-Type: text/html; charset=\"utf-8\" (c)\r\nContent-Transfer-Encoding: (c) quoted-printable",
            "<a href=3Dx>\r\n",
        ),
    ] {
        let done = write(format!("{heading}\r\n\r\n{body}").as_bytes());
        one_link_read(&done, heading);
    }
    let message = b"Content-Type: multipart/related; boundary=b (a comment)\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--b--\r\n";
    let done = write(message);
    one_link_read(&done, "");
    // A parenthesis inside a quoted boundary (RFC 2046 §5.1.1 allows them) is no comment.
    let done = write(&html_in_multipart(
        "multipart/mixed; boundary=\"(x) y\"",
        "(x) y",
    ));
    one_link_read(&done, "");
}

/// An empty charset parameter (`charset=""`, `charset=`, as mailers filling it from an
/// empty variable write it) names no charset: the part is read as one without the
/// parameter (RFC 2045 §5.2), not passed through as in an unknown charset "" with its
/// links unlisted, as it was (found by the Python `email` fuzz, which reads it so).
#[test]
fn an_empty_charset_parameter_is_no_charset() {
    for content_type in [
        "text/html; charset=\"\"",
        "text/html; charset=",
        "text/html; charset=\" \"",
    ] {
        let done = write(format!("Content-Type: {content_type}\r\n\r\n<a href=x>").as_bytes());
        one_link_read(&done, content_type);
    }
}

/// A quoted-printable line that grew is wrapped anew: a soft line break must not leave
/// `From ` at the start of a line, which an mbox reader (Python's mailbox, mboxo readers,
/// MimeKit) takes for the next message's separator. RFC 2049 §3 (8): write it `=46rom `.
/// The rewrite of an mbox made by Python's mailbox read back with one message more than
/// it had (found by the Python `mailbox` fuzz).
#[test]
fn quoted_printable_wrapped_anew_starts_no_line_with_from() {
    for pad in 0..80 {
        let text = format!("<a href=x>{} From me 1 2", "a".repeat(pad));
        let message = format!(
            "Content-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{}\r\n",
            text.replace('=', "=3D")
        );
        let done = write(message.as_bytes());
        assert!(done.warnings.is_empty(), "{pad}: {:?}", done.warnings);
        assert_eq!(done.links, [("1".to_owned(), "http://h/a/x".to_owned())]);
        let out = String::from_utf8(done.output).unwrap();
        assert!(
            !out.split("\r\n").any(|line| line.starts_with("From ")),
            "{pad}: {out}"
        );
        let decoded = mailparse::parse_mail(out.as_bytes())
            .unwrap()
            .get_body()
            .unwrap();
        assert_eq!(
            decoded.trim_end(),
            text.replace("href=x", "href=http://h/a/x"),
            "{pad}"
        );
    }
}

fn warned(message: &[u8], expected: &str) -> Recorded {
    let done = write(message);
    assert!(
        done.warnings
            .iter()
            .any(|w| w.to_string().contains(expected)),
        "expected {expected:?} in {:?}",
        done.warnings
    );
    assert!(done.output == message, "passed through unchanged");
    done
}

#[test]
fn what_is_not_walked_is_warned_about() {
    warned(
        b"Content-Type: multipart/mixed\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--b--\r\n",
        "without a boundary parameter",
    );
    warned(
        b"Content-Type: multipart/mixed; boundary=zz\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n",
        "without any boundary line",
    );
    warned(
        b"Content-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\nQ29udGVudC1UeXBlOiB0ZXh0L2h0bWwNCg0KPGEgaHJlZj14Pg==\r\n",
        "transfer encoding",
    );
}

/// A multipart inside a signed one is walked: its HTML listed, with a warning, unchanged.
#[test]
fn parts_nested_inside_a_signed_multipart_are_listed_and_left_whole() {
    let message = b"Content-Type: multipart/signed; boundary=s; protocol=\"application/pgp-signature\"\r\n\r\n--s\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--a--\r\n\r\n--s\r\nContent-Type: application/pgp-signature\r\n\r\nSIG\r\n--s--\r\n";
    let done = warned(message, "inside multipart/signed");
    assert_eq!(done.links, [("1.1".to_owned(), "http://h/a/x".to_owned())]);
}

/// Links are reported while the part is being written, not after the whole message.
#[test]
fn links_are_reported_as_they_are_found() {
    let filler = "<p>filler</p>\n".repeat(20_000);
    let message = format!(
        "Content-Type: text/html\r\n\r\n<a href=first>{filler}<a href=second>{filler}<a href=third>\r\n"
    );
    let done = write(message.as_bytes());
    assert_eq!(done.links.len(), 3);
    assert!(
        done.out_at_link[1] > 100_000 && done.out_at_link[1] < done.output.len() - 100_000,
        "output was written between the links: {:?} of {}",
        done.out_at_link,
        done.output.len()
    );
    let in_memory = mime::rewrite_message(
        message.as_bytes(),
        1,
        &base(),
        &Default::default(),
        &mut Recorded::default(),
    );
    assert_eq!(in_memory, done.output);
}

/// An unchanged part comes out as its original bytes, whatever its transfer encoding
/// (base64 with odd line widths included).
#[test]
fn unchanged_encoded_parts_come_out_byte_for_byte() {
    let message = b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\nPGEgaHJlZj0iaHR0cDov\r\nL2gveCI+\r\n--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<a href=3D\"http://h/y\">=\r\n</a>\r\n--b--\r\n";
    let done = write(message);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    assert_eq!(done.links.len(), 2);
    assert!(done.output == message);
}

/// Multiparts nested in one whose boundary is a prefix of their own (`x`, then `xy`, then
/// `xyz`, as MimeKit's test mbox has them) are walked as Python's `email`, MimeKit and
/// Thunderbird walk them: a delimiter line holds its boundary whole (RFC 2046 §5.1.1), so
/// `--xy` does not close a part of the multipart whose boundary is `x`. It did: the outer
/// part ended at `--xy`, the inner multiparts were passed through with a warning and the
/// link in the innermost part was not listed.
#[test]
fn a_boundary_that_is_a_prefix_of_an_inner_one_is_no_delimiter_in_it() {
    let message = b"Content-Type: multipart/mixed; boundary=\"x\"\r\n\r\n\
        --x\r\nContent-Type: multipart/mixed; boundary=\"xy\"\r\n\r\n\
        --xy\r\nContent-Type: multipart/alternative; boundary=\"xyz\"\r\n\r\n\
        --xyz\r\nContent-Type: text/html\r\n\r\n<a href=one>\r\n\
        --xyz--\r\n--xy \r\nContent-Type: text/html\r\n\r\n<a href=two>\r\n\
        --xy--\t\r\n--x\r\nContent-Type: text/html\r\n\r\n<a href=three>\r\n--x--\r\n";
    let done = write(message);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    let links: Vec<_> = done
        .links
        .iter()
        .map(|(p, l)| (p.as_str(), l.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("1.1.1", "http://h/a/one"),
            ("1.2", "http://h/a/two"),
            ("2", "http://h/a/three")
        ]
    );
    let out = String::from_utf8(done.output).unwrap();
    let expected = String::from_utf8(message.to_vec())
        .unwrap()
        .replace("href=one", "href=http://h/a/one")
        .replace("href=two", "href=http://h/a/two")
        .replace("href=three", "href=http://h/a/three");
    assert_eq!(out, expected);
}
