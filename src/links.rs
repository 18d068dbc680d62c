//! The record a caller gets for each URL found, shared by the HTML and MIME paths.

use crate::base::BaseSource;
use serde::Serialize;
use std::sync::Arc;

/// One URL in a document: where it is, what it said, and what it resolves to.
///
/// ```
/// let html = br#"<a href="b/c">x</a>"#;
/// let base = absolve::base::Base::retrieval_url("http://h/a/").unwrap();
/// let links = absolve::html::links(html, &base, &absolve::html::Options::default());
/// assert_eq!(links[0].element, "a");
/// assert_eq!(links[0].attribute.as_deref(), Some("href"));
/// assert_eq!(links[0].original, "b/c");
/// assert_eq!(links[0].resolved, "http://h/a/b/c");
/// assert_eq!(links[0].base.as_deref(), Some("http://h/a/"));
/// assert_eq!((links[0].srcdoc, links[0].kept), (0, None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
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

/// Why a reference was kept as written.
///
/// ```
/// let json = serde_json::to_string(&absolve::links::Kept::Local).unwrap();
/// assert_eq!(json, "\"local\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kept {
    /// [`Options::keep_reference`](crate::html::Options::keep_reference) said so (the
    /// CLI's `--keep-local`).
    Local,
}

/// A [`Link`] with where it is, as `absolve links` prints it (one JSON object a line) and
/// the Python binding's `Link.dict()` gives it: every record has the same keys, `null`
/// where a key does not apply (`message` and `part` outside messages, `record` and
/// `target_uri` outside WARC files), then the link's own fields.
///
/// ```
/// use absolve::base::Base;
/// use absolve::links::Located;
///
/// let base = Base::retrieval_url("http://h/").unwrap();
/// let link = &absolve::html::links(b"<a href=x>", &base, &Default::default())[0];
/// let line = serde_json::to_string(&Located { file: Some("p.html"), link, ..Located::new(link) }).unwrap();
/// assert!(line.starts_with(r#"{"file":"p.html","message":null,"part":null,"record":null,"target_uri":null,"element":"a""#));
/// ```
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Located<'a> {
    /// The input's name (`-` for standard input); left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'a str>,
    /// The message number in an mbox (1 for a lone message).
    pub message: Option<usize>,
    /// The MIME part number (`1.2`).
    pub part: Option<&'a str>,
    /// The `WARC-Record-ID` of the record the link is in.
    pub record: Option<&'a str>,
    /// The record's `WARC-Target-URI`.
    pub target_uri: Option<&'a str>,
    /// The link.
    #[serde(flatten)]
    pub link: &'a Link,
}

impl<'a> Located<'a> {
    /// `link` with no location: every location key null.
    pub fn new(link: &'a Link) -> Self {
        Located {
            file: None,
            message: None,
            part: None,
            record: None,
            target_uri: None,
            link,
        }
    }
}
