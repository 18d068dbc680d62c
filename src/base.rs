//! RFC 1808 §3: the base URL of a document, as layers, innermost first.
//!
//! - §3.1 a base embedded in the content: HTML `<base href>`, or a message's `Base:`
//!   header (with RFC 2110 `Content-Base` and RFC 2557 `Content-Location` after it);
//! - §3.2 the base of the encapsulating entity (MIME `multipart/*`, `message/*`);
//! - §3.3 the URL the document was retrieved from;
//! - §3.4 none: every reference is left as it is.
//!
//! A [`Base`] is the base in force at one layer, with where it came from. An inner layer
//! is made with [`Base::inner`] (or [`Base::inner_with`] for another standard), which
//! resolves a relative value against the outer base.
//!
//! With [`Standard::Whatwg`] a base is a URL record of the URL Standard
//! (<https://url.spec.whatwg.org/#concept-url>): parsed once, when the base is made by
//! [`Base::absolute_with`], [`Base::retrieval_url_with`] or [`Base::inner_with`] (else at
//! its first WHATWG resolution), and used for every reference; its [`Base::url`] is then
//! the serialized URL.

use crate::url::whatwg::{self, WhatwgError};
use crate::url::{ParsedBase, Standard, has_scheme, has_scheme_by};
use encoding_rs::Encoding;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Where the effective base of a URL came from (the `base_from` of a link record; read
/// back from that name too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
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
    /// §3.3: the retrieval URL from an HTTrack mirror's `<!-- Mirrored from HOST/PATH by
    /// HTTrack Website Copier/3.x ... -->` comment.
    #[serde(rename = "httrack")]
    Httrack,
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
            BaseSource::Httrack => "httrack",
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

/// A URL that cannot serve as a base by the chosen standard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaseError {
    /// No scheme, or an opaque one ([`OPAQUE_SCHEMES`], or a URL Standard URL with an
    /// opaque path).
    #[error(transparent)]
    NotAbsolute(#[from] NotAbsolute),
    /// [`Standard::Whatwg`]: the URL Standard's parser returns failure for it.
    #[error("{url:?} cannot be a base URL: the URL Standard does not parse it ({reason})")]
    Unparsable {
        /// The URL as given.
        url: String,
        /// Why it does not parse.
        reason: WhatwgError,
    },
}

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
#[derive(Debug, Clone)]
pub struct Base {
    /// Shared: every link resolved against this base carries it ([`Base::shared_url`]).
    url: Arc<str>,
    source: BaseSource,
    /// The URL Standard's parse of `url` ([`Standard::Whatwg`]), `None` inside when it
    /// does not parse: made once, shared by the clones made after it.
    whatwg: OnceLock<Option<Arc<url::Url>>>,
    /// The RFCs' parses of `url`, made with it: read back for every reference.
    parsed: Arc<ParsedBase>,
}

/// §3.4: no base at all ([`Base::none`]).
impl Default for Base {
    fn default() -> Self {
        Base::none()
    }
}

/// Two bases are equal when their URLs and sources are: whether the URL was parsed yet
/// by the URL Standard is no difference.
impl PartialEq for Base {
    fn eq(&self, other: &Self) -> bool {
        self.url == other.url && self.source == other.source
    }
}

impl Eq for Base {}

impl Base {
    /// §3.4: no base at all.
    pub fn none() -> Self {
        Self::unparsed(Arc::from(""), BaseSource::None)
    }

    /// A base whose URL Standard parse is made when first needed.
    fn unparsed(url: Arc<str>, source: BaseSource) -> Self {
        Base {
            parsed: Arc::new(ParsedBase::of(&url)),
            url,
            source,
            whatwg: OnceLock::new(),
        }
    }

    /// A base from the URL Standard's URL record, its URL the serialized record.
    fn parsed(url: url::Url, source: BaseSource) -> Self {
        Base {
            url: Arc::from(url.as_str()),
            source,
            parsed: Arc::new(ParsedBase::of(url.as_str())),
            whatwg: OnceLock::from(Some(Arc::new(url))),
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
        Ok(Self::unparsed(Arc::from(url), source))
    }

    /// §3.3 by `standard`: [`Base::retrieval_url`], or with [`Standard::Whatwg`] the URL
    /// Standard's parse of `url`, which must succeed.
    ///
    /// ```
    /// use absolve::{Standard, base::Base};
    ///
    /// # fn main() -> Result<(), absolve::base::BaseError> {
    /// let base = Base::retrieval_url_with(Standard::Whatwg, "HTTP://Example.com:80")?;
    /// assert_eq!(base.url(), Some("http://example.com/"));
    /// assert!(Base::retrieval_url_with(Standard::Whatwg, "http://[::1/").is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn retrieval_url_with(standard: Standard, url: &str) -> Result<Self, BaseError> {
        Self::absolute_with(standard, url, BaseSource::RetrievalUrl)
    }

    /// An absolute URL as the base from `source`, by `standard`: [`Base::absolute`], or with
    /// [`Standard::Whatwg`] the URL Standard's parse of `url` (kept, and serialized as the
    /// base's URL), which must succeed and have neither an opaque scheme
    /// ([`OPAQUE_SCHEMES`]) nor an opaque path (`foo:bar`).
    ///
    /// ```
    /// use absolve::{Standard, base::{Base, BaseSource}};
    ///
    /// # fn main() -> Result<(), absolve::base::BaseError> {
    /// let base = Base::absolute_with(Standard::Whatwg, "http://h/a b", BaseSource::BaseHeader)?;
    /// assert_eq!(base.url(), Some("http://h/a%20b"));
    /// let rfc = Base::absolute_with(Standard::Rfc1808, "http://h/a b", BaseSource::BaseHeader)?;
    /// assert_eq!(rfc.url(), Some("http://h/a b"));
    /// assert!(Base::absolute_with(Standard::Whatwg, "data:,x", BaseSource::BaseHeader).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn absolute_with(
        standard: Standard,
        url: &str,
        source: BaseSource,
    ) -> Result<Self, BaseError> {
        if standard == Standard::Rfc3986 && !has_scheme_by(standard, url) {
            // RFC 3986 §5.1: the base is an absolute URI, whose scheme starts with a
            // letter (§3.1). A digit first (`3http://h/`), which RFC 1808 reads as a
            // scheme, would be a relative path here: each resolution against it relative
            // again, and a second rewrite resolving it once more.
            return Err(NotAbsolute(url.to_owned()).into());
        }
        if standard != Standard::Whatwg {
            return Ok(Self::absolute(url, source)?);
        }
        let parsed = whatwg::parse_base(url).map_err(|reason| BaseError::Unparsable {
            url: url.to_owned(),
            reason,
        })?;
        if !can_be_a_base(&parsed) {
            return Err(NotAbsolute(url.to_owned()).into());
        }
        Ok(Self::parsed(parsed, source))
    }

    /// The base of an inner layer whose value is `value` (absolute or relative to `self`),
    /// or `None` when the result cannot serve as a base: not absolute (a relative value
    /// with no outer base), or of a scheme whose URLs are opaque ([`OPAQUE_SCHEMES`]).
    pub fn inner(&self, value: &str, source: BaseSource) -> Option<Base> {
        self.inner_with(Standard::Rfc1808, value, source, None)
    }

    /// [`Base::inner`] by `standard`: `value` is resolved against `self` by that standard.
    ///
    /// With [`Standard::Whatwg`] the inner base is the URL Standard's parse of `value`
    /// against this base, with the query in `encoding` (the document's, for a `<base href>`:
    /// HTML's "set the frozen base URL" parses it "with *document*'s fallback base URL, and
    /// *document*'s character encoding"); `None` when it fails, as HTML passes such a
    /// `<base>` over, or when the result is opaque (an [`OPAQUE_SCHEMES`] scheme or an
    /// opaque path). Other standards ignore `encoding`.
    ///
    /// ```
    /// use absolve::{Standard, base::{Base, BaseSource}};
    ///
    /// # fn main() -> Result<(), absolve::base::BaseError> {
    /// let outer = Base::retrieval_url_with(Standard::Whatwg, "http://h/a/b")?;
    /// let inner = outer.inner_with(Standard::Whatwg, "../../c/", BaseSource::BaseElement, None);
    /// assert_eq!(inner.unwrap().url(), Some("http://h/c/"));
    /// assert_eq!(outer.inner_with(Standard::Whatwg, "http://[::1", BaseSource::BaseElement, None), None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn inner_with(
        &self,
        standard: Standard,
        value: &str,
        source: BaseSource,
        encoding: Option<&'static Encoding>,
    ) -> Option<Base> {
        self.try_inner(standard, value, source, encoding).ok()
    }

    /// [`Base::inner_with`], with why a value gives no base: for the warning that a
    /// `<base href>` is passed over.
    ///
    /// ```
    /// use absolve::{Standard, base::{Base, BaseError, BaseSource}};
    ///
    /// let outer = Base::retrieval_url("http://h/").unwrap();
    /// let error = outer
    ///     .try_inner(Standard::Whatwg, "http://a b/", BaseSource::BaseElement, None)
    ///     .unwrap_err();
    /// assert!(matches!(error, BaseError::Unparsable { .. }));
    /// assert_eq!(
    ///     error.to_string(),
    ///     "\"http://a b/\" cannot be a base URL: the URL Standard does not parse it (invalid international domain name)"
    /// );
    /// ```
    pub fn try_inner(
        &self,
        standard: Standard,
        value: &str,
        source: BaseSource,
        encoding: Option<&'static Encoding>,
    ) -> Result<Base, BaseError> {
        if standard == Standard::Whatwg {
            let parsed = whatwg::parse(self.whatwg_url(), value, encoding).map_err(|reason| {
                BaseError::Unparsable {
                    url: value.to_owned(),
                    reason,
                }
            })?;
            if !can_be_a_base(&parsed) {
                return Err(NotAbsolute(parsed.into()).into());
            }
            return Ok(Self::parsed(parsed, source));
        }
        let mut url = String::with_capacity(self.url.len() + value.len());
        self.parsed
            .resolve_into(standard, &self.url, value, &mut url);
        if !has_scheme_by(standard, &url) || is_opaque(&url) {
            return Err(NotAbsolute(url).into());
        }
        Ok(Self::unparsed(url.into(), source))
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
            whatwg: self.whatwg.clone(),
            parsed: Arc::clone(&self.parsed),
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

    /// [`shared_url`](Self::shared_url) borrowed: what a [`LinkRef`](crate::links::LinkRef)
    /// holds.
    pub(crate) fn shared_url_ref(&self) -> Option<&Arc<str>> {
        (!self.url.is_empty()).then_some(&self.url)
    }

    /// Where this base came from.
    pub fn source(&self) -> BaseSource {
        self.source
    }

    /// Resolves `reference` against this base (unchanged for §3.4) into `out`.
    ///
    /// With [`Standard::Whatwg`]: the URL Standard's parse against the base's URL record
    /// (parsed once), serialized, the query in UTF-8; a reference the Standard rejects is
    /// appended unchanged ([`Base::try_resolve_into`] tells why).
    ///
    /// ```
    /// use absolve::{Standard, base::Base};
    ///
    /// let base = Base::retrieval_url("http://h/a/").unwrap();
    /// let mut out = String::new();
    /// base.resolve_into(Standard::Whatwg, "../../b c", &mut out);
    /// assert_eq!(out, "http://h/b%20c");
    /// ```
    pub fn resolve_into(&self, standard: Standard, reference: &str, out: &mut String) {
        let _ = self.try_resolve_into(standard, reference, None, out);
    }

    /// [`Base::resolve_into`] with the document's character `encoding` (the URL Standard's
    /// encoding override, for the query of a special URL; ignored by the RFCs) and the
    /// reason a reference is left as it is.
    ///
    /// The RFC resolvers never fail. With [`Standard::Whatwg`] a reference the URL Standard
    /// rejects is appended unchanged and its [`WhatwgError`] returned; so is a relative
    /// reference when there is no base (§3.4, [`WhatwgError::is_relative_without_base`]).
    ///
    /// ```
    /// use absolve::{Standard, base::Base};
    ///
    /// let base = Base::retrieval_url_with(Standard::Whatwg, "http://h/").unwrap();
    /// let mut out = String::new();
    /// let koi8 = Some(encoding_rs::KOI8_R);
    /// base.try_resolve_into(Standard::Whatwg, "?q=д", koi8, &mut out).unwrap();
    /// assert_eq!(out, "http://h/?q=%C4");
    /// out.clear();
    /// let error = base.try_resolve_into(Standard::Whatwg, "https://exa%mple/", None, &mut out);
    /// assert_eq!(error.unwrap_err().to_string(), "invalid international domain name");
    /// assert_eq!(out, "https://exa%mple/");
    /// ```
    pub fn try_resolve_into(
        &self,
        standard: Standard,
        reference: &str,
        encoding: Option<&'static Encoding>,
        out: &mut String,
    ) -> Result<(), WhatwgError> {
        if standard == Standard::Whatwg {
            return whatwg::resolve_whatwg(self.whatwg_url(), reference, encoding, out);
        }
        self.parsed
            .resolve_into(standard, &self.url, reference, out);
        Ok(())
    }

    /// The URL Standard's URL record of this base, parsed at the first call; `None` for
    /// §3.4 or a URL the Standard does not parse.
    ///
    /// ```
    /// let base = absolve::base::Base::retrieval_url("http://H/a").unwrap();
    /// assert_eq!(base.whatwg_url().map(|url| url.host_str()), Some(Some("h")));
    /// ```
    pub fn whatwg_url(&self) -> Option<&url::Url> {
        self.whatwg
            .get_or_init(|| {
                let url = (!self.url.is_empty()).then_some(&*self.url)?;
                whatwg::parse_base(url).ok().map(Arc::new)
            })
            .as_deref()
    }
}

/// Whether a URL Standard URL record can be a base: not of an [`OPAQUE_SCHEMES`] scheme
/// and without an opaque path (against which only a fragment resolves).
fn can_be_a_base(url: &url::Url) -> bool {
    !url.cannot_be_a_base() && !is_opaque(url.scheme())
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

#[cfg(test)]
mod whatwg_tests {
    use super::*;

    #[test]
    fn a_whatwg_base_is_parsed_once_and_serialized() {
        let base = Base::retrieval_url_with(Standard::Whatwg, "HTTP://H:80/a/./b").unwrap();
        assert_eq!(base.url(), Some("http://h/a/b"));
        let mut out = String::new();
        base.resolve_into(Standard::Whatwg, "../../../c", &mut out);
        assert_eq!(out, "http://h/c");
        // The RFC modes still resolve against the (serialized) URL.
        out.clear();
        base.resolve_into(Standard::Rfc1808, "../../../c", &mut out);
        assert_eq!(out, "http://h/../../c");
    }

    #[test]
    fn an_inner_whatwg_base_that_does_not_parse_is_passed_over() {
        let outer = Base::retrieval_url("http://h/a/").unwrap();
        for value in [
            "http://[::1",
            "https://exa%mple/",
            "data:,x",
            "javascript:x",
            "foo:bar",
        ] {
            assert_eq!(
                outer.inner_with(Standard::Whatwg, value, BaseSource::BaseElement, None),
                None,
                "{value}"
            );
        }
        let inner = outer
            .inner_with(Standard::Whatwg, "b c/", BaseSource::BaseElement, None)
            .unwrap();
        assert_eq!(inner.url(), Some("http://h/a/b%20c/"));
        assert_eq!(inner.source(), BaseSource::BaseElement);
    }

    #[test]
    fn inner_keeps_rfc1808_and_inner_with_follows_the_standard() {
        let outer = Base::retrieval_url("http://h/a/b").unwrap();
        let rfc1808 = outer.inner("../../c/", BaseSource::BaseElement).unwrap();
        assert_eq!(rfc1808.url(), Some("http://h/../c/"));
        let rfc3986 = outer
            .inner_with(Standard::Rfc3986, "../../c/", BaseSource::BaseElement, None)
            .unwrap();
        assert_eq!(rfc3986.url(), Some("http://h/c/"));
    }

    #[test]
    fn the_base_element_s_query_is_in_the_document_encoding() {
        let outer = Base::retrieval_url("http://h/").unwrap();
        let inner = outer
            .inner_with(
                Standard::Whatwg,
                "d/?q=д",
                BaseSource::BaseElement,
                Some(encoding_rs::WINDOWS_1251),
            )
            .unwrap();
        assert_eq!(inner.url(), Some("http://h/d/?q=%E4"));
    }

    #[test]
    fn a_clone_shares_the_parse_and_equality_ignores_it() {
        let parsed = Base::retrieval_url("http://h/").unwrap();
        let unparsed = parsed.clone();
        assert!(parsed.whatwg_url().is_some());
        assert_eq!(parsed, unparsed);
        assert!(parsed.encapsulated().whatwg.get().is_some());
    }

    #[test]
    fn whatwg_failures_reach_the_caller() {
        let base = Base::retrieval_url("http://h/").unwrap();
        let mut out = String::new();
        let error = base
            .try_resolve_into(Standard::Whatwg, "http://[::1", None, &mut out)
            .unwrap_err();
        assert_eq!(error.to_string(), "invalid IPv6 address");
        assert_eq!(out, "http://[::1");
        out.clear();
        assert_eq!(
            base.try_resolve_into(Standard::Rfc1808, "http://[::1", None, &mut out),
            Ok(())
        );
    }
}
