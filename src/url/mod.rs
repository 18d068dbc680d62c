//! URLs as RFC 1808 sees them: §2.4 parsing into borrowed components ([`Url`]) and §4
//! resolution of a reference against a base ([`resolve`]), with RFC 3986 §5.2 beside it
//! ([`Standard::Rfc3986`]) for callers who need the successor standard's answers, and the
//! WHATWG URL Standard ([`Standard::Whatwg`], module [`whatwg`]) for browser-exact URLs.

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
    /// RFC 1808 §2.4 and §4, literally, with the project's decisions (the default).
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
