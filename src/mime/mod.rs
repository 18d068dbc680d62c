//! MIME messages, MHTML pages and mbox archives: a walker over the parts of a message,
//! each with its effective base (RFC 1808 §3.1-§3.2, RFC 2110, RFC 2557), and the rewrite
//! and link listing built on it.
//!
//! Every byte outside a rewritten body stays as it was: headers, boundaries, preamble,
//! epilogue, other parts. An HTML (or CSS) part is decoded (transfer encoding, charset),
//! rewritten by [`crate::html`], and encoded again the same way; a part whose links are
//! already absolute comes out byte-identical.

pub mod headers;
pub mod mbox;
pub mod transfer;
pub mod walk;

use crate::base::Base;
use crate::html::{self, Options};
use crate::links::Link;
use std::io;
use std::ops::Range;
use transfer::TransferEncoding;

/// One part of a message, as the walker reports it.
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    /// The message's heading does not parse: the whole message passes through.
    #[error("not a MIME message ({0}): passed through unchanged")]
    Unparsable(String),
    /// A part (by its number) left as it is, and why: a damaged encoding, an unknown
    /// charset, a signed or truncated part, or a structure that is not walked (nested
    /// past [`walk::MAX_DEPTH`], a multipart without a boundary, ...).
    #[error("part {0}: {1}: passed through unchanged")]
    PartUnchanged(String, String),
    /// A warning from the HTML rewriter about a part.
    #[error("part {0}: {1}")]
    Html(String, html::Warning),
}

/// Where a walk's results go: the output bytes, each link found, each warning, as they
/// come (nothing is collected).
pub trait Report {
    /// The next bytes of the rewritten message (dropped unless implemented).
    fn output(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// A URL found in `part`, as soon as it is found.
    fn link(&mut self, _part: &Part, _link: &Link) {}
    /// A warning about the message or one of its parts.
    fn warning(&mut self, _warning: Warning) {}
    /// Whether [`link`](Self::link) is wanted (if not, link records are not built).
    fn wants_links(&self) -> bool {
        true
    }
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
    walk::walk(message, outer, &mut collect);
    (collect.0, collect.1)
}

/// Rewrites every HTML and CSS part of `message` in memory; the rest of its bytes are
/// kept. [`write_message`] is the same, streaming.
///
/// ```
/// use absolve::base::Base;
/// use absolve::mime::{rewrite_message, Report};
///
/// struct Quiet;
/// impl Report for Quiet {}
/// let message = b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n<a href=x>\r\n";
/// let out = rewrite_message(message, &Base::none(), &Default::default(), &mut Quiet);
/// assert_eq!(out, b"Content-Type: text/html\r\nContent-Location: http://h/d/p.html\r\n\r\n<a href=http://h/d/x>\r\n");
/// ```
pub fn rewrite_message(
    message: &[u8],
    outer: &Base,
    options: &Options,
    report: &mut dyn Report,
) -> Vec<u8> {
    struct Collect<'r> {
        output: Vec<u8>,
        inner: &'r mut dyn Report,
    }
    impl Report for Collect<'_> {
        fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
            self.output.extend_from_slice(bytes);
            Ok(())
        }
        fn link(&mut self, part: &Part, link: &Link) {
            self.inner.link(part, link);
        }
        fn warning(&mut self, warning: Warning) {
            self.inner.warning(warning);
        }
        fn wants_links(&self) -> bool {
            self.inner.wants_links()
        }
    }
    let mut collect = Collect {
        output: Vec::with_capacity(message.len() + message.len() / 8),
        inner: report,
    };
    // Writing to memory cannot fail.
    let _ = write_message(message, outer, options, &mut collect);
    collect.output
}

/// Rewrites every HTML and CSS part of `message` into `report`'s
/// [`output`](Report::output), part by part as the walk finds them; links and warnings
/// are reported as they are found. Besides the message, memory holds one decoded part
/// at a time (none for a part without a transfer encoding). Stops at the first error of
/// the output.
///
/// ```
/// use absolve::base::Base;
/// use absolve::links::Link;
/// use absolve::mime::{write_message, Part, Report};
///
/// #[derive(Default)]
/// struct Out(Vec<u8>, Vec<String>);
/// impl Report for Out {
///     fn output(&mut self, bytes: &[u8]) -> std::io::Result<()> {
///         self.0.extend_from_slice(bytes);
///         Ok(())
///     }
///     fn link(&mut self, part: &Part, link: &Link) {
///         self.1.push(format!("{} {}", part.path, link.resolved));
///     }
/// }
/// let message = b"Content-Base: http://h/\r\nContent-Type: text/html\r\n\r\n<img src=i.png>";
/// let mut out = Out::default();
/// write_message(message, &Base::none(), &Default::default(), &mut out).unwrap();
/// assert_eq!(out.0, b"Content-Base: http://h/\r\nContent-Type: text/html\r\n\r\n<img src=http://h/i.png>");
/// assert_eq!(out.1, ["1 http://h/i.png"]);
/// ```
pub fn write_message(
    message: &[u8],
    outer: &Base,
    options: &Options,
    report: &mut dyn Report,
) -> io::Result<()> {
    let mut rewrite = MessageRewrite {
        message,
        cursor: 0,
        crlf: memchr::memmem::find(message, b"\r\n").is_some(),
        options,
        report,
        error: None,
    };
    walk::walk(message, outer, &mut rewrite);
    if let Some(error) = rewrite.error {
        return Err(error);
    }
    rewrite.report.output(&message[rewrite.cursor..])
}

/// The rewrite as the walk's visitor: the bytes between rewritten bodies go out as they
/// are, each HTML or CSS body as it is rewritten.
struct MessageRewrite<'m, 'r> {
    message: &'m [u8],
    /// How far the message is written out.
    cursor: usize,
    crlf: bool,
    options: &'m Options,
    report: &'r mut dyn Report,
    error: Option<io::Error>,
}

impl walk::Visitor for MessageRewrite<'_, '_> {
    fn part(&mut self, part: Part) {
        if self.error.is_some() || !is_rewritable(&part) {
            return;
        }
        let gap = &self.message[self.cursor..part.body.start];
        let raw = &self.message[part.body.clone()];
        let result = self
            .report
            .output(gap)
            .and_then(|()| rewrite_part(&part, raw, self.crlf, self.options, &mut *self.report));
        self.cursor = part.body.end;
        self.error = result.err();
    }
    fn warning(&mut self, warning: Warning) {
        self.report.warning(warning);
    }
}

fn is_html(part: &Part) -> bool {
    part.mime_type == "text/html" || part.mime_type == "application/xhtml+xml"
}

fn is_rewritable(part: &Part) -> bool {
    is_html(part) || part.mime_type == "text/css"
}

/// Writes a part's body: rewritten and encoded again, or as it was (unchanged, or when it
/// cannot be rewritten, with a warning).
fn rewrite_part(
    part: &Part,
    raw: &[u8],
    crlf: bool,
    options: &Options,
    report: &mut dyn Report,
) -> io::Result<()> {
    let unchanged = |report: &mut dyn Report, reason: String| {
        report.warning(Warning::PartUnchanged(part.path.clone(), reason));
        report.output(raw)
    };
    let decoded = match transfer::decode(raw, part.transfer_encoding) {
        Ok(decoded) => decoded,
        Err(error) => return unchanged(report, format!("bad transfer encoding ({error})")),
    };
    // The part's own charset parameter, else the caller's (`--charset`), else the HTML's.
    let charset = match &part.charset {
        Some(label) => match html::charset::from_label(label) {
            Some(encoding) => Some(encoding),
            None => return unchanged(report, format!("unknown charset {label:?}")),
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
    let encoder = part
        .untouchable
        .is_none()
        .then(|| transfer::Encoder::new(part.transfer_encoding, &original, crlf));
    let mut body = PartBody {
        part,
        report,
        encoder,
    };
    if is_html(part) {
        body = rewrite_html_part(&decoded, &options, body)?;
    } else {
        rewrite_css_part(&decoded, &options, &mut body)?;
    }
    let PartBody {
        report, encoder, ..
    } = body;
    match encoder {
        Some(encoder) => encoder.finish(&mut |bytes| report.output(bytes)),
        None => {
            let reason = part.untouchable.clone().unwrap_or_default();
            unchanged(report, reason)
        }
    }
}

/// A part's rewritten text on its way out: encoded again (when the part may change) and
/// written to the report; its links and warnings reported as they come.
struct PartBody<'p, 'r, 'o> {
    part: &'p Part,
    report: &'r mut dyn Report,
    /// `None` for a part that must stay as it is: its new text is dropped.
    encoder: Option<transfer::Encoder<'o>>,
}

impl html::Sink for PartBody<'_, '_, '_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        let report = &mut *self.report;
        match &mut self.encoder {
            Some(encoder) => encoder.write(bytes, &mut |b| report.output(b)),
            None => Ok(()),
        }
    }
    fn link(&mut self, link: &Link) {
        self.report.link(self.part, link);
    }
    fn wants_links(&self) -> bool {
        self.report.wants_links()
    }
    fn warning(&mut self, warning: html::Warning) {
        self.report
            .warning(Warning::Html(self.part.path.clone(), warning));
    }
}

/// The part's HTML through the streaming rewriter. The whole part is at hand, so the
/// `<base href>` is waited for as long as it takes, as [`html::rewrite`] does.
fn rewrite_html_part<'p, 'r, 'o>(
    decoded: &[u8],
    options: &Options,
    body: PartBody<'p, 'r, 'o>,
) -> io::Result<PartBody<'p, 'r, 'o>> {
    let base = body.part.base.clone();
    let options = Options {
        base_lookahead: usize::MAX,
        ..options.clone()
    };
    let mut rewriter = if html::may_have_base_element(decoded) {
        html::Rewriter::new(base, options, body)
    } else {
        html::Rewriter::with_document_base(base.clone(), base, options, body)
    };
    // Chunks keep the parser's working set in cache.
    for chunk in decoded.chunks(64 * 1024) {
        rewriter.write(chunk)?;
    }
    rewriter.end()
}

fn rewrite_css_part(
    decoded: &[u8],
    options: &Options,
    body: &mut PartBody<'_, '_, '_>,
) -> io::Result<()> {
    let encoding = options.charset.unwrap_or(encoding_rs::UTF_8);
    let part = body.part;
    let report = &mut *body.report;
    let new = html::rewrite_css_text(decoded, encoding, &part.base, options, |link| {
        report.link(part, &link)
    });
    html::Sink::output(body, new.as_deref().unwrap_or(decoded))
}
