//! MIME messages, MHTML pages and mbox archives: a walker over the parts of a message,
//! each with its effective base (RFC 1808 §3.1-§3.2, RFC 2110, RFC 2557), and the rewrite
//! and link listing built on it.
//!
//! Every byte outside a rewritten body stays as it was: headers, boundaries, preamble,
//! epilogue, other parts. An HTML (or CSS) part is decoded (transfer encoding, charset),
//! rewritten by [`crate::html`], and encoded again the same way; a part whose links are
//! already absolute comes out byte-identical.

pub mod emlx;
pub mod headers;
pub mod mbox;
pub mod mmdf;
pub mod transfer;
pub mod walk;

use crate::base::Base;
use crate::html::{self, Options};
use crate::links::{Link, Location};
use crate::pipeline::{self, Body, Kind};
use crate::sink::Sink;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use transfer::TransferEncoding;

/// One part of a message, as the walker reports it.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::mime::{parts, transfer::TransferEncoding};
///
/// let message = b"Content-Location: http://h/a/page.html\r\n\
/// Content-Type: text/html; charset=utf-8\r\n\
/// Content-Transfer-Encoding: quoted-printable\r\n\r\n<a href=3D\"b\">\r\n";
/// let (found, _) = parts(message, &Base::none());
/// let part = &found[0];
/// assert_eq!((part.path.as_str(), part.mime_type.as_str()), ("1", "text/html"));
/// assert_eq!(part.charset.as_deref(), Some("utf-8"));
/// assert_eq!(part.base.source(), BaseSource::ContentLocation);
/// assert_eq!(part.transfer_encoding, TransferEncoding::QuotedPrintable);
/// assert_eq!(&message[part.body.clone()], b"<a href=3D\"b\">\r\n");
/// assert!(part.untouchable.is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Part {
    /// The IMAP part number: `1`, `1.2`, `1.2.1`.
    pub path: String,
    /// The media type, lower case (`text/html`).
    pub mime_type: String,
    /// The `charset` parameter of its Content-Type, if it has one.
    pub charset: Option<String>,
    /// The part's effective base and where it came from.
    pub base: Base,
    /// The byte range of the (encoded) body in the message.
    pub body: Range<usize>,
    /// Its Content-Transfer-Encoding, undone before a rewrite and applied again after.
    pub transfer_encoding: TransferEncoding,
    /// Why the part must be passed through untouched, if it must.
    pub untouchable: Option<String>,
}

/// Something wrong in one part (or the whole message) that did not stop the rest.
///
/// ```
/// use absolve::base::Base;
/// use absolve::mime::Warning;
/// use absolve::{Collected, Problem};
///
/// let message = b"Content-Type: text/html; charset=x-klingon\r\n\r\n<a href=b>";
/// let base = Base::retrieval_url("http://h/")?;
/// let mut found = Collected::links_only();
/// let out = absolve::mime::rewrite_message(message, 1, &base, &Default::default(), &mut found);
/// assert_eq!(out, message);
/// let Problem::Mime(warning) = &found.warnings[0].problem else { panic!() };
/// assert!(matches!(warning, Warning::PartUnchanged(part, why) if part == "1" && why.contains("x-klingon")));
/// assert!(warning.to_string().starts_with("part 1: "));
/// assert!(warning.to_string().ends_with(": passed through unchanged"));
/// # Ok::<(), absolve::base::NotAbsolute>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// The message's heading does not parse: the whole message passes through.
    #[error("not a MIME message ({0}): passed through unchanged")]
    Unparsable(String),
    /// A part (by its number) left as it is, and why: a damaged encoding, an unknown
    /// charset, a signed or truncated part, or a structure that is not walked (nested
    /// past [`walk::MAX_DEPTH`], a multipart without a boundary, ...).
    #[error("part {0}: {1}: passed through unchanged")]
    PartUnchanged(String, String),
    /// No blank line ends the heading of a part (by its number): its body is read from
    /// the first line that is not a header field, at this byte offset in the message.
    #[error(
        "part {0}: no blank line ends its heading: its body is read from byte {1} of the \
         message, the first line that is not a header field (add the blank line where the \
         body starts if that is not it)"
    )]
    HeadingNotEnded(String, usize),
    /// An mbox message whose `Content-Length` (its value) covers a separator-like line at
    /// this byte offset of the archive, but does not end at a separator: the message is
    /// split at the line, as if it had no such header.
    #[error(
        "its Content-Length ({0}) covers the From_ line at byte {1} of the mbox but does \
         not end where a message does: split at that line (quote it as >From if it belongs \
         to the body)"
    )]
    ContentLengthNotTrusted(u64, u64),
    /// An mbox message whose `Content-Length` (its value) covers a separator-like line at
    /// this byte offset of the archive and counts past the most bytes of a message held
    /// ([`Options::with_max_held`](crate::Options::with_max_held)): not read ahead to
    /// check, the message is split at the line.
    #[error(
        "its Content-Length ({0}) covers the From_ line at byte {1} of the mbox but counts \
         past the {2} bytes of a message held in memory: not checked, split at that line \
         (quote it as >From if it belongs to the body)"
    )]
    ContentLengthTooLong(u64, u64, u64),
    /// An mbox message that no blank line ends: the From_ line right after its last line
    /// (at this byte offset of the archive) is followed by a heading, and is taken to
    /// start the next message (RFC 4155 wants a body's `From ` lines quoted). Said once
    /// per archive, for the first such line: later ones are split alike.
    #[error(
        "no blank line ends it: the From_ line at byte {0} of the mbox, right after its \
         last line, starts the next message since a heading follows it (quote it as >From \
         if it belongs to the body; later such lines in this mbox are split alike, not \
         reported)"
    )]
    NoBlankLineBeforeFromLine(u64),
    /// `--spec whatwg`: a base header of a part (by its number) that the URL Standard
    /// does not parse: passed over as a base, as a `<base href>` is.
    #[error("part {0}: its {1} header: {2}: passed over as a base")]
    UnusableBase(String, &'static str, crate::base::BaseError),
    /// A warning from the HTML rewriter about a part.
    #[error("part {0}: {1}")]
    Html(String, html::Warning),
    /// Apple Mail's `.emlx` whose first line gives the message's length (the first
    /// number) past the file's end (the second: the bytes after that line): the message
    /// is read from those, and the file is left as it is.
    #[error(
        "its first line gives the message's length as {0} bytes, but only {1} follow it \
         (an .emlx cut short?): links listed from those, the file left as it is"
    )]
    EmlxCutShort(u64, u64),
    /// Apple Mail's `.emlx` whose bytes after the message its first line counts (at this
    /// byte offset of the file) are not the property list Mail writes there: they pass
    /// through unchanged, and any links in them are not read.
    #[error(
        "the bytes from {0} on, after the message its first line counts, are not Apple \
         Mail's property list: passed through unchanged, not read (is the length on its \
         first line short?)"
    )]
    EmlxNoPropertyList(u64),
    /// The last message of an MMDF mailbox, which no line of four Control-A bytes ends:
    /// read to the end of the file.
    #[error(
        "no line of four Control-A bytes ends it: read to the end of the mailbox (a file \
         cut short?)"
    )]
    MmdfNotClosed,
    /// A part (by its number) that may hold the message's body in a form absolve does not
    /// read (what it is; what to do): Outlook's TNEF (`winmail.dat`), S/MIME, PGP/MIME
    /// encryption. It passes through unchanged.
    #[error(
        "part {0}: {1}: absolve does not read it, its links are neither listed nor \
         rewritten ({2})"
    )]
    NotRead(String, &'static str, &'static str),
}

/// Every leaf part of `message` (multiparts walked, `message/rfc822` bodies walked as
/// messages, to [`walk::MAX_DEPTH`] levels), in order, each with its effective base.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::mime::parts;
///
/// let message = b"Content-Base: http://h/d/\r\nContent-Type: multipart/related; boundary=b\r\n\r\n\
/// --b\r\nContent-Type: text/html\r\n\r\n<a href=x>\r\n\
/// --b\r\nContent-Type: image/png\r\nContent-Location: i.png\r\n\r\nPNG\r\n--b--\r\n";
/// let (found, warnings) = parts(message, &Base::none());
/// assert!(warnings.is_empty());
/// assert_eq!(found[0].path, "1");
/// assert_eq!((found[0].base.url(), found[0].base.source()), (Some("http://h/d/"), BaseSource::Encapsulating));
/// assert_eq!((found[1].base.url(), found[1].base.source()), (Some("http://h/d/i.png"), BaseSource::ContentLocation));
/// ```
pub fn parts(message: &[u8], outer: &Base) -> (Vec<Part>, Vec<Warning>) {
    #[derive(Default)]
    struct Collect(Vec<Part>, Vec<Warning>);
    impl walk::Visitor for Collect {
        fn part(&mut self, part: Part) {
            self.0.push(part);
        }
        fn warning(&mut self, warning: Warning) {
            self.1.push(warning);
        }
    }
    let mut collect = Collect::default();
    walk::walk(message, outer, crate::Standard::Rfc1808, &mut collect);
    (collect.0, collect.1)
}

/// Rewrites every HTML and CSS part of message `number` in memory; the rest of its bytes
/// are kept. Links and warnings go to `sink`, located by message number and part; the
/// sink's output is not used. [`write_message`] is the same, streaming.
///
/// ```
/// use absolve::base::Base;
/// use absolve::mime::rewrite_message;
/// use absolve::Collected;
///
/// let message = b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n<a href=x>\r\n";
/// let mut found = Collected::links_only();
/// let out = rewrite_message(message, 1, &Base::none(), &Default::default(), &mut found);
/// assert_eq!(out, b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n<a href=http://h/d/x>\r\n");
/// assert_eq!(found.links[0].location.part.as_deref(), Some("1"));
/// ```
pub fn rewrite_message(
    message: &[u8],
    number: usize,
    outer: &Base,
    options: &Options,
    sink: &mut dyn Sink,
) -> Vec<u8> {
    /// The output kept here; links and warnings passed on.
    struct Held<'s> {
        output: Vec<u8>,
        inner: &'s mut dyn Sink,
    }
    impl Sink for Held<'_> {
        fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
            self.output.extend_from_slice(bytes);
            Ok(())
        }
        fn link(&mut self, link: Link) {
            self.inner.link(link);
        }
        fn warning(&mut self, warning: crate::Warning) {
            self.inner.warning(warning);
        }
        fn wants_links(&self) -> bool {
            self.inner.wants_links()
        }
    }
    let mut held = Held {
        output: Vec::with_capacity(message.len() + message.len() / 8),
        inner: sink,
    };
    // Writing to memory cannot fail.
    let _ = write_message(message, number, outer, options, &mut held);
    held.output
}

/// Rewrites every HTML and CSS part of message `number` into `sink`'s
/// [`output`](Sink::output), part by part as the walk finds them; links and warnings
/// are reported as they are found, located by message number and part. Besides the
/// message, memory holds one decoded part at a time (none for a part without a transfer
/// encoding). Stops at the first error of the output.
///
/// ```
/// use absolve::base::Base;
/// use absolve::mime::write_message;
/// use absolve::Collected;
///
/// let message = b"Content-Base: http://h/\r\nContent-Type: text/html\r\n\r\n<img src=i.png>";
/// let mut out = Collected::default();
/// write_message(message, 1, &Base::none(), &Default::default(), &mut out)?;
/// assert_eq!(out.output, b"Content-Base: http://h/\r\nContent-Type: text/html\r\n\r\n<img src=http://h/i.png>");
/// assert_eq!(out.links[0].resolved, "http://h/i.png");
/// assert_eq!((out.links[0].location.message, out.links[0].location.part.as_deref()), (Some(1), Some("1")));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_message(
    message: &[u8],
    number: usize,
    outer: &Base,
    options: &Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let mut rewrite = MessageRewrite {
        message,
        number,
        cursor: 0,
        crlf: memchr::memmem::find(message, b"\r\n").is_some(),
        options,
        sink,
        error: None,
    };
    walk::walk(message, outer, options.standard, &mut rewrite);
    if let Some(error) = rewrite.error {
        return Err(error);
    }
    rewrite.sink.output(&message[rewrite.cursor..])
}

/// The rewrite as the walk's visitor: the bytes between rewritten bodies go out as they
/// are, each HTML or CSS body as it is rewritten.
struct MessageRewrite<'m, 's> {
    message: &'m [u8],
    number: usize,
    /// How far the message is written out.
    cursor: usize,
    crlf: bool,
    options: &'m Options,
    sink: &'s mut dyn Sink,
    error: Option<io::Error>,
}

impl walk::Visitor for MessageRewrite<'_, '_> {
    fn part(&mut self, part: Part) {
        if let Some((what, to_do)) = unread_body(&part.mime_type) {
            let warning = Warning::NotRead(part.path.clone(), what, to_do);
            self.sink.warning(located(self.number, warning));
        }
        let Some(kind) = kind_of(&part, self.message).filter(|_| self.error.is_none()) else {
            return;
        };
        let gap = &self.message[self.cursor..part.body.start];
        let raw = &self.message[part.body.clone()];
        let location = Location {
            message: Some(self.number),
            part: Some(Arc::from(part.path.as_str())),
            ..Location::default()
        };
        let sink = &mut *self.sink;
        let result = sink.output(gap).and_then(|()| {
            let target = Target {
                location,
                part: &part,
                sink,
            };
            rewrite_part(kind, raw, self.crlf, self.options, target)
        });
        self.cursor = part.body.end;
        self.error = result.err();
    }
    fn warning(&mut self, warning: Warning) {
        self.sink.warning(located(self.number, warning));
    }
}

/// A MIME warning about message `number`.
pub(crate) fn located(number: usize, warning: Warning) -> crate::Warning {
    crate::Warning {
        location: Location {
            message: Some(number),
            ..Location::default()
        },
        problem: crate::Problem::Mime(warning),
    }
}

/// What a part of this media type is, and what to do, when it may hold the message's body
/// (and its links) in a form absolve does not read: Outlook's TNEF (`winmail.dat`: the
/// body as RTF or HTML, beside a plain text part), S/MIME (RFC 8551 §3.2: signed or
/// encrypted content inside), PGP/MIME encryption (RFC 3156 §4: its first part).
fn unread_body(media_type: &str) -> Option<(&'static str, &'static str)> {
    match media_type {
        "application/ms-tnef" | "application/vnd.ms-tnef" => Some((
            "an Outlook TNEF attachment (winmail.dat) may hold the message's body",
            "extract it with `tnef` or `ytnef`, then run absolve on what it holds",
        )),
        "application/pkcs7-mime" | "application/x-pkcs7-mime" => Some((
            "an S/MIME body (application/pkcs7-mime) holds the message, signed or encrypted",
            "unwrap it with `openssl cms -verify -noverify` or `-decrypt`, then run absolve \
             on the message it holds",
        )),
        "application/pgp-encrypted" => Some((
            "a PGP/MIME message (multipart/encrypted) holds its body encrypted",
            "decrypt it with `gpg --decrypt`, then run absolve on the message it holds",
        )),
        _ => None,
    }
}

/// The kind of document a part is, if absolve rewrites it (an XML part is a feed when
/// its root element is a feed's).
fn kind_of(part: &Part, message: &[u8]) -> Option<Kind> {
    // Sniffed on its encoded bytes: a base64 body is not looked into.
    kind_of_type(&part.mime_type, &message[part.body.clone()])
}

/// The media type of a `Content-Type` value, lower case, parameters left out: what
/// [`kind_of_type`] reads (a WARC record's HTTP header, a web archive's
/// `WebResourceMIMEType`).
pub(crate) fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The kind of document a media type (lower case, without parameters) names, if absolve
/// rewrites it: HTML, XHTML, AMP for Email's HTML, CSS, a feed's type, SVG, or XML whose
/// root element in `body` is a feed's or SVG's ([`is_xml_document`]). The same choice
/// for a MIME part, a WARC record's payload and a web archive's resource.
pub(crate) fn kind_of_type(media_type: &str, body: &[u8]) -> Option<Kind> {
    match media_type {
        // AMP for Email's part (`text/x-amp-html`, beside `text/html`) is an HTML document.
        "text/html" | "application/xhtml+xml" | "text/x-amp-html" => Some(Kind::Html),
        "text/css" => Some(Kind::Css),
        "application/atom+xml" | "application/rss+xml" | "application/rdf+xml" => Some(Kind::Xml),
        // An SVG image (an MHTML page's icons, a web archive's): its links as in HTML.
        "image/svg+xml" => Some(Kind::Xml),
        // Past a long prolog too (comments, a DOCTYPE): up to feed::SNIFF_LIMIT.
        "text/xml" | "application/xml" => is_xml_document(body).then_some(Kind::Xml),
        _ => None,
    }
}

/// Whether XML (`text/xml`, `application/xml`) is a document absolve reads: its root
/// element, past a prolog of up to [`feed::SNIFF_LIMIT`](crate::feed::SNIFF_LIMIT), is a
/// feed's or an SVG image's.
pub(crate) fn is_xml_document(body: &[u8]) -> bool {
    crate::feed::is_feed_or_svg(body)
}

/// Where a part goes: its place, the part, the sink.
struct Target<'p, 's> {
    location: Location,
    part: &'p Part,
    sink: &'s mut dyn Sink,
}

impl Target<'_, '_> {
    /// The part written as it was, with a warning saying why.
    fn unchanged(&mut self, raw: &[u8], reason: String) -> io::Result<()> {
        let warning = Warning::PartUnchanged(self.part.path.clone(), reason);
        let number = self.location.message.unwrap_or(1);
        self.sink.warning(located(number, warning));
        self.sink.output(raw)
    }
}

/// Writes a part's body: rewritten and encoded again, or as it was (unchanged, or when it
/// cannot be rewritten, with a warning).
fn rewrite_part(
    kind: Kind,
    raw: &[u8],
    crlf: bool,
    options: &Options,
    mut target: Target<'_, '_>,
) -> io::Result<()> {
    let part = target.part;
    if part.transfer_encoding == TransferEncoding::Unknown {
        // RFC 2045 §6.4: read as application/octet-stream, whatever its type says.
        let reason = "an unknown Content-Transfer-Encoding (RFC 2045 §6.4: read as \
                      application/octet-stream)";
        return target.unchanged(raw, reason.to_owned());
    }
    let (decoded, ignored) = match transfer::decode_noting_ignored(raw, part.transfer_encoding) {
        Ok(decoded) => decoded,
        Err(error) => return target.unchanged(raw, format!("bad transfer encoding ({error})")),
    };
    // Characters a base64 body's decoders ignore: its links are read, its bytes kept.
    let untouchable = part.untouchable.clone().or_else(|| {
        ignored.first.map(|at| {
            let count = ignored.count;
            format!(
                "{count} characters outside the base64 alphabet or after its end, from byte \
                 {at} of its body (RFC 2045 §6.8: ignored; its links are read, its bytes kept)"
            )
        })
    });
    // The part's own charset parameter, else the caller's (`--charset`), else the
    // document's own rule.
    let charset = match &part.charset {
        Some(label) => match html::charset::from_label(label) {
            Some(encoding) => Some(encoding),
            None => return target.unchanged(raw, format!("unknown charset {label:?}")),
        },
        None => options.charset,
    };
    let options = Options {
        charset,
        ..options.clone()
    };
    let original = transfer::Original {
        encoded: raw,
        decoded: &decoded,
    };
    // Links are reported even for a part that must stay as it is: reading it is harmless.
    let encoder = untouchable
        .is_none()
        .then(|| transfer::Encoder::new(part.transfer_encoding, &original, crlf));
    let mut body = PartSink { target, encoder };
    pipeline::document(
        kind,
        Body::Memory(&decoded),
        &part.base,
        &options,
        &mut body,
    )?;
    let PartSink {
        mut target,
        encoder,
    } = body;
    match encoder {
        Some(encoder) => encoder.finish(&mut |bytes| target.sink.output(bytes)),
        None => target.unchanged(raw, untouchable.unwrap_or_default()),
    }
}

/// A part's rewritten text on its way out: encoded again (when the part may change) and
/// written to the sink; its links and warnings located by message and part.
struct PartSink<'p, 's, 'o> {
    target: Target<'p, 's>,
    /// `None` for a part that must stay as it is: its new text is dropped.
    encoder: Option<transfer::Encoder<'o>>,
}

impl Sink for PartSink<'_, '_, '_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        let sink = &mut *self.target.sink;
        match &mut self.encoder {
            Some(encoder) => encoder.write(bytes, &mut |b| sink.output(b)),
            None => Ok(()),
        }
    }
    fn link(&mut self, mut link: Link) {
        link.location = self.target.location.clone();
        self.target.sink.link(link);
    }
    fn wants_links(&self) -> bool {
        self.target.sink.wants_links()
    }
    fn wants_output(&self) -> bool {
        self.target.sink.wants_output()
    }
    fn warning(&mut self, warning: crate::Warning) {
        let target = &mut self.target;
        let number = target.location.message.unwrap_or(1);
        let warning = match warning.problem {
            crate::Problem::Html(warning) => {
                located(number, Warning::Html(target.part.path.clone(), warning))
            }
            problem => crate::Warning {
                location: target.location.clone(),
                problem,
            },
        };
        target.sink.warning(warning);
    }
}
