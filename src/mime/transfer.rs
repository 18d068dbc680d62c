//! Content-Transfer-Encoding: undone before rewriting and applied again after, the same
//! way (same encoding, line ending and line width), so only the changed part differs.

use base64::Engine;
use mailparse::body::Body;

/// A part's transfer encoding, with what re-encoding must reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferEncoding {
    /// `7bit`, `8bit`, `binary` or none: the body is its own encoding.
    Identity,
    QuotedPrintable,
    Base64,
}

impl TransferEncoding {
    /// From a `Content-Transfer-Encoding` value (any case); unknown values are identity.
    pub fn from_header(value: Option<&str>) -> Self {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("quoted-printable") => TransferEncoding::QuotedPrintable,
            Some("base64") => TransferEncoding::Base64,
            _ => TransferEncoding::Identity,
        }
    }

    fn label(self) -> Option<String> {
        match self {
            TransferEncoding::Identity => None,
            TransferEncoding::QuotedPrintable => Some("quoted-printable".into()),
            TransferEncoding::Base64 => Some("base64".into()),
        }
    }
}

/// Undoes the transfer encoding of `raw` (mailparse's decoders).
pub fn decode(
    raw: &[u8],
    encoding: TransferEncoding,
) -> Result<Vec<u8>, mailparse::MailParseError> {
    // The content type plays no part in undoing a transfer encoding.
    let ctype = mailparse::parse_content_type("application/octet-stream");
    match Body::new(raw, &ctype, &encoding.label()) {
        Body::Base64(body) | Body::QuotedPrintable(body) => body.get_decoded(),
        Body::SevenBit(body) | Body::EightBit(body) => Ok(body.get_raw().to_vec()),
        Body::Binary(body) => Ok(body.get_raw().to_vec()),
    }
}

/// The encoded form of a body and what it decodes to: what a re-encoding is shaped by.
pub struct Original<'a> {
    pub encoded: &'a [u8],
    pub decoded: &'a [u8],
}

/// Applies the transfer encoding again to `decoded`, shaped like the original: the same
/// line ending (`crlf` says which, when the original has no line break of its own), line
/// width and final line ending; in quoted-printable, lines whose text did not change are
/// copied as they were.
pub fn encode(
    decoded: &[u8],
    encoding: TransferEncoding,
    original: &Original<'_>,
    crlf: bool,
) -> Vec<u8> {
    let shape = Shape::of(original.encoded, crlf, encoding);
    match encoding {
        TransferEncoding::Identity => decoded.to_vec(),
        TransferEncoding::Base64 => encode_base64(decoded, &shape),
        TransferEncoding::QuotedPrintable => keep_unchanged_qp_lines(decoded, original, &shape)
            .unwrap_or_else(|| encode_quoted_printable(decoded, &shape)),
    }
}

/// Quoted-printable with every logical line (up to a hard line break) whose text did not
/// change copied from `original` byte for byte, and only the changed ones encoded anew.
/// `None` when the lines do not correspond one to one.
fn keep_unchanged_qp_lines(
    decoded: &[u8],
    original: &Original<'_>,
    shape: &Shape,
) -> Option<Vec<u8>> {
    let old_lines = logical_lines(original.encoded);
    let new_lines: Vec<&[u8]> = decoded.split(|&b| b == b'\n').collect();
    let old_texts: Vec<&[u8]> = original.decoded.split(|&b| b == b'\n').collect();
    // An encoded line feed (`=0A`) would put a break in the text that is not an encoded
    // line's: then each encoded line is decoded on its own to compare it.
    let has_encoded_line_feed = [&b"=0A"[..], b"=0a"]
        .iter()
        .any(|lf| memchr::memmem::find(original.encoded, lf).is_some());
    let aligned = !has_encoded_line_feed && old_texts.len() == old_lines.len();
    if old_lines.len() != new_lines.len() {
        return None;
    }
    let mut out = Vec::with_capacity(original.encoded.len() + original.encoded.len() / 8);
    for (i, (old, new)) in old_lines.iter().zip(&new_lines).enumerate() {
        let new = new.strip_suffix(b"\r").unwrap_or(new);
        let decoded_line;
        let old_text = if aligned {
            old_texts[i]
        } else {
            decoded_line = decode(old, TransferEncoding::QuotedPrintable).ok()?;
            &decoded_line[..]
        };
        if strip_line_ending(old_text) == new {
            out.extend_from_slice(old);
        } else {
            encode_qp_line(new, shape.width.clamp(4, 76), shape.line_ending, &mut out);
            if old.ends_with(b"\n") {
                out.extend_from_slice(shape.line_ending);
            }
        }
    }
    Some(out)
}

/// The encoded lines of a quoted-printable body grouped up to each hard line break (a
/// line not ending in a soft break `=`), each with its line ending. The last group is
/// what follows the last hard break, possibly empty.
fn logical_lines(encoded: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    while let Some(i) = memchr::memchr(b'\n', &encoded[pos..]) {
        let end = pos + i + 1;
        let content = strip_line_ending(&encoded[pos..end]);
        pos = end;
        if !content.trim_ascii_end().ends_with(b"=") {
            lines.push(&encoded[start..end]);
            start = end;
        }
    }
    lines.push(&encoded[start..]);
    lines
}

fn strip_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// How an encoded body is laid out.
struct Shape {
    line_ending: &'static [u8],
    width: usize,
    ends_with_line_ending: bool,
}

impl Shape {
    fn of(original: &[u8], crlf_elsewhere: bool, encoding: TransferEncoding) -> Self {
        let crlf = match memchr::memchr(b'\n', original) {
            Some(i) => i > 0 && original[i - 1] == b'\r',
            None => crlf_elsewhere,
        };
        Shape {
            line_ending: if crlf { b"\r\n" } else { b"\n" },
            width: encoded_width(original, encoding),
            ends_with_line_ending: original.ends_with(b"\n"),
        }
    }
}

/// The line width the original's encoder used: for base64 its first line (when there are
/// several); for quoted-printable its widest soft-broken line. 76 (RFC 2045) when the
/// original does not show it. One pass over the lines.
fn encoded_width(original: &[u8], encoding: TransferEncoding) -> usize {
    let (mut first, mut widest_soft, mut full_lines, mut start) = (None, None::<usize>, 0, 0);
    let ends = memchr::memchr_iter(b'\n', original).chain(std::iter::once(original.len()));
    for end in ends {
        let line = &original[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        start = end + 1;
        first.get_or_insert(line.len());
        full_lines += usize::from(!line.is_empty());
        if line.ends_with(b"=") {
            widest_soft = Some(widest_soft.map_or(line.len(), |w| w.max(line.len())));
        }
    }
    let width = match encoding {
        TransferEncoding::Base64 if full_lines > 1 => first,
        TransferEncoding::QuotedPrintable => widest_soft,
        _ => None,
    };
    width.filter(|&w| w >= 4).map_or(76, |w| w.min(998))
}

/// RFC 2045 §6.8, lines of the original's width.
fn encode_base64(decoded: &[u8], shape: &Shape) -> Vec<u8> {
    let text = base64::engine::general_purpose::STANDARD.encode(decoded);
    let width = shape.width - shape.width % 4;
    let mut out = Vec::with_capacity(text.len() + text.len() / width * 2 + 2);
    for (i, line) in text.as_bytes().chunks(width.max(4)).enumerate() {
        if i > 0 {
            out.extend_from_slice(shape.line_ending);
        }
        out.extend_from_slice(line);
    }
    if shape.ends_with_line_ending {
        out.extend_from_slice(shape.line_ending);
    }
    out
}

/// RFC 2045 §6.7: line breaks of the text stay hard breaks (written with the original's
/// line ending); `=`, controls, 8-bit bytes and trailing blanks become `=XX`; longer lines
/// get soft breaks at the original's width (76 at most).
fn encode_quoted_printable(decoded: &[u8], shape: &Shape) -> Vec<u8> {
    let width = shape.width.clamp(4, 76);
    let mut out = Vec::with_capacity(decoded.len() * 11 / 10);
    let mut lines = decoded.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let is_last = lines.peek().is_none();
        let line = if is_last {
            line
        } else {
            line.strip_suffix(b"\r").unwrap_or(line)
        };
        if is_last && line.is_empty() {
            break;
        }
        encode_qp_line(line, width, shape.line_ending, &mut out);
        if !is_last {
            out.extend_from_slice(shape.line_ending);
        }
    }
    if shape.ends_with_line_ending && !out.ends_with(b"\n") {
        out.extend_from_slice(shape.line_ending);
    }
    out
}

fn encode_qp_line(line: &[u8], width: usize, line_ending: &[u8], out: &mut Vec<u8>) {
    let mut column = 0;
    for (i, &b) in line.iter().enumerate() {
        let at_end = i + 1 == line.len();
        let literal = (b == b' ' || b == b'\t') && !at_end || (33..=126).contains(&b) && b != b'=';
        let token_len = if literal { 1 } else { 3 };
        let reserve = if at_end { 0 } else { 1 };
        if column + token_len + reserve > width {
            out.push(b'=');
            out.extend_from_slice(line_ending);
            column = 0;
        }
        if literal {
            out.push(b);
        } else {
            out.extend_from_slice(format!("={b:02X}").as_bytes());
        }
        column += token_len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes and checks that decoding gives the text back (mailparse's QP decoder
    /// writes every hard line break as CRLF, so line endings are compared as LF).
    fn roundtrip(decoded: &[u8], encoding: TransferEncoding, original: &[u8]) -> Vec<u8> {
        let original_decoded = decode(original, encoding).unwrap();
        let original = Original {
            encoded: original,
            decoded: &original_decoded,
        };
        let encoded = encode(decoded, encoding, &original, false);
        let lf = |b: Vec<u8>| String::from_utf8(b).unwrap().replace("\r\n", "\n");
        assert_eq!(
            lf(decode(&encoded, encoding).unwrap()),
            lf(decoded.to_vec())
        );
        encoded
    }

    #[test]
    fn quoted_printable_keeps_crlf_and_width() {
        let long = "<a href=\"http://example.com/a/very/long/path/that/goes/past/the/line/limit.html\">=é</a>\r\nnext \r\n";
        let encoded = roundtrip(
            long.as_bytes(),
            TransferEncoding::QuotedPrintable,
            b"x=\r\ny\r\n",
        );
        let text = String::from_utf8(encoded).unwrap();
        assert!(
            text.lines().all(|l| l.trim_end_matches('\r').len() <= 76),
            "{text}"
        );
        assert!(text.contains("=3D") && text.contains("=C3=A9") && text.contains("next=20\r\n"));
        assert!(!text.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn quoted_printable_keeps_lf() {
        let encoded = roundtrip(b"a\nb\n", TransferEncoding::QuotedPrintable, b"a\nb\n");
        assert_eq!(encoded, b"a\nb\n");
    }

    /// Decodes a quoted-printable body, makes its link `"x"` absolute and encodes it again.
    fn rewrite_link(encoded: &[u8]) -> (String, Vec<u8>) {
        let decoded = decode(encoded, TransferEncoding::QuotedPrintable).unwrap();
        let text = String::from_utf8(decoded.clone())
            .unwrap()
            .replace("\"x\"", "\"http://h/x\"");
        let original = Original {
            encoded,
            decoded: &decoded,
        };
        let out = encode(
            text.as_bytes(),
            TransferEncoding::QuotedPrintable,
            &original,
            true,
        );
        (text, out)
    }

    #[test]
    fn unchanged_quoted_printable_lines_are_copied_as_they_were() {
        let (_, encoded) =
            rewrite_link(b"<p style=3D\"a\">keep=\r\n this</p>\r\n<a href=3D\"x\">\r\n");
        // Only the changed line is encoded again, wrapped at the original's width (20).
        assert_eq!(
            encoded,
            b"<p style=3D\"a\">keep=\r\n this</p>\r\n<a href=3D\"http://h=\r\n/x\">\r\n"
        );
    }

    #[test]
    fn an_encoded_line_feed_does_not_misalign_kept_lines() {
        let (text, encoded) = rewrite_link(b"a=0D=0Ab\r\n<a href=3D\"x\">\r\nc\r\n");
        let back = decode(&encoded, TransferEncoding::QuotedPrintable).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), text);
    }

    #[test]
    fn base64_keeps_width_and_line_ending() {
        let original = b"PGh0bWw+PGEgaHJlZj0iYSI+PC9hPjwvaHRtbD4K\r\nPC9odG1sPgo=\r\n";
        let decoded = vec![b'x'; 100];
        let encoded = roundtrip(&decoded, TransferEncoding::Base64, original);
        let text = String::from_utf8(encoded).unwrap();
        assert!(text.ends_with("\r\n"));
        assert!(text.split("\r\n").all(|l| l.len() <= 40));
    }
}
