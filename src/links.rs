//! The record a caller gets for each URL found: one type, [`Link`], whatever holds the
//! document (an HTML page, a MIME part, a WARC record), with its [`Location`].

use crate::base::BaseSource;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Where a link (or a [`Warning`](crate::Warning)) is beyond its byte offset: the input,
/// the message and MIME part of a message or an mbox, the record of a WARC file. `None`
/// where a key does not apply; every key is shared ([`Arc`]) by the links of one place.
///
/// It serializes as the first keys of an `absolve links` line, `file` left out when
/// `None`:
///
/// ```
/// use absolve::links::Location;
///
/// let place = Location { message: Some(2), part: Some("1.2".into()), ..Location::default() };
/// assert_eq!(
///     serde_json::to_string(&place)?,
///     r#"{"message":2,"part":"1.2","record":null,"target_uri":null}"#
/// );
/// assert_eq!(place.to_string(), "message 2 part 1.2");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// Inside an archive of files (a WACZ), the member's path (`archive/data.warc.gz`); in
    /// a Safari web archive, the resource's place in it
    /// ([`webarchive::resource_path`](crate::webarchive::resource_path):
    /// `WebSubresources/2`): a caller joins it to the archive's own name as Java's jar
    /// URLs do (`crawl.wacz!/archive/data.warc.gz`,
    /// [`wacz::member_label`](crate::wacz::member_label)), as `absolve links` prints it.
    /// `None` elsewhere: the input is the caller's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<Arc<str>>,
    /// The message number, from 1 (1 for a lone message).
    pub message: Option<usize>,
    /// The IMAP part number of the MIME part (`1`, `1.2`).
    pub part: Option<Arc<str>>,
    /// The `WARC-Record-ID` of the record.
    pub record: Option<Arc<str>>,
    /// The record's `WARC-Target-URI`, the page's URL (without wget's `<...>`); in a
    /// Safari web archive, the resource's `WebResourceURL`.
    pub target_uri: Option<Arc<str>>,
}

impl Location {
    /// Whether no key is set (a link of a bare HTML document or stylesheet).
    ///
    /// ```
    /// assert!(absolve::links::Location::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == Location::default()
    }
}

/// `message N part P`, `record ID`: the keys that are set, for messages (the file is
/// left out: a caller names it first).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = Vec::new();
        if let Some(message) = self.message {
            words.push(format!("message {message}"));
        }
        if let Some(part) = &self.part {
            words.push(format!("part {part}"));
        }
        if let Some(record) = &self.record {
            words.push(format!("record {record}"));
        }
        f.write_str(&words.join(" "))
    }
}

/// One URL in a document: where it is, what it said, and what it resolves to.
///
/// ```
/// use absolve::{document, Options};
///
/// let options = Options::new().with_url("http://h/a/")?;
/// let found = document::links(br#"<a href="b/c">x</a>"#, &options)?;
/// let link = &found.links[0];
/// assert_eq!(link.element, "a");
/// assert_eq!(link.attribute.as_deref(), Some("href"));
/// assert_eq!(link.original, "b/c");
/// assert_eq!(link.resolved, "http://h/a/b/c");
/// assert_eq!(link.base.as_deref(), Some("http://h/a/"));
/// assert_eq!((link.srcdoc, link.kept), (0, None));
/// assert!(link.location.is_empty());
/// // A line of `absolve links` reads back as the same link (Python's pickle does so).
/// let line = serde_json::to_string(link)?;
/// assert_eq!(&serde_json::from_str::<absolve::Link>(&line)?, link);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Where the document holding it is: message and part, record (empty for a bare
    /// document). Serialized first, its keys flattened into the link's.
    #[serde(flatten)]
    pub location: Location,
    /// The element the URL belongs to (`style` for CSS inside a `<style>` element).
    pub element: String,
    /// The attribute that holds it; `None` for CSS in a `<style>` element.
    pub attribute: Option<String>,
    /// The URL as the document gives it, character references and CSS escapes decoded.
    pub original: String,
    /// The URL resolved against its base: what `rewrite` writes (the original where a
    /// reference is left alone: a scheme, a kept fragment, no base). In a MIME part that
    /// must stay whole (a signed one), it is listed all the same but not written.
    pub resolved: String,
    /// The effective base it was resolved against (`None` for §3.4).
    pub base: Option<Arc<str>>,
    /// Where that base came from.
    pub base_from: BaseSource,
    /// The byte offset of the attribute value or CSS token in the document (in a srcdoc
    /// document, the offset of its `srcdoc` attribute value in the outermost document).
    pub offset: u64,
    /// How deep in `<iframe srcdoc>` documents the URL is: 0 in the document itself, 1 in
    /// a srcdoc document of the page, 2 in one nested in that, and so on.
    pub srcdoc: u32,
    /// Why the value was left exactly as written though it could resolve, if it was:
    /// `null` (`None`) for every resolved or naturally unchanged value.
    pub kept: Option<Kept>,
}

/// A [`Link`] borrowed from what holds it: the document's decoded value, the resolved
/// text, the record's [`Location`]. What a [`Sink`](crate::Sink) is given by
/// [`Sink::link_ref`](crate::Sink::link_ref) and a [`warc::Encode`](crate::warc::Encode)
/// by each record: a writer that turns each link into bytes (JSON, columns) as it is
/// found needs no owned copy of its strings. The same keys as [`Link`], serialized the
/// same way.
///
/// ```
/// use absolve::links::{Link, LinkRef};
/// use absolve::{document, Options};
///
/// let options = Options::new().with_url("http://h/a/")?;
/// let found = document::links(br#"<a href="b">x</a>"#, &options)?;
/// let borrowed: LinkRef<'_> = found.links[0].borrowed();
/// assert_eq!((borrowed.element, borrowed.resolved), ("a", "http://h/a/b"));
/// assert_eq!(borrowed.to_link(), found.links[0]);
/// assert_eq!(serde_json::to_string(&borrowed)?, serde_json::to_string(&found.links[0])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LinkRef<'a> {
    /// [`Link::location`].
    #[serde(flatten)]
    pub location: &'a Location,
    /// [`Link::element`].
    pub element: &'a str,
    /// [`Link::attribute`].
    pub attribute: Option<&'a str>,
    /// [`Link::original`].
    pub original: &'a str,
    /// [`Link::resolved`].
    pub resolved: &'a str,
    /// [`Link::base`], shared.
    pub base: Option<&'a Arc<str>>,
    /// [`Link::base_from`].
    pub base_from: BaseSource,
    /// [`Link::offset`].
    pub offset: u64,
    /// [`Link::srcdoc`].
    pub srcdoc: u32,
    /// [`Link::kept`].
    pub kept: Option<Kept>,
}

/// The location of a link in a bare document: no key set.
pub(crate) static NOWHERE: Location = Location {
    file: None,
    message: None,
    part: None,
    record: None,
    target_uri: None,
};

impl LinkRef<'_> {
    /// The owned [`Link`]: its strings copied (the location's and base's shared).
    pub fn to_link(&self) -> Link {
        Link {
            location: self.location.clone(),
            element: self.element.to_owned(),
            attribute: self.attribute.map(str::to_owned),
            original: self.original.to_owned(),
            resolved: self.resolved.to_owned(),
            base: self.base.cloned(),
            base_from: self.base_from,
            offset: self.offset,
            srcdoc: self.srcdoc,
            kept: self.kept,
        }
    }
}

impl Link {
    /// The link borrowed: see [`LinkRef`].
    ///
    /// ```
    /// let found = absolve::document::links(b"<img src=i.png>", &absolve::Options::new())?;
    /// assert_eq!(found.links[0].borrowed().original, "i.png");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn borrowed(&self) -> LinkRef<'_> {
        LinkRef {
            location: &self.location,
            element: &self.element,
            attribute: self.attribute.as_deref(),
            original: &self.original,
            resolved: &self.resolved,
            base: self.base.as_ref(),
            base_from: self.base_from,
            offset: self.offset,
            srcdoc: self.srcdoc,
            kept: self.kept,
        }
    }
}

/// Why a reference was kept as written.
///
/// ```
/// let json = serde_json::to_string(&absolve::links::Kept::Local).unwrap();
/// assert_eq!(json, "\"local\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kept {
    /// The reference names a file beside the document on disk and
    /// [`Options::with_keep_local`](crate::Options::with_keep_local) is set (the CLI's
    /// `--keep-local`), or a caller's
    /// [`html::Options::keep_reference`](crate::html::Options::keep_reference) said so.
    Local,
}
