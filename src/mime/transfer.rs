//! Content-Transfer-Encoding: undone before rewriting and applied again after, the same
//! way (same encoding, line ending and line width), so only the changed part differs.

use base64::Engine;
use mailparse::body::Body;
use std::borrow::Cow;
use std::io;

/// A part's transfer encoding, with what re-encoding must reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferEncoding {
    /// `7bit`, `8bit`, `binary` or none: the body is its own encoding.
    Identity,
    /// `quoted-printable` (RFC 2045 §6.7).
    QuotedPrintable,
    /// `base64` (RFC 2045 §6.8).
    Base64,
    /// Any other value: RFC 2045 §6.4 says such an entity is `application/octet-stream`,
    /// whatever its type; it is not decoded.
    Unknown,
}

impl TransferEncoding {
    /// From a `Content-Transfer-Encoding` value (any case); none (or an empty one) is
    /// identity, an unrecognized one [`TransferEncoding::Unknown`] (RFC 2045 §6.4).
    pub fn from_header(value: Option<&str>) -> Self {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "7bit" | "8bit" | "binary") => TransferEncoding::Identity,
            Some("quoted-printable") => TransferEncoding::QuotedPrintable,
            Some("base64") => TransferEncoding::Base64,
            Some(_) => TransferEncoding::Unknown,
        }
    }

    fn label(self) -> Option<String> {
        match self {
            TransferEncoding::Identity | TransferEncoding::Unknown => None,
            TransferEncoding::QuotedPrintable => Some("quoted-printable".into()),
            TransferEncoding::Base64 => Some("base64".into()),
        }
    }
}

/// How much encoded text is decoded at a time.
const DECODE_CHUNK: usize = 64 * 1024;

/// Undoes the transfer encoding of `raw` (mailparse's decoders); an identity encoding is
/// not copied. Base64 is read as RFC 2045 §6.8 says: characters outside its alphabet
/// ignored, its data ending at the first `=`. The decoders run over pieces of the body
/// that decode on their own (whole base64 quanta, quoted-printable lines up to a hard
/// line break), so that memory holds the decoded body and nothing more; the result is
/// what they give for the whole body.
///
/// ```
/// use absolve::mime::transfer::{decode, TransferEncoding};
///
/// assert_eq!(&*decode(b"PGE+\r\nPC9hPg==\r\n", TransferEncoding::Base64).unwrap(), b"<a></a>");
/// assert_eq!(&*decode(b"a=3D=\r\nb\r\n", TransferEncoding::QuotedPrintable).unwrap(), b"a=b\r\n");
/// // A stray line and a mailing list's footer: ignored.
/// let body = b"PGE+\r\n_____\r\nPC9hPg==\r\n-- \r\nList footer\r\n";
/// assert_eq!(&*decode(body, TransferEncoding::Base64).unwrap(), b"<a></a>");
/// ```
pub fn decode(
    raw: &[u8],
    encoding: TransferEncoding,
) -> Result<Cow<'_, [u8]>, mailparse::MailParseError> {
    decode_noting_ignored(raw, encoding).map(|(decoded, _)| decoded)
}

/// [`decode`], and what of a base64 body its decoding ignored that is not a line break
/// or white space (RFC 2045 §6.8: such characters "probably indicate a transmission
/// error, about which a warning message ... might be appropriate"): characters outside
/// its alphabet, anything after its padding.
pub(crate) fn decode_noting_ignored(
    raw: &[u8],
    encoding: TransferEncoding,
) -> Result<(Cow<'_, [u8]>, Ignored), mailparse::MailParseError> {
    match encoding {
        TransferEncoding::Identity => Ok((Cow::Borrowed(raw), Ignored::default())),
        TransferEncoding::Unknown => Err(mailparse::MailParseError::Generic(
            "an unknown Content-Transfer-Encoding",
        )),
        TransferEncoding::Base64 => match decode_base64_in_pieces(raw) {
            Some((decoded, ignored)) => Ok((Cow::Owned(decoded), ignored)),
            // Let the decoder say what is wrong with the body as a whole.
            None => {
                decode_whole(raw, encoding).map(|decoded| (Cow::Owned(decoded), Ignored::default()))
            }
        },
        TransferEncoding::QuotedPrintable => decode_quoted_printable_in_pieces(raw)
            .map(|decoded| (Cow::Owned(decoded), Ignored::default())),
    }
}

/// Undoes the transfer encoding of the whole of `raw` with mailparse's decoders: base64
/// strictly (whitespace left out; any other character outside its alphabet, or padding
/// that is not where whole quanta end, an error), as a feed's base64 content must be
/// (RFC 4287 §4.1.3.3, RFC 3548 §2.3).
pub(crate) fn decode_whole(
    raw: &[u8],
    encoding: TransferEncoding,
) -> Result<Vec<u8>, mailparse::MailParseError> {
    // The content type plays no part in undoing a transfer encoding.
    let ctype = mailparse::parse_content_type("application/octet-stream");
    let raw = match encoding {
        TransferEncoding::QuotedPrintable => escape_stray_octets(raw),
        _ => Cow::Borrowed(raw),
    };
    match Body::new(&raw, &ctype, &encoding.label()) {
        Body::Base64(body) | Body::QuotedPrintable(body) => body.get_decoded(),
        _ => Ok(raw.to_vec()),
    }
}

/// A quoted-printable body with the octets RFC 2045 §6.7 does not allow in one (8-bit
/// bytes, NUL, control characters but TAB, CR and LF) written `=XX`, so that they decode
/// to themselves: the decoder drops them (§6.7, note to rule 1: "a robust implementation
/// might exclude them"), which lost the raw UTF-8 that sloppy mailers write there, in URLs
/// too (Python's email keeps them). An `=` that starts no `=XX` and no soft line break is
/// written `=3D` as well, since the decoder would read it with the octets after it. A
/// body without such octets is decoded as it is.
fn escape_stray_octets(raw: &[u8]) -> Cow<'_, [u8]> {
    let stray = |b: u8| !matches!(b, b'\t' | b'\r' | b'\n' | b' '..=b'~');
    if !raw.iter().any(|&b| stray(b)) {
        return Cow::Borrowed(raw);
    }
    let mut escaped = Vec::with_capacity(raw.len() + raw.len() / 8);
    for (i, &b) in raw.iter().enumerate() {
        if stray(b) || (b == b'=' && !starts_escape_or_soft_break(&raw[i + 1..])) {
            escaped.extend_from_slice(format!("={b:02X}").as_bytes());
        } else {
            escaped.push(b);
        }
    }
    Cow::Owned(escaped)
}

/// Whether what follows an `=` makes it an escape (two hex digits) or a soft line break
/// (only blanks to the end of the line, RFC 2045 §6.7 rules 3 and 5).
fn starts_escape_or_soft_break(after: &[u8]) -> bool {
    let hex = after.len() >= 2 && after[..2].iter().all(u8::is_ascii_hexdigit);
    let line = &after[..memchr::memchr(b'\n', after).unwrap_or(after.len())];
    hex || line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Base64 (RFC 2045 §6.8) as the RFC has decoders read it, in pieces of whole
/// 4-character quanta: the characters of its alphabet up to the first `=` ("the end of
/// the data"), the rest ignored ("All line breaks or other characters not found in Table
/// 1 must be ignored by decoding software"), the last quantum padded. `None` when the
/// data does not decode (one character more than whole quanta): then only the whole body
/// says what is wrong with it. With the decoded bytes, what was ignored
/// ([`decode_noting_ignored`]).
fn decode_base64_in_pieces(raw: &[u8]) -> Option<(Vec<u8>, Ignored)> {
    let mut decoded = Vec::with_capacity(raw.len() / 4 * 3 + 3);
    let mut piece = Vec::with_capacity(DECODE_CHUNK);
    let end = base64_data_end(raw);
    let mut ignored = Ignored::default();
    let mut at = 0;
    // Runs of the alphabet (a line, mostly), copied a run at a time.
    while at < end {
        let run_end = raw[at..end]
            .iter()
            .position(|&b| !is_base64_alphabet(b))
            .map_or(end, |run| at + run);
        let mut run = &raw[at..run_end];
        if run_end < end {
            ignored.note(raw, run_end);
        }
        at = run_end + 1;
        while !run.is_empty() {
            let (now, later) = run.split_at(run.len().min(DECODE_CHUNK - piece.len()));
            piece.extend_from_slice(now);
            run = later;
            if piece.len() == DECODE_CHUNK {
                decoded.extend(decode_whole(&piece, TransferEncoding::Base64).ok()?);
                piece.clear();
            }
        }
    }
    match piece.len() % 4 {
        2 => piece.extend_from_slice(b"=="),
        3 => piece.push(b'='),
        _ => {}
    }
    decoded.extend(decode_whole(&piece, TransferEncoding::Base64).ok()?);
    let padding = raw[end..]
        .iter()
        .take_while(|&&b| b == b'=' || b.is_ascii_whitespace())
        .count();
    for after in end + padding..raw.len() {
        ignored.note(raw, after);
    }
    Some((decoded, ignored))
}

/// The bytes of a base64 body its decoding ignored that are not white space.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Ignored {
    /// Where the first is.
    pub first: Option<usize>,
    /// How many there are.
    pub count: usize,
}

impl Ignored {
    /// Notes the byte at `at` of `raw`, ignored, unless it is white space.
    fn note(&mut self, raw: &[u8], at: usize) {
        if !raw[at].is_ascii_whitespace() {
            self.first.get_or_insert(at);
            self.count += 1;
        }
    }
}

/// Where the data of a base64 body ends: at its first `=` (RFC 2045 §6.8: padding, "used
/// only ... at the end of the data").
fn base64_data_end(raw: &[u8]) -> usize {
    memchr::memchr(b'=', raw).unwrap_or(raw.len())
}

/// RFC 2045 §6.8, Table 1: `A-Z a-z 0-9 + /`.
pub(crate) fn is_base64_alphabet(byte: u8) -> bool {
    BASE64_ALPHABET[usize::from(byte)]
}

/// [`is_base64_alphabet`] for each byte: a look-up, as the bytes of a body are many.
const BASE64_ALPHABET: [bool; 256] =
    byte_table!(|byte| byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/');

/// Quoted-printable (RFC 2045 §6.7) in pieces that end at a hard line break: the decoder
/// reads line by line, and a line with no soft break carries nothing over to the next.
fn decode_quoted_printable_in_pieces(raw: &[u8]) -> Result<Vec<u8>, mailparse::MailParseError> {
    let mut decoded = Vec::with_capacity(raw.len());
    let mut start = 0;
    while start < raw.len() {
        let end = hard_break_after(raw, start + DECODE_CHUNK);
        decoded.extend(decode_whole(
            &raw[start..end],
            TransferEncoding::QuotedPrintable,
        )?);
        start = end;
    }
    Ok(decoded)
}

/// Just past the first line ending at or after `from` whose line has no soft break (its
/// last printable character is not `=`, as the decoder sees it), else the end.
fn hard_break_after(raw: &[u8], from: usize) -> usize {
    let mut pos = from;
    while pos < raw.len() {
        let Some(i) = memchr::memchr(b'\n', &raw[pos..]) else {
            break;
        };
        let end = pos + i;
        let line_start = memchr::memrchr(b'\n', &raw[..end]).map_or(0, |j| j + 1);
        let last_printable = raw[line_start..end]
            .iter()
            .rev()
            .find(|b| (0x21..=0x7e).contains(*b));
        if last_printable != Some(&b'=') {
            return end + 1;
        }
        pos = end + 1;
    }
    raw.len()
}

/// The encoded form of a body and what it decodes to: what a re-encoding is shaped by.
pub struct Original<'a> {
    /// The body as the message has it.
    pub encoded: &'a [u8],
    /// What it decodes to.
    pub decoded: &'a [u8],
}

/// Applies the transfer encoding again to `decoded`, shaped like the original: the same
/// line ending (`crlf` says which, when the original has no line break of its own), line
/// width and final line ending; in quoted-printable, lines whose text did not change are
/// copied as they were. A text equal to the original's comes out as the original bytes.
///
/// ```
/// use absolve::mime::transfer::{encode, Original, TransferEncoding};
///
/// let original = Original { encoded: b"a=3Db\r\nc\r\n", decoded: b"a=b\r\nc\r\n" };
/// let out = encode(b"a=b\r\nC\r\n", TransferEncoding::QuotedPrintable, &original, true);
/// assert_eq!(out, b"a=3Db\r\nC\r\n");
/// ```
pub fn encode(
    decoded: &[u8],
    encoding: TransferEncoding,
    original: &Original<'_>,
    crlf: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(decoded.len() + decoded.len() / 8);
    let mut emit = |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        Ok(())
    };
    let mut encoder = Encoder::new(encoding, original, crlf);
    // Writing to memory cannot fail.
    let _ = encoder.write(decoded, &mut emit);
    let _ = encoder.finish(&mut emit);
    out
}

/// Where an [`Encoder`] writes its bytes.
pub type Emit<'e> = dyn FnMut(&[u8]) -> io::Result<()> + 'e;

/// [`encode`] as a stream: the new text goes in by pieces, the encoded body comes out as
/// it is settled. While the new text is the original's so far, nothing comes out: a body
/// whose text did not change ends as its original bytes, whatever its encoding.
///
/// ```
/// use absolve::mime::transfer::{Encoder, Original, TransferEncoding};
///
/// let original = Original { encoded: b"PGE+\n", decoded: b"<a>" };
/// let mut encoder = Encoder::new(TransferEncoding::Base64, &original, false);
/// let mut out = Vec::new();
/// let mut emit = |b: &[u8]| { out.extend_from_slice(b); Ok(()) };
/// encoder.write(b"<a", &mut emit).unwrap();
/// encoder.write(b" b>", &mut emit).unwrap();
/// encoder.finish(&mut emit).unwrap();
/// assert_eq!(out, b"PGEgYj4=\n");
/// ```
pub struct Encoder<'a> {
    encoding: TransferEncoding,
    original: &'a Original<'a>,
    shape: Shape,
    /// How many bytes of the new text equal the original's, while they all do.
    same: Option<usize>,
    /// Base64: the bytes of the next line not yet encoded; quoted-printable: the text of
    /// the line not yet ended.
    pending: Vec<u8>,
    lines_out: usize,
    /// Quoted-printable: where the next original logical line starts.
    old_cursor: usize,
}

impl<'a> Encoder<'a> {
    /// An encoder shaped by `original` (`crlf`: the line ending when it shows none).
    pub fn new(encoding: TransferEncoding, original: &'a Original<'a>, crlf: bool) -> Self {
        Encoder {
            encoding,
            original,
            shape: Shape::of(original.encoded, crlf, encoding),
            same: Some(0),
            pending: Vec::new(),
            lines_out: 0,
            old_cursor: 0,
        }
    }

    /// The next piece of the new text.
    pub fn write(&mut self, text: &[u8], emit: &mut Emit<'_>) -> io::Result<()> {
        if let Some(same) = self.same {
            let rest = &self.original.decoded[same..];
            if rest.starts_with(text) {
                self.same = Some(same + text.len());
                return Ok(());
            }
            self.same = None;
            self.encode(&self.original.decoded[..same], emit)?;
        }
        self.encode(text, emit)
    }

    /// Ends the text: writes out what is left.
    pub fn finish(mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if let Some(same) = self.same {
            if same == self.original.decoded.len() {
                return emit(self.original.encoded);
            }
            self.encode(&self.original.decoded[..same], emit)?;
        }
        match self.encoding {
            TransferEncoding::Identity | TransferEncoding::Unknown => Ok(()),
            TransferEncoding::Base64 => self.finish_base64(emit),
            TransferEncoding::QuotedPrintable => {
                let line = std::mem::take(&mut self.pending);
                self.quoted_printable_line(&line, false, emit)
            }
        }
    }

    fn encode(&mut self, text: &[u8], emit: &mut Emit<'_>) -> io::Result<()> {
        match self.encoding {
            TransferEncoding::Identity | TransferEncoding::Unknown => emit(text),
            TransferEncoding::Base64 => self.base64(text, emit),
            TransferEncoding::QuotedPrintable => self.quoted_printable(text, emit),
        }
    }

    /// RFC 2045 §6.8, lines of the original's width.
    fn base64(&mut self, mut text: &[u8], emit: &mut Emit<'_>) -> io::Result<()> {
        let per_line = self.base64_line_bytes();
        while !text.is_empty() {
            let take = (per_line - self.pending.len()).min(text.len());
            self.pending.extend_from_slice(&text[..take]);
            text = &text[take..];
            if self.pending.len() == per_line {
                let line = std::mem::take(&mut self.pending);
                self.base64_line(&line, emit)?;
                self.pending = line;
                self.pending.clear();
            }
        }
        Ok(())
    }

    fn finish_base64(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.base64_line(&line, emit)?;
        }
        // The line ending and blank lines after the text, as they were.
        let encoded = self.original.encoded;
        emit(&encoded[encoded.len() - self.shape.trailer_len..])
    }

    /// How many bytes one line of base64 holds: the original's width rounded down to a
    /// multiple of 4 characters.
    fn base64_line_bytes(&self) -> usize {
        (self.shape.width - self.shape.width % 4).max(4) / 4 * 3
    }

    fn base64_line(&mut self, bytes: &[u8], emit: &mut Emit<'_>) -> io::Result<()> {
        if self.lines_out > 0 {
            emit(self.shape.line_ending)?;
        }
        self.lines_out += 1;
        emit(
            base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .as_bytes(),
        )
    }

    /// RFC 2045 §6.7, line by line: each line of the new text whose text is that of the
    /// original's line at the same place is copied as it was; the others are encoded anew.
    fn quoted_printable(&mut self, mut text: &[u8], emit: &mut Emit<'_>) -> io::Result<()> {
        while let Some(i) = memchr::memchr(b'\n', text) {
            let line = if self.pending.is_empty() {
                &text[..i]
            } else {
                self.pending.extend_from_slice(&text[..i]);
                &self.pending[..]
            };
            let line = line.to_vec();
            self.pending.clear();
            self.quoted_printable_line(&line, true, emit)?;
            text = &text[i + 1..];
        }
        self.pending.extend_from_slice(text);
        Ok(())
    }

    /// One line of the new text (`ended`: a line break followed it).
    fn quoted_printable_line(
        &mut self,
        line: &[u8],
        ended: bool,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(old) = self.next_old_line()
            && old.ends_with(b"\n") == ended
            && decode(old, TransferEncoding::QuotedPrintable)
                .is_ok_and(|text| strip_line_ending(&text) == line)
        {
            return emit(old);
        }
        let mut out = Vec::with_capacity(line.len() + line.len() / 8 + 2);
        encode_qp_line(
            line,
            self.shape.width.clamp(4, 76),
            self.shape.line_ending,
            &mut out,
        );
        if ended {
            out.extend_from_slice(self.shape.line_ending);
        }
        emit(&out)
    }

    /// The next logical line of the original (up to a hard line break), if any is left.
    fn next_old_line(&mut self) -> Option<&'a [u8]> {
        let encoded = self.original.encoded;
        if self.old_cursor > encoded.len() {
            return None;
        }
        let start = self.old_cursor;
        let end = logical_line_end(encoded, start);
        self.old_cursor = if end == encoded.len() { end + 1 } else { end };
        Some(&encoded[start..end])
    }
}

/// Where the logical line (lines joined by soft breaks, up to a hard break and its line
/// ending) that starts at `start` ends.
fn logical_line_end(encoded: &[u8], start: usize) -> usize {
    let mut pos = start;
    while let Some(i) = memchr::memchr(b'\n', &encoded[pos..]) {
        let end = pos + i + 1;
        let content = strip_line_ending(&encoded[pos..end]);
        pos = end;
        if !content.trim_ascii_end().ends_with(b"=") {
            return end;
        }
    }
    encoded.len()
}

fn strip_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// How an encoded body is laid out.
struct Shape {
    line_ending: &'static [u8],
    width: usize,
    /// How many bytes of whitespace end the original (its last line ending, blank lines):
    /// they carry no text, and are written back as they were. In an mbox the blank line
    /// after a body is what makes the next `From ` line a separator (RFC 4155).
    trailer_len: usize,
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
            trailer_len: original.len() - original.trim_ascii_end().len(),
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
        full_lines += usize::from(!line.trim_ascii().is_empty());
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

fn encode_qp_line(line: &[u8], width: usize, line_ending: &[u8], out: &mut Vec<u8>) {
    let mut column = 0;
    for (i, &b) in line.iter().enumerate() {
        let at_end = i + 1 == line.len();
        let mut literal =
            (b == b' ' || b == b'\t') && !at_end || (33..=126).contains(&b) && b != b'=';
        let mut token_len = if literal { 1 } else { 3 };
        let reserve = if at_end { 0 } else { 1 };
        if column + token_len + reserve > width {
            out.push(b'=');
            out.extend_from_slice(line_ending);
            column = 0;
        }
        // RFC 2049 §3 (8): `From ` at the start of an encoded line (the text's, or one a
        // soft break made) is written `=46rom `, so that no mbox reader takes the line for
        // a message's separator (RFC 4155). `width` is at least 4: `=46` and a soft break
        // fit on a line.
        if column == 0 && line[i..].starts_with(b"From ") {
            literal = false;
            token_len = 3;
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
            lf(decode(&encoded, encoding).unwrap().into_owned()),
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
        let text = String::from_utf8(decoded.to_vec())
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
        assert_eq!(String::from_utf8(back.into_owned()).unwrap(), text);
    }

    #[test]
    fn decoding_in_pieces_gives_what_the_whole_body_gives() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&text);
        let mut wrapped = Vec::new();
        for line in b64.as_bytes().chunks(76) {
            wrapped.extend_from_slice(line);
            wrapped.extend_from_slice(b"\r\n");
        }
        let pieces = decode(&wrapped, TransferEncoding::Base64).unwrap();
        assert_eq!(&*pieces, &text[..]);
        let mut qp = Vec::new();
        for (i, chunk) in text.chunks(50).enumerate() {
            for &b in chunk {
                qp.extend_from_slice(format!("={b:02X}").as_bytes());
            }
            // Soft breaks, a soft break hidden behind an 8-bit byte, and hard breaks.
            qp.extend_from_slice([&b"=\n"[..], b"=\xff\n", b"\n", b"x==\n"][i % 4]);
        }
        let whole = decode_whole(&qp, TransferEncoding::QuotedPrintable).unwrap();
        let pieces = decode(&qp, TransferEncoding::QuotedPrintable).unwrap();
        assert!(*pieces == whole[..]);
        // Characters outside the alphabet: ignored (RFC 2045 §6.8), not so by the strict
        // decoder; one character more than whole quanta: an error either way, the same.
        let stray = b"PGE+\r\n!!\r\n";
        assert_eq!(&*decode(stray, TransferEncoding::Base64).unwrap(), b"<a>");
        let noted = decode_noting_ignored(stray, TransferEncoding::Base64).unwrap();
        assert_eq!((noted.1.first, noted.1.count), (Some(6), 2));
        let body = b"PGE+\r\n_____\r\nPC9hPg==\r\n-- \r\nList footer\r\n";
        let noted = decode_noting_ignored(body, TransferEncoding::Base64).unwrap();
        assert_eq!((noted.1.first, noted.1.count), (Some(6), 17));
        let whole = b"PGE+\r\nPC9hPg==\r\n";
        let noted = decode_noting_ignored(whole, TransferEncoding::Base64).unwrap();
        assert_eq!(noted.1, Ignored::default());
        assert!(decode_whole(stray, TransferEncoding::Base64).is_err());
        let bad = b"PGE+\r\nP\r\n";
        assert_eq!(
            decode(bad, TransferEncoding::Base64)
                .unwrap_err()
                .to_string(),
            decode_whole(bad, TransferEncoding::Base64)
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn base64_keeps_the_blank_lines_after_its_text() {
        for original in [&b"PGE+\n\n"[..], b"PGE+\r\n\r\n\r\n", b"PGE+\n \n", b"PGE+"] {
            let encoded = roundtrip(b"<a b>", TransferEncoding::Base64, original);
            let trailer = &original[original.trim_ascii_end().len()..];
            assert_eq!(encoded, [&b"PGEgYj4="[..], trailer].concat());
        }
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
