//! A whole document held in memory, by format: an HTML page, a standalone stylesheet, one
//! MIME message (an `.eml`, an MHTML page), an mbox archive or a WARC file, given as bytes
//! with the URL it was retrieved from, rewritten ([`rewrite`]) or listed ([`links`]) in
//! one call, as `absolve rewrite` and `absolve links` treat a file.
//!
//! The format is the one given, or told apart by content ([`format::detect`] on the first
//! 64 KiB) when it is `None`; a stylesheet is never told by content, only named. Each link
//! comes with where it is ([`LocatedLink`]): its message number and MIME part in a message
//! or an mbox, its record in a WARC file. Each warning says where it is too ([`Warning`]).
//! Only a WARC file that cannot be read at all is an [`Error`].
//!
//! ```
//! use absolve::base::Base;
//! use absolve::document::{self, Options};
//!
//! let base = Base::retrieval_url("http://h/d/p.html").unwrap(); // RFC 1808 §3.3
//! let message = b"Content-Type: text/html\r\n\r\n<a href=../x>";
//! let found = document::links(message, None, &base, &Options::default()).unwrap();
//! assert_eq!(found.format, absolve::format::Format::Mime);
//! let link = &found.links[0];
//! assert_eq!((link.message, link.part.as_deref()), (Some(1), Some("1")));
//! assert_eq!(link.link.resolved, "http://h/x");
//!
//! let done = document::rewrite(message, None, &base, &Options::default()).unwrap();
//! assert_eq!(done.output, b"Content-Type: text/html\r\n\r\n<a href=http://h/x>");
//! ```

use crate::base::Base;
use crate::format::{self, Format};
use crate::links::{Link, Located};
use crate::mime::{self, Part, Report};
use crate::{css, html, warc};
use std::sync::Arc;

/// How a document is read: [`html`](warc::Options::html), the options of every HTML or
/// CSS text in it, and [`http_base_headers`](warc::Options::http_base_headers), which
/// only a WARC file's records use. The same struct as [`warc::Options`].
///
/// ```
/// use absolve::document::Options;
///
/// let options = Options {
///     html: absolve::html::Options::default().with_content_type("text/html; charset=utf-8"),
///     http_base_headers: false,
/// };
/// assert_eq!(options.html.charset, Some(encoding_rs::UTF_8));
/// ```
pub type Options = warc::Options;

/// How much of a document [`format::detect`] looks at when no format is given.
const DETECT_BYTES: usize = 64 * 1024;

/// A document rewritten: its bytes with every link made absolute, and its warnings.
///
/// ```
/// use absolve::base::Base;
/// use absolve::document::{self, Options, Rewritten};
/// use absolve::format::Format;
///
/// let base = Base::retrieval_url("http://h/a/").unwrap();
/// let done: Rewritten = document::rewrite(b"<img src=i.png>", Some(Format::Html), &base, &Options::default()).unwrap();
/// assert_eq!(done.format, Format::Html);
/// assert_eq!(done.output, b"<img src=http://h/a/i.png>");
/// assert!(done.warnings.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
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
/// use absolve::base::Base;
/// use absolve::document::{self, Found, Options};
///
/// let base = Base::retrieval_url("http://h/a/").unwrap();
/// let found: Found = document::links(b"<a href=b>", None, &base, &Options::default()).unwrap();
/// assert_eq!(found.links[0].link.resolved, "http://h/a/b");
/// assert_eq!(found.links[0].message, None);
/// assert!(found.warnings.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The format the document was read as: the one given, or the one detected.
    pub format: Format,
    /// Every URL, in document order.
    pub links: Vec<LocatedLink>,
    /// What was wrong in the document without stopping the reading, in order.
    pub warnings: Vec<Warning>,
}

/// A [`Link`] with where it is beyond its document: the message and part of a MIME
/// message or an mbox, the record of a WARC file (`None` where they do not apply).
///
/// ```
/// use absolve::base::Base;
/// use absolve::document::{self, Options};
///
/// let archive = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x>\n";
/// let base = Base::retrieval_url("http://h/").unwrap();
/// let found = document::links(archive, None, &base, &Options::default()).unwrap();
/// let link = &found.links[0];
/// assert_eq!((link.message, link.part.as_deref(), link.record.as_deref()), (Some(1), Some("1"), None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatedLink {
    /// The URL, where it is in its document and what it resolves to.
    pub link: Link,
    /// The message number, from 1 (1 for a lone message), as `absolve links` numbers it.
    pub message: Option<usize>,
    /// The IMAP part number of the MIME part the link is in (`1`, `1.2`).
    pub part: Option<String>,
    /// The `WARC-Record-ID` of the record the link is in (shared by its links).
    pub record: Option<Arc<str>>,
    /// That record's `WARC-Target-URI`, the page's URL (a record may have none).
    pub target_uri: Option<Arc<str>>,
}

impl LocatedLink {
    /// A link of an HTML document or a stylesheet: no message, part or record.
    fn bare(link: Link) -> Self {
        LocatedLink {
            link,
            message: None,
            part: None,
            record: None,
            target_uri: None,
        }
    }

    /// The link as `absolve links` prints it (without a file name): a [`Located`] view
    /// for JSON.
    ///
    /// ```
    /// use absolve::base::Base;
    /// use absolve::document::{self, Options};
    ///
    /// let message = b"Content-Type: text/html\r\n\r\n<a href=x>";
    /// let base = Base::retrieval_url("http://h/").unwrap();
    /// let found = document::links(message, None, &base, &Options::default()).unwrap();
    /// let line = serde_json::to_string(&found.links[0].located()).unwrap();
    /// assert!(line.starts_with(r#"{"message":1,"part":"1","record":null,"target_uri":null,"element":"a""#));
    /// ```
    pub fn located(&self) -> Located<'_> {
        Located {
            file: None,
            message: self.message,
            part: self.part.as_deref(),
            record: self.record.as_deref(),
            target_uri: self.target_uri.as_deref(),
            link: &self.link,
        }
    }
}

/// A link of a WARC record: located by the record's ID and target URI.
///
/// ```
/// use absolve::document::LocatedLink;
/// use absolve::warc::RecordLink;
///
/// let link = absolve::html::links(b"<a href=x>", &absolve::base::Base::none(), &Default::default()).remove(0);
/// let found = RecordLink { record: Some("<urn:uuid:1>".into()), target_uri: None, link };
/// assert_eq!(LocatedLink::from(found).record.as_deref(), Some("<urn:uuid:1>"));
/// ```
impl From<warc::RecordLink> for LocatedLink {
    fn from(found: warc::RecordLink) -> Self {
        LocatedLink {
            link: found.link,
            message: None,
            part: None,
            record: found.record,
            target_uri: found.target_uri,
        }
    }
}

/// Something wrong in a document that did not stop the rewrite or the listing, with
/// where it is: each variant's text says it as the CLI and the Python binding say it.
///
/// ```
/// use absolve::base::Base;
/// use absolve::document::{self, Options, Warning};
///
/// let message = b"Content-Type: text/html; charset=x-klingon\r\n\r\n<a href=b>";
/// let done = document::rewrite(message, None, &Base::none(), &Options::default()).unwrap();
/// assert_eq!(done.output, message);
/// assert!(matches!(&done.warnings[..], [Warning::Message { message: 1, .. }]));
/// assert!(done.warnings[0].to_string().starts_with("message 1: part 1: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    /// About an HTML document or a stylesheet itself (a stylesheet in a charset that is
    /// not ASCII-compatible passes through with [`html::Warning::UnsupportedCharset`]).
    #[error(transparent)]
    Document(html::Warning),
    /// About a message of a MIME message or an mbox archive (or one of its parts).
    #[error("message {message}: {warning}")]
    Message {
        /// The message number, from 1.
        message: usize,
        /// What the MIME walk or rewrite said (it names the part).
        warning: mime::Warning,
    },
    /// About a WARC record (the warning names it).
    #[error(transparent)]
    Record(warc::Warning),
}

/// What stops the reading of a document: only a WARC file can fail (in memory, an HTML
/// page, a stylesheet, a message or an mbox is always read to its end, damage passed
/// through with a [`Warning`]).
///
/// ```
/// use absolve::base::Base;
/// use absolve::document::{self, Error, Options};
/// use absolve::format::Format;
///
/// let result = document::links(b"<p>not a WARC", Some(Format::Warc), &Base::none(), &Options::default());
/// assert!(matches!(result, Err(Error::Warc(absolve::warc::Error::NotWarc { .. }))));
/// assert!(result.unwrap_err().to_string().starts_with("not a WARC file: "));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The WARC file cannot be read on: it is not a WARC file, or its gzip data is
    /// damaged (the links and warnings before the damage are not returned).
    #[error(transparent)]
    Warc(#[from] warc::Error),
}

/// Makes every link of `document` absolute: the new bytes, and the warnings.
///
/// `format`: the document's format, or `None` to tell it by content. `base`: the URL the
/// document was retrieved from (RFC 1808 §3.3), or [`Base::none`] (§3.4); a message's
/// own headers and an HTML `<base href>` come before it (§3.1, §3.2), and a WARC's pages
/// take it from their records' `WARC-Target-URI` instead (it is not used for a WARC).
///
/// ```
/// use absolve::base::Base;
/// use absolve::document::{self, Options};
///
/// let base = Base::retrieval_url("http://h/d/p.html").unwrap();
/// let done = document::rewrite(br#"<a href="../x">x</a>"#, None, &base, &Options::default()).unwrap();
/// assert_eq!(done.output, br#"<a href="http://h/x">x</a>"#);
/// ```
pub fn rewrite(
    document: &[u8],
    format: Option<Format>,
    base: &Base,
    options: &Options,
) -> Result<Rewritten, Error> {
    let format = format.unwrap_or_else(|| detect(document));
    let outcome = process(document, format, base, options, Want::Output)?;
    Ok(Rewritten {
        format,
        output: outcome.output,
        warnings: outcome.warnings,
    })
}

/// Every URL of `document`, in document order, each located, and the warnings. The
/// arguments are those of [`rewrite`]; the rewritten bytes are not built.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::document::{self, Options};
///
/// let base = Base::retrieval_url("http://h/d/p.html").unwrap();
/// let page = br#"<img srcset="a.png 1x, b.png 2x"><base href="/s/">"#;
/// let found = document::links(page, None, &base, &Options::default()).unwrap();
/// let resolved: Vec<_> = found.links.iter().map(|l| l.link.resolved.as_str()).collect();
/// assert_eq!(resolved, ["http://h/s/a.png", "http://h/s/b.png", "http://h/s/"]);
/// assert_eq!(found.links[0].link.base_from, BaseSource::BaseElement);
/// ```
pub fn links(
    document: &[u8],
    format: Option<Format>,
    base: &Base,
    options: &Options,
) -> Result<Found, Error> {
    let format = format.unwrap_or_else(|| detect(document));
    let outcome = process(document, format, base, options, Want::Links)?;
    Ok(Found {
        format,
        links: outcome.links,
        warnings: outcome.warnings,
    })
}

/// The format of a document none was given for, told by its first bytes.
fn detect(document: &[u8]) -> Format {
    format::detect(&document[..document.len().min(DETECT_BYTES)])
}

/// What the caller wants out of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// The rewritten bytes.
    Output,
    /// The links.
    Links,
}

/// What a document gave: its rewritten bytes (when wanted), its links (when wanted), its
/// warnings.
#[derive(Debug, Default)]
struct Outcome {
    output: Vec<u8>,
    links: Vec<LocatedLink>,
    warnings: Vec<Warning>,
}

/// Processes `document` as `format`.
fn process(
    document: &[u8],
    format: Format,
    base: &Base,
    options: &Options,
    want: Want,
) -> Result<Outcome, Error> {
    match format {
        Format::Html => Ok(html_document(document, base, &options.html, want)),
        Format::Mime => Ok(message(document, base, &options.html, want)),
        Format::Mbox => Ok(mbox(document, base, &options.html, want)),
        Format::Warc => warc_file(document, options, want),
        Format::Css => Ok(stylesheet(document, base, &options.html, want)),
    }
}

/// A standalone stylesheet: its `url()` and `@import` values against the outer base, in
/// its charset (CSS Syntax §3.2), as `absolve rewrite --format css` does. A charset that
/// is not ASCII-compatible (UTF-16) passes through unchanged, with a warning.
fn stylesheet(document: &[u8], base: &Base, options: &html::Options, want: Want) -> Outcome {
    let encoding = css::stylesheet_encoding(document, options.charset);
    let mut outcome = Outcome::default();
    if !encoding.is_ascii_compatible() {
        let warning = html::Warning::UnsupportedCharset(encoding.name());
        outcome.warnings.push(Warning::Document(warning));
        if want == Want::Output {
            outcome.output = document.to_vec();
        }
        return outcome;
    }
    let mut found = Vec::new();
    let rewritten =
        html::rewrite_css_text(document, encoding, base, options, |link| found.push(link));
    match want {
        Want::Output => outcome.output = rewritten.unwrap_or_else(|| document.to_vec()),
        Want::Links => outcome.links = found.into_iter().map(LocatedLink::bare).collect(),
    }
    outcome
}

/// An HTML document: in memory, its `<base href>` (§3.1) found wherever it is; for its
/// links, [`html::list`], which does not build the rewritten bytes.
fn html_document(document: &[u8], base: &Base, options: &html::Options, want: Want) -> Outcome {
    let collected = match want {
        Want::Output => html::rewrite(document, base, options),
        Want::Links => html::list(document, base, options),
    };
    Outcome {
        output: collected.output,
        links: collected.links.into_iter().map(LocatedLink::bare).collect(),
        warnings: collected
            .warnings
            .into_iter()
            .map(Warning::Document)
            .collect(),
    }
}

/// One MIME message (an `.eml`, an MHTML page): message number 1, as the CLI numbers it.
fn message(document: &[u8], base: &Base, options: &html::Options, want: Want) -> Outcome {
    let mut outcome = Outcome::default();
    let rewritten = one_message(document, 1, base, options, want, &mut outcome);
    if want == Want::Output {
        outcome.output = rewritten;
    }
    outcome
}

/// An mbox archive, message by message; separator lines kept as they were, and a
/// `Content-Length` header moved by as much as its message grew. Messages are numbered
/// from 1, as the CLI numbers them; bytes before the first separator line, when there are
/// any, are kept and not read as a message (nor numbered).
fn mbox(document: &[u8], base: &Base, options: &html::Options, want: Want) -> Outcome {
    let mut outcome = Outcome::default();
    for entry in mime::mbox::Messages::new(document) {
        // Reading from memory cannot fail.
        let Ok(entry) = entry else { break };
        if want == Want::Output {
            outcome.output.extend_from_slice(&entry.separator);
        }
        let Some(number) = entry.number else {
            // Bytes before the first separator line are not a message: kept as they are.
            if want == Want::Output {
                outcome.output.extend_from_slice(&entry.message);
            }
            continue;
        };
        let rewritten = one_message(&entry.message, number, base, options, want, &mut outcome);
        if want == Want::Output {
            let updated = mime::mbox::update_content_length(&entry.message, rewritten);
            outcome.output.extend_from_slice(&updated);
        }
    }
    outcome
}

/// Rewrites message `number`, its links and warnings located by its number and parts.
/// The message's headers are the encapsulating base of its parts (§3.2), `base` the
/// retrieval URL around it (§3.3).
fn one_message(
    message: &[u8],
    number: usize,
    base: &Base,
    options: &html::Options,
    want: Want,
    outcome: &mut Outcome,
) -> Vec<u8> {
    let mut report = MessageReport {
        number,
        want,
        outcome,
    };
    mime::rewrite_message(message, base, options, &mut report)
}

/// Keeps a message's links and warnings, located by message number and part.
struct MessageReport<'a> {
    number: usize,
    want: Want,
    outcome: &'a mut Outcome,
}

impl Report for MessageReport<'_> {
    fn wants_links(&self) -> bool {
        self.want == Want::Links
    }
    fn link(&mut self, part: &Part, link: &Link) {
        self.outcome.links.push(LocatedLink {
            link: link.clone(),
            message: Some(self.number),
            part: Some(part.path.clone()),
            record: None,
            target_uri: None,
        });
    }
    fn warning(&mut self, warning: mime::Warning) {
        self.outcome.warnings.push(Warning::Message {
            message: self.number,
            warning,
        });
    }
}

/// A WARC file: each record's pages against their `WARC-Target-URI` (§3.3), the outer
/// base unused. The first error that stops the reading is returned, nothing else.
fn warc_file(document: &[u8], options: &Options, want: Want) -> Result<Outcome, Error> {
    let mut outcome = Outcome::default();
    match want {
        Want::Output => {
            let warnings = &mut outcome.warnings;
            warc::rewrite(document, &mut outcome.output, options, |warning| {
                warnings.push(Warning::Record(warning))
            })?;
        }
        Want::Links => {
            let mut links = warc::Links::new(document, options.clone());
            while let Some(found) = links.next() {
                let warnings = links.take_warnings().into_iter().map(Warning::Record);
                outcome.warnings.extend(warnings);
                outcome.links.push(LocatedLink::from(found?));
            }
            let warnings = links.take_warnings().into_iter().map(Warning::Record);
            outcome.warnings.extend(warnings);
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::BaseSource;

    fn base(url: &str) -> Base {
        Base::retrieval_url(url).unwrap()
    }

    fn options() -> Options {
        Options::default()
    }

    /// `(element, resolved)` of each link.
    fn pairs(found: &Found) -> Vec<(&str, &str)> {
        found
            .links
            .iter()
            .map(|l| (l.link.element.as_str(), l.link.resolved.as_str()))
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
        assert!(found.links.iter().all(|l| l.located().message.is_none()));
        assert_eq!(found.links[0].link.base_from, BaseSource::BaseElement);
    }

    #[test]
    fn html_without_a_base_element_uses_the_retrieval_url() {
        let found = links(b"<a href=b>", None, &base("http://h/a/"), &options()).unwrap();
        assert_eq!(found.links[0].link.base_from, BaseSource::RetrievalUrl);
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
            [Warning::Document(html::Warning::UnusableBase(_))]
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
        assert_eq!(link.message, Some(1));
        assert_eq!(link.part.as_deref(), Some("2"));
        // §3.2: the message's Content-Base encapsulates the part.
        assert_eq!(link.link.base_from, BaseSource::Encapsulating);
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
            .map(|l| (l.message, l.part.as_deref(), l.link.resolved.as_str()))
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
        assert!(done.warnings.is_empty());
    }

    #[test]
    fn an_mbox_of_two_messages_numbers_them_1_and_2() {
        let archive = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=one>\n\n\
            From c@d Tue Jan  2 00:00:00 2024\nContent-Type: text/html; charset=x-klingon\n\n<a href=two>\n";
        let found = links(archive, None, &base("http://h/"), &options()).unwrap();
        assert_eq!(found.format, Format::Mbox);
        assert_eq!(found.links.len(), 1);
        assert_eq!(found.links[0].message, Some(1));
        let [Warning::Message { message, warning }] = &found.warnings[..] else {
            panic!("{:?}", found.warnings);
        };
        assert_eq!(*message, 2);
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
                    l.record.as_deref(),
                    l.target_uri.as_deref(),
                    l.link.resolved.as_str(),
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
        assert!(found.links.iter().all(|l| l.message.is_none()));
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
            [Warning::Record(warc::Warning::Truncated { .. })]
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
    fn a_stylesheet_in_utf_16_passes_through_with_a_warning() {
        let css = b"\xFF\xFEa\0{\0}\0";
        let outer = base("http://h/");
        let done = rewrite(css, Some(Format::Css), &outer, &options()).unwrap();
        assert_eq!(done.output, css);
        assert_eq!(
            done.warnings,
            [Warning::Document(html::Warning::UnsupportedCharset(
                "UTF-16LE"
            ))]
        );
        assert_eq!(
            done.warnings[0].to_string(),
            "documents in UTF-16LE are not supported: passed through unchanged"
        );
        let found = links(css, Some(Format::Css), &outer, &options()).unwrap();
        assert!(found.links.is_empty());
        assert_eq!(found.warnings, done.warnings);
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
        assert_eq!(as_html.links[0].message, None);
        let as_mime = links(message, None, &base("http://h/"), &options()).unwrap();
        // A text/plain message (no Content-Type): no link.
        assert!(as_mime.links.is_empty());
    }
}
