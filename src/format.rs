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
/// starts with `From `, a message with a header field (`Name: value`), and anything else
/// is HTML. A UTF-8 BOM before the first line is allowed.
///
/// ```
/// use absolve::format::{detect, Format};
///
/// assert_eq!(detect(b"From a@b Thu Jan  1 00:00:00 1970\nSubject: x\n\nhi\n"), Format::Mbox);
/// assert_eq!(detect(b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), Format::Mime);
/// assert_eq!(detect(b"<!doctype html><p>From here: on</p>"), Format::Html);
/// assert_eq!(detect(b"\xEF\xBB\xBFFrom - Mon Jan 1 00:00:00 2024\n"), Format::Mbox);
/// ```
pub fn detect(head: &[u8]) -> Format {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.starts_with(b"From ") {
        return Format::Mbox;
    }
    if starts_with_header_field(head) {
        return Format::Mime;
    }
    Format::Html
}

/// RFC 5322 §2.2: a field name (printable ASCII but `:`) followed by `:`.
fn starts_with_header_field(head: &[u8]) -> bool {
    let name_len = head
        .iter()
        .take_while(|&&b| (0x21..=0x7e).contains(&b) && b != b':')
        .count();
    name_len > 0 && head.get(name_len) == Some(&b':')
}
