//! Telling an HTML document, a MIME message, an mbox archive and a WARC file apart by
//! content.

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An HTML document.
    Html,
    /// An RFC 822/MIME message: an `.eml` message or an MHTML page.
    Mime,
    /// An mbox archive: messages each after a `From ` separator line.
    Mbox,
    /// A WARC file (ISO 28500): it starts with `WARC/`, or with a gzip member whose
    /// content does.
    Warc,
}

/// The format of a document from its first bytes (a few kilobytes are plenty): an mbox
/// starts with `From `; a message with a header block (every line a field `Name: value`
/// or its continuation, up to a blank line or the end of what was read) that has at least
/// one mail or MIME field; anything else is HTML. A UTF-8 BOM first is allowed.
///
/// ```
/// use absolve::format::{detect, Format};
///
/// assert_eq!(detect(b"From a@b Thu Jan  1 00:00:00 1970\nSubject: x\n\nhi\n"), Format::Mbox);
/// assert_eq!(detect(b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), Format::Mime);
/// assert_eq!(detect(b"<!doctype html><p>From here: on</p>"), Format::Html);
/// assert_eq!(detect(b"\xEF\xBB\xBFFrom - Mon Jan 1 00:00:00 2024\n"), Format::Mbox);
/// assert_eq!(detect(b"Note: a fragment\n<p><a href=x>"), Format::Html);
/// ```
pub fn detect(head: &[u8]) -> Format {
    if is_warc(head) {
        return Format::Warc;
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.starts_with(b"From ") {
        return Format::Mbox;
    }
    if is_header_block(head) {
        return Format::Mime;
    }
    Format::Html
}

/// Whether `head` starts a WARC file: `WARC/`, plain or in a gzip member (WARC 1.1
/// Annex D).
///
/// ```
/// use absolve::format::{detect, Format};
/// use std::io::Write;
///
/// assert_eq!(detect(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"), Format::Warc);
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// gz.write_all(b"WARC/1.0\r\n").unwrap();
/// assert_eq!(detect(&gz.finish().unwrap()), Format::Warc);
/// ```
fn is_warc(head: &[u8]) -> bool {
    use std::io::Read;
    if head.starts_with(b"WARC/") {
        return true;
    }
    if !head.starts_with(&[0x1f, 0x8b]) {
        return false;
    }
    let mut start = [0; 5];
    flate2::read::GzDecoder::new(head)
        .read_exact(&mut start)
        .is_ok_and(|()| &start == b"WARC/")
}

/// Fields that only a mail or MIME heading has.
const MAIL_FIELDS: [&str; 12] = [
    "mime-version",
    "content-type",
    "content-location",
    "content-base",
    "content-transfer-encoding",
    "from",
    "to",
    "subject",
    "date",
    "message-id",
    "received",
    "return-path",
];

/// Whether `head` starts with a header block holding at least one mail or MIME field.
fn is_header_block(head: &[u8]) -> bool {
    let mut mail_fields = 0;
    let mut lines = head.split(|&b| b == b'\n').peekable();
    let mut first = true;
    while let Some(line) = lines.next() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let is_last_read = lines.peek().is_none();
        if line.is_empty() || (is_last_read && !first) {
            break;
        }
        if !first && matches!(line[0], b' ' | b'\t') {
            continue;
        }
        let Some(name) = field_name(line) else {
            return false;
        };
        first = false;
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        mail_fields += usize::from(MAIL_FIELDS.contains(&name.as_str()));
    }
    mail_fields > 0
}

/// RFC 5322 §2.2: a field name (printable ASCII but `:`) followed by `:`.
fn field_name(line: &[u8]) -> Option<&[u8]> {
    let len = line
        .iter()
        .take_while(|&&b| (0x21..=0x7e).contains(&b) && b != b':')
        .count();
    (len > 0 && line.get(len) == Some(&b':')).then_some(&line[..len])
}
