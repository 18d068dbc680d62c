//! Which records hold a document, the document's bytes (HTTP framing and codings
//! undone), its base chain and charset, and its links.

use super::framing::{Framing, Head};
use super::http::{self, HttpHead, MAX_HTTP_HEAD};
use super::{Error, RecordRef, Warning};
use crate::base::{Base, BaseError, BaseSource};
use crate::html::{self, charset};
use crate::links::{Link, LinkRef};
use crate::pipeline::{self, Body, Kind};
use crate::spool::Spool;
use crate::{Options, Problem, Sink};
use encoding_rs::Encoding;
use std::borrow::Cow;
use std::io::{self, BufRead, Read, Write};

/// The kind of document a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocKind {
    Html,
    Css,
    Feed,
    /// `image/svg+xml`.
    Svg,
    /// `text/xml` or `application/xml`: a feed if its root element is a feed's, an SVG
    /// image if it is SVG's `svg`.
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
    /// The file ended inside the block, or the block ran past its end into the records
    /// after it ([`read_block`]): `rewrite` copies the record as it is, never as a whole
    /// one (a new `Content-Length` would hide the damage).
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

/// The kind of document a media type is.
fn doc_kind(content_type: Option<&str>) -> Option<DocKind> {
    let Some(content_type) = content_type else {
        return Some(DocKind::Untyped);
    };
    match crate::mime::media_type(content_type).as_str() {
        "text/html" | "application/xhtml+xml" => Some(DocKind::Html),
        "text/css" => Some(DocKind::Css),
        "application/atom+xml" | "application/rss+xml" | "application/rdf+xml" => {
            Some(DocKind::Feed)
        }
        "image/svg+xml" => Some(DocKind::Svg),
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
    let warc_type = head.field("Content-Type").map(crate::mime::media_type);
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
    if remaining <= UPFRONT_LIMIT {
        // One buffer its size, never copied as it grows (a copy would hold the block
        // twice). A lying length costs address space only: pages are not touched until
        // bytes come.
        analysis.prefix.reserve_exact(remaining as usize);
    }
    // A record may start from the end of the HTTP head on (in the bytes read with it).
    let from = analysis
        .http
        .as_ref()
        .map_or(0, |http| http.len.min(analysis.prefix.len()));
    let read = analysis.prefix.split_off(from);
    let remaining = remaining + read.len() as u64;
    let prefix = &mut analysis.prefix;
    let rest = read_rest(
        framing,
        &read,
        remaining,
        &mut |bytes| {
            prefix.extend_from_slice(bytes);
            Ok(())
        },
        &mut |_| Ok(()),
    )?;
    match rest {
        Rest::Whole => {}
        Rest::Overlong { held, ahead } => {
            analysis.prefix.shrink_to_fit();
            analysis.truncated = true;
            framing.give_back_spool(held)?;
            warn_overlong(framing, analysis, ahead, warn);
        }
        Rest::Short { missing } => {
            warn_truncated(framing, analysis, missing, warn)?;
            analysis.truncated = true;
        }
    }
    Ok(())
}

/// What is done after each read of a block's bytes, with the framing (`rewrite`: the
/// compressed bytes of a gzip member copied as they are, passed on as they are read).
pub(crate) type AfterRead<'a, R> = &'a mut dyn FnMut(&mut Framing<R>) -> Result<(), Error>;

/// How the rest of a block was read ([`read_rest`]).
enum Rest {
    /// Every byte of it.
    Whole,
    /// The file ended first, and a record started in it (`ahead` bytes into `held`, after
    /// the line ends before it): the block ends before it, and `held` is read again.
    Overlong { held: Spool<'static>, ahead: usize },
    /// The file ended first, `missing` bytes short, and no record started in it.
    Short { missing: u64 },
}

/// Reads the rest of a block, `remaining` bytes, after `read` (the bytes read of it from
/// the end of its HTTP head, or from its start), giving them to `out`. From a record start
/// found in them on (a `WARC/` line with a `Content-Length`, [`scan`]), the bytes are held
/// in a spool instead (memory, then a temporary file: bounded memory whatever their
/// length), in case the block runs past the end of the file: then they are the records
/// after it (ISO 28500 §4, read leniently), else the block's and given to `out` at its end.
fn read_rest<R: Read>(
    framing: &mut Framing<R>,
    read: &[u8],
    remaining: u64,
    out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    after_read: AfterRead<'_, R>,
) -> Result<Rest, Error> {
    let mut lookout = Lookout {
        arc: framing.arc,
        ..Lookout::default()
    };
    lookout.take(read, out)?;
    let remaining = remaining - read.len() as u64;
    let mut n = 0;
    // Straight from the reader's buffer: no buffer of its own to fill (or zero).
    loop {
        let mut block = framing.block(remaining - n);
        let len = match block.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => {
                lookout.take(bytes, out)?;
                bytes.len()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(super::framing::stream_error(e)),
        };
        block.consume(len);
        n += len as u64;
        after_read(framing)?;
    }
    let whole = n == remaining;
    Ok(match lookout.finish(whole, out)? {
        Some((held, ahead)) => Rest::Overlong { held, ahead },
        None if whole => Rest::Whole,
        None => Rest::Short {
            missing: remaining - n,
        },
    })
}

/// Watches a block's bytes for a record start ([`read_rest`]).
#[derive(Default)]
struct Lookout {
    /// Bytes not passed on yet: a `WARC/` line (with the line ends before it) whose header
    /// block is not complete yet, and what follows (at most a head's bytes and a read).
    undecided: Vec<u8>,
    /// The byte before them (a line end where none was passed on yet).
    before: Option<u8>,
    /// From a record start on: every byte, and how far into them the record starts.
    held: Option<(Spool<'static>, usize)>,
    /// An ARC file's block: a record starts at an ARC header line
    /// ([`super::arc::find_header`]), its header lines having this many fields.
    arc: Option<usize>,
}

impl Lookout {
    /// Takes the block's next `bytes`: those before any record start go to `out`.
    fn take(
        &mut self,
        bytes: &[u8],
        out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        if let Some((held, _)) = &mut self.held {
            return held.write_all(bytes);
        }
        let joined;
        let bytes = if self.undecided.is_empty() {
            bytes
        } else {
            self.undecided.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.undecided);
            &joined[..]
        };
        let before = self.before.unwrap_or(b'\n');
        let found = match self.arc {
            Some(fields) => scan_arc(bytes, before, fields),
            None => scan(bytes, before),
        };
        match found {
            Scan::Record { cut, start } => {
                out(&bytes[..cut])?;
                let mut held = Spool::new(&[]);
                held.write_all(&bytes[cut..])?;
                self.held = Some((held, start - cut));
            }
            Scan::Undecided { from } => {
                out(&bytes[..from])?;
                if from > 0 {
                    self.before = Some(bytes[from - 1]);
                }
                self.undecided = bytes[from..].to_vec();
            }
        }
        Ok(())
    }

    /// At the end of the block's bytes (`whole`: all it has): the record start found, if
    /// the file ended first; else what is held goes to `out`.
    fn finish(
        self,
        whole: bool,
        out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<Option<(Spool<'static>, usize)>> {
        out(&self.undecided)?;
        match self.held {
            Some(held) if !whole => Ok(Some(held)),
            Some((mut held, _)) => {
                held.for_each(out)?;
                Ok(None)
            }
            None => Ok(None),
        }
    }
}

/// What [`scan`] found in a block's bytes.
#[derive(Debug, PartialEq, Eq)]
enum Scan {
    /// A record starts at `start`; the block would end at `cut`, before the line ends
    /// (left for the record end).
    Record { cut: usize, start: usize },
    /// No record starts before `from`; one may from there (its header block not complete
    /// yet, or its `WARC/` line cut by the end of the bytes).
    Undecided { from: usize },
}

/// The most bytes of a header block looked through for its end and `Content-Length`.
const RECORD_HEAD: usize = 1 << 20;

/// Where a record starts in `bytes` (`before` is the byte before them): a `WARC/1.` (or
/// `0.`) line after a line end whose header block (ISO 28500 §5.1) ends within
/// [`RECORD_HEAD`] bytes and has a `Content-Length`.
fn scan(bytes: &[u8], before: u8) -> Scan {
    let line_start = |p: usize| (if p == 0 { before } else { bytes[p - 1] }) == b'\n';
    for p in memchr::memmem::find_iter(bytes, b"WARC/").filter(|&p| line_start(p)) {
        let rest = &bytes[p..];
        let Some(version) = rest.get(5..7) else {
            return Scan::Undecided {
                from: p - line_ends_before(&bytes[..p]),
            };
        };
        if !matches!(version, b"1." | b"0.") {
            continue;
        }
        let rest = &rest[..rest.len().min(RECORD_HEAD)];
        let Some(end) =
            memchr::memmem::find(rest, b"\n\r\n").or_else(|| memchr::memmem::find(rest, b"\n\n"))
        else {
            if rest.len() < RECORD_HEAD {
                // Its header block may end in the bytes to come.
                return Scan::Undecided {
                    from: p - line_ends_before(&bytes[..p]),
                };
            }
            continue;
        };
        if has_length(&rest[..end]) {
            let cut = p - line_ends_before(&bytes[..p]);
            return Scan::Record { cut, start: p };
        }
    }
    // A `WARC/` line may begin in the last bytes (after their line ends).
    let tail = (1..5)
        .rev()
        .find(|&k| {
            bytes.len() >= k
                && b"WARC/".starts_with(&bytes[bytes.len() - k..])
                && line_start(bytes.len() - k)
        })
        .unwrap_or(0);
    let from = bytes.len() - tail;
    Scan::Undecided {
        from: from - line_ends_before(&bytes[..from]),
    }
}

/// [`scan`] in an ARC file's block: a record starts at an ARC header line with a length.
fn scan_arc(bytes: &[u8], before: u8, fields: usize) -> Scan {
    match super::arc::find_header(bytes, before, fields) {
        Ok(start) => Scan::Record {
            cut: start - line_ends_before(&bytes[..start]),
            start,
        },
        Err(from) => Scan::Undecided { from },
    }
}

/// Whether a header block has a `Content-Length` field that is a number.
fn has_length(head: &[u8]) -> bool {
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    head.lines().any(|line| {
        line.strip_prefix("content-length:")
            .is_some_and(|v| v.trim().parse::<u64>().is_ok())
    })
}

fn warn_overlong<R: Read>(
    framing: &Framing<R>,
    analysis: &Analysis,
    ahead: usize,
    warn: &mut dyn FnMut(Warning),
) {
    let (record, length) = (analysis.head.record.clone(), analysis.head.length);
    let next = framing.position() + ahead as u64;
    warn(match analysis.head.arc {
        true => Warning::ArcOverlong {
            record,
            length,
            next,
        },
        false => Warning::Overlong {
            record,
            length,
            next,
        },
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
    copy_block_with(framing, analysis, out, &mut |_| Ok(()), warn)
}

/// [`copy_block`], calling `after_read` after each read of the block's bytes.
pub(crate) fn copy_block_with<R: Read>(
    framing: &mut Framing<R>,
    analysis: &Analysis,
    out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    after_read: AfterRead<'_, R>,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let remaining = analysis.head.length - analysis.prefix.len() as u64;
    // A record may start from the end of the HTTP head on (in the bytes read with it).
    let prefix = &analysis.prefix;
    let from = analysis
        .http
        .as_ref()
        .map_or(0, |http| http.len.min(prefix.len()));
    out(&prefix[..from])?;
    let remaining = remaining + (prefix.len() - from) as u64;
    match read_rest(framing, &prefix[from..], remaining, out, after_read)? {
        Rest::Whole => {}
        Rest::Overlong { held, ahead } => {
            framing.give_back_spool(held)?;
            warn_overlong(framing, analysis, ahead, warn);
        }
        Rest::Short { missing } => warn_truncated(framing, analysis, missing, warn)?,
    }
    Ok(())
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

/// A block that came up `missing` bytes short: the file ends there, or damaged compressed
/// data cut it (reading resumed after it, in a later gzip member; or the decompression of
/// a file compressed whole stopped there).
fn warn_truncated<R: Read>(
    framing: &mut Framing<R>,
    analysis: &Analysis,
    missing: u64,
    warn: &mut dyn FnMut(Warning),
) -> Result<(), Error> {
    let record = analysis.head.record.clone();
    let length = analysis.head.length;
    warn(match framing.at_the_files_end()? {
        true if analysis.head.arc => Warning::ArcTruncated {
            record,
            length,
            missing,
        },
        true => Warning::Truncated {
            record,
            length,
            missing,
        },
        false if analysis.head.arc => Warning::ArcCutByDamage {
            record,
            length,
            missing,
        },
        false => Warning::CutByDamage {
            record,
            length,
            missing,
        },
    });
    Ok(())
}

/// The payload of a record whose block is read: the HTTP body with its transfer coding
/// and content codings undone (or a `resource` record's block). `None` (with a warning)
/// when a coding cannot be undone. A record its crawler cut short (`WARC-Truncated`) is
/// warned about.
pub(crate) fn payload<'a>(
    analysis: &'a Analysis,
    warn: &mut dyn FnMut(Warning),
) -> Option<Payload<'a>> {
    if let Some(reason) = analysis.head.field("WARC-Truncated") {
        warn(Warning::TruncatedByCrawler {
            record: analysis.head.record.clone(),
            reason: reason.to_owned(),
        });
    }
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
/// sniffs as HTML, an XML one if its root element is a feed's or SVG's.
pub(crate) fn is_document(kind: DocKind, body: &[u8]) -> bool {
    match kind {
        DocKind::Untyped => sniffs_as_html(body),
        // Past a long prolog too (comments, a DOCTYPE): up to feed::SNIFF_LIMIT.
        DocKind::Xml => crate::mime::is_xml_document(body),
        DocKind::Html | DocKind::Css | DocKind::Feed | DocKind::Svg => true,
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
        DocKind::Feed | DocKind::Svg | DocKind::Xml => Kind::Xml,
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

    /// A record start is one with its `Content-Length`; one whose header block is not
    /// complete yet is undecided, with the line ends before it; a `WARC/` line cut by the
    /// end of the bytes too.
    #[test]
    fn record_starts_in_a_block() {
        let record = b"<p>\r\n\r\nWARC/1.0\r\nContent-Length: 5\r\n\r\nhello";
        assert_eq!(scan(record, b'\n'), Scan::Record { cut: 3, start: 7 });
        assert_eq!(scan(&record[..20], b'\n'), Scan::Undecided { from: 3 });
        assert_eq!(scan(b"<p>\nWAR", b'\n'), Scan::Undecided { from: 3 });
        assert_eq!(scan(b"<p>\r\n", b'\n'), Scan::Undecided { from: 3 });
        let no_length = b"x\nWARC/1.0\r\nWARC-Type: x\r\n\r\nbody";
        assert_eq!(scan(no_length, b'\n'), Scan::Undecided { from: 32 });
        assert_eq!(
            scan(b"WARC/1.0\r\nContent-Length: 1\r\n\r\n", b'x'),
            Scan::Undecided { from: 27 }
        );
    }

    #[test]
    fn wget_target_uris() {
        assert_eq!(clean_target_uri("<http://h/a b>"), "http://h/a b");
        assert_eq!(clean_target_uri(" http://h/ "), "http://h/");
    }
}
