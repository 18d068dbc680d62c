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

use crate::base::Base;
use crate::html::{self, Options};
use crate::links::Link;
use mailparse::{MailHeaderMap, ParsedMail};
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
    pub transfer_encoding: TransferEncoding,
    /// Why the part must be passed through untouched, if it must.
    pub untouchable: Option<String>,
}

/// Something wrong in one part (or the whole message) that did not stop the rest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    #[error("not a MIME message ({0}): passed through unchanged")]
    Unparsable(String),
    #[error("part {0}: {1}: passed through unchanged")]
    PartUnchanged(String, String),
    #[error("part {0}: {1}")]
    Html(String, html::Warning),
}

/// What a walk reports besides the output bytes.
pub trait Report {
    /// A URL found in `part`.
    fn link(&mut self, _part: &Part, _link: &Link) {}
    /// A warning about the message or one of its parts.
    fn warning(&mut self, _warning: Warning) {}
    /// Whether [`link`](Self::link) is wanted (if not, link records are not built).
    fn wants_links(&self) -> bool {
        true
    }
}

/// Every leaf part of `message` (multiparts walked recursively, `message/rfc822` bodies
/// parsed as messages), in order, each with its effective base.
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
    let mut walk = Walk {
        root: message,
        parts: Vec::new(),
        warnings: Vec::new(),
    };
    match mailparse::parse_mail(message) {
        Ok(mail) => walk.entity(&mail, "", outer),
        Err(error) => walk.warnings.push(Warning::Unparsable(error.to_string())),
    }
    (walk.parts, walk.warnings)
}

struct Walk<'m> {
    root: &'m [u8],
    parts: Vec<Part>,
    warnings: Vec<Warning>,
}

impl<'m> Walk<'m> {
    /// One entity numbered `path` (empty for the message itself, whose body is part `1`
    /// when it is not a multipart): its base from its own heading, then its children or
    /// itself as a leaf.
    fn entity(&mut self, mail: &ParsedMail<'_>, path: &str, outer: &Base) {
        let base = headers::entity_base(&mail.headers, outer);
        let mime_type = mail.ctype.mimetype.to_ascii_lowercase();
        let leaf_path = if path.is_empty() { "1" } else { path };
        if mime_type.starts_with("multipart/") {
            self.multipart(mail, path, &base, &mime_type);
        } else if mime_type == "message/rfc822" || mime_type == "message/global" {
            self.encapsulated(mail, leaf_path, &base);
        } else {
            self.leaf(mail, leaf_path.to_owned(), base, mime_type, None);
        }
    }

    /// `multipart/*`: each child with this entity's base as its outer base (§3.2).
    /// Signed and encrypted multiparts are left whole: a rewrite would break them.
    fn multipart(&mut self, mail: &ParsedMail<'_>, path: &str, base: &Base, mime_type: &str) {
        let protected = matches!(mime_type, "multipart/signed" | "multipart/encrypted");
        let closed = mail.ctype.params.get("boundary").is_some_and(|b| {
            memchr::memmem::find(mail.raw_bytes, format!("--{b}--").as_bytes()).is_some()
        });
        let count = mail.subparts.len();
        for (i, child) in mail.subparts.iter().enumerate() {
            let child_path = child_path(path, i + 1);
            if protected {
                let reason = format!("inside {mime_type} (a rewrite would break it)");
                self.leaf_untouchable(child, child_path, base, reason);
            } else if !closed && i + 1 == count {
                let reason = "truncated (its multipart has no closing boundary)".to_owned();
                self.leaf_untouchable(child, child_path, base, reason);
            } else {
                self.entity(child, &child_path, base);
            }
        }
    }

    /// `message/rfc822` numbered `path`: its body is a message of its own, whose heading
    /// is the next layer in (§3.2). Its parts are `path.1`, `path.2`, ... (IMAP).
    fn encapsulated(&mut self, mail: &ParsedMail<'_>, path: &str, base: &Base) {
        let body = mail.get_body_encoded();
        match mailparse::parse_mail(body_raw(&body)) {
            Ok(inner) if !inner.headers.is_empty() => {
                let inner_base = headers::entity_base(&inner.headers, base);
                let mime_type = inner.ctype.mimetype.to_ascii_lowercase();
                if mime_type.starts_with("multipart/") {
                    self.multipart(&inner, path, &inner_base, &mime_type);
                } else {
                    self.leaf(&inner, format!("{path}.1"), inner_base, mime_type, None);
                }
            }
            _ => {
                // `base` already holds this entity's own headers: they are not applied again.
                let reason = "an encapsulated message that does not parse".to_owned();
                let mime_type = mail.ctype.mimetype.to_ascii_lowercase();
                self.leaf(mail, path.to_owned(), base.clone(), mime_type, Some(reason));
            }
        }
    }

    /// A child left whole: its base from its own heading inside `outer`, and the reason.
    fn leaf_untouchable(
        &mut self,
        mail: &ParsedMail<'_>,
        path: String,
        outer: &Base,
        reason: String,
    ) {
        let base = headers::entity_base(&mail.headers, outer);
        let mime_type = mail.ctype.mimetype.to_ascii_lowercase();
        self.leaf(mail, path, base, mime_type, Some(reason));
    }

    fn leaf(
        &mut self,
        mail: &ParsedMail<'_>,
        path: String,
        base: Base,
        mime_type: String,
        untouchable: Option<String>,
    ) {
        let body = mail.get_body_encoded();
        let raw = body_raw(&body);
        let start = offset_in(self.root, raw);
        let transfer_encoding = TransferEncoding::from_header(
            mail.headers
                .get_first_value("Content-Transfer-Encoding")
                .as_deref(),
        );
        self.parts.push(Part {
            path,
            mime_type,
            charset: mail.ctype.params.get("charset").cloned(),
            base,
            body: start..start + raw.len(),
            transfer_encoding,
            untouchable,
        });
    }
}

/// The IMAP number of child `n` of the entity numbered `path` (empty: the message).
fn child_path(path: &str, n: usize) -> String {
    if path.is_empty() {
        n.to_string()
    } else {
        format!("{path}.{n}")
    }
}

fn body_raw<'a>(body: &mailparse::body::Body<'a>) -> &'a [u8] {
    use mailparse::body::Body;
    match body {
        Body::Base64(b) | Body::QuotedPrintable(b) => b.get_raw(),
        Body::SevenBit(b) | Body::EightBit(b) => b.get_raw(),
        Body::Binary(b) => b.get_raw(),
    }
}

/// Where `inner` (a slice of `outer`, as mailparse hands out) starts in `outer`.
fn offset_in(outer: &[u8], inner: &[u8]) -> usize {
    let offset = (inner.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize);
    assert!(
        offset <= outer.len() && offset + inner.len() <= outer.len(),
        "a slice of the message"
    );
    offset
}

/// Rewrites every HTML and CSS part of `message`; the rest of its bytes are kept.
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
    let (found, warnings) = parts(message, outer);
    for warning in warnings {
        report.warning(warning);
    }
    let crlf = memchr::memmem::find(message, b"\r\n").is_some();
    let mut out = Vec::with_capacity(message.len() + message.len() / 8);
    let mut cursor = 0;
    for part in &found {
        let raw = &message[part.body.clone()];
        let Some(new_body) = rewrite_part(part, raw, crlf, options, report) else {
            continue;
        };
        out.extend_from_slice(&message[cursor..part.body.start]);
        out.extend_from_slice(&new_body);
        cursor = part.body.end;
    }
    out.extend_from_slice(&message[cursor..]);
    out
}

/// A part's new encoded body, or `None` when it stays as it is.
fn rewrite_part(
    part: &Part,
    raw: &[u8],
    crlf: bool,
    options: &Options,
    report: &mut dyn Report,
) -> Option<Vec<u8>> {
    let is_html = part.mime_type == "text/html" || part.mime_type == "application/xhtml+xml";
    let is_css = part.mime_type == "text/css";
    if !is_html && !is_css {
        return None;
    }
    let unchanged = |report: &mut dyn Report, reason: String| {
        report.warning(Warning::PartUnchanged(part.path.clone(), reason));
        None
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
    // Links are reported even for a part that must stay as it is: reading it is harmless.
    let rewritten = if is_html {
        rewrite_html_part(part, &decoded, &options, report)
    } else {
        rewrite_css_part(part, &decoded, &options, report)
    };
    if let Some(reason) = &part.untouchable {
        return unchanged(report, reason.clone());
    }
    let original = transfer::Original {
        encoded: raw,
        decoded: &decoded,
    };
    Some(transfer::encode(
        &rewritten?,
        part.transfer_encoding,
        &original,
        crlf,
    ))
}

fn rewrite_html_part(
    part: &Part,
    decoded: &[u8],
    options: &Options,
    report: &mut dyn Report,
) -> Option<Vec<u8>> {
    let result = if report.wants_links() {
        html::rewrite_and_list(decoded, &part.base, options)
    } else {
        html::rewrite(decoded, &part.base, options)
    };
    for link in &result.links {
        report.link(part, link);
    }
    for warning in result.warnings {
        report.warning(Warning::Html(part.path.clone(), warning));
    }
    (result.output != decoded).then_some(result.output)
}

fn rewrite_css_part(
    part: &Part,
    decoded: &[u8],
    options: &Options,
    report: &mut dyn Report,
) -> Option<Vec<u8>> {
    let encoding = options.charset.unwrap_or(encoding_rs::UTF_8);
    html::rewrite_css_text(decoded, encoding, &part.base, options, |link| {
        report.link(part, &link)
    })
}
