//! A whole input held in memory: an HTML page, a stylesheet, one MIME message (an `.eml`,
//! an MHTML page), an mbox archive or a WARC file, given as bytes, rewritten
//! ([`rewrite`]) or listed ([`links`]) in one call through the one
//! [`pipeline`], as `absolve rewrite` and `absolve links` treat a file.
//!
//! The format is [`Options::with_format`]'s, or told apart by content
//! ([`format::detect`](crate::format::detect) on the first 64 KiB); a stylesheet is never
//! told by content, only named. Each link says where it is
//! ([`Link::location`](crate::Link::location)): its message number and MIME part in a
//! message or an mbox, its record in a WARC file; each [`Warning`] too. Only a WARC file
//! that cannot be read at all is an [`Error`].
//!
//! ```
//! use absolve::{document, Options};
//!
//! let options = Options::new().with_url("http://h/d/p.html")?; // RFC 1808 §3.3
//! let message = b"Content-Type: text/html\r\n\r\n<a href=../x>";
//! let found = document::links(message, &options)?;
//! assert_eq!(found.format, absolve::format::Format::Mime);
//! let link = &found.links[0];
//! assert_eq!((link.location.message, link.location.part.as_deref()), (Some(1), Some("1")));
//! assert_eq!(link.resolved, "http://h/x");
//!
//! let done = document::rewrite(message, &options)?;
//! assert_eq!(done.output, b"Content-Type: text/html\r\n\r\n<a href=http://h/x>");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::format::Format;
use crate::links::Link;
use crate::pipeline::{self, Input};
use crate::{Collected, Error, Options, Warning};

/// A document rewritten: its bytes with every link made absolute, and its warnings.
///
/// ```
/// use absolve::document::{self, Rewritten};
/// use absolve::{format::Format, Options};
///
/// let options = Options::new().with_url("http://h/a/")?.with_format(Some(Format::Html));
/// let done: Rewritten = document::rewrite(b"<img src=i.png>", &options)?;
/// assert_eq!(done.format, Format::Html);
/// assert_eq!(done.output, b"<img src=http://h/a/i.png>");
/// assert!(done.warnings.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rewritten {
    /// The format the document was read as: the one given, or the one detected.
    pub format: Format,
    /// The rewritten document: every byte outside a changed URL as it was.
    pub output: Vec<u8>,
    /// What was wrong in the document without stopping the rewrite, in order.
    pub warnings: Vec<Warning>,
}

/// The links of a document, in document order, each located, and its warnings.
///
/// ```
/// use absolve::document::{self, Found};
/// use absolve::Options;
///
/// let found: Found = document::links(b"<a href=b>", &Options::new().with_url("http://h/a/")?)?;
/// assert_eq!(found.links[0].resolved, "http://h/a/b");
/// assert_eq!(found.links[0].location.message, None);
/// assert!(found.warnings.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// The format the document was read as: the one given, or the one detected.
    pub format: Format,
    /// Every URL, in document order.
    pub links: Vec<Link>,
    /// What was wrong in the document without stopping the reading, in order.
    pub warnings: Vec<Warning>,
}

/// Makes every link of `document` absolute: the new bytes, and the warnings.
///
/// `options`: its format (or `None` to tell it by content), the URL it was retrieved
/// from (RFC 1808 §3.3; without one, §3.4 unless the document names its own). A
/// message's own headers and an HTML `<base href>` come before it (§3.1, §3.2), and a
/// WARC's pages take it from their records' `WARC-Target-URI` instead.
///
/// ```
/// use absolve::{document, Options};
///
/// let options = Options::new().with_url("http://h/d/p.html")?;
/// let done = document::rewrite(br#"<a href="../x">x</a>"#, &options)?;
/// assert_eq!(done.output, br#"<a href="http://h/x">x</a>"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite(document: &[u8], options: &Options) -> Result<Rewritten, Error> {
    let mut sink = Collected::output_only();
    sink.output.reserve(document.len() + document.len() / 8);
    let summary = pipeline::run(Input::Bytes(document), options, &mut sink)?;
    Ok(Rewritten {
        format: summary.format,
        output: sink.output,
        warnings: sink.warnings,
    })
}

/// Every URL of `document`, in document order, each located, and the warnings. The
/// arguments are those of [`rewrite`]; the rewritten bytes are not built.
///
/// ```
/// use absolve::base::BaseSource;
/// use absolve::{document, Options};
///
/// let options = Options::new().with_url("http://h/d/p.html")?;
/// let page = br#"<img srcset="a.png 1x, b.png 2x"><base href="/s/">"#;
/// let found = document::links(page, &options)?;
/// let resolved: Vec<_> = found.links.iter().map(|l| l.resolved.as_str()).collect();
/// assert_eq!(resolved, ["http://h/s/a.png", "http://h/s/b.png", "http://h/s/"]);
/// assert_eq!(found.links[0].base_from, BaseSource::BaseElement);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn links(document: &[u8], options: &Options) -> Result<Found, Error> {
    let mut sink = Collected::links_only();
    let summary = pipeline::run(Input::Bytes(document), options, &mut sink)?;
    Ok(Found {
        format: summary.format,
        links: sink.links,
        warnings: sink.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Base, BaseSource};
    use crate::{Problem, html, mime, warc};

    fn base(url: &str) -> Base {
        Base::retrieval_url(url).unwrap()
    }

    /// The tests' calls: a format (or `None`) and a retrieval URL (or none).
    fn options() {}

    fn with(format: Option<Format>, base: &Base) -> Options {
        Options::new().with_base(base.clone()).with_format(format)
    }

    fn links(document: &[u8], format: Option<Format>, base: &Base, _: &()) -> Result<Found, Error> {
        super::links(document, &with(format, base))
    }

    fn rewrite(
        document: &[u8],
        format: Option<Format>,
        base: &Base,
        _: &(),
    ) -> Result<Rewritten, Error> {
        super::rewrite(document, &with(format, base))
    }

    /// `(element, resolved)` of each link.
    fn pairs(found: &Found) -> Vec<(&str, &str)> {
        found
            .links
            .iter()
            .map(|l| (l.element.as_str(), l.resolved.as_str()))
            .collect()
    }

    /// A WARC `response` record for `uri` with an HTML body.
    fn response(id: &str, uri: &str, body: &str) -> String {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: {id}\r\n\
             WARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\n\
             Content-Length: {}\r\n\r\n{http}\r\n\r\n",
            http.len()
        )
    }

    #[test]
    fn html_is_rewritten_and_listed_against_its_base_element_wherever_it_is() {
        let page = b"<a href=x><base href=/s/><img src=i.png>";
        let outer = base("http://h/d/p.html");
        let done = rewrite(page, Some(Format::Html), &outer, &options()).unwrap();
        assert_eq!(
            done.output,
            b"<a href=http://h/s/x><base href=http://h/s/><img src=http://h/s/i.png>"
        );
        assert_eq!(done.format, Format::Html);
        let found = links(page, Some(Format::Html), &outer, &options()).unwrap();
        assert_eq!(
            pairs(&found),
            [
                ("a", "http://h/s/x"),
                ("base", "http://h/s/"),
                ("img", "http://h/s/i.png")
            ]
        );
        assert!(found.links.iter().all(|l| l.location.message.is_none()));
        assert_eq!(found.links[0].base_from, BaseSource::BaseElement);
    }

    #[test]
    fn html_without_a_base_element_uses_the_retrieval_url() {
        let found = links(b"<a href=b>", None, &base("http://h/a/"), &options()).unwrap();
        assert_eq!(found.links[0].base_from, BaseSource::RetrievalUrl);
        assert_eq!(pairs(&found), [("a", "http://h/a/b")]);
    }

    #[test]
    fn html_warnings_are_the_rewriters() {
        let page = b"<base href=\"javascript:x\"><a href=b>";
        let found = links(page, None, &base("http://h/"), &options()).unwrap();
        let done = rewrite(page, None, &base("http://h/"), &options()).unwrap();
        assert_eq!(found.warnings, done.warnings);
        assert!(matches!(
            &found.warnings[..],
            [Warning {
                problem: Problem::Html(html::Warning::UnusableBase(_)),
                ..
            }]
        ));
    }

    #[test]
    fn a_mime_message_locates_its_links_by_message_1_and_part() {
        let message = b"Content-Base: http://h/d/\r\n\
            Content-Type: multipart/related; boundary=b\r\n\r\n\
            --b\r\nContent-Type: text/plain\r\n\r\nhi\r\n\
            --b\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n--b--\r\n";
        let found = links(message, None, &base("http://other/"), &options()).unwrap();
        assert_eq!(found.format, Format::Mime);
        assert_eq!(pairs(&found), [("a", "http://h/d/x")]);
        let link = &found.links[0];
        assert_eq!(link.location.message, Some(1));
        assert_eq!(link.location.part.as_deref(), Some("2"));
        // §3.2: the message's Content-Base encapsulates the part.
        assert_eq!(link.base_from, BaseSource::Encapsulating);
        let done = rewrite(message, None, &base("http://other/"), &options()).unwrap();
        let text = String::from_utf8(done.output).unwrap();
        assert!(
            text.ends_with("<a href=http://h/d/x>\r\n--b--\r\n"),
            "{text}"
        );
    }

    #[test]
    fn an_mbox_numbers_its_messages_and_keeps_the_bytes_before_the_first_separator() {
        let archive = b"stray bytes\n\n\
            From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=one>\n\n\
            From c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html\n\
            Content-Length: 13\n\n<a href=two>\n";
        let outer = base("http://h/");
        let found = links(archive, Some(Format::Mbox), &outer, &options()).unwrap();
        // The bytes before the first separator are no message: the first one is 1.
        let numbered: Vec<_> = found
            .links
            .iter()
            .map(|l| {
                (
                    l.location.message,
                    l.location.part.as_deref(),
                    l.resolved.as_str(),
                )
            })
            .collect();
        assert_eq!(
            numbered,
            [
                (Some(1), Some("1"), "http://h/one"),
                (Some(2), Some("1"), "http://h/two")
            ]
        );
        let done = rewrite(archive, Some(Format::Mbox), &outer, &options()).unwrap();
        let text = String::from_utf8(done.output).unwrap();
        assert_eq!(
            text,
            "stray bytes\n\n\
             From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=http://h/one>\n\n\
             From c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html\n\
             Content-Length: 22\n\n<a href=http://h/two>\n"
        );
        // Named an mbox though it does not start like one: said, as the CLI says it.
        let [Warning { problem, .. }] = &done.warnings[..] else {
            panic!("{:?}", done.warnings);
        };
        assert!(matches!(
            problem,
            Problem::FormatMismatch {
                given: Format::Mbox,
                found: Format::Html
            }
        ));
    }

    #[test]
    fn an_mbox_of_two_messages_numbers_them_1_and_2() {
        let archive = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=one>\n\n\
            From c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html; charset=x-klingon\n\n<a href=two>\n";
        let found = links(archive, None, &base("http://h/"), &options()).unwrap();
        assert_eq!(found.format, Format::Mbox);
        assert_eq!(found.links.len(), 1);
        assert_eq!(found.links[0].location.message, Some(1));
        let [
            Warning {
                location,
                problem: Problem::Mime(warning),
            },
        ] = &found.warnings[..]
        else {
            panic!("{:?}", found.warnings);
        };
        assert_eq!(location.message, Some(2));
        assert!(matches!(warning, mime::Warning::PartUnchanged(part, _) if part == "1"));
        let text = found.warnings[0].to_string();
        assert!(text.starts_with("message 2: part 1: "), "{text}");
        assert!(text.ends_with(": passed through unchanged"), "{text}");
    }

    #[test]
    fn a_warc_locates_its_links_by_record_and_target_uri() {
        let warc = response("<urn:uuid:1>", "http://e/a/p.html", "<a href=b.html>")
            + &response("<urn:uuid:2>", "http://f/", "<img src=i.png>");
        let outer = base("http://unused/");
        let found = links(warc.as_bytes(), None, &outer, &options()).unwrap();
        assert_eq!(found.format, Format::Warc);
        let located: Vec<_> = found
            .links
            .iter()
            .map(|l| {
                (
                    l.location.record.as_deref(),
                    l.location.target_uri.as_deref(),
                    l.resolved.as_str(),
                )
            })
            .collect();
        assert_eq!(
            located,
            [
                (
                    Some("<urn:uuid:1>"),
                    Some("http://e/a/p.html"),
                    "http://e/a/b.html"
                ),
                (Some("<urn:uuid:2>"), Some("http://f/"), "http://f/i.png")
            ]
        );
        assert!(found.links.iter().all(|l| l.location.message.is_none()));
        let done = rewrite(warc.as_bytes(), None, &outer, &options()).unwrap();
        let text = String::from_utf8(done.output).unwrap();
        assert!(text.contains("<a href=http://e/a/b.html>"), "{text}");
        assert!(text.contains("<img src=http://f/i.png>"), "{text}");
    }

    #[test]
    fn a_warc_warning_names_its_record_and_an_unreadable_warc_is_an_error() {
        let bad = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:9>\r\n\
                   WARC-Target-URI: http://e/\r\nContent-Length: 500\r\n\r\nshort";
        let found = links(bad.as_bytes(), None, &Base::none(), &options()).unwrap();
        assert!(matches!(
            &found.warnings[..],
            [Warning {
                problem: Problem::Warc(warc::Warning::Truncated { .. }),
                ..
            }]
        ));
        let text = found.warnings[0].to_string();
        assert!(
            text.starts_with("record 1 <urn:uuid:9> (at byte 0): "),
            "{text}"
        );

        let not_warc = b"<p>hello";
        for result in [
            links(not_warc, Some(Format::Warc), &Base::none(), &options()).map(|_| ()),
            rewrite(not_warc, Some(Format::Warc), &Base::none(), &options()).map(|_| ()),
        ] {
            let error = result.unwrap_err();
            assert!(matches!(error, Error::Warc(warc::Error::NotWarc { .. })));
            assert!(error.to_string().starts_with("not a WARC file: "));
        }
    }

    #[test]
    fn a_stylesheet_is_only_read_as_one_when_named() {
        let css = b"a{background:url(../i.png)} @import 'x.css';";
        let outer = base("http://h/css/site.css");
        let done = rewrite(css, Some(Format::Css), &outer, &options()).unwrap();
        assert_eq!(
            done.output,
            b"a{background:url(http://h/i.png)} @import 'http://h/css/x.css';"
        );
        let found = links(css, Some(Format::Css), &outer, &options()).unwrap();
        assert_eq!(
            pairs(&found)
                .iter()
                .map(|(_, resolved)| *resolved)
                .collect::<Vec<_>>(),
            ["http://h/i.png", "http://h/css/x.css"]
        );
        // Not named: HTML, whose text holds no link.
        let auto = links(css, None, &outer, &options()).unwrap();
        assert_eq!((auto.format, auto.links.len()), (Format::Html, 0));
    }

    #[test]
    fn a_stylesheet_with_nothing_to_change_comes_back_whole() {
        let css = b"a{color:red}";
        let done = rewrite(css, Some(Format::Css), &Base::none(), &options()).unwrap();
        assert_eq!(done.output, css);
    }

    #[test]
    fn a_stylesheet_in_utf_16_is_rewritten_in_utf_16() {
        let utf16 = |text: &str| -> Vec<u8> {
            let units = "\u{FEFF}".chars().chain(text.chars()).collect::<String>();
            units.encode_utf16().flat_map(u16::to_le_bytes).collect()
        };
        let css = utf16("a{b:url(x.png)}");
        let outer = base("http://h/");
        let done = rewrite(&css, Some(Format::Css), &outer, &options()).unwrap();
        assert_eq!(done.output, utf16("a{b:url(http://h/x.png)}"));
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        let found = links(&css, Some(Format::Css), &outer, &options()).unwrap();
        // The offset of `x.png` in the stylesheet's own bytes (after the BOM).
        assert_eq!((found.links.len(), found.links[0].offset), (1, 2 + 2 * 8));
    }

    #[test]
    fn a_stylesheet_in_the_replacement_encoding_passes_through_with_a_warning() {
        let css = b"a{b:url(x.png)}";
        let outer = base("http://h/");
        let options = with(Some(Format::Css), &outer)
            .with_charset("iso-2022-kr")
            .unwrap();
        let done = super::rewrite(css, &options).unwrap();
        assert_eq!(done.output, css);
        assert_eq!(
            done.warnings,
            [Warning::new(Problem::Html(
                html::Warning::UnsupportedCharset("replacement")
            ))]
        );
        assert_eq!(
            done.warnings[0].to_string(),
            "documents in replacement are not supported: passed through unchanged"
        );
    }

    #[test]
    fn the_format_is_detected_from_the_content() {
        let warc = response("<urn:uuid:1>", "http://h/", "<a href=x>");
        let cases: [(&[u8], Format); 4] = [
            (b"<p><a href=x>", Format::Html),
            (
                b"Subject: x\r\nContent-Type: text/html\r\n\r\n<a href=x>",
                Format::Mime,
            ),
            (
                b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x>\n",
                Format::Mbox,
            ),
            (warc.as_bytes(), Format::Warc),
        ];
        for (document, format) in cases {
            let found = links(document, None, &base("http://h/"), &options()).unwrap();
            assert_eq!(found.format, format);
            assert_eq!(pairs(&found), [("a", "http://h/x")], "{format:?}");
        }
    }

    #[test]
    fn a_named_format_wins_over_detection() {
        let message = b"Subject: x\r\n\r\n<a href=x>";
        let as_html = links(message, Some(Format::Html), &base("http://h/"), &options()).unwrap();
        assert_eq!(as_html.links[0].location.message, None);
        let as_mime = links(message, None, &base("http://h/"), &options()).unwrap();
        // A text/plain message (no Content-Type): no link.
        assert!(as_mime.links.is_empty());
    }
}
