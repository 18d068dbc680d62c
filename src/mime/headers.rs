//! The headers that carry a base, innermost first within one heading: RFC 1808 §3.1
//! `Base: <URL:...>`, RFC 2110 `Content-Base`, RFC 2557 `Content-Location`.

use crate::base::{Base, BaseError, BaseSource};
use crate::url::Standard;
use mailparse::{MailHeader, MailHeaderMap};

/// The headers of one heading that give a base, in precedence order.
const BASE_HEADERS: [(&str, BaseSource); 3] = [
    ("Base", BaseSource::BaseHeader),
    ("Content-Base", BaseSource::ContentBase),
    ("Content-Location", BaseSource::ContentLocation),
];

/// The base of an entity whose heading is `headers`, inside an entity whose base is
/// `outer`: its own first header that gives an absolute URL (a relative value resolved
/// against `outer`), else `outer` seen from inside (RFC 1808 §3.2).
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::mime::headers::entity_base;
///
/// let (headers, _) = mailparse::parse_headers(
///     b"Content-Location: page.html\r\nBase: <URL:http://h/\r\n a/b>\r\n\r\n",
/// ).unwrap();
/// let base = entity_base(&headers, &Base::none());
/// assert_eq!((base.url(), base.source()), (Some("http://h/a/b"), BaseSource::BaseHeader));
/// ```
pub fn entity_base(headers: &[MailHeader<'_>], outer: &Base) -> Base {
    entity_base_with(Standard::Rfc1808, headers, outer)
}

/// [`entity_base`] with a relative header value resolved by `standard`.
///
/// ```
/// use absolve::base::Base;
/// use absolve::mime::headers::entity_base_with;
/// use absolve::Standard;
///
/// let (headers, _) = mailparse::parse_headers(b"Content-Location: ../../a\r\n\r\n").unwrap();
/// let outer = Base::retrieval_url("http://h/b/")?;
/// assert_eq!(entity_base_with(Standard::Rfc1808, &headers, &outer).url(), Some("http://h/../a"));
/// assert_eq!(entity_base_with(Standard::Whatwg, &headers, &outer).url(), Some("http://h/a"));
/// # Ok::<(), absolve::base::NotAbsolute>(())
/// ```
pub fn entity_base_with(standard: Standard, headers: &[MailHeader<'_>], outer: &Base) -> Base {
    entity_base_reporting(standard, headers, outer, &mut |_, _| {})
}

/// [`entity_base_with`], telling `rejected` of each header the URL Standard does not parse
/// (with [`Standard::Whatwg`]): it is passed over as a base, as a `<base href>` is, and
/// the caller warns. A value that is no base by its nature (`cid:`, `mid:`, ...; relative
/// with no outer base) is passed over without a word, by every standard.
///
/// ```
/// use absolve::base::{Base, BaseError};
/// use absolve::mime::headers::entity_base_reporting;
/// use absolve::Standard;
///
/// let (headers, _) = mailparse::parse_headers(
///     b"Content-Location: http://[::1/x\r\nContent-Base: cid:a@b\r\n\r\n",
/// ).unwrap();
/// let outer = Base::retrieval_url("http://h/")?;
/// let mut rejected = Vec::new();
/// let base = entity_base_reporting(Standard::Whatwg, &headers, &outer, &mut |name, error| {
///     rejected.push((name, error))
/// });
/// assert_eq!(base.url(), Some("http://h/"));
/// assert_eq!(rejected.len(), 1);
/// assert_eq!(rejected[0].0, "Content-Location");
/// assert!(matches!(rejected[0].1, BaseError::Unparsable { .. }));
/// # Ok::<(), absolve::base::NotAbsolute>(())
/// ```
pub fn entity_base_reporting(
    standard: Standard,
    headers: &[MailHeader<'_>],
    outer: &Base,
    rejected: &mut dyn FnMut(&'static str, BaseError),
) -> Base {
    for (name, source) in BASE_HEADERS {
        let Some(value) = headers.get_first_value(name) else {
            continue;
        };
        let value = clean(&value, source);
        if value.is_empty() {
            continue;
        }
        match outer.try_inner(standard, &value, source, None) {
            Ok(base) => return base,
            Err(error @ BaseError::Unparsable { .. }) => rejected(name, error),
            Err(BaseError::NotAbsolute(_)) => {}
        }
    }
    outer.encapsulated()
}

/// A header value as a URL: whitespace (folding included) removed, as RFC 1808 §3.1 says
/// for `Base:`, and Thunderbird and MHonArc do for the others; the `<URL:...>` wrapper and
/// quotes taken off.
fn clean(value: &str, source: BaseSource) -> String {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let unwrapped = match source {
        BaseSource::BaseHeader => {
            let inner = compact.trim_start_matches('<').trim_end_matches('>');
            match inner.get(..4) {
                Some(prefix) if prefix.eq_ignore_ascii_case("url:") => &inner[4..],
                _ => inner,
            }
        }
        _ => compact.trim_start_matches('<').trim_end_matches('>'),
    };
    unwrapped.trim_matches('"').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base_of(heading: &str, outer: &Base) -> Base {
        let (headers, _) = mailparse::parse_headers(heading.as_bytes()).unwrap();
        entity_base(&headers, outer)
    }

    #[test]
    fn base_header_forms() {
        let none = Base::none();
        assert_eq!(
            base_of("base: <URL: http://h/x >\n\n", &none).url(),
            Some("http://h/x")
        );
        assert_eq!(
            base_of("Base: <http://h/y>\n\n", &none).url(),
            Some("http://h/y")
        );
        assert_eq!(
            base_of("BASE: http://h/z\n\n", &none).url(),
            Some("http://h/z")
        );
    }

    #[test]
    fn precedence_within_a_heading() {
        let heading = "Content-Location: http://l/\nContent-Base: \"http://c/\"\n\n";
        let base = base_of(heading, &Base::none());
        assert_eq!(
            (base.url(), base.source()),
            (Some("http://c/"), BaseSource::ContentBase)
        );
    }

    #[test]
    fn a_relative_value_resolves_against_the_outer_base_or_is_skipped() {
        let outer = Base::retrieval_url("http://h/d/").unwrap();
        assert_eq!(
            base_of("Content-Location: p.html\n\n", &outer).url(),
            Some("http://h/d/p.html")
        );
        let none = base_of("Content-Location: p.html\n\n", &Base::none());
        assert_eq!(none.source(), BaseSource::None);
    }

    #[test]
    fn no_header_means_the_outer_base_seen_from_inside() {
        let outer = Base::absolute("http://h/", BaseSource::ContentBase).unwrap();
        assert_eq!(
            base_of("Subject: x\n\n", &outer).source(),
            BaseSource::Encapsulating
        );
    }
}
