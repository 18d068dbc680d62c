//! RFC 1808 §3.3: the URL a saved file was retrieved from, as the saving tool left it.
//!
//! A page saved by a browser no longer knows its URL, unless the tool wrote it down:
//! - [`BaseSource::SavedFrom`]: the "Mark of the Web" comment that Chrome and Internet
//!   Explorer write before `<html>`: `<!-- saved from url=(0028)https://example.com/a/b.html -->`;
//! - [`BaseSource::SingleFile`]: the comment SingleFile writes at the start of `<html>`:
//!   `<!--\n Page saved with SingleFile \n url: URL \n saved date: ...\n-->`;
//! - [`BaseSource::Httrack`]: the comment HTTrack writes after `<html>` in every page of a
//!   mirror: `<!-- Mirrored from www.example.com/a/b.html by HTTrack Website Copier/3.x
//!   [XR&CO'2014], Mon, 01 Jan 2024 00:00:00 GMT -->`, the URL without its `http://`;
//! - [`BaseSource::OriginXattr`]: the `user.xdg.origin.url` extended attribute that
//!   Chromium, Firefox, `curl --xattr` and `wget --xattr` set on downloads.
//!
//! The comments stand in the document's prolog (after an XML declaration and a doctype,
//! if any): before its first element, or right after the `<html>` start tag. Only the first [`HEAD_LIMIT`] bytes are looked at.
//!
//! ```
//! use absolve::base::BaseSource;
//! use absolve::retrieval::{from_comments, Found};
//!
//! let page = b"<!DOCTYPE html>\n<!-- saved from url=(0028)https://example.com/a/b.html -->\n<html>";
//! let found = from_comments(page).unwrap();
//! assert_eq!(found, Found { url: "https://example.com/a/b.html".into(), source: BaseSource::SavedFrom });
//! assert_eq!(found.base().unwrap().url(), Some("https://example.com/a/b.html"));
//! ```

use crate::base::{Base, BaseSource, NotAbsolute};
use crate::url::whatwg::{self, WhatwgError};
use crate::url::{Standard, has_scheme};
use std::io;
use std::path::Path;

/// How many bytes of a document [`from_comments`] looks at: 4 KiB. Both comments come
/// before any content (a doctype, perhaps an `<html>` start tag, then the comment), and
/// the URL in them is at most a few kilobytes (Internet Explorer's limit is 2,083
/// characters; the Mark of the Web gives the length in four digits). Reading no more keeps
/// the search cheap over a whole folder and unable to pick up a comment in the page's text.
pub const HEAD_LIMIT: usize = 4096;

/// The extended attribute the freedesktop.org convention names for a download's URL.
pub const ORIGIN_XATTR: &str = "user.xdg.origin.url";

/// A retrieval URL found in a file, and which marker gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The URL as the marker gives it (a Mark of the Web's `-%2D` restored to `--`).
    pub url: String,
    /// The marker: [`BaseSource::SavedFrom`], [`BaseSource::SingleFile`],
    /// [`BaseSource::Httrack`] or [`BaseSource::OriginXattr`].
    pub source: BaseSource,
}

impl Found {
    /// The URL as a base, checked like any retrieval URL ([`check_base_url`]).
    ///
    /// ```
    /// use absolve::base::BaseSource;
    /// use absolve::retrieval::Found;
    ///
    /// let found = Found { url: "http://h/p".into(), source: BaseSource::OriginXattr };
    /// assert_eq!(found.base().unwrap().source(), BaseSource::OriginXattr);
    /// ```
    pub fn base(&self) -> Result<Base, BadBaseUrl> {
        check_base_url(&self.url, self.source)
    }
}

/// Why a URL cannot be a document's base.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadBaseUrl {
    /// No scheme, or an opaque one.
    #[error(transparent)]
    NotAbsolute(#[from] NotAbsolute),
    /// ASCII whitespace inside: a URL pasted with a space or a line break.
    #[error("{0:?} contains whitespace: a URL cannot")]
    Whitespace(String),
    /// A scheme that names a host, with none given (`http://`, `https:///x`).
    #[error("{0:?} has no host: {1} URLs need one")]
    NoHost(String, String),
    /// With [`Standard::Whatwg`]: the URL Standard's parser returns failure for it
    /// (`http://a:99999/`), so no reference could be resolved against it.
    #[error(
        "{0:?} does not parse by the URL Standard ({1}): give a URL a browser accepts, or resolve by an RFC"
    )]
    NotByTheStandard(String, WhatwgError),
}

/// Schemes whose URLs name a host (RFC 1738 §3.1 `//host`): http, https, ftp, ws, wss.
const HOST_SCHEMES: [&str; 5] = ["http", "https", "ftp", "ws", "wss"];

/// A base URL from `source`, checked: it has a scheme (not an opaque one, see
/// [`Base::absolute`]), no ASCII whitespace, and a host where its scheme needs one.
///
/// ```
/// use absolve::base::BaseSource;
/// use absolve::retrieval::check_base_url;
///
/// assert!(check_base_url("https://example.com/a/", BaseSource::RetrievalUrl).is_ok());
/// assert!(check_base_url("http://", BaseSource::RetrievalUrl).is_err());
/// assert!(check_base_url("http://h/a b", BaseSource::RetrievalUrl).is_err());
/// assert!(check_base_url("file:///tmp/", BaseSource::RetrievalUrl).is_ok());
/// ```
pub fn check_base_url(url: &str, source: BaseSource) -> Result<Base, BadBaseUrl> {
    if url.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(BadBaseUrl::Whitespace(url.to_owned()));
    }
    let base = Base::absolute(url, source)?;
    let (scheme, rest) = url.split_once(':').unwrap_or_default();
    if let Some(needs_host) = HOST_SCHEMES.iter().find(|s| s.eq_ignore_ascii_case(scheme)) {
        let host = rest
            .strip_prefix("//")
            .map(|authority| authority.split(['/', '?', '#']).next().unwrap_or_default())
            .map(|authority| authority.rsplit('@').next().unwrap_or_default())
            .map(|host_port| host_port.split(':').next().unwrap_or_default())
            .unwrap_or_default();
        if host.is_empty() && !rest.starts_with("//[") {
            return Err(BadBaseUrl::NoHost(url.to_owned(), (*needs_host).to_owned()));
        }
    }
    Ok(base)
}

/// [`check_base_url`], and with [`Standard::Whatwg`] the URL Standard's parse of `url`,
/// which must succeed: a base it rejects would resolve nothing.
///
/// ```
/// use absolve::base::BaseSource;
/// use absolve::retrieval::check_base_url_by;
/// use absolve::Standard;
///
/// let url = "http://a:99999/";
/// assert!(check_base_url_by(Standard::Rfc1808, url, BaseSource::RetrievalUrl).is_ok());
/// assert!(check_base_url_by(Standard::Whatwg, url, BaseSource::RetrievalUrl).is_err());
/// ```
pub fn check_base_url_by(
    standard: Standard,
    url: &str,
    source: BaseSource,
) -> Result<Base, BadBaseUrl> {
    let base = check_base_url(url, source)?;
    if standard == Standard::Whatwg {
        whatwg::parse_base(url)
            .map_err(|reason| BadBaseUrl::NotByTheStandard(url.to_owned(), reason))?;
    }
    Ok(base)
}

/// The retrieval URL of a file: its comments first ([`from_comments`], given its first
/// bytes `head`), then its [`ORIGIN_XATTR`] ([`from_xattr`]). Only markers that give a
/// usable base URL count; an unusable one is passed over for the next.
///
/// ```
/// let head = b"<html><!--\n Page saved with SingleFile \n url: https://e.org/p \n saved date: x\n-->";
/// let found = absolve::retrieval::find(std::path::Path::new("/nonexistent"), head, true).unwrap();
/// assert_eq!(found.unwrap().url, "https://e.org/p");
/// ```
pub fn find(path: &Path, head: &[u8], html: bool) -> io::Result<Option<Found>> {
    if html && let Some(found) = from_comments(head).filter(|f| f.base().is_ok()) {
        return Ok(Some(found));
    }
    Ok(from_xattr(path)?.filter(|f| f.base().is_ok()))
}

/// The URL in a Mark of the Web, a SingleFile or an HTTrack comment in the prolog of `head` (its
/// first [`HEAD_LIMIT`] bytes). `about:internet` (what Internet Explorer writes for pages
/// of no particular site) and URLs without a scheme are not retrieval URLs.
///
/// ```
/// use absolve::base::BaseSource;
/// use absolve::retrieval::from_comments;
///
/// let ie = b"<!-- saved from url=(0014)about:internet -->\r\n<html>";
/// assert_eq!(from_comments(ie), None);
/// let dashes = b"<!-- saved from url=(0021)http://h/a-%2Db.html -->";
/// assert_eq!(from_comments(dashes).unwrap().url, "http://h/a--b.html");
/// let in_text = b"<p>How IE marks pages: <!-- saved from url=(0010)http://h/ -->";
/// assert_eq!(from_comments(in_text), None);
/// let httrack = b"<html>\n<!-- Mirrored from www.example.com/a/b.html by HTTrack Website Copier/3.x [XR&CO'2014], Mon, 01 Jan 2024 00:00:00 GMT -->";
/// assert_eq!(from_comments(httrack).unwrap().url, "http://www.example.com/a/b.html");
/// ```
pub fn from_comments(head: &[u8]) -> Option<Found> {
    let head = &head[..head.len().min(HEAD_LIMIT)];
    let mut rest = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut html_tags = 0;
    loop {
        rest = rest.trim_ascii_start();
        if let Some(after) = rest.strip_prefix(b"<!--") {
            let end = find_bytes(after, b"-->")?;
            if let Some(found) = marker(&after[..end]) {
                return usable(found);
            }
            rest = &after[end + 3..];
        } else if starts_with_ignore_case(rest, b"<!doctype")
            || rest.starts_with(b"<?")
            || (html_tags == 0 && starts_with_ignore_case(rest, b"<html"))
        {
            // A doctype, an XML declaration (a saved XHTML page starts with one), or the
            // `<html>` start tag SingleFile writes its comment after.
            html_tags += usize::from(starts_with_ignore_case(rest, b"<html"));
            let end = memchr::memchr(b'>', rest)?;
            rest = &rest[end + 1..];
        } else {
            return None;
        }
    }
}

/// The marker a comment's text (between `<!--` and `-->`) is, if any.
fn marker(text: &[u8]) -> Option<Found> {
    if let Some(rest) = text.trim_ascii_start().strip_prefix(b"saved from url=(") {
        // Four digits give the length, but the URL is taken up to the end of the comment.
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let url = rest[digits..].strip_prefix(b")")?.trim_ascii();
        let url = std::str::from_utf8(url).ok()?.replace("-%2D", "--");
        return Some(Found {
            url,
            source: BaseSource::SavedFrom,
        });
    }
    if let Some(found) = httrack(text) {
        return Some(found);
    }
    let text = std::str::from_utf8(text).ok()?;
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    if lines.next()? != "Page saved with SingleFile" {
        return None;
    }
    let url = lines.find_map(|line| line.strip_prefix("url:"))?.trim();
    Some(Found {
        url: url.to_owned(),
        source: BaseSource::SingleFile,
    })
}

/// HTTrack's comment (`htsparse.c`): `Mirrored from ADDRESS by HTTrack Website Copier/VERSION
/// [XR&CO'YEAR], DATE`, where ADDRESS is the URL without `http://` (HTTrack drops the
/// default scheme) and with its scheme otherwise (`https://...`, `ftp://...`).
fn httrack(text: &[u8]) -> Option<Found> {
    let rest = text.trim_ascii_start().strip_prefix(b"Mirrored from ")?;
    let end = memchr::memmem::find(rest, b" by HTTrack Website Copier")?;
    let address = std::str::from_utf8(&rest[..end]).ok()?.trim();
    if address.is_empty() {
        return None;
    }
    let url = if has_scheme(address) {
        address.to_owned()
    } else {
        format!("http://{address}")
    };
    Some(Found {
        url,
        source: BaseSource::Httrack,
    })
}

/// A marker whose URL can serve as a base; `about:internet` and the like cannot.
fn usable(found: Found) -> Option<Found> {
    (has_scheme(&found.url) && found.base().is_ok()).then_some(found)
}

/// The file's [`ORIGIN_XATTR`] (a symbolic link's target's), if it has one that is UTF-8.
/// A file system without user extended attributes (or a platform without them) has none:
/// `Ok(None)`.
///
/// ```
/// let none = absolve::retrieval::from_xattr(std::path::Path::new("Cargo.toml")).unwrap();
/// assert!(none.is_none() || none.unwrap().url.contains(':'));
/// ```
pub fn from_xattr(path: &Path) -> io::Result<Option<Found>> {
    if !xattr::SUPPORTED_PLATFORM {
        return Ok(None);
    }
    let value = match xattr::get_deref(path, ORIGIN_XATTR) {
        Ok(value) => value,
        Err(e) if is_unsupported(&e) => None,
        Err(e) => return Err(e),
    };
    Ok(value.and_then(|bytes| {
        let url = std::str::from_utf8(&bytes)
            .ok()?
            .trim_matches(['\0', ' ', '\n']);
        Some(Found {
            url: url.to_owned(),
            source: BaseSource::OriginXattr,
        })
    }))
}

/// Errors that mean "no attribute here" rather than a failure: no support on this file
/// system or platform.
fn is_unsupported(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::Unsupported || error.raw_os_error() == Some(95) // EOPNOTSUPP
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes
        .get(..prefix.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(prefix))
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrome_writes_it_after_the_doctype() {
        let page = b"<!DOCTYPE html>\n<!-- saved from url=(0033)https://example.com/a/page.html -->\n<html><head>";
        assert_eq!(
            from_comments(page).unwrap().url,
            "https://example.com/a/page.html"
        );
    }

    #[test]
    fn the_count_is_not_trusted() {
        let page = b"<!-- saved from url=(0003)http://h/long/path -->";
        assert_eq!(from_comments(page).unwrap().url, "http://h/long/path");
    }

    #[test]
    fn singlefile_comment_inside_html() {
        let page = b"<!DOCTYPE html> <html lang=\"en\"><!--\n Page saved with SingleFile \n url: https://e.org/a/b?c=1 \n saved date: Mon Jan 01 2024\n--><head>";
        let found = from_comments(page).unwrap();
        assert_eq!(found.url, "https://e.org/a/b?c=1");
        assert_eq!(found.source, BaseSource::SingleFile);
    }

    #[test]
    fn beyond_the_head_limit_nothing_is_found() {
        let mut page = vec![b' '; HEAD_LIMIT];
        page.extend_from_slice(b"<!-- saved from url=(0010)http://h/ -->");
        assert_eq!(from_comments(&page), None);
    }

    #[test]
    fn an_xml_declaration_comes_first_in_a_saved_xhtml_page() {
        let page = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x\">\n<!-- saved from url=(0019)https://example.com/ -->\n<html xmlns=\"http://www.w3.org/1999/xhtml\">";
        assert_eq!(from_comments(page).unwrap().url, "https://example.com/");
    }

    #[test]
    fn other_comments_before_are_passed_over() {
        let page = b"<!-- a comment --><!-- saved from url=(0010)http://h/ -->";
        assert_eq!(from_comments(page).unwrap().url, "http://h/");
    }

    const HTTRACK: &str = "<!-- Mirrored from www.example.com/a/b.html by HTTrack Website Copier/3.x [XR&CO'2014], Mon, 01 Jan 2024 00:00:00 GMT -->";

    #[test]
    fn httrack_writes_it_after_the_html_start_tag() {
        let page = format!("<!DOCTYPE html>\n<html lang=\"en\">\n{HTTRACK}\n<head>");
        let found = from_comments(page.as_bytes()).unwrap();
        assert_eq!(found.url, "http://www.example.com/a/b.html");
        assert_eq!(found.source, BaseSource::Httrack);
        assert_eq!(found.base().unwrap().source().as_str(), "httrack");
    }

    #[test]
    fn httrack_keeps_a_scheme_it_names() {
        let page = b"<html><!-- Mirrored from https://example.org/x/?q=1 by HTTrack Website Copier/3.x [XR&CO'2014], Tue, 02 Jan 2024 -->";
        assert_eq!(
            from_comments(page).unwrap().url,
            "https://example.org/x/?q=1"
        );
    }

    #[test]
    fn httrack_comment_in_the_text_or_without_an_address_is_not_a_marker() {
        let in_text = format!("<html><body><p>{HTTRACK}");
        assert_eq!(from_comments(in_text.as_bytes()), None);
        let empty = b"<html><!-- Mirrored from  by HTTrack Website Copier/3.x -->";
        assert_eq!(from_comments(empty), None);
        let other = b"<html><!-- Mirrored from www.example.com by hand -->";
        assert_eq!(from_comments(other), None);
    }

    #[test]
    fn bad_base_urls() {
        for bad in [
            "http://",
            "https:///x",
            "HTTP://:80/",
            "ftp://user@/",
            "http://h/a b",
            "http://h/\t",
        ] {
            assert!(
                check_base_url(bad, BaseSource::RetrievalUrl).is_err(),
                "{bad}"
            );
        }
        for good in ["http://[::1]/", "http://u@h:1/", "file:///x", "urn:x:y"] {
            assert!(
                check_base_url(good, BaseSource::RetrievalUrl).is_ok(),
                "{good}"
            );
        }
    }
}
