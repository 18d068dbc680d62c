//! RFC 1808 §2.4: breaking a URL (relative or absolute) into its components.
//!
//! The parser applies the rules of §2.4.1 to §2.4.6 in the order the RFC lists them, each
//! on what the previous rule left of the "parse string". Every string parses: there is no
//! validation, so spaces, `%2e` and non-ASCII are plain data (see
//! [url](crate::url#nothing-is-stripped-decoded-or-validated)).

use std::fmt;
use std::ops::Range;

/// A URL broken into the components of RFC 1808 §2.1, borrowed from the parsed string.
///
/// Where the RFC leaves room (see the [url](crate::url#how-rfc-1808-is-read-here) module):
/// - An empty `params`, `query` or `fragment` is absent: `g?` has no query (see
///   [url](crate::url#an-empty-component-is-absent)).
/// - A `//` with nothing after it is remembered: `net_loc` is `Some("")` (see
///   [url](crate::url#an-empty-net_loc-is-inherited-and-remembered)).
/// - `has_root` records the slash that precedes the path (§2.4.6); `path` excludes it.
///
/// ```
/// use absolve::url::Url;
///
/// let url = Url::parse("http://a/b/c/d;p?q#f");
/// assert_eq!(url.scheme, Some("http"));
/// assert_eq!(url.net_loc, Some("a"));
/// assert!(url.has_root);
/// assert_eq!(url.path, "b/c/d");
/// assert_eq!(url.params, Some("p"));
/// assert_eq!(url.query, Some("q"));
/// assert_eq!(url.fragment, Some("f"));
/// assert_eq!(url.to_string(), "http://a/b/c/d;p?q#f");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Url<'a> {
    /// §2.4.2: the scheme name, case preserved, without its colon.
    pub scheme: Option<&'a str>,
    /// §2.4.3: the network location/login; `Some("")` when `//` is followed by nothing.
    pub net_loc: Option<&'a str>,
    /// §2.4.6: whether a slash precedes the path (an absolute path).
    pub has_root: bool,
    /// §2.4.6: the path, without its preceding slash; may be empty.
    pub path: &'a str,
    /// §2.4.5: the parameters after the first `;`, when non-empty.
    pub params: Option<&'a str>,
    /// §2.4.4: the query after the first `?`, when non-empty.
    pub query: Option<&'a str>,
    /// §2.4.1: the fragment identifier after the first `#`, when non-empty.
    pub fragment: Option<&'a str>,
}

impl<'a> Url<'a> {
    /// Parses `input` by the rules of RFC 1808 §2.4.1 to §2.4.6, in that order.
    ///
    /// ```
    /// use absolve::url::Url;
    ///
    /// // §2.4.3: the net_loc runs to the next slash, so `?` and `;` may belong to it.
    /// assert_eq!(Url::parse("//host?x").net_loc, Some("host?x"));
    /// // Decision 1: a trailing `?` gives an empty, therefore absent, query.
    /// assert_eq!(Url::parse("g?").query, None);
    /// // Decision 7: a digit may start a scheme; case is preserved.
    /// assert_eq!(Url::parse("9P:x").scheme, Some("9P"));
    /// ```
    pub fn parse(input: &'a str) -> Url<'a> {
        let (rest, fragment) = split_fragment(input);
        let (scheme, rest) = split_scheme(rest);
        let (net_loc, rest) = split_net_loc(rest);
        let (rest, query) = split_at_first(rest, b'?');
        let (rest, params) = split_at_first(rest, b';');
        let (has_root, path) = split_root(rest);
        Url {
            scheme,
            net_loc,
            has_root,
            path,
            params,
            query,
            fragment,
        }
    }
}

/// §2.4.1: everything after the first `#` is the fragment; the `#` is removed with it.
fn split_fragment(s: &str) -> (&str, Option<&str>) {
    split_at_first(s, b'#')
}

/// Splits at the first `delimiter`: what precedes it, and what follows it when non-empty
/// (see [url](crate::url#an-empty-component-is-absent)). Used by §2.4.1, §2.4.4 and §2.4.5.
fn split_at_first(s: &str, delimiter: u8) -> (&str, Option<&str>) {
    match memchr::memchr(delimiter, s.as_bytes()) {
        Some(i) => {
            let after = &s[i + 1..];
            (&s[..i], (!after.is_empty()).then_some(after))
        }
        None => (s, None),
    }
}

/// §2.4.2: a colon after the first character, preceded only by scheme characters
/// (alphanumerics, `+`, `.`, `-`, a digit first allowed: see
/// [url](crate::url#what-counts-as-a-scheme)).
fn split_scheme(s: &str) -> (Option<&str>, &str) {
    match scheme_len(s) {
        Some(n) => (Some(&s[..n]), &s[n + 1..]),
        None => (None, s),
    }
}

/// The length of the scheme name that `s` starts with, if it starts with one and a colon.
pub(crate) fn scheme_len(s: &str) -> Option<usize> {
    let colon = s.bytes().position(|b| !is_scheme_char(b))?;
    (colon >= 1 && s.as_bytes()[colon] == b':').then_some(colon)
}

/// The characters RFC 1808 §2.2 allows in a scheme name.
fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

/// §2.4.3: after a leading `//`, everything up to the next `/` (or the end) is the net_loc.
fn split_net_loc(s: &str) -> (Option<&str>, &str) {
    match s.strip_prefix("//") {
        Some(after) => {
            let end = memchr::memchr(b'/', after.as_bytes()).unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, s),
    }
}

/// §2.4.6: what is left is the path and the slash that may precede it.
fn split_root(s: &str) -> (bool, &str) {
    match s.strip_prefix('/') {
        Some(path) => (true, path),
        None => (false, s),
    }
}

/// §4 step 7: recombines the components into a URL string.
impl fmt::Display for Url<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write_to(&mut out);
        f.write_str(&out)
    }
}

impl Url<'_> {
    /// §4 step 7: appends the recombined URL to `out`.
    pub(crate) fn write_to(&self, out: &mut String) {
        write_prefix(out, self.scheme, self.net_loc);
        if self.has_root {
            out.push('/');
        }
        out.push_str(self.path);
        write_suffix(out, self.params, self.query, self.fragment);
    }
}

/// Where each component of a parsed URL lies in the string it was parsed from: a
/// [`Url`] kept without borrowing, so that a base is parsed once (§2.4) and read back for
/// every reference resolved against it ([`Spans::url`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Spans {
    scheme: Option<Range<usize>>,
    net_loc: Option<Range<usize>>,
    has_root: bool,
    path: Range<usize>,
    params: Option<Range<usize>>,
    query: Option<Range<usize>>,
    fragment: Option<Range<usize>>,
}

impl Spans {
    /// The spans of `input` parsed by §2.4.
    pub(crate) fn of(input: &str) -> Spans {
        let url = Url::parse(input);
        let at = |part: &str| span(input, part);
        Spans {
            scheme: url.scheme.map(at),
            net_loc: url.net_loc.map(at),
            has_root: url.has_root,
            path: at(url.path),
            params: url.params.map(at),
            query: url.query.map(at),
            fragment: url.fragment.map(at),
        }
    }

    /// The [`Url`] of `input`, the string these spans were made from.
    pub(crate) fn url<'a>(&self, input: &'a str) -> Url<'a> {
        let part = |range: &Range<usize>| &input[range.clone()];
        Url {
            scheme: self.scheme.as_ref().map(part),
            net_loc: self.net_loc.as_ref().map(part),
            has_root: self.has_root,
            path: part(&self.path),
            params: self.params.as_ref().map(part),
            query: self.query.as_ref().map(part),
            fragment: self.fragment.as_ref().map(part),
        }
    }
}

/// The range of `part`, a slice of `whole`, in `whole`.
pub(crate) fn span(whole: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - whole.as_ptr() as usize;
    start..start + part.len()
}

/// §4 step 7, first half: `scheme:` and `//net_loc` when present.
pub(crate) fn write_prefix(out: &mut String, scheme: Option<&str>, net_loc: Option<&str>) {
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(net_loc) = net_loc {
        out.push_str("//");
        out.push_str(net_loc);
    }
}

/// §4 step 7, second half: `;params`, `?query` and `#fragment` when present.
pub(crate) fn write_suffix(
    out: &mut String,
    params: Option<&str>,
    query: Option<&str>,
    fragment: Option<&str>,
) {
    for (delimiter, value) in [(';', params), ('?', query), ('#', fragment)] {
        if let Some(value) = value {
            out.push(delimiter);
            out.push_str(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_is_split_at_the_first_crosshatch() {
        let url = Url::parse("a#b#c");
        assert_eq!(url.path, "a");
        assert_eq!(url.fragment, Some("b#c"));
    }

    #[test]
    fn empty_fragment_is_absent() {
        assert_eq!(Url::parse("a#").fragment, None);
        assert_eq!(Url::parse("#").path, "");
    }

    #[test]
    fn scheme_needs_a_colon_after_the_first_character() {
        assert_eq!(Url::parse(":x").scheme, None);
        assert_eq!(Url::parse("a:x").scheme, Some("a"));
        assert_eq!(Url::parse("a+b.c-d:x").scheme, Some("a+b.c-d"));
        assert_eq!(Url::parse("a/b:x").scheme, None);
        assert_eq!(Url::parse("a b:x").scheme, None);
        assert_eq!(Url::parse("HTTP:x").scheme, Some("HTTP"));
    }

    #[test]
    fn scheme_is_parsed_after_the_fragment_is_removed() {
        assert_eq!(Url::parse("g#s:t").scheme, None);
    }

    #[test]
    fn net_loc_runs_to_the_next_slash_or_the_end() {
        let url = Url::parse("//h;p?q/x");
        assert_eq!(url.net_loc, Some("h;p?q"));
        assert_eq!(url.path, "x");
        assert_eq!(Url::parse("//h?q").net_loc, Some("h?q"));
        assert_eq!(Url::parse("///g").net_loc, Some(""));
        assert_eq!(Url::parse("/g").net_loc, None);
    }

    #[test]
    fn query_is_split_before_params() {
        let url = Url::parse("g;x?y;z");
        assert_eq!(url.path, "g");
        assert_eq!(url.params, Some("x"));
        assert_eq!(url.query, Some("y;z"));
    }

    #[test]
    fn empty_params_and_query_are_absent() {
        let url = Url::parse("g;?");
        assert_eq!(url.params, None);
        assert_eq!(url.query, None);
    }

    #[test]
    fn root_slash_is_remembered_apart_from_the_path() {
        let url = Url::parse("/a/b");
        assert!(url.has_root);
        assert_eq!(url.path, "a/b");
        assert!(!Url::parse("a/b").has_root);
    }

    #[test]
    fn spans_give_back_the_parse() {
        for s in [
            "http://a/b/c/d;p?q#f",
            "g:h",
            "//g",
            "",
            "/",
            "file:///x",
            "a;?#",
        ] {
            assert_eq!(Spans::of(s).url(s), Url::parse(s), "{s}");
        }
    }

    #[test]
    fn recombination_returns_a_url_without_empty_components() {
        for s in [
            "http://a/b/c/d;p?q#f",
            "g:h",
            "//g",
            "a",
            "/",
            "file:///x",
            "",
        ] {
            assert_eq!(Url::parse(s).to_string(), s);
        }
    }
}
