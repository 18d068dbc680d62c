//! RFC 1808 §3: the base URL of a document, as layers, innermost first.
//!
//! - §3.1 a base embedded in the content: HTML `<base href>`, or a message's `Base:`
//!   header (with RFC 2110 `Content-Base` and RFC 2557 `Content-Location` after it);
//! - §3.2 the base of the encapsulating entity (MIME `multipart/*`, `message/*`);
//! - §3.3 the URL the document was retrieved from;
//! - §3.4 none: every reference is left as it is.
//!
//! A [`Base`] is the base in force at one layer, with where it came from. An inner layer
//! is made with [`Base::inner`], which resolves a relative value against the outer base.

use crate::url::{Standard, has_scheme, resolve_into};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// Where the effective base of a URL came from (the `base_from` of a link record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BaseSource {
    /// §3.1: the document's own `<base href>`.
    BaseElement,
    /// §3.1: the part's own `Base: <URL:...>` header.
    BaseHeader,
    /// RFC 2110: the part's own `Content-Base` header.
    ContentBase,
    /// RFC 2557: the part's own `Content-Location` header.
    ContentLocation,
    /// §3.2: a header of an enclosing `multipart/*` or `message/*` entity.
    Encapsulating,
    /// §3.1 in XML: an `xml:base` attribute of the element or an ancestor (W3C XML Base),
    /// resolved against the base outside it.
    XmlBase,
    /// §3.3: the URL the document was retrieved from (`--url`).
    RetrievalUrl,
    /// §3.3: the retrieval URL from a saved page's "Mark of the Web" comment
    /// (`<!-- saved from url=(NNNN)URL -->`), see [`crate::retrieval`].
    SavedFrom,
    /// §3.3: the retrieval URL from a SingleFile page's `url:` comment.
    #[serde(rename = "singlefile")]
    SingleFile,
    /// §3.3: the retrieval URL from the file's `user.xdg.origin.url` extended attribute.
    OriginXattr,
    /// §3.4: no base; references stay as they are.
    None,
}

impl BaseSource {
    /// The kebab-case name used in link records, e.g. `base-element`.
    pub fn as_str(self) -> &'static str {
        match self {
            BaseSource::BaseElement => "base-element",
            BaseSource::BaseHeader => "base-header",
            BaseSource::ContentBase => "content-base",
            BaseSource::ContentLocation => "content-location",
            BaseSource::Encapsulating => "encapsulating",
            BaseSource::XmlBase => "xml-base",
            BaseSource::RetrievalUrl => "retrieval-url",
            BaseSource::SavedFrom => "saved-from",
            BaseSource::SingleFile => "singlefile",
            BaseSource::OriginXattr => "origin-xattr",
            BaseSource::None => "none",
        }
    }
}

impl fmt::Display for BaseSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A URL that cannot serve as a base: it has no scheme, or an opaque one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} cannot be a base URL: it needs a scheme, and one with a path (not cid:, data:, mailto:, ...)"
)]
pub struct NotAbsolute(pub String);

/// Schemes whose URLs name a thing without a path to resolve against: as a base they would
/// turn `g` into `cid:g`. A `<base href>` or a header of one of these is passed over, as
/// browsers do for `data:` and `javascript:` (RFC 2392 makes `cid:` and `mid:` absolute).
pub const OPAQUE_SCHEMES: [&str; 6] = ["cid", "mid", "data", "javascript", "about", "mailto"];

/// Whether `url`'s scheme is one of [`OPAQUE_SCHEMES`].
fn is_opaque(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or_default();
    OPAQUE_SCHEMES
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
}

/// The base URL in force at one layer of §3, and where it came from.
///
/// ```
/// use absolve::base::{Base, BaseSource};
///
/// let retrieved = Base::retrieval_url("http://example.com/a/b.html").unwrap();
/// // A relative inner value is resolved against the next outer base.
/// let inner = retrieved.inner("../c/", BaseSource::ContentLocation).unwrap();
/// assert_eq!(inner.url(), Some("http://example.com/c/"));
/// assert_eq!(inner.source(), BaseSource::ContentLocation);
/// assert!(Base::retrieval_url("example.com").is_err());
/// assert!(Base::retrieval_url("mailto:someone@example.com").is_err());
/// assert_eq!(Base::none().url(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// Shared: every link resolved against this base carries it ([`Base::shared_url`]).
    url: Arc<str>,
    source: BaseSource,
}

impl Base {
    /// §3.4: no base at all.
    pub fn none() -> Self {
        Base {
            url: Arc::from(""),
            source: BaseSource::None,
        }
    }

    /// §3.3: the URL the document was retrieved from; it must have a scheme.
    pub fn retrieval_url(url: &str) -> Result<Self, NotAbsolute> {
        Self::absolute(url, BaseSource::RetrievalUrl)
    }

    /// An absolute URL as the base from `source`; it must have a scheme, not an opaque one.
    pub fn absolute(url: &str, source: BaseSource) -> Result<Self, NotAbsolute> {
        if !has_scheme(url) || is_opaque(url) {
            return Err(NotAbsolute(url.to_owned()));
        }
        Ok(Base {
            url: Arc::from(url),
            source,
        })
    }

    /// The base of an inner layer whose value is `value` (absolute or relative to `self`),
    /// or `None` when the result cannot serve as a base: not absolute (a relative value
    /// with no outer base), or of a scheme whose URLs are opaque ([`OPAQUE_SCHEMES`]).
    pub fn inner(&self, value: &str, source: BaseSource) -> Option<Base> {
        let mut url = String::with_capacity(self.url.len() + value.len());
        resolve_into(Standard::Rfc1808, &self.url, value, &mut url);
        let scheme = url.split(':').next().unwrap_or_default();
        let opaque = OPAQUE_SCHEMES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(scheme));
        (has_scheme(&url) && !opaque).then(|| Base {
            url: url.into(),
            source,
        })
    }

    /// The same base seen from an enclosed entity (§3.2): its source becomes
    /// [`BaseSource::Encapsulating`] when it came from a header of the enclosing entity.
    pub fn encapsulated(&self) -> Base {
        let source = match self.source {
            BaseSource::BaseHeader | BaseSource::ContentBase | BaseSource::ContentLocation => {
                BaseSource::Encapsulating
            }
            other => other,
        };
        Base {
            url: self.url.clone(),
            source,
        }
    }

    /// The base URL, or `None` for §3.4.
    pub fn url(&self) -> Option<&str> {
        (!self.url.is_empty()).then_some(&*self.url)
    }

    /// The base URL as [`Link::base`](crate::links::Link::base) holds it: shared with
    /// the base, not copied for each link.
    ///
    /// ```
    /// let base = absolve::base::Base::retrieval_url("http://h/a/").unwrap();
    /// assert_eq!(base.shared_url().as_deref(), Some("http://h/a/"));
    /// assert_eq!(absolve::base::Base::none().shared_url(), None);
    /// ```
    pub fn shared_url(&self) -> Option<Arc<str>> {
        (!self.url.is_empty()).then(|| Arc::clone(&self.url))
    }

    /// Where this base came from.
    pub fn source(&self) -> BaseSource {
        self.source
    }

    /// Resolves `reference` against this base (unchanged for §3.4) into `out`.
    pub fn resolve_into(&self, standard: Standard, reference: &str, out: &mut String) {
        resolve_into(standard, &self.url, reference, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_base_leaves_references_alone() {
        let mut out = String::new();
        Base::none().resolve_into(Standard::Rfc1808, "../x", &mut out);
        assert_eq!(out, "../x");
    }

    #[test]
    fn a_relative_inner_value_without_outer_base_is_no_base() {
        assert_eq!(Base::none().inner("a/b", BaseSource::ContentLocation), None);
        let absolute = Base::none()
            .inner("http://h/", BaseSource::ContentBase)
            .unwrap();
        assert_eq!(absolute.url(), Some("http://h/"));
    }

    #[test]
    fn opaque_urls_are_no_base() {
        let outer = Base::retrieval_url("http://h/").unwrap();
        assert_eq!(
            outer.inner("cid:frame-1@mhtml.blink", BaseSource::ContentLocation),
            None
        );
        assert_eq!(outer.inner("DATA:,x", BaseSource::BaseElement), None);
        assert!(
            outer
                .inner("file:///C:/x/Test.htm", BaseSource::ContentLocation)
                .is_some()
        );
    }

    #[test]
    fn an_enclosing_header_base_becomes_encapsulating() {
        let base = Base::absolute("http://h/", BaseSource::BaseHeader).unwrap();
        assert_eq!(base.encapsulated().source(), BaseSource::Encapsulating);
        let retrieved = Base::retrieval_url("http://h/").unwrap();
        assert_eq!(retrieved.encapsulated().source(), BaseSource::RetrievalUrl);
    }
}
