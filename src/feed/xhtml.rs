//! Inline XHTML in a feed (Atom `type="xhtml"`, `xhtml:body`): each start tag's URL
//! attributes rewritten in place, by the HTML rewriter's rules, as XML attributes.

use super::Warning;
use super::content::{self, PieceKind};
use super::escape;
use crate::base::Base;
use crate::html::attributes::{self, Namespace};
use crate::html::{self, Collected, Options};
use crate::links::Link;
use encoding_rs::Encoding;
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use std::ops::Range;

/// One XHTML start tag: its bytes between `<` and `>` (or `/>`), and where they are.
pub(crate) struct Tag<'a> {
    /// The name and attributes, as quick-xml gives them.
    pub start: &'a BytesStart<'a>,
    /// The offset of its content (after `<`) in the feed.
    pub offset: u64,
    /// The element's namespace by its XML namespace (an SVG or MathML element, or else
    /// XHTML): which of the HTML rewriter's attribute tables applies.
    pub namespace: Namespace,
}

impl Tag<'_> {
    /// What the synthetic tag handed to the HTML rewriter starts with: an SVG or MathML
    /// element is put inside an `<svg>` or `<math>`, so that the HTML parser reads it as
    /// foreign content (HTML §13.2.6.5) and the rewriter takes its attributes from the
    /// SVG or MathML table (`href`, `xlink:href`), as for the same element in HTML.
    fn opener(&self) -> &'static [u8] {
        match self.namespace {
            Namespace::Svg => b"<svg>",
            Namespace::MathMl => b"<math>",
            Namespace::Html => b"",
        }
    }
}

/// The rewritten tag: new bytes for its attributes (what follows the name), if changed.
pub(crate) struct Done {
    pub attributes: Option<Vec<u8>>,
    pub links: Vec<Link>,
    pub warnings: Vec<html::Warning>,
    /// Values left as written because they use an entity that is not expanded, or a `&`
    /// that starts no reference.
    pub feed_warnings: Vec<Warning>,
}

/// Rewrites the URL attributes of `tag` against `base`.
///
/// The tag is handed to the HTML rewriter alone, as `<local attributes>`: HTML and XML
/// attribute values read alike for XML's five entities and character references, and
/// the rewriter changes only the values of URL attributes. Each changed value is written
/// back as an XML attribute value (XML 1.0 §3.1: no `<` in it), its bytes outside the
/// change kept; a value that refers to another entity (declared in a DTD, never
/// expanded) is left as written, with a warning.
pub(crate) fn rewrite(
    tag: &Tag,
    base: &Base,
    options: &Options,
    encoding: &'static Encoding,
    collected: Collected,
) -> Done {
    let start = tag.start;
    let qname_len = start.name().as_ref().len();
    let local = start.local_name().into_inner();
    let attributes = &start[qname_len..];
    let opener = tag.opener();
    let mut synthetic = Vec::with_capacity(opener.len() + attributes.len() + local.len() + 2);
    synthetic.extend_from_slice(opener);
    synthetic.push(b'<');
    synthetic.extend_from_slice(local);
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
    // Offsets in the synthetic tag are `shift` less than in the feed.
    let shift = tag.offset + qname_len as u64 - name_end as u64;
    let mut links = collected.links;
    for link in &mut links {
        link.offset += shift;
    }
    let warnings = collected
        .warnings
        .into_iter()
        .filter_map(|w| match w.problem {
            crate::Problem::Html(warning) => Some(warning.shifted(shift)),
            _ => None,
        })
        .collect();
    let output = collected.output;
    let changed = !output.is_empty()
        && output != synthetic
        && output.starts_with(&synthetic[..name_end])
        && output.ends_with(b">");
    let mut done = Done {
        attributes: None,
        links,
        warnings,
        feed_warnings: Vec::new(),
    };
    let unexpanded = unexpanded(tag, encoding, &mut done);
    if changed {
        let rewritten = &output[name_end..output.len() - 1];
        done.attributes = as_xml(tag, rewritten, encoding, &unexpanded, &mut done);
    }
    done
}

/// The values (by index) that refer to an entity that is not expanded or hold a `&` that
/// starts no reference (XML 1.0 §4.1; the HTML rewriter reads `q=a&b` as text), and
/// whether they have been warned about. As a feed URL that does, such a value is left as
/// written and its URL not listed, with a warning, when it holds a URL.
fn unexpanded(tag: &Tag, encoding: &'static Encoding, done: &mut Done) -> Vec<(usize, bool)> {
    let Some(values) = values_of(tag.start) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (index, (_, value)) in values.into_iter().enumerate() {
        let raw = &tag.start[value.clone()];
        let at = tag.offset + value.start as u64;
        let Some(warning) = left_as_written(raw, at, encoding) else {
            continue;
        };
        let holds = at..=at + raw.len() as u64;
        let listed = done.links.len();
        done.links.retain(|l| !holds.contains(&l.offset));
        let warned = done.links.len() < listed;
        if warned {
            done.feed_warnings.push(warning);
        }
        found.push((index, warned));
    }
    found
}

/// Why a value at `at` is left as written, if it is: a `&` that starts no reference, or a
/// reference to an entity that is not expanded.
fn left_as_written(raw: &[u8], at: u64, encoding: &'static Encoding) -> Option<Warning> {
    if let Some(ampersand) = escape::bare_ampersand(raw) {
        return Some(Warning::NotWellFormed {
            offset: at + ampersand as u64,
            reason: escape::BARE_AMPERSAND,
        });
    }
    let reason = unexpanded_entity(raw, encoding)?;
    Some(Warning::Entity { offset: at, reason })
}

/// The name of the first entity `raw` (an attribute value) refers to that is neither one
/// of XML's five nor a character reference.
fn unexpanded_entity(raw: &[u8], encoding: &'static Encoding) -> Option<String> {
    content::value_pieces(raw)
        .into_iter()
        .filter(|p| p.kind == PieceKind::Reference)
        .map(|p| &raw[p.raw.start + 1..p.raw.end - 1])
        .find(|name| escape::reference(name, encoding).is_none())
        .map(|name| String::from_utf8_lossy(name).into_owned())
}

/// The attributes after the tag's name with each value the HTML rewriter changed (in
/// `rewritten`, HTML-escaped) written as XML; `None` if nothing is to change.
fn as_xml(
    tag: &Tag,
    rewritten: &[u8],
    encoding: &'static Encoding,
    unexpanded: &[(usize, bool)],
    done: &mut Done,
) -> Option<Vec<u8>> {
    let start = tag.start;
    let qname_len = start.name().as_ref().len();
    let old = values_of(start)?;
    let local = start.local_name().into_inner();
    let mut synthetic = Vec::with_capacity(local.len() + rewritten.len() + 2);
    // Read back as XML: the tag alone, without the opener.
    synthetic.push(b'<');
    synthetic.extend_from_slice(local);
    synthetic.extend_from_slice(rewritten);
    synthetic.push(b'>');
    let mut reader = Reader::from_reader(&synthetic[..]);
    let new = match reader.read_event() {
        Ok(Event::Start(new)) => values_of(&new)?
            .into_iter()
            .map(|(key, value)| (new[key].to_vec(), new[value].to_vec()))
            .collect::<Vec<_>>(),
        _ => return None,
    };
    if old.len() != new.len() {
        return None;
    }
    let region = &start[qname_len..];
    let mut out = Vec::with_capacity(region.len() + 64);
    let mut copied = 0;
    for (index, ((old_key, old_value), (new_key, new_value))) in
        old.into_iter().zip(new).enumerate()
    {
        let old_raw = &start[old_value.clone()];
        if start[old_key] != new_key[..] {
            return None;
        }
        if old_raw == new_value.as_slice() {
            continue;
        }
        if let Some(&(_, warned)) = unexpanded.iter().find(|(i, _)| *i == index) {
            let at = tag.offset + old_value.start as u64;
            if !warned && let Some(warning) = left_as_written(old_raw, at, encoding) {
                done.feed_warnings.push(warning);
            }
            continue;
        }
        let quote = start[old_value.start - 1];
        let written = written_value(old_raw, &new_value, quote, encoding);
        let in_region = old_value.start - qname_len;
        out.extend_from_slice(&region[copied..in_region]);
        out.extend_from_slice(&written);
        copied = in_region + old_raw.len();
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&region[copied..]);
    Some(out)
}

/// The ranges of each attribute's name and value in `start`; `None` if the list is not
/// well-formed (the rewriter has checked it: only the rewritten list may not be).
fn values_of(start: &BytesStart) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    let base = start.as_ptr() as usize;
    start
        .attributes()
        .with_checks(false)
        .map(|attribute| {
            let attribute = attribute.ok()?;
            let key = attribute.key.as_ref();
            let value: &[u8] = &attribute.value;
            let key_at = key.as_ptr() as usize - base;
            let value_at = (value.as_ptr() as usize).checked_sub(base)?;
            (value_at + value.len() <= start.len() && value_at > 0)
                .then_some((key_at..key_at + key.len(), value_at..value_at + value.len()))
        })
        .collect()
}

/// A value as written (`old`, with XML's five entities and character references only)
/// changed by the HTML rewriter (`new`, which escapes only `&` and the quote): the stretch
/// from the first to the last changed byte escaped for an XML attribute, the bytes around
/// it as they were.
fn written_value(old: &[u8], new: &[u8], quote: u8, encoding: &'static Encoding) -> Vec<u8> {
    let (old_html, mapped) = content::as_html(old, &content::value_pieces(old), encoding);
    let (new_html, _) = content::as_html(new, &content::value_pieces(new), encoding);
    content::written_back(old, &mapped, &old_html, &new_html, &|middle, out| {
        escape::attribute_bytes(middle, quote, out)
    })
}

/// Whether an attribute named `key` (qualified, as written) with the raw value `value`
/// may hold a URL on some element: a cheap filter before the HTML rewriter is started for
/// a tag. A CSS value (`style`, SVG's `fill="#333"`, `stroke`) without a `(` holds none
/// (CSS Syntax §4.3.4: a URL is a `url(` token or a string in a function), unless a
/// reference writes one (`&#40;`): an SVG's thousands of shapes start no rewriter for
/// their colours.
pub(crate) fn may_hold_url(key: &[u8], value: &[u8]) -> bool {
    let local = key.rsplit(|&b| b == b':').next().unwrap_or(key);
    let whole = if key.starts_with(b"xlink:") {
        key
    } else {
        local
    };
    let Ok(name) = std::str::from_utf8(whole) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    attributes::may_hold_url(&name)
        && (memchr::memchr2(b'(', b'&', value).is_some() || !attributes::is_css_only(&name))
}
