//! The document's charset: a BOM first, then the caller's (`--charset`, a MIME part's
//! `charset` parameter), then `<meta charset>`; UTF-8 when none is given.

use encoding_rs::Encoding;

/// The charset a byte order mark at the start of `bytes` declares, and the BOM's length.
///
/// ```
/// use absolve::html::charset::sniff_bom;
///
/// assert_eq!(sniff_bom(b"\xEF\xBB\xBF<p>"), Some((encoding_rs::UTF_8, 3)));
/// assert_eq!(sniff_bom(b"\xFF\xFE<\0"), Some((encoding_rs::UTF_16LE, 2)));
/// assert_eq!(sniff_bom(b"<p>"), None);
/// ```
pub fn sniff_bom(bytes: &[u8]) -> Option<(&'static Encoding, usize)> {
    Encoding::for_bom(bytes)
}

/// A charset label from a WHATWG label (`--charset`), or `None` if unknown.
///
/// ```
/// use absolve::html::charset::from_label;
///
/// assert_eq!(from_label("latin1"), Some(encoding_rs::WINDOWS_1252));
/// assert_eq!(from_label("no-such-charset"), None);
/// ```
pub fn from_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// The `charset` parameter of a `Content-Type` value (`text/html; charset="x"`).
///
/// ```
/// use absolve::html::charset::from_content_type;
///
/// assert_eq!(from_content_type("text/html; Charset=\"ISO-8859-1\""), Some("ISO-8859-1".into()));
/// assert_eq!(from_content_type("text/html"), None);
/// ```
pub fn from_content_type(content: &str) -> Option<String> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = content[at + "charset".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value = match rest.strip_prefix(['"', '\'']) {
        Some(quoted) => quoted.split(['"', '\'']).next().unwrap_or_default(),
        None => rest.split([';', ' ', '\t']).next().unwrap_or_default(),
    };
    (!value.is_empty()).then(|| value.to_owned())
}
