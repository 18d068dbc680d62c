//! URLs as RFC 1808 sees them: §2.4 parsing into borrowed components ([`Url`]) and §4
//! resolution of a reference against a base ([`resolve()`]), with RFC 3986 §5.2 beside it
//! ([`Standard::Rfc3986`]) for callers who need the successor standard's answers, and the
//! WHATWG URL Standard ([`Standard::Whatwg`], module [`whatwg`]) for browser-exact URLs.
//!
//! # How RFC 1808 is read here
//!
//! The resolver implements [§2.4](https://www.rfc-editor.org/rfc/rfc1808#section-2.4)
//! and [§4](https://www.rfc-editor.org/rfc/rfc1808#section-4) literally and passes all 39
//! examples of [§5](https://www.rfc-editor.org/rfc/rfc1808#section-5)
//! (`tests/resolve_rfc1808.rs` checks them from a table and, when the RFC's text is at
//! hand, as printed in it). Where the RFC leaves room, it is read as the sections below
//! say; each section is a test in `tests/resolve_rfc1808.rs` and is cited by the code
//! that implements it (`crate::url#an-empty-component-is-absent`, ...). In the examples
//! the base is §5's, `http://a/b/c/d;p?q`.
//!
//! On 10,000 real (page, reference) pairs from Common Crawl, the RFC 1808 and RFC 3986
//! answers differ for 465, and the RFC 3986 mode agrees with oxiri on every pair oxiri
//! accepts (`tests/resolve_corpus.rs`).
//!
//! ## An empty component is absent
//!
//! §2.4.1, §2.4.4 and §2.4.5 take the fragment, query and params "if the parse string
//! contains" their delimiter; a delimiter with nothing after it gives an empty component,
//! read here as no component at all, so it inherits from the base (§4 step 5) and is
//! not written back (step 7). Implemented in `parse.rs` (`split_at_first`).
//!
//! ```
//! use absolve::resolve;
//!
//! let base = "http://a/b/c/d;p?q";
//! assert_eq!(resolve(base, "?"), "http://a/b/c/d;p?q");
//! assert_eq!(resolve(base, "g?"), "http://a/b/c/g");
//! assert_eq!(resolve(base, "g#"), "http://a/b/c/g");
//! ```
//!
//! ## An empty net_loc is inherited and remembered
//!
//! A `//` with an empty net_loc after it is no net_loc for §4 step 3 (only a non-empty one
//! skips to step 7): the base's is inherited. And a base's own empty `//` is kept as it
//! is (the parsed [`Url::net_loc`] is `Some("")`), so `file:` URLs stay `file:///...`.
//! Implemented in `parse.rs` (`split_net_loc`) and `resolve.rs` (step 3).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a/b/c/d;p?q", "///g"), "http://a/g");
//! assert_eq!(resolve("file:///x/y", "z"), "file:///x/z");
//! ```
//!
//! ## Only the empty string is entirely empty
//!
//! §4 step 2a returns the base for an "entirely empty" embedded URL. Only `""` is;
//! `#` alone has an (absent, see above) fragment and goes through step 5, which gives
//! the base without its fragment. Implemented in `resolve.rs` (step 2a).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a/b/c/d;p?q#f", ""), "http://a/b/c/d;p?q#f");
//! assert_eq!(resolve("http://a/b/c/d;p?q#f", "#"), "http://a/b/c/d;p?q");
//! ```
//!
//! ## A reference with a scheme is returned byte for byte
//!
//! §4 step 2b: an embedded URL with a scheme "is interpreted as an absolute URL" and is
//! returned as it was given: no dot segment removed, no case changed. Implemented in
//! `resolve.rs` (step 2b).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a/b/c/d;p?q", "HTTP://A/./b/../c"), "HTTP://A/./b/../c");
//! assert_eq!(resolve("http://a/b/c/d;p?q", "javascript:a(1)"), "javascript:a(1)");
//! ```
//!
//! ## The path after step 6 starts with a slash
//!
//! §4 step 6 joins two paths that §2.4.6 stored without their leading slash; the result
//! gets one back when the base path had one or the base has a net_loc (a URL with a
//! net_loc cannot have a relative path). Implemented in `resolve.rs` (`merge_path`).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a", "g"), "http://a/g");
//! assert_eq!(resolve("foo:bar", "baz"), "foo:baz");
//! ```
//!
//! ## Step 5 is plain concatenation
//!
//! §4 step 5 (an embedded URL with an empty path) inherits the base path as it is: no
//! slash is added to an empty base path. Implemented in `resolve.rs` (`inherit_path`).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a", "?y"), "http://a?y");
//! assert_eq!(resolve("http://a", ";x"), "http://a;x");
//! ```
//!
//! ## The empty string is a complete segment
//!
//! In §4 step 6 the segments between slashes are complete path segments, the empty ones
//! too: in `g//..`, `..` removes the empty segment before it, not `g`. Implemented in
//! `resolve.rs` (`remove_dot_segments`) and `segments.rs`.
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://a/b/c/d;p?q", "g//../h"), "http://a/b/c/g/h");
//! ```
//!
//! ## What counts as a scheme
//!
//! §2.4.2: a scheme is a `:` at index 1 or later preceded only by scheme characters
//! (`[A-Za-z0-9+.-]`, a digit first allowed, as §2.2's BNF reads); its case is kept.
//! Anything else before the first `:` makes it part of the path. Implemented in
//! `parse.rs` (`scheme_len`).
//!
//! ```
//! use absolve::resolve;
//!
//! let base = "http://a/b/c/d;p?q";
//! assert_eq!(resolve(base, "9p:x"), "9p:x");
//! assert_eq!(resolve(base, "a_b:x"), "http://a/b/c/a_b:x");
//! assert_eq!(resolve(base, ":x"), "http://a/b/c/:x");
//! assert_eq!(resolve("HTTP://A/b", "c"), "HTTP://A/c");
//! ```
//!
//! ## Nothing is stripped, decoded or validated
//!
//! Every string parses, and its bytes are data: spaces, `%2e` (not a dot segment) and
//! non-ASCII are kept as they are. Callers that read URLs from a document (HTML trims
//! ASCII whitespace around an attribute's value) do that before calling. Implemented in
//! `parse.rs`.
//!
//! ```
//! use absolve::resolve;
//!
//! let base = "http://a/b/c/d;p?q";
//! assert_eq!(resolve(base, " g "), "http://a/b/c/ g ");
//! assert_eq!(resolve(base, "%2e%2e/g"), "http://a/b/c/%2e%2e/g");
//! assert_eq!(resolve(base, "é/ü"), "http://a/b/c/é/ü");
//! ```
//!
//! ## The net_loc is cut before the query
//!
//! §2.4.3 runs before §2.4.4, so a `?` or `;` before the first `/` after `//` belongs to
//! the net_loc, as the BNF of §2.2 allows. Implemented in `parse.rs` (`split_net_loc`).
//!
//! ```
//! use absolve::resolve;
//!
//! assert_eq!(resolve("http://h?x", "g"), "http://h?x/g");
//! ```

mod parse;
mod resolve;
mod rfc3986;
mod segments;
pub mod whatwg;

pub use parse::Url;
pub(crate) use parse::scheme_len;
pub use whatwg::WhatwgError;

use std::fmt;
use std::str::FromStr;

/// The standard a reference is resolved by.
///
/// ```
/// use absolve::url::{Standard, resolve_with};
///
/// // RFC 1808 §5.2 keeps `..` that climbs above the root; RFC 3986 §5.2.4 drops it.
/// assert_eq!(resolve_with(Standard::Rfc1808, "http://a/b/c/d;p?q", "../../../g"), "http://a/../g");
/// assert_eq!(resolve_with(Standard::Rfc3986, "http://a/b/c/d;p?q", "../../../g"), "http://a/g");
/// // The URL Standard's parse drops `..` above the root too, and serializes the result.
/// assert_eq!(resolve_with(Standard::Whatwg, "HTTP://A/b/c/d;p?q", "../../../g"), "http://a/g");
/// assert_eq!("3986".parse::<Standard>(), Ok(Standard::Rfc3986));
/// assert_eq!("RFC1808".parse::<Standard>(), Ok(Standard::Rfc1808));
/// assert_eq!("whatwg".parse::<Standard>(), Ok(Standard::Whatwg));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum Standard {
    /// RFC 1808 §2.4 and §4, literally, read where the RFC leaves room as the
    /// [module docs](crate::url#how-rfc-1808-is-read-here) say (the default).
    #[default]
    Rfc1808,
    /// RFC 3986 §5.2 strict resolution and §5.3 recomposition.
    Rfc3986,
    /// The WHATWG URL Standard's URL parser (<https://url.spec.whatwg.org/#concept-url-parser>)
    /// and serializer: the URL a browser reports (see [`whatwg`]).
    Whatwg,
}

impl Standard {
    /// Reads an `--rfc` (or Python `rfc=`) value: `1808` or `3986` only, the older way of
    /// choosing a standard (`--spec` reads every name, by [`FromStr`]).
    ///
    /// ```
    /// use absolve::Standard;
    ///
    /// assert_eq!(Standard::from_rfc("3986"), Ok(Standard::Rfc3986));
    /// assert!(Standard::from_rfc("whatwg").is_err());
    /// ```
    pub fn from_rfc(number: &str) -> Result<Self, UnknownRfc> {
        match number {
            "1808" => Ok(Standard::Rfc1808),
            "3986" => Ok(Standard::Rfc3986),
            other => Err(UnknownRfc(other.to_owned())),
        }
    }
}

/// A `--spec` value that names no standard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown standard {0:?}: expected rfc1808, rfc3986 or whatwg")]
pub struct UnknownStandard(pub String);

/// An `--rfc` value that is neither `1808` nor `3986`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown RFC {0:?}: expected 1808 or 3986")]
pub struct UnknownRfc(pub String);

impl FromStr for Standard {
    type Err = UnknownStandard;

    /// `rfc1808`, `rfc3986` or `whatwg`, in any case; `1808` and `3986` too.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let number = match s.get(..3) {
            Some(prefix) if prefix.eq_ignore_ascii_case("rfc") => &s[3..],
            _ => s,
        };
        match number {
            "1808" => Ok(Standard::Rfc1808),
            "3986" => Ok(Standard::Rfc3986),
            _ if s.eq_ignore_ascii_case("whatwg") => Ok(Standard::Whatwg),
            _ => Err(UnknownStandard(s.to_owned())),
        }
    }
}

impl fmt::Display for Standard {
    /// `1808`, `3986` or `whatwg`: the value `--rfc`/`--spec` read back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Standard::Rfc1808 => "1808",
            Standard::Rfc3986 => "3986",
            Standard::Whatwg => "whatwg",
        })
    }
}

/// Resolves `reference` against `base` by RFC 1808 §4.
///
/// An empty `base` is §3.4 ("undefined"): the reference comes back unchanged.
///
/// ```
/// use absolve::resolve;
///
/// let base = "http://a/b/c/d;p?q#f";
/// assert_eq!(resolve(base, "../g"), "http://a/b/g");
/// assert_eq!(resolve(base, "?y"), "http://a/b/c/d;p?y");
/// assert_eq!(resolve(base, ""), base);
/// assert_eq!(resolve("", "../g"), "../g");
/// ```
pub fn resolve(base: &str, reference: &str) -> String {
    resolve_with(Standard::Rfc1808, base, reference)
}

/// Resolves `reference` against `base` by the given standard.
///
/// ```
/// use absolve::url::{Standard, resolve_with};
///
/// assert_eq!(resolve_with(Standard::Rfc3986, "http://a/b", "g?"), "http://a/g?");
/// assert_eq!(resolve_with(Standard::Rfc1808, "http://a/b", "g?"), "http://a/g");
/// assert_eq!(resolve_with(Standard::Whatwg, "http://a/b", "g?"), "http://a/g?");
/// ```
pub fn resolve_with(standard: Standard, base: &str, reference: &str) -> String {
    let mut out = String::with_capacity(base.len() + reference.len() + 1);
    resolve_into(standard, base, reference, &mut out);
    out
}

/// Resolves `reference` against `base` and appends the result to `out`: the form for a
/// caller that reuses one buffer for many references (nothing else is allocated by the
/// RFC resolvers).
///
/// [`Standard::Whatwg`] parses `base` by the URL Standard on each call (correct, slower: a
/// caller with many references parses it once with [`whatwg::parse_base`] and calls
/// [`whatwg::resolve_whatwg`], or holds a [`Base`](crate::base::Base)). An empty `base`, or
/// one that does not parse, is no base: an absolute reference is still parsed and
/// serialized; a reference that fails to parse is appended unchanged.
///
/// ```
/// use absolve::url::{Standard, resolve_into};
///
/// let mut out = String::new();
/// for reference in ["g", "/h"] {
///     out.clear();
///     resolve_into(Standard::Rfc1808, "http://a/b/c", reference, &mut out);
///     assert!(out.starts_with("http://a/"));
/// }
/// ```
pub fn resolve_into(standard: Standard, base: &str, reference: &str, out: &mut String) {
    match standard {
        Standard::Rfc1808 => resolve::resolve_into(base, reference, out),
        Standard::Rfc3986 => rfc3986::resolve_into(base, reference, out),
        Standard::Whatwg => {
            let base = (!base.is_empty())
                .then(|| whatwg::parse_base(base).ok())
                .flatten();
            // The failure is the caller's to see only through `whatwg::resolve_whatwg`: here
            // the reference is left as it is, as the URL Standard's users (HTML) do.
            let _ = whatwg::resolve_whatwg(base.as_ref(), reference, None, out);
        }
    }
}

/// A base URL parsed once by each RFC (RFC 1808 §2.4, RFC 3986 §3), for resolving many
/// references against it: [`resolve_into`] parses the base again for each one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ParsedBase {
    rfc1808: parse::Spans,
    rfc3986: rfc3986::Spans,
}

impl ParsedBase {
    /// The parses of `base`, which every later call must be given again.
    pub(crate) fn of(base: &str) -> Self {
        ParsedBase {
            rfc1808: parse::Spans::of(base),
            rfc3986: rfc3986::Spans::of(base),
        }
    }

    /// [`resolve_into`] by one of the RFCs, `base` read back from its parse (the URL
    /// Standard's base is parsed once by [`Base`](crate::base::Base) itself: given
    /// [`Standard::Whatwg`], `base` is parsed here as [`resolve_into`] does).
    pub(crate) fn resolve_into(
        &self,
        standard: Standard,
        base: &str,
        reference: &str,
        out: &mut String,
    ) {
        match standard {
            Standard::Rfc1808 => {
                resolve::resolve_into_parsed(base, || self.rfc1808.url(base), reference, out);
            }
            Standard::Rfc3986 => rfc3986::resolve_into_spans(base, &self.rfc3986, reference, out),
            Standard::Whatwg => resolve_into(standard, base, reference, out),
        }
    }
}

/// Whether `reference` (as the URL parser reads it: trimmed, tabs and newlines out) is
/// returned as it is by `standard` for the scheme it has or the base it lacks: a reference
/// with a scheme by RFC 1808 (§4 step 2b; RFC 3986 removes its dot segments, §5.2.2, and
/// the URL Standard parses it), and with no base any reference but, by the URL Standard,
/// one with a scheme (§3.4).
pub(crate) fn returned_as_written(standard: Standard, reference: &str, has_base: bool) -> bool {
    let absolute = has_scheme(reference);
    match standard {
        Standard::Rfc1808 => absolute || !has_base,
        Standard::Rfc3986 => !has_base,
        Standard::Whatwg => !has_base && !absolute,
    }
}

/// Whether `reference` starts with a scheme name (RFC 1808 §2.4.2), which makes it
/// absolute (§4 step 2b).
///
/// ```
/// assert!(absolve::url::has_scheme("mailto:a@b"));
/// assert!(!absolve::url::has_scheme("a/b:c"));
/// ```
pub fn has_scheme(reference: &str) -> bool {
    scheme_len(reference).is_some()
}

/// Whether `reference` starts with a scheme by `standard`'s rule: RFC 3986 §3.1 wants a
/// letter first, RFC 1808 §2.4.2 does not ([`has_scheme`]); the URL Standard's parser
/// judges for itself, as RFC 1808 is asked here.
pub(crate) fn has_scheme_by(standard: Standard, reference: &str) -> bool {
    match standard {
        Standard::Rfc3986 => rfc3986::has_scheme(reference),
        Standard::Rfc1808 | Standard::Whatwg => has_scheme(reference),
    }
}
