//! Which records hold a document, the document's bytes (HTTP framing and codings
//! undone), its base chain and charset, and its links.

use super::framing::{Framing, Head};
use super::http::{self, HttpHead, MAX_HTTP_HEAD};
use super::{Error, RecordRef, Warning};
use crate::base::{Base, BaseError, BaseSource};
use crate::html::{self, charset};
use crate::links::{Link, LinkRef};
use crate::pipeline::{self, Body, Kind};
use crate::{Options, Problem, Sink};
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
    /// The file ended inside the block ([`read_block`]): `rewrite` copies the record as
    /// it is, never as a whole one.
    pub truncated: bool,
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
    if !head.not_utf8.is_empty() {
        warn(Warning::NotUtf8Header {
            record: head.record.clone(),
            fields: head.not_utf8.clone(),
        });
    }
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
        truncated: false,
    };
    let holds_http = warc_type.as_deref() == Some("application/http")
        || (kind == "revisit" && warc_type.is_none());
    if analysis.head.oversized {
        warn(Warning::HugeHead {
            record: analysis.head.record.clone(),
        });
        return Ok(analysis);
    }
    match kind.as_str() {
        "response" | "revisit" if holds_http => {
            read_http_head(framing, &mut analysis, warn)?;
            if let Some(http) = &analysis.http {
                let record = &analysis.head.record;
                let mut rejected = |link: &Link, reason: String| {
                    warn(Warning::UnparsableHeaderUrl {
                        record: record.clone(),
                        field: link.attribute.clone().unwrap_or_default(),
                        reference: link.original.clone(),
                        offset: link.offset,
                        reason,
                    });
                };
                analysis.header_links = http::header_links(
                    http,
                    &analysis.retrieval,
                    options.html.standard,
                    &mut rejected,
                );
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
            Ok(None) if n > 0 && (analysis.prefix.len() as u64) < length => {
                // A head (or a header line) over the limit: not cut, not read.
                warn(Warning::BadHttp {
                    record: analysis.head.record.clone(),
                    reason: format!("a head over {} KiB", MAX_HTTP_HEAD >> 10),
                });
                return Ok(());
            }
            Ok(None) => {
                // A head that ends with the block, without its blank line: accepted.
                let mut whole = analysis.prefix.clone();
                whole.extend_from_slice(b"\r\n\r\n");
                if let Ok(Some(mut head)) = HttpHead::parse(&whole) {
                    head.len = analysis.prefix.len();
                    let ignored = field_lines(&analysis.prefix).saturating_sub(head.headers.len());
                    if ignored > 0 {
                        // Lines that are no header fields (the body, its blank line lost)
                        // were passed over as the head: nothing of them is read.
                        warn(Warning::BadHttp {
                            record: analysis.head.record.clone(),
                            reason: format!(
                                "no blank line ends the head: {ignored} lines that are no header fields (the body?) taken into it and not read"
                            ),
                        });
                    }
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

/// The lines of an HTTP head after its status line that would each be a header field:
/// not empty, not a continuation of the one before (obsolete line folding, RFC 7230
/// §3.2.4).
fn field_lines(head: &[u8]) -> usize {
    head.split(|&b| b == b'\n')
        .skip(1)
        .filter(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            !line.is_empty() && !matches!(line[0], b' ' | b'\t')
        })
        .count()
}

/// The most bytes [`read_block`] reserves ahead on the word of a `Content-Length`.
const RESERVE_LIMIT: u64 = 8 << 20;

/// The largest block [`read_block`] reserves whole before reading it: the cap on a
/// decoded payload.
const UPFRONT_LIMIT: u64 = http::MAX_DECODED;

/// Reads the rest of the block into `analysis.prefix`, warning if the file ends first.
pub(crate) fn read_block<R: Read>(
    framing: &mut Framing<R>,
    analysis: &mut Analysis,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    let before = analysis.prefix.len();
    let mut n = 0;
    if remaining <= UPFRONT_LIMIT {
        // One buffer its size, never copied as it grows (a copy would hold the block
        // twice). A lying length costs address space only: pages are not touched until
        // bytes come.
        analysis.prefix.reserve_exact(remaining as usize);
    }
    loop {
        // Beyond, grown toward the length given, exactly, at most doubling at a time: an
        // honest block is held in one buffer its size, a lying one in at most twice what
        // it has.
        let left = remaining - n;
        let room = (analysis.prefix.capacity() - analysis.prefix.len()) as u64;
        if left > room {
            let grow = (left - room).min(analysis.prefix.len().max(RESERVE_LIMIT as usize) as u64);
            analysis.prefix.reserve_exact(grow as usize);
        }
        let room = (analysis.prefix.capacity() - analysis.prefix.len()) as u64;
        let read = framing
            .block(left.min(room.max(1)))
            .read_to_end(&mut analysis.prefix)
            .map_err(super::framing::stream_error)? as u64;
        n += read;
        if read == 0 || n >= remaining {
            break;
        }
    }
    if n < remaining {
        // Only when the block runs past the end: a record inside a whole block is data.
        // From the end of the HTTP head (read before, with what followed it).
        let head_end = analysis.http.as_ref().map_or(0, |http| http.len);
        let from = before.min(head_end).saturating_sub(1);
        if let Some((cut, start)) = record_start(&analysis.prefix[from..]) {
            framing.give_back(&analysis.prefix[from + cut..]);
            analysis.prefix.truncate(from + cut);
            analysis.prefix.shrink_to_fit();
            warn_overlong(framing, analysis, start - cut, warn);
            return Ok(());
        }
        warn_truncated(analysis, remaining - n, warn);
        analysis.truncated = true;
    }
    Ok(())
}

/// The most bytes of a block held from a record start found in it, in case the block
/// runs past the end of the file (then that record is read).
const OVERLONG_WINDOW: usize = 16 << 20;

/// Where a record starts in `bytes`: a `WARC/1.` (or `0.`) line after a line end whose
/// header block ends within `bytes` and has a `Content-Length`. Returns where the line
/// ends before it start (the block is cut there, its CRLFs left for the record end) and
/// where the record starts.
pub(crate) fn record_start(bytes: &[u8]) -> Option<(usize, usize)> {
    for p in memchr::memmem::find_iter(bytes, b"WARC/") {
        if p == 0 || bytes[p - 1] != b'\n' {
            continue;
        }
        if !matches!(bytes.get(p + 5..p + 7), Some(b"1." | b"0.")) {
            continue;
        }
        let rest = &bytes[p..bytes.len().min(p + (1 << 20))];
        let Some(end) =
            memchr::memmem::find(rest, b"\n\r\n").or_else(|| memchr::memmem::find(rest, b"\n\n"))
        else {
            continue;
        };
        let head = String::from_utf8_lossy(&rest[..end]).to_ascii_lowercase();
        let has_length = head.lines().any(|line| {
            line.strip_prefix("content-length:")
                .is_some_and(|v| v.trim().parse::<u64>().is_ok())
        });
        if !has_length {
            continue;
        }
        let line_ends = bytes[..p]
            .iter()
            .rev()
            .take(4)
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        return Some((p - line_ends, p));
    }
    None
}

fn warn_overlong<R: Read>(
    framing: &Framing<R>,
    analysis: &Analysis,
    ahead: usize,
    warn: &mut dyn FnMut(Warning),
) {
    warn(Warning::Overlong {
        record: analysis.head.record.clone(),
        length: analysis.head.length,
        next: framing.position() + ahead as u64,
    });
}

/// Writes the block's bytes read so far (`analysis.prefix`) to `out`, then skips the
/// rest of the block, writing it to `out` too.
pub(crate) fn copy_block<R: Read>(
    framing: &mut Framing<R>,
    analysis: &Analysis,
    out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    // From a record start seen in the block on, the bytes are held (up to a window), in
    // case the block runs past the end of the file: then that record is read. The bytes
    // read with the HTTP head (up to 4 KiB, or what was sniffed) are looked in too, from
    // the head's end.
    let prefix = &analysis.prefix;
    let from = analysis
        .http
        .as_ref()
        .map_or(0, |http| http.len.min(prefix.len()));
    let mut held: Option<Vec<u8>> = None;
    match line_start_version(
        &prefix[from..],
        if from == 0 { b'\n' } else { prefix[from - 1] },
    ) {
        Some(p) => {
            let p = from + p;
            let line_ends = line_ends_before(&prefix[..p]);
            out(&prefix[..p - line_ends])?;
            held = Some(prefix[p - line_ends..].to_vec());
        }
        None => out(prefix)?,
    }
    let mut block = framing.block(remaining);
    let mut copied = 0;
    let mut looking = true;
    let mut last = prefix.last().copied().unwrap_or(b'\n');
    // Straight from the reader's buffer: no buffer of its own to fill (or zero).
    loop {
        let n = match block.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => {
                if looking && held.is_none() {
                    if let Some(p) = line_start_version(bytes, last) {
                        let line_ends = line_ends_before(&bytes[..p]);
                        out(&bytes[..p - line_ends])?;
                        held = Some(bytes[p - line_ends..].to_vec());
                    } else {
                        out(bytes)?;
                    }
                } else if let Some(window) = &mut held {
                    window.extend_from_slice(bytes);
                    if window.len() > OVERLONG_WINDOW {
                        out(window)?;
                        held = None;
                        looking = false;
                    }
                } else {
                    out(bytes)?;
                }
                last = *bytes.last().expect("not empty");
                bytes.len()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(super::framing::stream_error(e)),
        };
        block.consume(n);
        copied += n as u64;
    }
    let Some(window) = held else {
        if copied < remaining {
            warn_truncated(analysis, remaining - copied, warn);
        }
        return Ok(());
    };
    if copied < remaining {
        // The record found, after a line end (`last` may be the one before the window).
        let mut with_line_end = vec![b'\n'];
        with_line_end.extend_from_slice(&window);
        if let Some((cut, start)) = record_start(&with_line_end) {
            let cut = cut.max(1) - 1;
            out(&window[..cut])?;
            framing.give_back(&window[cut..]);
            warn_overlong(framing, analysis, start - 1 - cut, warn);
            return Ok(());
        }
        out(&window)?;
        warn_truncated(analysis, remaining - copied, warn);
        return Ok(());
    }
    out(&window)?;
    Ok(())
}

/// Where `WARC/` starts a line in `bytes` (`before` is the byte before them).
fn line_start_version(bytes: &[u8], before: u8) -> Option<usize> {
    memchr::memmem::find_iter(bytes, b"WARC/")
        .find(|&p| (if p == 0 { before } else { bytes[p - 1] }) == b'\n')
}

/// How many line-end bytes (at most the two CRLFs that end a record) end `bytes`.
fn line_ends_before(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rev()
        .take(4)
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .count()
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
) -> Option<Payload<'a>> {
    let whole = |body| {
        Some(Payload {
            body,
            capped: false,
        })
    };
    let Some(http) = &analysis.http else {
        return whole(Cow::Borrowed(&analysis.prefix));
    };
    let body = &analysis.prefix[http.len.min(analysis.prefix.len())..];
    let transfer = http.codings("Transfer-Encoding");
    let mut codings = http.codings("Content-Encoding");
    // Transfer codings other than chunked (RFC 7230 §4: gzip, deflate) are undone too.
    let chunked = transfer.iter().any(|c| c == "chunked");
    codings.splice(0..0, transfer.into_iter().filter(|c| c != "chunked").rev());
    if !chunked && codings.is_empty() {
        return whole(Cow::Borrowed(body));
    }
    let body = match chunked.then(|| http::dechunk(body)) {
        Some(Some(dechunked)) => {
            if let Some((size, left)) = dechunked.short {
                warn(Warning::ShortChunk {
                    record: analysis.head.record.clone(),
                    size,
                    left,
                });
            }
            dechunked.data
        }
        Some(None) => {
            warn(Warning::BrokenChunks {
                record: analysis.head.record.clone(),
            });
            body.to_vec()
        }
        None => body.to_vec(),
    };
    if codings.is_empty() {
        return whole(Cow::Owned(body));
    }
    match http::decode(body, &codings) {
        Ok(decoded) => {
            for reason in decoded.notes {
                warn(Warning::Decoding {
                    record: analysis.head.record.clone(),
                    reason,
                });
            }
            Some(Payload {
                body: Cow::Owned(decoded.body),
                capped: decoded.capped,
            })
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

/// A record's payload, its codings undone.
pub(crate) struct Payload<'a> {
    pub body: Cow<'a, [u8]>,
    /// Whether it decodes to more than [`http::MAX_DECODED`] bytes and was cut there.
    pub capped: bool,
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
/// RFC 2068 §14.11), resolved against it. One the URL Standard does not parse is passed
/// over with a warning, as a `<base href>` is.
pub(crate) fn outer_base(
    analysis: &Analysis,
    options: &Options,
    warn: &mut dyn FnMut(Warning),
) -> Base {
    let Some(http) = analysis.http.as_ref().filter(|_| options.http_base_headers) else {
        return analysis.retrieval.clone();
    };
    for (name, source) in [
        ("Content-Base", BaseSource::ContentBase),
        ("Content-Location", BaseSource::ContentLocation),
    ] {
        let Some(header) = http
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
        else {
            continue;
        };
        let value = header
            .value
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>');
        match analysis
            .retrieval
            .try_inner(options.standard(), value, source, None)
        {
            Ok(base) => return base,
            Err(error @ BaseError::Unparsable { .. }) => warn(Warning::UnusableBaseHeader {
                record: analysis.head.record.clone(),
                field: name,
                offset: header.offset as u64,
                error,
            }),
            Err(BaseError::NotAbsolute(_)) => {}
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

/// Where a record's document's results go: the output kept (when asked for), each link
/// handed on as it is found (when asked for), each warning named by the record. With
/// `watch` (a document without a base), links are built to tell whether a relative one
/// was left as it is.
struct RecordSink<'r, 'l, 'w, 's> {
    record: &'r RecordRef,
    output: Option<&'s mut dyn io::Write>,
    on_link: Option<&'l mut dyn FnMut(LinkRef<'_>)>,
    warn: &'w mut dyn FnMut(Warning),
    watch: bool,
    relative_left: bool,
}

impl Sink for RecordSink<'_, '_, '_, '_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.output {
            Some(output) => output.write_all(bytes),
            None => Ok(()),
        }
    }
    fn link(&mut self, link: Link) {
        self.link_ref(link.borrowed());
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.relative_left |=
            link.base_from == BaseSource::None && pipeline::is_relative(link.original);
        if let Some(on_link) = &mut self.on_link {
            on_link(link);
        }
    }
    fn warning(&mut self, warning: crate::Warning) {
        let record = self.record.clone();
        (self.warn)(match warning.problem {
            Problem::Html(warning) => Warning::Html { record, warning },
            Problem::Warc(warning) => warning,
            Problem::Feed(warning) => Warning::Feed { record, warning },
            problem => Warning::Document {
                record,
                problem: Box::new(problem),
            },
        });
    }
    fn wants_output(&self) -> bool {
        self.output.is_some()
    }
    fn wants_links(&self) -> bool {
        self.watch || self.on_link.is_some()
    }
}

/// Rewrites (into `output`, when given) or lists (each link to `on_link`, as it is found)
/// the document `body` of kind `kind`, through the one function per kind
/// ([`pipeline::document`]), against the record's base and in its charset; the
/// rewriter's warnings name the record. A record without `WARC-Target-URI` (and no other
/// base) whose document leaves relative links relative gets [`Warning::NoTargetUri`],
/// as a file without `--url` gets its "no base URL". An error is `output`'s (a temporary
/// file).
pub(crate) fn process(
    analysis: &Analysis,
    kind: DocKind,
    body: &[u8],
    options: &Options,
    output: Option<&mut dyn io::Write>,
    on_link: Option<&mut dyn FnMut(LinkRef<'_>)>,
    warn: &mut dyn FnMut(Warning),
) -> io::Result<()> {
    let outer = outer_base(analysis, options, &mut *warn);
    let html_options = html::Options {
        charset: charset_of(analysis, options),
        ..options.html.clone()
    };
    let kind = match kind {
        DocKind::Css => Kind::Css,
        DocKind::Feed | DocKind::Xml => Kind::Feed,
        DocKind::Html | DocKind::Untyped => Kind::Html,
    };
    let mut sink = RecordSink {
        record: analysis.record(),
        output,
        on_link,
        warn,
        // A target URI that is no base was warned about when the record was read.
        watch: outer.url().is_none() && analysis.target_uri.is_none(),
        relative_left: false,
    };
    pipeline::document(kind, Body::Memory(body), &outer, &html_options, &mut sink)?;
    if sink.watch && sink.relative_left {
        (sink.warn)(Warning::NoTargetUri {
            record: analysis.record().clone(),
        });
    }
    Ok(())
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
