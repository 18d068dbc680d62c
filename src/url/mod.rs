//! URLs as RFC 1808 sees them: §2.4 parsing into borrowed components ([`Url`]) and §4
//! resolution of a reference against a base ([`resolve`]), with RFC 3986 §5.2 beside it
//! ([`Standard::Rfc3986`]) for callers who need the successor standard's answers.

mod parse;
mod resolve;
mod rfc3986;
mod segments;

pub use parse::Url;
pub(crate) use parse::scheme_len;

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
/// assert_eq!("3986".parse::<Standard>(), Ok(Standard::Rfc3986));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Standard {
    /// RFC 1808 §2.4 and §4, literally, with the project's decisions (the default).
    #[default]
    Rfc1808,
    /// RFC 3986 §5.2 strict resolution and §5.3 recomposition.
    Rfc3986,
}

/// A `--rfc` value that is neither `1808` nor `3986`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown RFC {0:?}: expected 1808 or 3986")]
pub struct UnknownStandard(pub String);

impl FromStr for Standard {
    type Err = UnknownStandard;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "1808" => Ok(Standard::Rfc1808),
            "3986" => Ok(Standard::Rfc3986),
            other => Err(UnknownStandard(other.to_owned())),
        }
    }
}

impl fmt::Display for Standard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Standard::Rfc1808 => "1808",
            Standard::Rfc3986 => "3986",
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
/// ```
pub fn resolve_with(standard: Standard, base: &str, reference: &str) -> String {
    let mut out = String::with_capacity(base.len() + reference.len() + 1);
    resolve_into(standard, base, reference, &mut out);
    out
}

/// Resolves `reference` against `base` and appends the result to `out`: the form for a
/// caller that reuses one buffer for many references (nothing else is allocated).
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
