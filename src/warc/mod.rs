//! WARC web archives (ISO 28500, WARC 1.0/1.1): the links of every HTML and CSS payload,
//! and the archive rewritten with them made absolute.
//!
//! A `response` record is RFC 1808 §3 made concrete: the page's `<base href>` (§3.1), the
//! HTTP message around it (§3.2, only with [`Options::with_http_base_headers`]: browsers never
//! used `Content-Base`/`Content-Location` as a base and RFC 7231 dropped the rule), and
//! the `WARC-Target-URI` it was retrieved from (§3.3). The URLs in the HTTP header fields
//! (`Location`, `Content-Location`, `Link`, `Refresh`) are links too, resolved against the
//! target URI (RFC 7231 §7.1.2, RFC 8288 §3.2), never against a `<base>`.
//!
//! The archive is read as a stream, plain or gzip (one member per record, WARC 1.1
//! Annex D, or one stream for the whole file; [`Links`] also takes bzip2, xz, zstd and
//! LZ4), record by record: only an HTML or CSS
//! payload is held in memory, other records are skipped (or, in [`rewrite`], copied)
//! as they are read. Reading is lenient, as warcio's: a wrong `Content-Length` is
//! survived by skipping to the next `WARC/` line, and a truncated file ends with a
//! warning.
//!
//! ```
//! use absolve::warc::Links;
//! use absolve::{Event, Options};
//!
//! let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\
//!             Link: </style.css>; rel=stylesheet\r\n\r\n<a href=b.html>b</a>";
//! let warc = format!(
//!     "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
//!      WARC-Target-URI: http://example.com/a/page.html\r\n\
//!      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n\
//!      {http}\r\n\r\n",
//!     http.len()
//! );
//! let mut links = Vec::new();
//! for event in Links::new(warc.as_bytes(), Options::new()) {
//!     if let Event::Link(link) = event? {
//!         links.push(link);
//!     }
//! }
//! let found: Vec<_> = links
//!     .iter()
//!     .map(|l| (l.element.as_str(), l.resolved.as_str()))
//!     .collect();
//! assert_eq!(
//!     found,
//!     [("http", "http://example.com/style.css"), ("a", "http://example.com/a/b.html")]
//! );
//! assert_eq!(links[0].location.record.as_deref(), Some("<urn:uuid:1>"));
//! assert_eq!(links[1].location.target_uri.as_deref(), Some("http://example.com/a/page.html"));
//! # Ok::<(), absolve::warc::Error>(())
//! ```

mod arc;
mod compressed;
mod framing;
mod http;
mod list;
mod payload;
mod stream;
mod write;

pub(crate) use framing::RecordCount;
pub use list::{BATCH_BYTES, Encode, Encoded, EncodedLinks, LARGE_PAYLOAD, Links};
pub use write::{ORIGINAL_RECORD_ID, rewrite};

use crate::Options;
use std::fmt;

/// Which record a warning is about: its number in the file (from 1), where it starts in
/// the (decompressed) file, and its `WARC-Record-ID` when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    /// 1 for the first record of the file.
    pub number: u64,
    /// The offset of its `WARC/` line in the decompressed file.
    pub offset: u64,
    /// Its `WARC-Record-ID`.
    pub id: Option<String>,
}

impl fmt::Display for RecordRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}", self.number)?;
        if let Some(id) = &self.id {
            write!(f, " {id}")?;
        }
        write!(f, " (at byte {})", self.offset)
    }
}

/// Something wrong in a record that did not stop the reading: the record is named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// Bytes after a record that do not start one (its `Content-Length` is wrong?).
    #[error("{skipped} bytes at byte {offset}{} are not a record (a wrong Content-Length?): skipped to the next WARC/ line", after_record(.after))]
    Resynchronised {
        /// The record before the bytes skipped.
        after: Option<RecordRef>,
        /// Where the skipped bytes start.
        offset: u64,
        /// How many bytes were skipped.
        skipped: u64,
    },
    /// A stream read on after damaged compressed data (a bzip2 or xz block, a zstd or
    /// LZ4 frame) that starts inside a record: its bytes up to the first `WARC/` line
    /// are the rest of the record the damage cut, skipped.
    #[error(
        "{skipped} bytes where reading resumed after the damage are the rest of a record it cut: skipped to the next WARC/ line"
    )]
    RestOfCutRecord {
        /// How many bytes were skipped.
        skipped: u64,
    },
    /// ARC: bytes after a record that do not start one (its `Archive-length` is wrong?).
    #[error("{skipped} bytes at byte {offset}{} are not an ARC record (a wrong Archive-length?): skipped to the next ARC header line", after_record(.after))]
    ArcResynchronised {
        /// The record before the bytes skipped.
        after: Option<RecordRef>,
        /// Where the skipped bytes start.
        offset: u64,
        /// How many bytes were skipped.
        skipped: u64,
    },
    /// ARC: a header line whose `Archive-length` is not a length (`-1`, `abc`).
    #[error(
        "{record}: Archive-length {value:?} is not a length: skipped to the next ARC header line"
    )]
    ArcNoLength {
        /// The record.
        record: RecordRef,
        /// The `Archive-length` as written.
        value: String,
    },
    /// ARC: the file ends inside a record.
    #[error(
        "{record}: the file ends {missing} bytes before the end of its content (Archive-length {length}): truncated"
    )]
    ArcTruncated {
        /// The record cut short.
        record: RecordRef,
        /// Its `Archive-length`.
        length: u64,
        /// How many bytes of it are missing.
        missing: u64,
    },
    /// ARC: an `Archive-length` that runs past the end of the file while a record's header
    /// line starts inside it: the content is taken to end there, and that record is read.
    #[error(
        "{record}: Archive-length {length} runs past the end of the file, but a record starts at byte {next}: the content is taken to end there"
    )]
    ArcOverlong {
        /// The record.
        record: RecordRef,
        /// Its `Archive-length`.
        length: u64,
        /// Where the next record starts.
        next: u64,
    },
    /// The file ends inside a record.
    #[error(
        "{record}: the file ends {missing} bytes before the end of its block (Content-Length {length}): truncated"
    )]
    Truncated {
        /// The record cut short.
        record: RecordRef,
        /// Its `Content-Length`.
        length: u64,
        /// How many bytes of it are missing.
        missing: u64,
    },
    /// A record whose block is cut by damaged compressed data: its bytes after the damage
    /// are not there (reading resumed in a later gzip member, at another record's bytes;
    /// or, in a file compressed whole, where the decompression stopped: the warning about
    /// the damage follows).
    #[error(
        "{record}: its block ends {missing} bytes before its end (Content-Length {length}), cut by damaged compressed data"
    )]
    CutByDamage {
        /// The record cut.
        record: RecordRef,
        /// Its `Content-Length`.
        length: u64,
        /// How many bytes of it are missing.
        missing: u64,
    },
    /// ARC: a record whose content is cut by damaged compressed data (as
    /// [`Warning::CutByDamage`]).
    #[error(
        "{record}: its content ends {missing} bytes before its end (Archive-length {length}), cut by damaged compressed data"
    )]
    ArcCutByDamage {
        /// The record cut.
        record: RecordRef,
        /// Its `Archive-length`.
        length: u64,
        /// How many bytes of it are missing.
        missing: u64,
    },
    /// A record without a usable `Content-Length` (none, not a number, or beyond 1 TiB).
    #[error("{record}: no valid Content-Length: skipped to the next WARC/ line")]
    NoContentLength {
        /// The record.
        record: RecordRef,
    },
    /// A gzip member whose magic number is damaged (RFC 1952 §2.3.1: ID1, ID2, CM): read
    /// with it restored, the rest of it decoding (its CRC-32 matched, or 1 MiB of it).
    #[error(
        "a gzip member whose magic number is damaged at byte {offset} of the file{}: read with it restored (the rest of it decodes)",
        after_record(.record)
    )]
    GzipMagicRestored {
        /// The record before it.
        record: Option<RecordRef>,
        /// Where the member starts in the (compressed) file.
        offset: u64,
    },
    /// Gzip data that cannot be decompressed (a damaged or cut member, bytes between
    /// members that are not one): reading resumed at the next gzip member found after it;
    /// `rewrite` copies the damaged bytes as they are.
    #[error(
        "damaged gzip data from byte {offset} of the file{} (found at byte {found_at}: {reason}): {}",
        after_record(.record),
        match (.resumed_at, .file_ends_there) {
            (Some(at), _) => format!("resumed at the next gzip member, byte {at}"),
            (None, true) => "the file ends there".to_owned(),
            (None, false) => "no gzip member after it: the rest of the file is skipped".to_owned(),
        }
    )]
    DamagedGzip {
        /// The record the damage is in or after.
        record: Option<RecordRef>,
        /// Where the damaged bytes start in the (compressed) file.
        offset: u64,
        /// Where the decompressor found the damage.
        found_at: u64,
        /// What the decompressor said.
        reason: String,
        /// Where the next gzip member starts, if there is one.
        resumed_at: Option<u64>,
        /// The file ends where the damage was found: no byte after it is skipped.
        file_ends_there: bool,
    },
    /// A record whose block is not followed by the two CRLFs that end a record (ISO 28500
    /// §4): a wrong `Content-Length`, or a writer that left them out.
    #[error(
        "{record}: the block is followed by {found} line-end bytes, not the CRLF CRLF that ends a record"
    )]
    NoRecordEnd {
        /// The record.
        record: RecordRef,
        /// How many CR or LF bytes follow the block.
        found: u64,
    },
    /// A block whose `Content-Length` runs past the end of the file while a record starts
    /// inside it: the block is taken to end there, and that record is read.
    #[error(
        "{record}: Content-Length {length} runs past the end of the file, but a record starts at byte {next}: the block is taken to end there"
    )]
    Overlong {
        /// The record.
        record: RecordRef,
        /// Its `Content-Length`.
        length: u64,
        /// Where the next record starts.
        next: u64,
    },
    /// A header block over 1 MiB: its fields beyond are not read, the record is copied
    /// as it is.
    #[error(
        "{record}: a header block over 1 MiB: the record is copied as it is, its payload not read"
    )]
    HugeHead {
        /// The record.
        record: RecordRef,
    },
    /// The HTTP head of a response could not be read: its payload is skipped.
    #[error("{record}: unreadable HTTP head ({reason}): payload skipped")]
    BadHttp {
        /// The record.
        record: RecordRef,
        /// What the HTTP parser said.
        reason: String,
    },
    /// `Transfer-Encoding: chunked` with broken framing: the raw body is used, as warcio does.
    #[error("{record}: broken chunked framing: the body is used as it is")]
    BrokenChunks {
        /// The record.
        record: RecordRef,
    },
    /// A document record its crawler cut short: `WARC-Truncated` (WARC 1.1, the field of
    /// that name: `length`, `time`, `disconnect`, `unspecified`) gives the reason. Its
    /// payload is only the start of the resource.
    #[error(
        "{record}: WARC-Truncated: {reason}: its crawler kept only the start of the payload: links past it are not in the archive, and a URL it ends inside is cut short"
    )]
    TruncatedByCrawler {
        /// The record.
        record: RecordRef,
        /// The field's value.
        reason: String,
    },
    /// A chunk (RFC 7230 §4.1) whose size is larger than the data left: the data is used.
    #[error("{record}: a chunk of {size} bytes with only {left} bytes left: the body is cut short")]
    ShortChunk {
        /// The record.
        record: RecordRef,
        /// The chunk's size.
        size: u64,
        /// The bytes left in the body.
        left: u64,
    },
    /// A `Content-Encoding` that cannot be undone: the payload is skipped (and copied).
    #[error("{record}: Content-Encoding {reason} cannot be undone: payload skipped")]
    BadEncoding {
        /// The record.
        record: RecordRef,
        /// The coding and what went wrong.
        reason: String,
    },
    /// A body that is not in its `Content-Encoding`, or damaged in it: used as it is, or
    /// as far as it decodes.
    #[error("{record}: Content-Encoding {reason}")]
    Decoding {
        /// The record.
        record: RecordRef,
        /// The coding and what was done.
        reason: String,
    },
    /// Header fields holding bytes that are not UTF-8 (ISO 28500 §4 writes them in
    /// UTF-8): their values are read with each such byte percent-encoded (`0xE9` as
    /// `%E9`, so that a `WARC-Target-URI` names the URL its bytes do); the header is
    /// written back with its bytes as they were.
    #[error(
        "{record}: {} {} bytes that are not UTF-8: read with those bytes percent-encoded (0xE9 as %E9), written back as they are",
        match .fields.len() { 1 => "header field", _ => "header fields" },
        match .fields.len() { 1 => format!("{} holds", .fields[0]), _ => format!("{} hold", .fields.join(", ")) }
    )]
    NotUtf8Header {
        /// The record.
        record: RecordRef,
        /// The names of the fields, as written.
        fields: Vec<String>,
    },
    /// A `WARC-Target-URI` that cannot be a base: relative URLs stay as they are.
    #[error(
        "{record}: WARC-Target-URI {uri:?} is not an absolute URL: relative links are left as they are"
    )]
    BadTargetUri {
        /// The record.
        record: RecordRef,
        /// The value.
        uri: String,
    },
    /// A record without `WARC-Target-URI` whose document has relative links: with no base
    /// (RFC 1808 §3.4) they are left as they are, as a file's are without `--url`.
    #[error("{record}: no WARC-Target-URI, so no base URL: relative links are left as they are")]
    NoTargetUri {
        /// The record.
        record: RecordRef,
    },
    /// `--spec whatwg`: a URL in an HTTP header field that the URL Standard rejects: left as
    /// it is, as one in the payload is.
    #[error(
        "{record}: the URL {reference:?} of the HTTP {field} header at byte {offset} of its block is not a URL by the URL Standard ({reason}): left as it is"
    )]
    UnparsableHeaderUrl {
        /// The record.
        record: RecordRef,
        /// The header field's name, lower case.
        field: String,
        /// The URL as written.
        reference: String,
        /// Where it starts in the record's block.
        offset: u64,
        /// What the URL parser said.
        reason: String,
    },
    /// `--http-base-headers --spec whatwg`: a `Content-Base` or `Content-Location` that
    /// the URL Standard does not parse: passed over as a base, as a `<base href>` is.
    #[error("{record}: HTTP {field} at byte {offset} of its block: {error}: passed over as a base")]
    UnusableBaseHeader {
        /// The record.
        record: RecordRef,
        /// The header field's name.
        field: &'static str,
        /// Where its value starts in the record's block.
        offset: u64,
        /// Why it gives no base.
        error: crate::base::BaseError,
    },
    /// A warning from the HTML rewriter about the record's payload.
    #[error("{record}: {warning}")]
    Html {
        /// The record.
        record: RecordRef,
        /// What the HTML rewriter said.
        warning: crate::html::Warning,
    },
    /// A warning from the feed rewriter about the record's payload.
    #[error("{record}: {warning}")]
    Feed {
        /// The record.
        record: RecordRef,
        /// What the feed rewriter said.
        warning: crate::feed::Warning,
    },
    /// Any other problem of the record's payload, as the document reader said it.
    #[error("{record}: {problem}")]
    Document {
        /// The record.
        record: RecordRef,
        /// What the document reader said.
        problem: Box<crate::Problem>,
    },
    /// `rewrite`: a record's changes could not be written (it shares a gzip member with
    /// other records being copied, or its digest algorithm is not known): copied as it was.
    #[error("{record}: {reason}: copied unchanged")]
    NotRewritten {
        /// The record.
        record: RecordRef,
        /// Why.
        reason: String,
    },
    /// A record whose links changed, in a gzip member holding other records too whose
    /// deflate data is damaged after the record's start (a trailer that does not match is
    /// [`Warning::DamagedMemberCopied`]): its links are not rewritten, and its bytes, as
    /// far as they were decoded, are written into a new gzip member (the records before it
    /// in the damaged member were recompressed too); the compressed bytes from where the
    /// damage was found are copied as they are.
    #[error(
        "{record}: its gzip member is damaged (found at byte {found_at}): its links are not rewritten; its bytes as they were decoded are written into a new gzip member, the compressed bytes from byte {found_at} on copied as they are"
    )]
    RecompressedDamaged {
        /// The record.
        record: RecordRef,
        /// Where the damage was found in the (compressed) file.
        found_at: u64,
    },
    /// `rewrite`: a gzip member holding several records whose trailer, the CRC-32 and
    /// length of what it decoded to (RFC 1952 §2.3.1), does not match: the damage is
    /// somewhere in the member, so none of what it decoded to is known right. Its
    /// compressed bytes are copied as they are, and the records in it whose links changed
    /// are not rewritten.
    #[error(
        "{first} and the records after it in the gzip member from byte {offset} to byte {end} of the file: its CRC-32 or length does not match what it decodes to: the member is copied as it is, {not_rewritten} of its records not rewritten"
    )]
    DamagedMemberCopied {
        /// The member's first record.
        first: RecordRef,
        /// Where the member starts in the (compressed) file.
        offset: u64,
        /// Where it ends: after its trailer.
        end: u64,
        /// How many of its records had links to change.
        not_rewritten: u64,
    },
}

fn after_record(after: &Option<RecordRef>) -> String {
    after
        .as_ref()
        .map(|r| format!(" after {r}"))
        .unwrap_or_default()
}

/// What stops the reading of a WARC file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The input does not start with a WARC record (`WARC/` line), plain or gzipped.
    #[error("not a WARC file: it starts with {start:?}{hint}")]
    NotWarc {
        /// The start of the first line.
        start: String,
        /// What the file seems to be instead, and what to do.
        hint: &'static str,
    },
    /// A gzip member that cannot be decompressed.
    #[error("damaged gzip data near byte {offset} of the file: {reason}")]
    Gzip {
        /// Where (compressed offset).
        offset: u64,
        /// What the decompressor said.
        reason: String,
    },
}

/// What [`rewrite`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records read.
    pub records: u64,
    /// Records written anew because their payload changed.
    pub rewritten: u64,
    /// Records copied as they were.
    pub copied: u64,
}
