//! The record a caller gets for each URL found, shared by the HTML and MIME paths.

use crate::base::BaseSource;
use serde::Serialize;

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
    pub base: Option<String>,
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
