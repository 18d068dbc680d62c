//! Telling an HTML document, a MIME message and an mbox archive apart by content.

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An HTML document.
    Html,
    /// An RFC 822/MIME message: an `.eml` message or an MHTML page.
    Mime,
    /// An mbox archive: messages each after a `From ` separator line.
    Mbox,
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
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.starts_with(b"From ") {
        return Format::Mbox;
    }
    if is_header_block(head) {
        return Format::Mime;
    }
    Format::Html
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
