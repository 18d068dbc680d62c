//! Where the URLs are inside an attribute value, once character references are decoded:
//! lists, `srcset` candidates and the `<meta http-equiv=refresh>` content.

use super::attributes::Syntax;
use std::ops::Range;

/// ASCII whitespace as HTML defines it.
pub fn is_ascii_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The byte ranges of the URLs in a decoded attribute `value` of the given syntax, with
/// surrounding ASCII whitespace excluded. CSS (see [`crate::css`]) and srcdoc documents
/// are not handled here.
///
/// ```
/// use absolve::html::{attributes::Syntax, values::url_ranges};
///
/// let srcset = "a.png 1x, b,c.png 2x";
/// let urls: Vec<_> = url_ranges(Syntax::Srcset, srcset).into_iter().map(|r| &srcset[r]).collect();
/// assert_eq!(urls, ["a.png", "b,c.png"]);
/// ```
pub fn url_ranges(syntax: Syntax, value: &str) -> Vec<Range<usize>> {
    match syntax {
        Syntax::Url => trimmed(value, 0..value.len()).into_iter().collect(),
        Syntax::SpaceList => space_separated(value),
        Syntax::CommaList => comma_separated(value),
        Syntax::Srcset => srcset(value),
        Syntax::Refresh => refresh(value).into_iter().collect(),
        Syntax::Css | Syntax::Srcdoc => Vec::new(),
    }
}

/// `range` of `value` without leading and trailing ASCII whitespace; `None` if empty.
pub(crate) fn trimmed(value: &str, range: Range<usize>) -> Option<Range<usize>> {
    let bytes = value.as_bytes();
    let (mut start, mut end) = (range.start, range.end);
    while start < end && is_ascii_whitespace(bytes[start]) {
        start += 1;
    }
    while end > start && is_ascii_whitespace(bytes[end - 1]) {
        end -= 1;
    }
    // An empty value is left alone and not reported: it names no resource to resolve.
    (start < end).then_some(start..end)
}

fn space_separated(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut ranges = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        if is_ascii_whitespace(bytes[pos]) {
            pos += 1;
            continue;
        }
        let start = pos;
        while pos < bytes.len() && !is_ascii_whitespace(bytes[pos]) {
            pos += 1;
        }
        ranges.push(start..pos);
    }
    ranges
}

fn comma_separated(value: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for piece in value.split(',') {
        let range = start..start + piece.len();
        start = range.end + 1;
        if let Some(range) = trimmed(value, range).filter(|r| !r.is_empty()) {
            ranges.push(range);
        }
    }
    ranges
}

/// HTML "parse a srcset attribute": the URL of each image candidate. A URL may contain
/// commas; trailing commas end it; descriptors run to the next comma outside parentheses.
fn srcset(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut ranges = Vec::new();
    let mut pos = 0;
    loop {
        while pos < bytes.len() && (is_ascii_whitespace(bytes[pos]) || bytes[pos] == b',') {
            pos += 1;
        }
        if pos >= bytes.len() {
            return ranges;
        }
        let start = pos;
        while pos < bytes.len() && !is_ascii_whitespace(bytes[pos]) {
            pos += 1;
        }
        let mut end = pos;
        let ends_with_comma = bytes[end - 1] == b',';
        while end > start && bytes[end - 1] == b',' {
            end -= 1;
        }
        if end > start {
            ranges.push(start..end);
        }
        if !ends_with_comma {
            pos = descriptors_end(bytes, pos);
        }
    }
}

/// The end of a candidate's descriptors: after the next comma outside parentheses.
fn descriptors_end(bytes: &[u8], mut pos: usize) -> usize {
    let mut in_parens = false;
    while pos < bytes.len() {
        match bytes[pos] {
            b'(' => in_parens = true,
            b')' => in_parens = false,
            b',' if !in_parens => return pos + 1,
            _ => {}
        }
        pos += 1;
    }
    pos
}

/// HTML "shared declarative refresh steps": the URL in `5; url='x'`, if there is one.
///
/// ```
/// use absolve::html::{attributes::Syntax, values::url_ranges};
///
/// for content in ["5; url=x", "0, URL = 'x'", "5 x", "0;x"] {
///     let ranges = url_ranges(Syntax::Refresh, content);
///     assert_eq!(&content[ranges[0].clone()], "x", "{content}");
/// }
/// assert!(url_ranges(Syntax::Refresh, "a; url=x").is_empty());
/// ```
pub fn refresh(value: &str) -> Option<Range<usize>> {
    let bytes = value.as_bytes();
    let skip_ws = |mut pos: usize| {
        while pos < bytes.len() && is_ascii_whitespace(bytes[pos]) {
            pos += 1;
        }
        pos
    };
    let mut pos = skip_ws(0);
    let time_start = pos;
    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos == time_start && bytes.get(pos) != Some(&b'.') {
        return None;
    }
    while pos < bytes.len() && (bytes[pos].is_ascii_digit() || bytes[pos] == b'.') {
        pos += 1;
    }
    if pos < bytes.len() {
        if !(bytes[pos] == b';' || bytes[pos] == b',' || is_ascii_whitespace(bytes[pos])) {
            return None;
        }
        pos = skip_ws(pos);
        if pos < bytes.len() && (bytes[pos] == b';' || bytes[pos] == b',') {
            pos += 1;
        }
        pos = skip_ws(pos);
    }
    if pos >= bytes.len() {
        return None;
    }
    let url_start = pos;
    let after_keyword = url_keyword_end(bytes, pos, skip_ws);
    let mut start = match after_keyword {
        Some(after) => after,
        None if bytes[pos].eq_ignore_ascii_case(&b'u') => {
            return trimmed(value, url_start..bytes.len());
        }
        None => url_start,
    };
    let mut end = bytes.len();
    if let Some(&quote) = bytes.get(start).filter(|b| matches!(b, b'"' | b'\'')) {
        start += 1;
        if let Some(i) = memchr::memchr(quote, &bytes[start..]) {
            end = start + i;
        }
    }
    trimmed(value, start..end)
}

/// After an optional `URL` keyword, whitespace, `=` and whitespace: where the URL starts.
fn url_keyword_end(bytes: &[u8], pos: usize, skip_ws: impl Fn(usize) -> usize) -> Option<usize> {
    let keyword = bytes.get(pos..pos + 3)?;
    if !keyword.eq_ignore_ascii_case(b"url") {
        return None;
    }
    let pos = skip_ws(pos + 3);
    (bytes.get(pos) == Some(&b'=')).then(|| skip_ws(pos + 1))
}

/// Escapes a decoded value for writing back between `quote` characters (or unquoted, if
/// it can stay so): `&` and the quote character become character references.
///
/// ```
/// use absolve::html::values::escape_attribute;
///
/// assert_eq!(escape_attribute("a?b=1&c=\"", Some(b'"')), "a?b=1&amp;c=&quot;");
/// assert_eq!(escape_attribute("it's", Some(b'\'')), "it&#39;s");
/// assert_eq!(escape_attribute("a b", None), "\"a b\"");
/// assert_eq!(escape_attribute("http://h/", None), "http://h/");
/// ```
pub fn escape_attribute(value: &str, quote: Option<u8>) -> String {
    let needs_quotes = || {
        value.is_empty()
            || value.bytes().any(|b| {
                is_ascii_whitespace(b) || matches!(b, b'"' | b'\'' | b'=' | b'<' | b'>' | b'`')
            })
    };
    // The original quotes stay outside the value; an unquoted value gets double quotes
    // only if it now needs them.
    let added_quotes = quote.is_none() && needs_quotes();
    let quote = if added_quotes { Some(b'"') } else { quote };
    let needs_escapes = match quote {
        Some(q) => memchr::memchr2(b'&', q, value.as_bytes()).is_some(),
        None => memchr::memchr(b'&', value.as_bytes()).is_some(),
    };
    if !needs_escapes && !added_quotes {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len() + 8);
    if added_quotes {
        out.push('"');
    }
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' if quote == Some(b'"') => out.push_str("&quot;"),
            '\'' if quote == Some(b'\'') => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    if added_quotes {
        out.push('"');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(syntax: Syntax, value: &str) -> Vec<&str> {
        url_ranges(syntax, value)
            .into_iter()
            .map(|r| &value[r])
            .collect()
    }

    #[test]
    fn single_url_is_trimmed() {
        assert_eq!(urls(Syntax::Url, " \n a.html\t"), ["a.html"]);
        assert!(urls(Syntax::Url, "").is_empty());
        assert!(urls(Syntax::Url, "  ").is_empty());
    }

    #[test]
    fn lists() {
        assert_eq!(urls(Syntax::SpaceList, " a  b\tc "), ["a", "b", "c"]);
        assert_eq!(
            urls(Syntax::CommaList, "a.jar, b.jar,,c.jar"),
            ["a.jar", "b.jar", "c.jar"]
        );
    }

    #[test]
    fn srcset_candidates() {
        assert_eq!(urls(Syntax::Srcset, "a.png"), ["a.png"]);
        // A URL runs to whitespace, so it may contain commas (HTML "parse a srcset").
        assert_eq!(urls(Syntax::Srcset, "a.png,b.png 2x"), ["a.png,b.png"]);
        assert_eq!(urls(Syntax::Srcset, "a.png, b.png 2x"), ["a.png", "b.png"]);
        assert_eq!(urls(Syntax::Srcset, "a.png,, b.png"), ["a.png", "b.png"]);
        assert_eq!(
            urls(Syntax::Srcset, " a.png 100w (x, y), b.png"),
            ["a.png", "b.png"]
        );
        assert_eq!(
            urls(Syntax::Srcset, "data:image/png;base64,AA== 1x, c.png 2x"),
            ["data:image/png;base64,AA==", "c.png"]
        );
        assert_eq!(urls(Syntax::Srcset, ",,"), Vec::<&str>::new());
    }

    #[test]
    fn refresh_forms() {
        assert_eq!(urls(Syntax::Refresh, "0; URL='a b'c"), ["a b"]);
        assert_eq!(urls(Syntax::Refresh, ".5;url=x"), ["x"]);
        assert_eq!(urls(Syntax::Refresh, "5"), Vec::<&str>::new());
        assert_eq!(urls(Syntax::Refresh, "5; urx"), ["urx"]);
        assert_eq!(urls(Syntax::Refresh, "5; \"q\""), ["q"]);
        assert_eq!(urls(Syntax::Refresh, "5x; url=q"), Vec::<&str>::new());
    }
}
