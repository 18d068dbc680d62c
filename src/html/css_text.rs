//! CSS held as text in foreign content (a run of an SVG `<style>`'s text). An SVG
//! `<style>` is not raw text: the tokenizer stays in the data state (HTML §13.2.6.5), so
//! its character references are decoded (§13.2.5.72) and the CSS the browser parses is
//! the decoded text (`url(&quot;a&quot;)` is `url("a")`). The decoded text is kept here
//! with a map back to the bytes it came from, so that a URL found in it replaces exactly
//! its own bytes and everything else is written as it was read.

use encoding_rs::Encoding;
use htmlize::{Context, unescape_bytes_in};
use std::ops::Range;

/// How many bytes a character reference is looked for in (`&` included). The longest
/// named one, `&CounterClockwiseContourIntegral;`, has 33; a longer numeric one (leading
/// zeros) gives up the decoding of its run.
const MAX_REFERENCE: usize = 64;

/// The decoded text of a run: UTF-8 where it was decoded (character references, and
/// non-ASCII text of a charset other than UTF-8), the bytes as they were elsewhere.
pub(crate) struct DecodedText {
    /// The text the CSS parser sees.
    pub bytes: Vec<u8>,
    /// Consecutive pieces of `bytes`, each with the raw bytes it came from.
    pieces: Vec<Piece>,
}

/// A piece of the decoded text and the raw bytes it came from.
struct Piece {
    decoded: Range<usize>,
    raw: Range<usize>,
    /// The same bytes in both: any offset inside maps back.
    same: bool,
}

impl DecodedText {
    /// Decodes the character references of `raw`, text in `encoding`. `None` when a part
    /// of it cannot be decoded exactly (bytes not valid in the charset, a reference too
    /// long to look for).
    pub(crate) fn decode(raw: &[u8], encoding: &'static Encoding) -> Option<Self> {
        let mut text = DecodedText {
            bytes: Vec::with_capacity(raw.len()),
            pieces: Vec::new(),
        };
        let mut start = 0;
        while start < raw.len() {
            // A reference starts at `&` and holds no other `&`: each one is decoded on
            // its own, as the whole text decodes it.
            let end = memchr_amp(raw, start + 1);
            let mut literal = start;
            if raw[start] == b'&' {
                let length = reference_length(&raw[start..end])?;
                let decoded = unescape_bytes_in(&raw[start..start + length], Context::General);
                let same = *decoded == raw[start..start + length];
                text.push(&decoded, start..start + length, same);
                literal = start + length;
            }
            text.push_literal(raw, literal..end, encoding)?;
            start = end;
        }
        Some(text)
    }

    /// The text of raw CSS (a `<style>`, a stylesheet) in `encoding`, no character
    /// references in it: its non-ASCII runs decoded ([`DecodedText::push_literal`]).
    /// `None` when a part of it is not valid in the charset.
    pub(crate) fn decode_charset(raw: &[u8], encoding: &'static Encoding) -> Option<Self> {
        let mut text = DecodedText {
            bytes: Vec::with_capacity(raw.len()),
            pieces: Vec::new(),
        };
        text.push_literal(raw, 0..raw.len(), encoding)?;
        Some(text)
    }

    /// Text that was not a reference: its bytes where they are already UTF-8 (or ASCII),
    /// else decoded from the charset, in runs that split at every byte below `0`. No
    /// multi-byte character of an ASCII-compatible charset holds one of those (trail
    /// bytes of Shift_JIS, Big5, GBK are 0x40 or more, gb18030's digits 0x30 or more), and
    /// they are what delimits a URL token (quotes, parentheses, whitespace): its ends map
    /// back.
    fn push_literal(
        &mut self,
        raw: &[u8],
        range: Range<usize>,
        encoding: &'static Encoding,
    ) -> Option<()> {
        if encoding == encoding_rs::UTF_8 {
            self.push(&raw[range.clone()], range, true);
            return Some(());
        }
        let mut start = range.start;
        while start < range.end {
            let end = if raw[start] < b'0' {
                start + 1
            } else {
                raw[start..range.end]
                    .iter()
                    .position(|&b| b < b'0')
                    .map_or(range.end, |i| start + i)
            };
            let bytes = &raw[start..end];
            if bytes.is_ascii() {
                self.push(bytes, start..end, true);
            } else {
                let decoded =
                    encoding.decode_without_bom_handling_and_without_replacement(bytes)?;
                self.push(decoded.as_bytes(), start..end, false);
            }
            start = end;
        }
        Some(())
    }

    /// Appends a piece (`same`: its decoded bytes are its raw bytes); one that is the
    /// same joins a previous one that is.
    fn push(&mut self, decoded: &[u8], raw: Range<usize>, same: bool) {
        if raw.is_empty() {
            return;
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(decoded);
        if let Some(last) = self.pieces.last_mut()
            && same
            && last.same
        {
            last.decoded.end = self.bytes.len();
            last.raw.end = raw.end;
            return;
        }
        self.pieces.push(Piece {
            decoded: start..self.bytes.len(),
            raw,
            same,
        });
    }

    /// The raw bytes a range of the decoded text came from, if its ends map back (they
    /// do not inside a decoded reference or decoded non-ASCII text).
    pub(crate) fn raw_range(&self, decoded: Range<usize>) -> Option<Range<usize>> {
        Some(self.raw_offset(decoded.start)?..self.raw_offset(decoded.end)?)
    }

    /// The raw offset of decoded offset `at`. Pieces tile both texts, so the end of one
    /// piece and the start of the next are the same offset.
    fn raw_offset(&self, at: usize) -> Option<usize> {
        let index = self.pieces.partition_point(|piece| piece.decoded.end <= at);
        let Some(piece) = self.pieces.get(index) else {
            // At the end of the text.
            return Some(self.pieces.last().map_or(0, |piece| piece.raw.end));
        };
        match at - piece.decoded.start {
            0 => Some(piece.raw.start),
            offset if piece.same => Some(piece.raw.start + offset),
            _ => None,
        }
    }
}

/// The offset of the next `&` from `from`, else the end.
fn memchr_amp(raw: &[u8], from: usize) -> usize {
    raw[from.min(raw.len())..]
        .iter()
        .position(|&b| b == b'&')
        .map_or(raw.len(), |i| from + i)
}

/// The length of the character reference at the start of `chunk` (which starts with `&`
/// and holds no other): the shortest head that, decoded, followed by the rest as it is,
/// gives what the whole chunk decodes to. 1 when the `&` is only itself.
fn reference_length(chunk: &[u8]) -> Option<usize> {
    let whole = unescape_bytes_in(chunk, Context::General);
    (1..=chunk.len().min(MAX_REFERENCE)).find(|&length| {
        let head = unescape_bytes_in(&chunk[..length], Context::General);
        let rest = &chunk[length..];
        whole.len() == head.len() + rest.len() && whole.starts_with(&head) && whole.ends_with(rest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(raw: &str) -> DecodedText {
        DecodedText::decode(raw.as_bytes(), encoding_rs::UTF_8).unwrap()
    }

    #[test]
    fn references_are_decoded_and_map_back() {
        let raw = "a{b:url(&quot;k&amp;p&quot;)}";
        let text = decoded(raw);
        assert_eq!(text.bytes, b"a{b:url(\"k&p\")}");
        // The string token `"k&p"` is the bytes `&quot;k&amp;p&quot;`.
        let raw_range = text.raw_range(8..13).unwrap();
        assert_eq!(&raw[raw_range], "&quot;k&amp;p&quot;");
        // Inside `k&p`: `&` maps to `&amp;` as a whole, never into it.
        assert_eq!(&raw[text.raw_range(9..11).unwrap()], "k&amp;");
        assert_eq!(text.raw_range(8..9).map(|r| &raw[r]), Some("&quot;"));
    }

    #[test]
    fn references_without_a_semicolon_and_lone_ampersands() {
        let raw = "&ampx & &notin; &#x3b;; &not";
        let text = decoded(raw);
        assert_eq!(String::from_utf8_lossy(&text.bytes), "&x & ∉ ;; ¬");
        assert_eq!(text.raw_range(0..text.bytes.len()), Some(0..raw.len()));
    }

    #[test]
    fn an_offset_inside_a_decoded_reference_does_not_map_back() {
        let text = decoded("x&NotEqualTilde;y");
        // U+2242 U+0338: two characters from one reference.
        assert_eq!(text.raw_range(1..4), None);
        assert_eq!(text.raw_range(1..6), Some(1..16));
    }

    #[test]
    fn non_ascii_text_of_another_charset_is_decoded() {
        let raw = b"url(\xe9&amp;.png) url(b.png)";
        let text = DecodedText::decode(raw, encoding_rs::WINDOWS_1252).unwrap();
        assert_eq!(text.bytes, "url(é&.png) url(b.png)".as_bytes());
        // `é&.png` is `\xe9&amp;.png`; `b.png` after it maps back too.
        assert_eq!(text.raw_range(4..11), Some(4..14));
        assert_eq!(text.raw_range(17..22), Some(20..25));
        assert_eq!(text.raw_range(5..11), None);
        assert_eq!(
            DecodedText::decode(b"&amp;\x81", encoding_rs::SHIFT_JIS).map(|t| t.bytes),
            None
        );
    }

    #[test]
    fn a_reference_too_long_to_look_for_gives_up() {
        let raw = format!("&#{}65;", "0".repeat(MAX_REFERENCE));
        assert!(DecodedText::decode(raw.as_bytes(), encoding_rs::UTF_8).is_none());
    }
}
