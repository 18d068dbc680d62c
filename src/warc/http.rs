//! The HTTP message in a `response` (or `revisit`) record: its head (parsed by
//! `httparse`), the body's transfer coding (RFC 7230 §4.1 chunked) and content coding
//! (RFC 7231 §3.1.2.2: gzip, deflate, br) undone, and the URLs in its header fields.

use crate::base::Base;
use crate::html::values;
use crate::links::Link;
use crate::url::Standard;
use std::io::Read;

/// The most bytes an HTTP head may have.
pub(crate) const MAX_HTTP_HEAD: usize = 256 * 1024;

/// One header field of the HTTP head.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub name: String,
    pub value: String,
    /// Where the value starts in the record block.
    pub offset: usize,
}

/// The status line and header fields of an HTTP message.
#[derive(Debug, Clone)]
pub(crate) struct HttpHead {
    /// The head's length in the block, blank line included.
    pub len: usize,
    pub headers: Vec<Header>,
}

impl HttpHead {
    /// Parses the head at the start of `block`: `Ok(None)` when `block` ends before it
    /// does, `Err` with the parser's reason when it is not an HTTP response head.
    pub fn parse(block: &[u8]) -> Result<Option<HttpHead>, String> {
        let mut config = httparse::ParserConfig::default();
        config
            .allow_spaces_after_header_name_in_responses(true)
            .allow_obsolete_multiline_headers_in_responses(true)
            .allow_multiple_spaces_in_response_status_delimiters(true)
            .ignore_invalid_headers_in_responses(true);
        for capacity in [64, 1024] {
            let mut headers = vec![httparse::EMPTY_HEADER; capacity];
            let mut response = httparse::Response::new(&mut headers);
            match config.parse_response(&mut response, block) {
                Ok(httparse::Status::Complete(len)) => {
                    let headers = response
                        .headers
                        .iter()
                        .map(|h| Header {
                            name: h.name.to_owned(),
                            // A byte that is not UTF-8 (RFC 9110 §5.5's obs-text) is
                            // read as its percent-encoding: in a URL, what it names.
                            value: super::framing::header_text(h.value).0.trim().to_owned(),
                            offset: h.value.as_ptr() as usize - block.as_ptr() as usize,
                        })
                        .collect();
                    return Ok(Some(HttpHead { len, headers }));
                }
                Ok(httparse::Status::Partial) => return Ok(None),
                Err(httparse::Error::TooManyHeaders) => continue,
                Err(error) => return Err(error.to_string()),
            }
        }
        Err("more than 1024 header fields".into())
    }

    /// The first value of header `name` (case-insensitive, RFC 7230 §3.2).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// The codings of header `name` (a list, RFC 7230 §7), lower case, `identity` left out.
    pub fn codings(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(name))
            .flat_map(|h| h.value.split(','))
            .map(|c| c.trim().to_ascii_lowercase())
            .filter(|c| !c.is_empty() && c != "identity")
            .collect()
    }
}

/// A chunked body's data, and the first chunk whose size is beyond the data left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dechunked {
    pub data: Vec<u8>,
    /// A chunk's size and the bytes that were left for it (the body cut short).
    pub short: Option<(u64, u64)>,
}

/// RFC 7230 §4.1: the data of a chunked body, or `None` when its framing is broken (the
/// caller then uses the raw bytes, as warcio does). Chunk extensions and trailers are
/// dropped; a body that ends before its last chunk keeps what it has (and says so).
pub(crate) fn dechunk(body: &[u8]) -> Option<Dechunked> {
    let mut data = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = line.split(';').next()?.trim();
        let size = u64::from_str_radix(size, 16).ok()?;
        rest = &rest[line_end + 1..];
        if size == 0 {
            return Some(Dechunked { data, short: None });
        }
        if rest.len() as u64 <= size {
            let short = (rest.len() as u64 + 2 <= size).then_some((size, rest.len() as u64));
            data.extend_from_slice(rest);
            return Some(Dechunked { data, short });
        }
        let size = size as usize;
        data.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))?;
        if rest.is_empty() {
            return Some(Dechunked { data, short: None });
        }
    }
}

/// RFC 7231 §3.1.2.2: undoes the content codings, last applied first. Leniently, as
/// warcio: a body that is not in the coding at all (a crawler stored it decoded without
/// renaming the header) is used as it is, and a damaged one as far as it decodes; each
/// with a note for a warning; what decodes beyond [`MAX_DECODED`] bytes is dropped, with a
/// note. `Err` names a coding that is not known.
pub(crate) fn decode(body: Vec<u8>, codings: &[String]) -> Result<Decoded, String> {
    decode_capped(body, codings, MAX_DECODED)
}

/// A body with its content codings undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub body: Vec<u8>,
    /// What was done about bodies not in their coding, or damaged.
    pub notes: Vec<String>,
    /// Whether the body decodes to more than the cap and was cut there.
    pub capped: bool,
}

/// The most bytes a body is decoded to: a few kilobytes of gzip or brotli can decode to
/// gigabytes (a "decompression bomb"), and the decoded payload is held whole.
pub(crate) const MAX_DECODED: u64 = 256 << 20;

/// [`decode`], each coding's output cut at `cap` bytes (with a note).
fn decode_capped(body: Vec<u8>, codings: &[String], cap: u64) -> Result<Decoded, String> {
    let mut body = body;
    let mut notes = Vec::new();
    let mut capped = false;
    for coding in codings.iter().rev() {
        let mut out = Vec::with_capacity(body.len().saturating_mul(4).min(cap as usize));
        let read =
            |decoder: &mut dyn Read, out: &mut Vec<u8>| decoder.take(cap + 1).read_to_end(out);
        let result = match coding.as_str() {
            "gzip" | "x-gzip" => read(&mut flate2::read::MultiGzDecoder::new(&body[..]), &mut out),
            // RFC 7230 §4.2.2: zlib format; some servers send raw deflate data instead.
            "deflate" => {
                read(&mut flate2::read::ZlibDecoder::new(&body[..]), &mut out).or_else(|_| {
                    out.clear();
                    read(&mut flate2::read::DeflateDecoder::new(&body[..]), &mut out)
                })
            }
            "br" => read(
                &mut brotli::Decompressor::new(&body[..], 64 * 1024),
                &mut out,
            ),
            other => return Err(format!("{other} (not supported)")),
        };
        if out.len() as u64 > cap {
            out.truncate(cap as usize);
            capped = true;
            notes.push(format!(
                "{coding}: the body decodes to more than {} MiB: the first {} MiB are used",
                cap >> 20,
                cap >> 20
            ));
        }
        // The room left by growing is given back: the decoded payload is held a while.
        out.shrink_to_fit();
        match result {
            Ok(_) => body = out,
            Err(error) if out.is_empty() => {
                notes.push(format!(
                    "{coding}: the body is not {coding} data ({error}): used as it is"
                ));
            }
            Err(error) => {
                notes.push(format!(
                    "{coding}: damaged data ({error}): the part decoded is used"
                ));
                body = out;
            }
        }
    }
    Ok(Decoded {
        body,
        notes,
        capped,
    })
}

/// The header fields whose values hold URLs, with the lower-case name they are listed by.
const URL_HEADERS: [&str; 4] = ["location", "content-location", "link", "refresh"];

/// The URLs in the HTTP header fields: `Location` and `Content-Location` (RFC 7231
/// §7.1.2, §3.1.4.2), each target of `Link` (RFC 8288 §3), the URL of `Refresh`; each
/// resolved against `base` (the target URI), never against a `<base>` of the body. A URL
/// the URL Standard rejects ([`Standard::Whatwg`]) is left as it is, and given to
/// `rejected` with the reason (a relative one without a base is not rejected: it is
/// left, as the RFCs leave it).
pub(crate) fn header_links(
    head: &HttpHead,
    base: &Base,
    standard: Standard,
    rejected: &mut dyn FnMut(&Link, String),
) -> Vec<Link> {
    let mut links = Vec::new();
    for header in &head.headers {
        let Some(&name) = URL_HEADERS
            .iter()
            .find(|known| known.eq_ignore_ascii_case(&header.name))
        else {
            continue;
        };
        let ranges = match name {
            "link" => link_targets(&header.value),
            "refresh" => values::refresh(&header.value).into_iter().collect(),
            _ => std::iter::once(0..header.value.len()).collect(),
        };
        for range in ranges {
            let original = header.value[range.clone()].trim();
            if original.is_empty() {
                continue;
            }
            let mut resolved = String::new();
            let failure = base
                .try_resolve_into(standard, original, None, &mut resolved)
                .err()
                .filter(|error| !error.is_relative_without_base());
            links.push(Link {
                location: Default::default(),
                element: "http".into(),
                attribute: Some(name.to_owned()),
                original: original.to_owned(),
                resolved,
                base: base.shared_url(),
                base_from: base.source(),
                offset: (header.offset + range.start) as u64,
                kept: None,
                srcdoc: 0,
            });
            if let (Some(error), Some(link)) = (failure, links.last()) {
                rejected(link, error.to_string());
            }
        }
    }
    links
}

/// RFC 8288 §3: the `<URI-Reference>` of each link-value in a `Link` field value
/// (`<a>; rel=x, <b>; title="c, d"`), skipping commas inside quoted parameters.
fn link_targets(value: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = value.as_bytes();
    let mut targets = Vec::new();
    let mut i = 0;
    let mut expecting_target = true;
    let mut in_quotes = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_quotes = !in_quotes,
            b'\\' if in_quotes => i += 1,
            b',' if !in_quotes => expecting_target = true,
            b'<' if expecting_target && !in_quotes => {
                let Some(end) = memchr::memchr(b'>', &bytes[i + 1..]) else {
                    break;
                };
                targets.push(i + 1..i + 1 + end);
                i += end + 1;
                expecting_target = false;
            }
            _ => {}
        }
        i += 1;
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_values_and_quoted_commas() {
        let value = r#"<a.css>; rel=stylesheet; title="x, <no>", </b>;rel=next,<c>"#;
        let targets: Vec<_> = link_targets(value).into_iter().map(|r| &value[r]).collect();
        assert_eq!(targets, ["a.css", "/b", "c"]);
    }

    #[test]
    fn chunked_bodies() {
        let data = |body: &[u8]| dechunk(body).map(|d| (d.data, d.short));
        assert_eq!(
            data(b"3;x=y\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap(),
            (b"abcde".to_vec(), None)
        );
        assert_eq!(data(b"3\nabc\n0\n").unwrap(), (b"abc".to_vec(), None));
        assert_eq!(data(b"<html>"), None);
        assert_eq!(data(b"a\r\nabc").unwrap(), (b"abc".to_vec(), Some((10, 3))));
        // The last chunk's data without its CRLF is not cut short.
        assert_eq!(data(b"3\r\nabc").unwrap(), (b"abc".to_vec(), None));
    }

    #[test]
    fn codings_are_undone_last_first() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<p>x").unwrap();
        let body = gz.finish().unwrap();
        let plain = decode(body.clone(), &["gzip".into()]).unwrap();
        assert_eq!(
            (plain.body, plain.notes, plain.capped),
            (b"<p>x".to_vec(), vec![], false)
        );
        assert!(
            decode(b"x".to_vec(), &["zstd".into()])
                .unwrap_err()
                .contains("zstd")
        );
        let raw = decode(b"<p>x".to_vec(), &["gzip".into()]).unwrap();
        assert_eq!((raw.body.as_slice(), raw.notes.len()), (&b"<p>x"[..], 1));
        let partial = decode(body[..body.len() - 8].to_vec(), &["gzip".into()]).unwrap();
        assert_eq!(
            (partial.body.as_slice(), partial.notes.len()),
            (&b"<p>x"[..], 1)
        );
    }

    #[test]
    fn header_urls_resolve_against_the_target_uri() {
        let block = b"HTTP/1.1 301 Moved\r\nLocation: /new\r\nLink: <s.css>; rel=stylesheet\r\nRefresh: 5; url=r.html\r\nServer: x\r\n\r\n";
        let head = HttpHead::parse(block).unwrap().unwrap();
        assert_eq!(head.len, block.len());
        let base = Base::retrieval_url("http://h/a/b").unwrap();
        let links = header_links(&head, &base, Standard::Rfc1808, &mut |_, _| {
            unreachable!("the RFCs reject nothing")
        });
        let got: Vec<_> = links
            .iter()
            .map(|l| (l.attribute.as_deref().unwrap(), l.resolved.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("location", "http://h/new"),
                ("link", "http://h/a/s.css"),
                ("refresh", "http://h/a/r.html")
            ]
        );
        let at = links[1].offset as usize;
        assert_eq!(&block[at..at + 5], b"s.css");
    }

    /// A header value byte that is not UTF-8 (obs-text) is read as its percent-encoding:
    /// `Location: caf\xE9` names `caf%E9`, not a U+FFFD (`caf%EF%BF%BD`).
    #[test]
    fn header_bytes_that_are_not_utf8_are_percent_encoded() {
        let block = b"HTTP/1.1 301 Moved\r\nLocation: /caf\xE9\r\n\r\n";
        let head = HttpHead::parse(block).unwrap().unwrap();
        assert_eq!(head.get("location"), Some("/caf%E9"));
        let base = Base::retrieval_url("http://h/a/b").unwrap();
        let links = header_links(&head, &base, Standard::Rfc1808, &mut |_, _| {
            unreachable!("the RFCs reject nothing")
        });
        assert_eq!(links[0].resolved, "http://h/caf%E9");
    }

    /// A small body that decodes to more than the cap (a decompression bomb) is cut at
    /// the cap, with a note; one under it is whole.
    #[test]
    fn decoding_is_capped() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; 3 << 20]).unwrap();
        let bomb = gz.finish().unwrap();
        let gzip = ["gzip".to_owned()];
        let cut = decode_capped(bomb.clone(), &gzip, 1 << 20).unwrap();
        assert_eq!((cut.body.len(), cut.capped), (1 << 20, true));
        assert_eq!(cut.notes.len(), 1, "{:?}", cut.notes);
        assert!(cut.notes[0].contains("more than 1 MiB"), "{:?}", cut.notes);
        let whole = decode_capped(bomb, &gzip, 4 << 20).unwrap();
        assert_eq!(
            (whole.body.len(), whole.notes.len(), whole.capped),
            (3 << 20, 0, false)
        );
    }
}
