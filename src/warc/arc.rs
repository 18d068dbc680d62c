//! ARC files, the Internet Archive's web archive format before WARC ("ARC File Format",
//! versions 1 and 2), read as WARC records are: each ARC record becomes a [`Head`] with
//! the WARC fields that say the same thing, so that the same code lists and rewrites both.
//!
//! An ARC file is a version block (a record whose URL is `filedesc://NAME`: its content
//! is `1 0 ...` or `2 0 ...` then the names of the header fields), then records: a header
//! line of fields separated by spaces, v1 `URL IP-address Archive-date Content-type
//! Archive-length`, v2 `URL IP-address Archive-date Content-type Result-code Checksum
//! Location Offset Filename Archive-length`; then `Archive-length` bytes (for an `http`
//! or `https` URL, the HTTP response, headers and all); then a newline. `.arc.gz` is a
//! gzip member per record, as `.warc.gz` is.
//!
//! The fields of a record become:
//! - `filedesc://`: `WARC-Type: warcinfo` (no links);
//! - `http:`, `https:`: `WARC-Type: response`, `Content-Type: application/http`;
//! - any other (`dns:`, `ftp:`, ...): `WARC-Type: resource`, its own `Content-Type`;
//!
//! with `WARC-Target-URI` (the URL), `WARC-Date`, `WARC-IP-Address` and `Content-Length`
//! (`Archive-length`). A URL holding spaces (warcio writes them) is what is left once the
//! other fields are taken from the right.

use super::framing::{Head, header_text};
use super::{RecordRef, Warning};

/// How an ARC file's first line begins: its version block's URL.
pub(crate) const FILEDESC: &[u8] = b"filedesc://";

/// How many fields a v1 header line has.
pub(crate) const V1_FIELDS: usize = 5;

/// How many fields a v2 header line has.
pub(crate) const V2_FIELDS: usize = 10;

/// The largest `Archive-length` believed (1 TiB, as a WARC `Content-Length`): beyond,
/// the record has no length (its bytes are skipped to the next header line).
const MAX_LENGTH: u64 = 1 << 40;

/// The most bytes an ARC header line may have: a longer line is not one.
const MAX_LINE: usize = 64 << 10;

/// The number of fields of a file's header lines, from the first bytes of its version
/// block's content (`2 0 ...`: version 2).
pub(crate) fn fields_of_version(content: &[u8]) -> usize {
    match content.starts_with(b"2 ") {
        true => V2_FIELDS,
        false => V1_FIELDS,
    }
}

/// The head of the ARC record whose header line is `line` (line ending included), `at`
/// its offset in the (decompressed) file, `number` its number, `fields` how many fields
/// the file's header lines have ([`V1_FIELDS`], [`V2_FIELDS`]; a `filedesc://` line always
/// has five); `None` when the line is not an ARC header line: fewer fields than that,
/// a URL without a scheme, a date that is not digits, more than [`MAX_LINE`] bytes.
/// A length that is not a number (`-1`, `abc`) still makes a header line: the head says it
/// has no length.
pub(crate) fn head(line: &[u8], at: u64, number: u64, fields: usize) -> Option<Head> {
    if line.len() > MAX_LINE || !line.ends_with(b"\n") {
        return None;
    }
    let bare = super::framing::trim_line_end(line);
    let (text, valid) = header_text(bare);
    let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    let fields = if words.first()?.as_bytes().starts_with(FILEDESC) {
        V1_FIELDS
    } else {
        fields
    };
    // A five-field line in a v2 file is a v1 line (a version block's).
    let fields = match words.len() {
        V1_FIELDS => V1_FIELDS,
        _ => fields,
    };
    if words.len() < fields {
        return None;
    }
    let (url_words, rest) = words.split_at(words.len() - fields + 1);
    let url = url_words.join(" ");
    let (ip, date, content_type, length) = (rest[0], rest[1], rest[2], rest[fields - 2]);
    if !has_scheme(&url) || date.is_empty() || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let kind = match scheme(&url).to_ascii_lowercase().as_str() {
        "filedesc" => "warcinfo",
        "http" | "https" => "response",
        _ => "resource",
    };
    let block_type = match kind {
        "response" => "application/http; msgtype=response",
        _ => content_type,
    };
    let length = length.parse::<u64>().ok().filter(|&l| l <= MAX_LENGTH);
    let mut head_fields = vec![
        ("WARC-Type".to_owned(), kind.to_owned()),
        ("WARC-Target-URI".to_owned(), url),
        ("WARC-Date".to_owned(), date.to_owned()),
        ("WARC-IP-Address".to_owned(), ip.to_owned()),
        ("Content-Type".to_owned(), block_type.to_owned()),
    ];
    if let Some(length) = length {
        head_fields.push(("Content-Length".to_owned(), length.to_string()));
    }
    Some(Head {
        raw: line.to_vec(),
        fields: head_fields,
        record: RecordRef {
            number,
            offset: at,
            id: None,
        },
        length: length.unwrap_or(0),
        has_length: length.is_some(),
        oversized: false,
        not_utf8: match valid {
            true => Vec::new(),
            false => vec!["URL".to_owned()],
        },
        arc: true,
        arc_offset: None,
    })
}

/// The warning for a record without a usable length: a WARC record's `Content-Length`,
/// an ARC record's `Archive-length` (its last field, as written).
pub(crate) fn no_length(head: &Head) -> Warning {
    let record = head.record.clone();
    if !head.arc {
        return Warning::NoContentLength { record };
    }
    let (text, _) = header_text(super::framing::trim_line_end(&head.raw));
    let value = text.split(' ').rfind(|w| !w.is_empty()).unwrap_or_default();
    Warning::ArcNoLength {
        record,
        value: value.to_owned(),
    }
}

/// RFC 3986 §3.1: whether `url` starts with a scheme and `:`.
fn has_scheme(url: &str) -> bool {
    let scheme = scheme(url);
    scheme.len() < url.len()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// What comes before the first `:` of `url` (all of it without one).
fn scheme(url: &str) -> &str {
    url.split(':').next().unwrap_or_default()
}

/// The header line of a record whose content changed to `length` bytes: the line as it
/// was, its last field (`Archive-length`) written anew. The other fields are kept as they
/// were (a v2 line's `Checksum` and `Offset` name the original record).
pub(crate) fn converted_line(raw: &[u8], length: u64) -> Vec<u8> {
    let bare = super::framing::trim_line_end(raw);
    let ending = &raw[bare.len()..];
    let trimmed = bare.trim_ascii_end();
    let start = trimmed
        .iter()
        .rposition(|&b| b == b' ')
        .map_or(0, |p| p + 1);
    let mut out = Vec::with_capacity(raw.len() + 8);
    out.extend_from_slice(&trimmed[..start]);
    out.extend_from_slice(length.to_string().as_bytes());
    out.extend_from_slice(ending);
    out
}

/// Where an ARC header line starts in `bytes` (`before` is the byte before them), for a
/// block that runs past the end of the file: the first line after a line end that is one
/// ([`head`]) with a length. `Err(from)` when none is found but one may start at `from`
/// (a line not ended yet).
pub(crate) fn find_header(bytes: &[u8], before: u8, fields: usize) -> Result<usize, usize> {
    let mut start = match before {
        b'\n' => 0,
        _ => match memchr::memchr(b'\n', bytes) {
            Some(p) => p + 1,
            None => return Err(bytes.len()),
        },
    };
    while start < bytes.len() {
        let Some(end) = memchr::memchr(b'\n', &bytes[start..]) else {
            // The line may be a header whose end is in the bytes to come.
            return match bytes.len() - start <= MAX_LINE {
                true => Err(start),
                false => Err(bytes.len()),
            };
        };
        let line = &bytes[start..start + end + 1];
        if head(line, 0, 0, fields).is_some_and(|head| head.has_length && head.kind() != "warcinfo")
        {
            return Ok(start);
        }
        start += end + 1;
    }
    Err(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_v2_lines() {
        let v1 = head(b"http://h/a 1.2.3.4 20140216050221 text/html 12\n", 7, 2, 5).unwrap();
        assert_eq!(v1.kind(), "response");
        assert_eq!(v1.field("WARC-Target-URI"), Some("http://h/a"));
        assert_eq!((v1.length, v1.has_length), (12, true));
        assert_eq!((v1.record.number, v1.record.offset), (2, 7));
        let v2 = b"dns:h 1.2.3.4 20080430204825 text/dns 200 - - 0 x.arc 56\n";
        let v2 = head(v2, 0, 1, 10).unwrap();
        assert_eq!(v2.kind(), "resource");
        assert_eq!(v2.field("Content-Type"), Some("text/dns"));
        assert_eq!(v2.length, 56);
    }

    #[test]
    fn spaces_in_urls_are_kept() {
        let line = b"http://h/a?t=Examples From Here 1.2.3.4 20140216050221 text/html 3\n";
        let head = head(line, 0, 1, 5).unwrap();
        assert_eq!(
            head.field("WARC-Target-URI"),
            Some("http://h/a?t=Examples From Here")
        );
    }

    #[test]
    fn lines_that_are_no_header() {
        assert!(head(b"HTTP/1.1 200 OK\r\n", 0, 1, 5).is_none());
        assert!(head(b"<a href=x> b c d e\n", 0, 1, 5).is_none());
        assert!(head(b"http://h/ 1.2.3.4 2014 text/html 3", 0, 1, 5).is_none());
        let bad = head(b"http://h/ 1.2.3.4 2014 text/html abc\n", 0, 1, 5).unwrap();
        assert!(!bad.has_length);
    }

    #[test]
    fn the_length_is_written_anew() {
        let line = b"http://h/a 1.2.3.4 2014 text/html 12\n";
        assert_eq!(
            converted_line(line, 140),
            b"http://h/a 1.2.3.4 2014 text/html 140\n"
        );
    }

    #[test]
    fn a_header_is_found_in_a_block() {
        let bytes = b"<p>x</p>\nhttp://h/b 1.2.3.4 2014 text/html 3\nabc\n";
        assert_eq!(find_header(bytes, b'\n', 5), Ok(9));
        assert_eq!(find_header(b"<p>x</p>\nhttp://h/b 1.2", b'\n', 5), Err(9));
    }
}
