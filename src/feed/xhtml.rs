//! Inline XHTML in a feed (Atom `type="xhtml"`, `xhtml:body`): each start tag's URL
//! attributes rewritten in place, by the HTML rewriter's rules, as XML attributes.

use crate::base::Base;
use crate::html::{self, Collected, Options, attributes};
use crate::links::Link;
use encoding_rs::Encoding;

/// One XHTML start tag: its bytes between `<` and `>` (or `/>`), and where they are.
pub(crate) struct Tag<'a> {
    /// The name and attributes, as quick-xml gives them.
    pub content: &'a [u8],
    /// The length of the qualified name at the start of `content`.
    pub qname_len: usize,
    /// The local name.
    pub local: &'a [u8],
    /// The offset of `content` in the feed.
    pub offset: u64,
}

/// The rewritten tag: new bytes for its attributes (what follows the name), if changed.
pub(crate) struct Done {
    pub attributes: Option<Vec<u8>>,
    pub links: Vec<Link>,
    pub warnings: Vec<html::Warning>,
}

/// Rewrites the URL attributes of `tag` against `base`.
///
/// The tag is handed to the HTML rewriter alone, as `<local attributes>`: HTML and XML
/// attribute values read alike for XML's five entities and character references, and
/// the rewriter changes only the values of URL attributes, byte for byte elsewhere.
pub(crate) fn rewrite(
    tag: &Tag,
    base: &Base,
    options: &Options,
    encoding: &'static Encoding,
    collected: Collected,
) -> Done {
    let attributes = &tag.content[tag.qname_len..];
    let mut synthetic = Vec::with_capacity(attributes.len() + tag.local.len() + 2);
    synthetic.push(b'<');
    synthetic.extend_from_slice(tag.local);
    let name_end = synthetic.len();
    synthetic.extend_from_slice(attributes);
    synthetic.push(b'>');
    let options = Options {
        charset: Some(encoding),
        ..options.clone()
    };
    let mut rewriter = html::Rewriter::with_document_base(base, base, &options, collected);
    // Writing to memory cannot fail.
    let _ = rewriter.write(&synthetic);
    let collected = rewriter.end().unwrap_or_default();
    let to_feed = |at: u64| tag.offset + tag.qname_len as u64 + at.saturating_sub(name_end as u64);
    let mut links = collected.links;
    for link in &mut links {
        link.offset = to_feed(link.offset);
    }
    let output = collected.output;
    let changed = !output.is_empty()
        && output != synthetic
        && output.starts_with(&synthetic[..name_end])
        && output.ends_with(b">");
    Done {
        attributes: changed.then(|| output[name_end..output.len() - 1].to_vec()),
        links,
        warnings: collected
            .warnings
            .into_iter()
            .filter_map(|w| match w.problem {
                crate::Problem::Html(warning) => Some(warning),
                _ => None,
            })
            .collect(),
    }
}

/// Whether an attribute named `key` (qualified, as written) may hold a URL on some
/// element: a cheap filter before the HTML rewriter is started for a tag.
pub(crate) fn may_hold_url(key: &[u8]) -> bool {
    let local = key.rsplit(|&b| b == b':').next().unwrap_or(key);
    let whole = if key.starts_with(b"xlink:") {
        key
    } else {
        local
    };
    std::str::from_utf8(whole)
        .is_ok_and(|name| attributes::may_hold_url(&name.to_ascii_lowercase()))
}
