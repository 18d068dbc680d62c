//! XML 1.0 text and attribute values: read (XML's five entities and character
//! references only, §4.6 and §4.1: no other entity is ever expanded) and written back.

use encoding_rs::Encoding;
use std::borrow::Cow;

/// Why a value could not be read: it is then left exactly as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// Its bytes are not valid in the document's charset.
    Undecodable,
    /// It refers to an entity other than XML's five (declared in a DTD, never expanded),
    /// or has a malformed reference.
    Entity(String),
    /// It is not well-formed XML: what is wrong, and where (from the value's start).
    NotWellFormed(&'static str, usize),
}

/// XML 1.0 §4.1, §2.4: a `&` starts a reference; a literal one is written `&amp;`.
pub(crate) const BARE_AMPERSAND: &str = "a `&` that starts no reference (XML 1.0 §4.1)";

/// XML 1.0 §3.1, WFC: No < in Attribute Values.
pub(crate) const LESS_THAN_IN_VALUE: &str = "a `<` in an attribute value (XML 1.0 §3.1)";

/// The text of `raw` bytes (escaped, in `encoding`), references resolved.
///
/// XML 1.0 §4.6: `lt`, `gt`, `amp`, `apos`, `quot`; §4.1 character references.
pub(crate) fn read_value(raw: &[u8], encoding: &'static Encoding) -> Result<String, Unreadable> {
    let text = decode(raw, encoding).ok_or(Unreadable::Undecodable)?;
    if let Some(at) = memchr::memchr(b'<', raw) {
        return Err(Unreadable::NotWellFormed(LESS_THAN_IN_VALUE, at));
    }
    if let Some(at) = bare_ampersand(raw) {
        return Err(Unreadable::NotWellFormed(BARE_AMPERSAND, at));
    }
    match quick_xml::escape::unescape(&text) {
        Ok(Cow::Borrowed(_)) => Ok(text.into_owned()),
        Ok(Cow::Owned(unescaped)) => Ok(unescaped),
        Err(error) => Err(Unreadable::Entity(error.to_string())),
    }
}

/// The offset of the first `&` in `raw` that starts no reference: no `;` follows it
/// before the next `&` or the end (§4.1: a reference is `&` Name `;`). quick-xml hands
/// such a one in text over as text.
pub(crate) fn bare_ampersand(raw: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'&', raw).find(|&at| {
        let rest = &raw[at + 1..];
        memchr::memchr2(b';', b'&', rest).is_none_or(|end| rest[end] == b'&')
    })
}

/// `raw` bytes in `encoding` as text, or `None` when they are not valid in it.
pub(crate) fn decode<'a>(raw: &'a [u8], encoding: &'static Encoding) -> Option<Cow<'a, str>> {
    encoding.decode_without_bom_handling_and_without_replacement(raw)
}

/// `text` in `encoding`; a character it cannot hold becomes a character reference
/// (`&#NNNN;`), which XML reads back as the same character (§4.1).
pub(crate) fn encode(text: &str, encoding: &'static Encoding) -> Vec<u8> {
    if encoding == encoding_rs::UTF_8 {
        return text.as_bytes().to_vec();
    }
    encoding.encode(text).0.into_owned()
}

/// A URL as an attribute value delimited by `quote` (§2.3 AttValue): `&`, `<` and the
/// quote escaped.
pub(crate) fn attribute(text: &str, quote: u8) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' if quote == b'"' => out.push_str("&quot;"),
            '\'' if quote == b'\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Bytes (in any ASCII-compatible charset) as the inside of an attribute value delimited
/// by `quote` (§2.3 AttValue, §3.1 WFC: No < in Attribute Values): `&`, `<` and the quote
/// escaped, and tab, newline and carriage return as character references, which
/// attribute-value normalization (§3.3.3) keeps as they are.
pub(crate) fn attribute_bytes(bytes: &[u8], quote: u8, out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'&' => out.extend_from_slice(b"&amp;"),
            b'<' => out.extend_from_slice(b"&lt;"),
            b'"' if quote == b'"' => out.extend_from_slice(b"&quot;"),
            b'\'' if quote == b'\'' => out.extend_from_slice(b"&apos;"),
            b'\t' => out.extend_from_slice(b"&#9;"),
            b'\n' => out.extend_from_slice(b"&#10;"),
            b'\r' => out.extend_from_slice(b"&#13;"),
            b => out.push(b),
        }
    }
}

/// Which characters a text writes as references besides `&` and `<`, as the original
/// text did (§2.4: `>` need only be escaped after `]]`; quotes never in text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextEscapes {
    pub greater: bool,
    pub quot: bool,
    pub apos: bool,
}

impl Default for TextEscapes {
    fn default() -> Self {
        TextEscapes {
            greater: true,
            quot: false,
            apos: false,
        }
    }
}

/// Bytes (in any ASCII-compatible charset) as character data (§2.4): `&`, `<`, and
/// what `escapes` says.
pub(crate) fn text_bytes(bytes: &[u8], escapes: TextEscapes, out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'&' => out.extend_from_slice(b"&amp;"),
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' if escapes.greater => out.extend_from_slice(b"&gt;"),
            b'"' if escapes.quot => out.extend_from_slice(b"&quot;"),
            b'\'' if escapes.apos => out.extend_from_slice(b"&apos;"),
            b => out.push(b),
        }
    }
}

/// Bytes as the inside of a CDATA section (§2.7): a `]]>` in them would end it, so the
/// section is closed after `]]` and a new one opened before `>`.
pub(crate) fn cdata_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, b"]]>") {
        out.extend_from_slice(&rest[..at + 2]);
        out.extend_from_slice(b"]]><![CDATA[");
        rest = &rest[at + 2..];
    }
    out.extend_from_slice(rest);
}

/// The bytes, in `encoding`, that the reference `&name;` stands for: one of XML's five or
/// a character reference; `None` for any other entity (left as written).
pub(crate) fn reference(name: &[u8], encoding: &'static Encoding) -> Option<Vec<u8>> {
    let byte = match name {
        b"lt" => b'<',
        b"gt" => b'>',
        b"amp" => b'&',
        b"quot" => b'"',
        b"apos" => b'\'',
        _ => {
            let c = character_reference(name)?;
            return Some(encode(c.encode_utf8(&mut [0; 4]), encoding));
        }
    };
    Some(vec![byte])
}

/// §4.1 CharRef: `#NNN` or `#xHHH` naming a character.
fn character_reference(name: &[u8]) -> Option<char> {
    let digits = name.strip_prefix(b"#")?;
    let (digits, radix) = match digits.strip_prefix(b"x") {
        Some(hex) => (hex, 16),
        None => (digits, 10),
    };
    let digits = std::str::from_utf8(digits).ok()?;
    if digits.is_empty() || digits.starts_with('+') {
        return None;
    }
    u32::from_str_radix(digits, radix)
        .ok()
        .and_then(char::from_u32)
        .filter(|&c| c != '\0')
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{UTF_8, WINDOWS_1252};

    #[test]
    fn only_xml_references_are_read() {
        assert_eq!(
            read_value(b"a?b=1&amp;c=&#233;", UTF_8).unwrap(),
            "a?b=1&c=\u{e9}"
        );
        assert!(matches!(
            read_value(b"&lol9;", UTF_8),
            Err(Unreadable::Entity(_))
        ));
        assert_eq!(read_value(b"\xff", UTF_8), Err(Unreadable::Undecodable));
        assert_eq!(read_value(b"caf\xe9", WINDOWS_1252).unwrap(), "caf\u{e9}");
    }

    #[test]
    fn written_values_read_back() {
        let url = "http://h/?a=1&b=<\"'>";
        let quoted = attribute(url, b'"');
        assert_eq!(quoted, "http://h/?a=1&amp;b=&lt;&quot;'>");
        assert_eq!(read_value(quoted.as_bytes(), UTF_8).unwrap(), url);
        assert_eq!(encode("\u{e9}\u{4e00}", WINDOWS_1252), b"\xe9&#19968;");
    }

    #[test]
    fn cdata_never_holds_its_end() {
        let mut out = Vec::new();
        cdata_bytes(b"a]]>b]]>", &mut out);
        assert_eq!(out, b"a]]]]><![CDATA[>b]]]]><![CDATA[>");
        let mut text = Vec::new();
        text_bytes(b"<a href=\"x&y\">", TextEscapes::default(), &mut text);
        assert_eq!(text, b"&lt;a href=\"x&amp;y\"&gt;");
    }

    #[test]
    fn references_become_bytes_of_the_charset() {
        assert_eq!(reference(b"lt", UTF_8), Some(b"<".to_vec()));
        assert_eq!(
            reference(b"#xE9", UTF_8),
            Some("\u{e9}".as_bytes().to_vec())
        );
        assert_eq!(reference(b"#233", WINDOWS_1252), Some(vec![0xe9]));
        assert_eq!(reference(b"nbsp", UTF_8), None);
        assert_eq!(reference(b"#0", UTF_8), None);
    }
}
