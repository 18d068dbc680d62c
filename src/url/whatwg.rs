//! The WHATWG URL Standard as a resolver: the URL a browser reports for a reference.
//!
//! A reference is resolved by the [URL parser] with the base URL as *base*, and the result
//! is the [URL serializer]'s output (the `href` of `new URL(reference, base)`). Parsing is
//! servo's implementation of the Standard, the [`url`] crate; nothing here reads a URL
//! by hand. What each branch of this module follows:
//!
//! - [URL parser]: "The URL parser takes a scalar value string *input*, with an optional
//!   null or base URL *base* (default null) and an optional encoding *encoding* (default
//!   UTF-8)". The [basic URL parser] it runs first removes "any leading and trailing C0
//!   control or space" and "all ASCII tab or newline from *input*", so a reference with a
//!   newline inside (an attribute value broken over two lines) resolves as a browser reads
//!   it: [`resolve_whatwg`].
//! - [Failure][basic URL parser]: the basic URL parser "return\[s\] failure" for a reference
//!   it cannot read: a [host] that is not one (`http://a b/`: "If asciiDomain contains a
//!   forbidden domain code point, domain-invalid-code-point validation error, return
//!   failure"; `https://exa%mple/`, the same after percent-decoding), an [IPv6 address]
//!   left open (`http://[::1`: "If input does not end with U+005D (]), IPv6-unclosed
//!   validation error, return failure"), a port above 65535, or a relative reference with
//!   no base ("If *base* is null, or *base* has an opaque path and c is not U+0023 (#),
//!   missing-scheme-non-relative-URL validation error, return failure"). HTML then uses
//!   the attribute value as it is (`element.href` "return\[s\] this element's href content
//!   attribute's value" when "*url* is failure"): [`resolve_whatwg`] appends the reference
//!   unchanged and returns the reason as a [`WhatwgError`].
//! - [Encoding][query state]: "If *encoding* is not UTF-8 and one of the following is true:
//!   *url* is not special; *url*'s scheme is "ws" or "wss", then set *encoding* to UTF-8",
//!   then the query is "percent-encode\[d\] after encoding, with *encoding*"
//!   ([percent-encode after encoding]); the rest of the URL is always UTF-8. HTML's
//!   [encoding-parse a URL] passes "*environment*'s character encoding" (the document's):
//!   a `windows-1251` page's `?q=тест` becomes `?q=%F2%E5%F1%F2`. The [`url`] crate applies
//!   the override to the query of `http`, `https`, `ftp` and `file` URLs only, which is the
//!   Standard's rule; [`query_bytes`] is the encoding step.
//! - [Base][URL parser]: a base is itself a URL record, the parse of an absolute URL
//!   ([`parse_base`]), made once and used for every reference ([`crate::base::Base`] keeps
//!   it).
//!
//! [URL parser]: https://url.spec.whatwg.org/#concept-url-parser
//! [basic URL parser]: https://url.spec.whatwg.org/#concept-basic-url-parser
//! [URL serializer]: https://url.spec.whatwg.org/#concept-url-serializer
//! [host]: https://url.spec.whatwg.org/#concept-host-parser
//! [IPv6 address]: https://url.spec.whatwg.org/#concept-ipv6-parser
//! [query state]: https://url.spec.whatwg.org/#query-state
//! [percent-encode after encoding]: https://url.spec.whatwg.org/#string-percent-encode-after-encoding
//! [encoding-parse a URL]: https://html.spec.whatwg.org/multipage/urls-and-fetching.html#encoding-parsing-a-url

use encoding_rs::{Encoding, ISO_2022_JP, UTF_8};
use std::borrow::Cow;
use std::fmt::Write as _;
use url::{ParseError, Url};

/// Why the URL Standard's parser returned failure for a URL (its validation error, in the
/// [`url`] crate's words: "invalid IPv6 address", "invalid domain character", "relative
/// URL without a base", ...).
///
/// ```
/// use absolve::url::whatwg::resolve_whatwg;
///
/// let mut out = String::new();
/// let error = resolve_whatwg(None, "http://[::1", None, &mut out).unwrap_err();
/// assert_eq!(error.to_string(), "invalid IPv6 address");
/// assert_eq!(out, "http://[::1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct WhatwgError {
    reason: ParseError,
}

impl WhatwgError {
    /// The [`url`] crate's reason.
    ///
    /// ```
    /// use absolve::url::whatwg::parse_base;
    ///
    /// let error = parse_base("http://a:99999/").unwrap_err();
    /// assert_eq!(error.reason(), url::ParseError::InvalidPort);
    /// ```
    pub fn reason(&self) -> ParseError {
        self.reason
    }

    /// Whether the failure is only that a relative reference had no base to resolve
    /// against (RFC 1808 §3.4: the reference stays as it is, which is no fault of it).
    ///
    /// ```
    /// use absolve::url::whatwg::resolve_whatwg;
    ///
    /// let mut out = String::new();
    /// let error = resolve_whatwg(None, "../g", None, &mut out).unwrap_err();
    /// assert!(error.is_relative_without_base());
    /// ```
    pub fn is_relative_without_base(&self) -> bool {
        self.reason == ParseError::RelativeUrlWithoutBase
    }
}

impl From<ParseError> for WhatwgError {
    fn from(reason: ParseError) -> Self {
        WhatwgError { reason }
    }
}

/// Parses an absolute URL by the URL Standard, to serve as the base of many references
/// ([URL parser](https://url.spec.whatwg.org/#concept-url-parser) with a null base).
///
/// ```
/// use absolve::url::whatwg::parse_base;
///
/// # fn main() -> Result<(), absolve::url::WhatwgError> {
/// assert_eq!(parse_base("HTTP://Example.COM:80")?.as_str(), "http://example.com/");
/// assert!(parse_base("/relative").is_err());
/// # Ok(())
/// # }
/// ```
pub fn parse_base(base: &str) -> Result<Url, WhatwgError> {
    Ok(Url::parse(base)?)
}

/// The URL Standard's parse of `reference` against `base` (null when `None`), with the
/// query encoded in `encoding` (UTF-8 when `None`): the URL record, for a caller that wants
/// more than its serialization.
///
/// ```
/// use absolve::url::whatwg::{parse, parse_base};
///
/// # fn main() -> Result<(), absolve::url::WhatwgError> {
/// let base = parse_base("http://h/a/b")?;
/// assert_eq!(parse(Some(&base), "../c?d", None)?.path(), "/c");
/// # Ok(())
/// # }
/// ```
pub fn parse(
    base: Option<&Url>,
    reference: &str,
    encoding: Option<&'static Encoding>,
) -> Result<Url, WhatwgError> {
    let options = Url::options().base_url(base);
    let reference = &*ignoring_extra_slashes(base, reference);
    // "Let encoding be UTF-8 ... set encoding to environment's character encoding"
    // (HTML, encoding-parse a URL); an encoding that cannot be output (UTF-16, replacement)
    // is UTF-8 ("get an output encoding", https://encoding.spec.whatwg.org/#get-an-output-encoding).
    match encoding.map(Encoding::output_encoding) {
        Some(encoding) if encoding != UTF_8 => {
            let encode: &dyn Fn(&str) -> Cow<'_, [u8]> = &|text| query_bytes(encoding, text);
            Ok(options.encoding_override(Some(encode)).parse(reference)?)
        }
        _ => Ok(options.parse(reference)?),
    }
}

/// Schemes the Standard calls [special](https://url.spec.whatwg.org/#special-scheme) that
/// have a host, `file` aside (it has states of its own).
const SPECIAL_WITH_HOST: [&str; 5] = ["http", "https", "ws", "wss", "ftp"];

/// `reference` as the [`url`] crate reads it correctly, where it starts with more than the
/// two slashes of a network-path reference against a special base: `///host/p`, `//\host`,
/// `\\host`. The [relative slash state] says "If url is special and c is U+002F (/) or
/// U+005C (\\) ... set state to special authority ignore slashes state", which skips every
/// further `/` and `\\` ("If c is neither U+002F (/) nor U+005C (\\), then set state to
/// authority state"), so such a reference means `//host/p`, as in Chromium; the crate (2.5.8)
/// returns failure (empty host) for it. The prefix may hold tabs and newlines, which the
/// [basic URL parser] removes first, after any leading C0 control or space.
///
/// [relative slash state]: https://url.spec.whatwg.org/#relative-slash-state
/// [basic URL parser]: https://url.spec.whatwg.org/#concept-basic-url-parser
fn ignoring_extra_slashes<'a>(base: Option<&Url>, reference: &'a str) -> Cow<'a, str> {
    let special = base.is_some_and(|base| SPECIAL_WITH_HOST.contains(&base.scheme()));
    let trimmed = reference.trim_start_matches(|c: char| c <= ' ');
    let rest = trimmed.trim_start_matches(['/', '\\', '\t', '\n', '\r']);
    let prefix = &trimmed[..trimmed.len() - rest.len()];
    let slashes = prefix.bytes().filter(|b| matches!(b, b'/' | b'\\')).count();
    if !special || slashes < 2 || prefix == "//" {
        return Cow::Borrowed(reference);
    }
    Cow::Owned(format!("//{rest}"))
}

/// Resolves `reference` against `base` by the URL Standard and appends the serialized URL
/// (its `href`) to `out`; a reference the Standard rejects is appended unchanged, and the
/// reason returned.
///
/// `base` is `None` for no base: an absolute reference is still parsed and serialized, a
/// relative one fails ([`WhatwgError::is_relative_without_base`]). `encoding` is the
/// document's character encoding, applied to the query of a special URL as HTML's
/// [encoding-parse a URL](https://html.spec.whatwg.org/multipage/urls-and-fetching.html#encoding-parsing-a-url)
/// says; `None` is UTF-8.
///
/// ```
/// use absolve::url::whatwg::{parse_base, resolve_whatwg};
///
/// # fn main() -> Result<(), absolve::url::WhatwgError> {
/// let base = parse_base("http://ipf.example.cn/?p=1")?;
/// let mut out = String::new();
/// resolve_whatwg(Some(&base), "../upload/x.jpg", None, &mut out)?;
/// assert_eq!(out, "http://ipf.example.cn/upload/x.jpg");
///
/// out.clear();
/// let windows_1251 = encoding_rs::WINDOWS_1251;
/// resolve_whatwg(Some(&base), "s?q=тест#тест", Some(windows_1251), &mut out)?;
/// assert_eq!(out, "http://ipf.example.cn/s?q=%F2%E5%F1%F2#%D1%82%D0%B5%D1%81%D1%82");
///
/// out.clear();
/// let error = resolve_whatwg(Some(&base), "http://a b/", None, &mut out).unwrap_err();
/// assert_eq!((out.as_str(), error.to_string().as_str()), ("http://a b/", "invalid international domain name"));
/// # Ok(())
/// # }
/// ```
pub fn resolve_whatwg(
    base: Option<&Url>,
    reference: &str,
    encoding: Option<&'static Encoding>,
    out: &mut String,
) -> Result<(), WhatwgError> {
    match parse(base, reference, encoding) {
        Ok(url) => {
            out.push_str(url.as_str());
            Ok(())
        }
        Err(error) => {
            out.push_str(reference);
            Err(error)
        }
    }
}

/// The bytes of a piece of query in `encoding`, for the [`url`] crate to percent-encode
/// with the (special-)query percent-encode set: the
/// [percent-encode after encoding](https://url.spec.whatwg.org/#string-percent-encode-after-encoding)
/// steps, where a code point the encoding cannot represent "append\[s\] "%26%23", followed
/// by the shortest sequence of ASCII digits representing *potentialError* in base ten,
/// followed by "%3B"" (`%` is in no query set, so these pass through as written).
///
/// ```
/// use absolve::url::whatwg::query_bytes;
///
/// assert_eq!(&*query_bytes(encoding_rs::WINDOWS_1252, "a=é"), b"a=\xE9");
/// assert_eq!(&*query_bytes(encoding_rs::WINDOWS_1252, "†☃"), b"\x86%26%239731%3B");
/// ```
pub fn query_bytes<'a>(encoding: &'static Encoding, text: &'a str) -> Cow<'a, [u8]> {
    // Every output encoding writes ASCII as ASCII, but for ISO-2022-JP's shift and escape
    // code points ("If code point is U+000E, U+000F, or U+001B, return error with U+FFFD",
    // https://encoding.spec.whatwg.org/#iso-2022-jp-encoder).
    if text.is_ascii() && encoding != ISO_2022_JP {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut encoder = encoding.new_encoder();
    let mut bytes = Vec::with_capacity(text.len() + 16);
    let mut rest = text;
    loop {
        let room = encoder
            .max_buffer_length_from_utf8_without_replacement(rest.len())
            .unwrap_or(rest.len() * 4 + 16);
        bytes.reserve(room);
        let (result, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut bytes, true);
        rest = &rest[read..];
        match result {
            encoding_rs::EncoderResult::InputEmpty => break,
            encoding_rs::EncoderResult::OutputFull => {}
            encoding_rs::EncoderResult::Unmappable(c) => {
                let mut reference = String::with_capacity(16);
                let _ = write!(reference, "%26%23{}%3B", u32::from(c));
                bytes.extend_from_slice(reference.as_bytes());
            }
        }
    }
    Cow::Owned(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(base: &str, reference: &str) -> (String, Result<(), WhatwgError>) {
        let base = parse_base(base).unwrap();
        let mut out = String::new();
        let result = resolve_whatwg(Some(&base), reference, None, &mut out);
        (out, result)
    }

    #[test]
    fn dot_segments_above_the_root_are_dropped() {
        let (out, result) = resolved("http://ipf.example.cn/?p=1", "../upload/x.jpg");
        assert_eq!(out, "http://ipf.example.cn/upload/x.jpg");
        assert!(result.is_ok());
    }

    #[test]
    fn a_network_path_without_a_path_gets_slash() {
        assert_eq!(
            resolved("https://a/b", "//i0.wp.com").0,
            "https://i0.wp.com/"
        );
    }

    /// The special authority ignore slashes state skips every `/` and `\\` after the
    /// first two (the `url` crate alone fails on three or more: empty host).
    #[test]
    fn extra_slashes_before_a_host_are_skipped_against_a_special_base() {
        for reference in [
            "///x/y",
            "////x/y",
            "//\\x/y",
            "\\\\\\x/y",
            " /\t//x/y",
            "/\\/x/y",
        ] {
            assert_eq!(
                resolved("http://e.com/a/b", reference).0,
                "http://x/y",
                "{reference:?}"
            );
        }
        assert_eq!(resolved("wss://e.com/a", "///x").0, "wss://x/");
        assert!(resolved("http://e.com/a", "///").1.is_err());
        // Not against a non-special or a file: base, which have states of their own.
        assert_eq!(resolved("foo://h/a/b", "///x/y").0, "foo:///x/y");
        assert_eq!(resolved("file:///a/b", "///x/y").0, "file:///x/y");
    }

    #[test]
    fn empty_query_and_fragment_are_kept() {
        assert_eq!(
            resolved("http://h/a/b", "//h/fonts/m.eot?#iefix").0,
            "http://h/fonts/m.eot?#iefix"
        );
        assert_eq!(
            resolved("http://h/cart", "cart.html#").0,
            "http://h/cart.html#"
        );
    }

    #[test]
    fn tabs_newlines_and_outer_spaces_are_removed_backslashes_are_slashes() {
        assert_eq!(
            resolved("http://h/a/b", " \tc\n/d\\e \n").0,
            "http://h/a/c/d/e"
        );
        // Not in a non-special URL: a backslash there is a path code point.
        assert_eq!(resolved("foo://h/a/b", "c\\d").0, "foo://h/a/c\\d");
    }

    #[test]
    fn failures_leave_the_reference_and_give_the_reason() {
        for (reference, reason) in [
            ("http://[::1", "invalid IPv6 address"),
            ("http://a b/", "invalid international domain name"),
            ("https://exa%mple/", "invalid international domain name"),
            ("http://h:65536/", "invalid port number"),
            ("http://999.1.1.1/", "invalid IPv4 address"),
        ] {
            let (out, result) = resolved("http://base/", reference);
            assert_eq!(out, reference);
            assert_eq!(result.unwrap_err().to_string(), reason, "{reference}");
        }
    }

    #[test]
    fn an_opaque_base_resolves_only_fragments() {
        let (out, result) = resolved("mailto:a@b", "#f");
        assert_eq!((out.as_str(), result), ("mailto:a@b#f", Ok(())));
        let (out, result) = resolved("mailto:a@b", "g");
        assert_eq!(out, "g");
        assert_eq!(
            result.unwrap_err().reason(),
            ParseError::RelativeUrlWithCannotBeABaseBase
        );
    }

    #[test]
    fn the_encoding_applies_to_the_query_of_special_urls_only() {
        let base = parse_base("http://h/").unwrap();
        let cases = [
            ("?q=тест#т", "http://h/?q=%F2%E5%F1%F2#%D1%82"),
            ("/т?q=т", "http://h/%D1%82?q=%F2"),
            ("ws://w/?q=т", "ws://w/?q=%D1%82"),
            ("foo://w/?q=т", "foo://w/?q=%D1%82"),
            ("file:///x?q=т", "file:///x?q=%F2"),
            ("?q=€", "http://h/?q=%88"),
            ("?q=中", "http://h/?q=%26%2320013%3B"),
        ];
        for (reference, expected) in cases {
            let mut out = String::new();
            resolve_whatwg(
                Some(&base),
                reference,
                Some(encoding_rs::WINDOWS_1251),
                &mut out,
            )
            .unwrap();
            assert_eq!(out, expected, "{reference}");
        }
    }

    #[test]
    fn utf16_documents_encode_queries_in_utf8() {
        let base = parse_base("http://h/").unwrap();
        let mut out = String::new();
        resolve_whatwg(Some(&base), "?q=é", Some(encoding_rs::UTF_16LE), &mut out).unwrap();
        assert_eq!(out, "http://h/?q=%C3%A9");
    }

    #[test]
    fn no_base_parses_absolute_references_only() {
        let mut out = String::new();
        resolve_whatwg(None, "HTTP://H:80/a/../b", None, &mut out).unwrap();
        assert_eq!(out, "http://h/b");
        out.clear();
        assert!(
            resolve_whatwg(None, "b", None, &mut out)
                .unwrap_err()
                .is_relative_without_base()
        );
        assert_eq!(out, "b");
    }
}

#[cfg(test)]
mod wpt_percent_encoding {
    //! web-platform-tests `url/resources/percent-encoding.json`: the query of an `<a href>`
    //! in a document of each encoding (the fragment stays UTF-8).
    use super::*;

    fn query_and_fragment(encoding: &'static Encoding, input: &str) -> String {
        let base = parse_base("https://doesnotmatter.invalid/").unwrap();
        let mut out = String::new();
        let reference = format!("?{input}#{input}");
        resolve_whatwg(Some(&base), &reference, Some(encoding), &mut out).unwrap();
        out["https://doesnotmatter.invalid/".len()..].to_owned()
    }

    #[test]
    fn dagger() {
        assert_eq!(
            query_and_fragment(encoding_rs::WINDOWS_1252, "\u{2020}"),
            "?%86#%E2%80%A0"
        );
        assert_eq!(
            query_and_fragment(encoding_rs::UTF_8, "\u{2020}"),
            "?%E2%80%A0#%E2%80%A0"
        );
    }

    #[test]
    fn shift_out_in_iso_2022_jp() {
        assert_eq!(
            query_and_fragment(encoding_rs::ISO_2022_JP, "\u{E}A"),
            "?%26%2365533%3BA#%0EA"
        );
    }
}
