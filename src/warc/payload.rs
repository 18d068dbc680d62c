//! Which records hold a document, the document's bytes (HTTP framing and codings
//! undone), its base chain and charset, and its links.

use super::framing::{Framing, Head};
use super::http::{self, HttpHead, MAX_HTTP_HEAD};
use super::{Error, RecordRef, Warning};
use crate::base::{Base, BaseSource};
use crate::html::{self, charset};
use crate::links::Link;
use crate::pipeline::{self, Body, Kind};
use crate::{Collected, Options, Problem};
use encoding_rs::Encoding;
use std::borrow::Cow;
use std::io::{self, BufRead, Read};

/// The kind of document a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocKind {
    Html,
    Css,
    Feed,
    /// `text/xml` or `application/xml`: a feed if its root element is a feed's.
    Xml,
    /// No `Content-Type`: HTML if it sniffs as HTML.
    Untyped,
}

/// A record once its head, and its HTTP head if it has one, are read.
pub(crate) struct Analysis {
    pub head: Head,
    /// `WARC-Target-URI`, wget's `<...>` taken off.
    pub target_uri: Option<String>,
    /// §3.3: the target URI as a base (none if it has none usable).
    pub retrieval: Base,
    pub http: Option<HttpHead>,
    /// The block's bytes read so far.
    pub prefix: Vec<u8>,
    /// The kind of document the payload is, if it is one absolve rewrites.
    pub document: Option<DocKind>,
    /// The URLs of the HTTP header fields.
    pub header_links: Vec<Link>,
}

impl Analysis {
    pub fn record(&self) -> &RecordRef {
        &self.head.record
    }
}

/// A `WARC-Target-URI` as a URL: wget 1.14 writes it `<http://...>`.
pub(crate) fn clean_target_uri(value: &str) -> String {
    let value = value.trim();
    value
        .strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(value)
        .to_owned()
}

/// The media type of a `Content-Type` value, lower case, parameters left out.
fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The kind of document a media type is.
fn doc_kind(content_type: Option<&str>) -> Option<DocKind> {
    let Some(content_type) = content_type else {
        return Some(DocKind::Untyped);
    };
    match media_type(content_type).as_str() {
        "text/html" | "application/xhtml+xml" => Some(DocKind::Html),
        "text/css" => Some(DocKind::Css),
        "application/atom+xml" | "application/rss+xml" | "application/rdf+xml" => {
            Some(DocKind::Feed)
        }
        "text/xml" | "application/xml" => Some(DocKind::Xml),
        "" => Some(DocKind::Untyped),
        _ => None,
    }
}

/// Reads a record's head and, for a `response` or `revisit` holding an HTTP message, the
/// HTTP head; decides whether its payload is a document.
pub(crate) fn analyze<R: Read>(
    framing: &mut Framing<R>,
    head: Head,
    options: &Options,
    warn: &mut dyn FnMut(Warning),
) -> Result<Analysis, Error> {
    let kind = head.kind();
    let target_uri = head.field("WARC-Target-URI").map(clean_target_uri);
    let retrieval = match &target_uri {
        Some(uri) => Base::retrieval_url_with(options.standard(), uri).unwrap_or_else(|_| {
            warn(Warning::BadTargetUri {
                record: head.record.clone(),
                uri: uri.clone(),
            });
            Base::none()
        }),
        None => Base::none(),
    };
    let warc_type = head.field("Content-Type").map(media_type);
    let mut analysis = Analysis {
        head,
        target_uri,
        retrieval,
        http: None,
        prefix: Vec::new(),
        document: None,
        header_links: Vec::new(),
    };
    let holds_http = warc_type.as_deref() == Some("application/http")
        || (kind == "revisit" && warc_type.is_none());
    match kind.as_str() {
        "response" | "revisit" if holds_http => {
            read_http_head(framing, &mut analysis, warn)?;
            if let Some(http) = &analysis.http {
                analysis.header_links =
                    http::header_links(http, &analysis.retrieval, options.html.standard);
                if kind == "response" {
                    analysis.document = doc_kind(http.get("Content-Type"));
                }
            }
            if analysis.document == Some(DocKind::Untyped) {
                sniff_raw_body(framing, &mut analysis)?;
            }
        }
        "resource" => {
            let content_type = analysis.head.field("Content-Type");
            analysis.document = doc_kind(content_type);
        }
        _ => {}
    }
    Ok(analysis)
}

/// An untyped body with no coding is sniffed on its first bytes, so that a large
/// non-HTML body without `Content-Type` is not held.
fn sniff_raw_body<R: Read>(framing: &mut Framing<R>, analysis: &mut Analysis) -> Result<(), Error> {
    let Some(http) = &analysis.http else {
        return Ok(());
    };
    if !http.codings("Transfer-Encoding").is_empty() || !http.codings("Content-Encoding").is_empty()
    {
        return Ok(());
    }
    let have = analysis.prefix.len() - http.len.min(analysis.prefix.len());
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    let want = (SNIFF_LEN.saturating_sub(have) as u64).min(remaining);
    framing
        .block(want)
        .read_to_end(&mut analysis.prefix)
        .map_err(super::framing::stream_error)?;
    let body = &analysis.prefix[http.len.min(analysis.prefix.len())..];
    if !sniffs_as_html(body) {
        analysis.document = None;
    }
    Ok(())
}

/// How many bytes of a body are sniffed (MIME Sniffing §7: the resource header, 1445).
const SNIFF_LEN: usize = 1445;

/// Reads the block until its HTTP head is complete.
fn read_http_head<R: Read>(
    framing: &mut Framing<R>,
    analysis: &mut Analysis,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let length = analysis.head.length;
    loop {
        let before = analysis.prefix.len();
        let want = (before + 4096).min(MAX_HTTP_HEAD) as u64;
        let remaining = length - before as u64;
        let n = framing
            .block(remaining.min(want - before as u64))
            .read_to_end(&mut analysis.prefix)
            .map_err(super::framing::stream_error)?;
        match HttpHead::parse(&analysis.prefix) {
            Ok(Some(head)) => {
                analysis.http = Some(head);
                return Ok(());
            }
            Ok(None) if n > 0 && analysis.prefix.len() < MAX_HTTP_HEAD => continue,
            Ok(None) if analysis.prefix.is_empty() => return Ok(()),
            Ok(None) => {
                // A head that ends with the block, without its blank line: accepted.
                let mut whole = analysis.prefix.clone();
                whole.extend_from_slice(b"\r\n\r\n");
                if let Ok(Some(mut head)) = HttpHead::parse(&whole) {
                    head.len = analysis.prefix.len();
                    analysis.http = Some(head);
                    return Ok(());
                }
                warn(Warning::BadHttp {
                    record: analysis.head.record.clone(),
                    reason: "no end of the head".into(),
                });
                return Ok(());
            }
            Err(reason) => {
                warn(Warning::BadHttp {
                    record: analysis.head.record.clone(),
                    reason,
                });
                return Ok(());
            }
        }
    }
}

/// The most bytes [`read_block`] reserves ahead on the word of a `Content-Length`.
const RESERVE_LIMIT: u64 = 8 << 20;

/// Reads the rest of the block into `analysis.prefix`, warning if the file ends first.
pub(crate) fn read_block<R: Read>(
    framing: &mut Framing<R>,
    analysis: &mut Analysis,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    // Room for the whole block at once, rather than doubling (and copying) as it comes;
    // a `Content-Length` that lies is not trusted beyond a few MiB.
    let expected = remaining.min(RESERVE_LIMIT) as usize;
    analysis.prefix.reserve_exact(expected);
    let n = framing
        .block(remaining)
        .read_to_end(&mut analysis.prefix)
        .map_err(super::framing::stream_error)? as u64;
    if n < remaining {
        warn_truncated(analysis, remaining - n, warn);
    }
    Ok(())
}

/// Skips the rest of the block, writing it to `out`.
pub(crate) fn copy_block<R: Read>(
    framing: &mut Framing<R>,
    analysis: &Analysis,
    out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    let mut block = framing.block(remaining);
    let mut copied = 0;
    // Straight from the reader's buffer: no buffer of its own to fill (or zero).
    loop {
        let n = match block.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => {
                out(bytes)?;
                bytes.len()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(super::framing::stream_error(e)),
        };
        block.consume(n);
        copied += n as u64;
    }
    if copied < remaining {
        warn_truncated(analysis, remaining - copied, warn);
    }
    Ok(())
}

fn warn_truncated(analysis: &Analysis, missing: u64, warn: &mut dyn FnMut(Warning)) {
    warn(Warning::Truncated {
        record: analysis.head.record.clone(),
        length: analysis.head.length,
        missing,
    });
}

/// The payload of a record whose block is read: the HTTP body with its transfer coding
/// and content codings undone (or a `resource` record's block). `None` (with a warning)
/// when a coding cannot be undone.
pub(crate) fn payload<'a>(
    analysis: &'a Analysis,
    warn: &mut dyn FnMut(Warning),
) -> Option<Cow<'a, [u8]>> {
    let Some(http) = &analysis.http else {
        return Some(Cow::Borrowed(&analysis.prefix));
    };
    let body = &analysis.prefix[http.len.min(analysis.prefix.len())..];
    let transfer = http.codings("Transfer-Encoding");
    let mut codings = http.codings("Content-Encoding");
    // Transfer codings other than chunked (RFC 7230 §4: gzip, deflate) are undone too.
    let chunked = transfer.iter().any(|c| c == "chunked");
    codings.splice(0..0, transfer.into_iter().filter(|c| c != "chunked").rev());
    if !chunked && codings.is_empty() {
        return Some(Cow::Borrowed(body));
    }
    let body = match chunked.then(|| http::dechunk(body)) {
        Some(Some(data)) => data,
        Some(None) => {
            warn(Warning::BrokenChunks {
                record: analysis.head.record.clone(),
            });
            body.to_vec()
        }
        None => body.to_vec(),
    };
    match http::decode(body, &codings) {
        Ok((body, notes)) => {
            for reason in notes {
                warn(Warning::Decoding {
                    record: analysis.head.record.clone(),
                    reason,
                });
            }
            Some(Cow::Owned(body))
        }
        Err(reason) => {
            warn(Warning::BadEncoding {
                record: analysis.head.record.clone(),
                reason,
            });
            None
        }
    }
}

/// Whether a payload of kind `kind` is a document absolve reads: an untyped one if it
/// sniffs as HTML, an XML one if its root element is a feed's.
pub(crate) fn is_document(kind: DocKind, body: &[u8]) -> bool {
    match kind {
        DocKind::Untyped => sniffs_as_html(body),
        DocKind::Xml => crate::feed::is_feed(&body[..body.len().min(SNIFF_LEN * 4)]),
        DocKind::Html | DocKind::Css | DocKind::Feed => true,
    }
}

/// The WHATWG MIME sniffing signatures of HTML (MIME Sniffing §7.1), after whitespace.
const HTML_SIGNATURES: [&[u8]; 17] = [
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<script",
    b"<iframe",
    b"<h1",
    b"<div",
    b"<font",
    b"<table",
    b"<a",
    b"<style",
    b"<title",
    b"<b",
    b"<body",
    b"<br",
    b"<p",
    b"<!--",
];

/// MIME Sniffing §7.1: whether `body` starts (after a BOM and whitespace) with one of
/// the HTML signatures followed by a space or `>`.
pub(crate) fn sniffs_as_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b" \t\n\x0C\r".contains(b))
        .unwrap_or(body.len());
    let body = &body[start..];
    HTML_SIGNATURES.iter().any(|signature| {
        body.len() > signature.len()
            && body[..signature.len()].eq_ignore_ascii_case(signature)
            && (signature == b"<!--" || matches!(body[signature.len()], b' ' | b'>'))
    })
}

/// The base of the payload before its `<base href>`: the target URI (§3.3), and with
/// `--http-base-headers` the HTTP `Content-Base`, else `Content-Location` (§3.2,
/// RFC 2068 §14.11), resolved against it.
pub(crate) fn outer_base(analysis: &Analysis, options: &Options) -> Base {
    let Some(http) = analysis.http.as_ref().filter(|_| options.http_base_headers) else {
        return analysis.retrieval.clone();
    };
    for (name, source) in [
        ("Content-Base", BaseSource::ContentBase),
        ("Content-Location", BaseSource::ContentLocation),
    ] {
        let Some(value) = http.get(name) else {
            continue;
        };
        let value = value.trim().trim_start_matches('<').trim_end_matches('>');
        if let Some(base) = analysis
            .retrieval
            .inner_with(options.standard(), value, source, None)
        {
            return base;
        }
    }
    analysis.retrieval.clone()
}

/// The charset of the payload: the HTTP (or WARC, for a `resource`) `Content-Type`
/// charset, else the caller's. A BOM wins over both, `<meta>` loses to both.
pub(crate) fn charset_of(analysis: &Analysis, options: &Options) -> Option<&'static Encoding> {
    let content_type = match &analysis.http {
        Some(http) => http.get("Content-Type"),
        None => analysis.head.field("Content-Type"),
    };
    content_type
        .and_then(charset::from_content_type)
        .and_then(|label| charset::from_label(&label))
        .or(options.html.charset)
}

/// A document's rewritten bytes (when asked for and changed) and links.
pub(crate) struct Done {
    pub output: Option<Vec<u8>>,
    pub links: Vec<Link>,
}

/// Rewrites (or only lists) the document `body` of kind `kind`, through the one
/// function per kind ([`pipeline::document`]), against the record's base and in its
/// charset; the rewriter's warnings name the record.
pub(crate) fn process(
    analysis: &Analysis,
    kind: DocKind,
    body: &[u8],
    options: &Options,
    want_output: bool,
    warn: &mut dyn FnMut(Warning),
) -> Done {
    let outer = outer_base(analysis, options);
    let html_options = html::Options {
        charset: charset_of(analysis, options),
        ..options.html.clone()
    };
    let kind = match kind {
        DocKind::Css => Kind::Css,
        DocKind::Feed | DocKind::Xml => Kind::Feed,
        DocKind::Html | DocKind::Untyped => Kind::Html,
    };
    let mut sink = Collected {
        keep_output: want_output,
        keep_links: !want_output,
        ..Collected::default()
    };
    if want_output {
        sink.output
            .reserve_exact(body.len() + body.len().min(RESERVE_LIMIT as usize) / 8);
    }
    // Writing to memory cannot fail.
    let _ = pipeline::document(kind, Body::Memory(body), &outer, &html_options, &mut sink);
    let record = analysis.record();
    for warning in sink.warnings {
        warn(match warning.problem {
            Problem::Html(warning) => Warning::Html {
                record: record.clone(),
                warning,
            },
            Problem::Warc(warning) => warning,
            Problem::Feed(warning) => Warning::Feed {
                record: record.clone(),
                warning,
            },
            other => Warning::Html {
                record: record.clone(),
                warning: html::Warning::ParserStopped {
                    offset: 0,
                    reason: other.to_string(),
                },
            },
        });
    }
    let changed = want_output && sink.output != body;
    Done {
        output: changed.then_some(sink.output),
        links: sink.links,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing() {
        assert!(sniffs_as_html(b"\n  <!DOCTYPE html><p>"));
        assert!(sniffs_as_html(b"<HTML>"));
        assert!(!sniffs_as_html(b"<?xml version='1.0'?>"));
        assert!(!sniffs_as_html(b"GIF89a"));
        assert!(!sniffs_as_html(b"<bogus>"));
    }

    #[test]
    fn wget_target_uris() {
        assert_eq!(clean_target_uri("<http://h/a b>"), "http://h/a b");
        assert_eq!(clean_target_uri(" http://h/ "), "http://h/");
    }
}
