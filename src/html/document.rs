//! What lol_html's handlers record while the document streams through: the bytes not yet
//! written, the URL-bearing values found in them (by absolute byte offset), the document
//! base once it is known, and the charset in force.
//!
//! lol_html is used as a tokenizer only: nothing is changed through its API, so its
//! output is the input, and the count of bytes it has written tells how far the document
//! is settled (every handler for a token runs before the token is written).

use super::attributes::{self, Namespace, Syntax, UrlAttribute};
use super::names::Name;
use super::{Options, Warning};
use crate::base::{Base, BaseSource};
use encoding_rs::Encoding;
use lol_html::send::Element;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::VecDeque;
use std::ops::Range;

/// A value to resolve when the base is known, at an absolute byte range of the document.
///
/// Each is read in the charset in force where it was found (a `<meta>` charset changes
/// it for what follows), not in the one in force when it is written out: which one that is
/// depends on how the input was chunked.
#[derive(Debug)]
pub(crate) enum Edit {
    /// An attribute value (without its quotes).
    Attribute(AttributeValue),
    /// The text of a `<style>` element.
    Style(Range<u64>, &'static Encoding),
    /// The text of an SVG `<style>` element: CSS whose character references are decoded
    /// (foreign content is not raw text), one run of text between its child elements.
    SvgStyle(Range<u64>, &'static Encoding),
    /// The text of a `<noscript>` element, which lol_html hands over as text: it is parsed
    /// again as HTML.
    Noscript(Range<u64>, &'static Encoding),
}

impl Edit {
    pub(crate) fn range(&self) -> Range<u64> {
        match self {
            Edit::Attribute(value) => value.range.clone(),
            Edit::Style(range, _) | Edit::SvgStyle(range, _) | Edit::Noscript(range, _) => {
                range.clone()
            }
        }
    }
}

/// A URL-bearing attribute value, decoded.
#[derive(Debug)]
pub(crate) struct AttributeValue {
    pub range: Range<u64>,
    pub quote: Option<u8>,
    pub element: Name,
    pub attribute: Name,
    /// The value with character references decoded.
    pub value: String,
    pub syntax: Syntax,
    /// The element's `codebase`, for values that resolve against it.
    pub codebase: Option<String>,
    /// SVG and MathML references: a fragment-only one always stays as it is.
    pub foreign: bool,
    /// A `<base href>`: resolved against the outer base, never against itself.
    pub is_base_href: bool,
    pub encoding: &'static Encoding,
    /// Whether the bytes were valid in the charset: if not, `value` is decoded lossily,
    /// listed, and never written.
    pub decodable: bool,
    /// The attribute has no value at all (`<a href>`): `range` is empty, after its name.
    pub valueless: bool,
}

/// Whether an empty value of this attribute names something (see `emit`'s
/// `empty_value`): HTML `<a href>`, `<area href>`, a form's `action`, `formaction`; an
/// SVG `<a>`'s `href` (or `xlink:href`), which browsers follow to the base the same way.
pub(crate) fn empty_value_counts(foreign: bool, element: &str, attribute: &str) -> bool {
    if foreign {
        return element == "a" && matches!(attribute, "href" | "xlink:href");
    }
    matches!(
        (element, attribute),
        ("a" | "area", "href") | ("form", "action") | ("button" | "input", "formaction")
    )
}

/// Whether the document base is decided yet.
#[derive(Debug, Clone)]
pub(crate) enum BaseState {
    /// No `<base href>` seen yet: output is held back.
    Pending,
    /// The base for every URL of the document.
    Known(Base),
}

/// The kind of raw-text element whose content is being buffered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Region {
    Style,
    SvgStyle,
    Noscript,
}

/// The state shared by the handlers and the rewriter.
pub(crate) struct Document {
    /// Bytes read but not yet written, starting at absolute offset `pending_start`.
    pub pending: Vec<u8>,
    pub pending_start: u64,
    pub edits: VecDeque<Edit>,
    pub base: BaseState,
    pub outer: Base,
    pub options: Options,
    pub encoding: &'static Encoding,
    /// A BOM or the caller fixed the charset: `<meta charset>` does not change it.
    pub encoding_fixed: bool,
    pub template_depth: usize,
    pub open_region: Option<(u64, Region)>,
    pub warnings: Vec<Warning>,
    /// The base was settled on the outer one because the lookahead ran out.
    pub base_by_lookahead: bool,
    /// Whether link records are wanted; if not, values that cannot change are skipped.
    pub wants_links: bool,
    /// The absolute offset at which the running lol_html parser started: its source
    /// locations are relative to it.
    pub origin: u64,
    /// SVG `<style>` elements whose end tag has not been seen.
    pub svg_styles_open: usize,
    /// The charset URLs are parsed in (a query's characters percent-encoded in it, URL
    /// Standard §4.4) when it is not the one the bytes are read in: the page's own, for
    /// a page read through UTF-8 ([`super::transcode`]). `None`: [`Self::encoding`].
    pub url_encoding: Option<&'static Encoding>,
    /// A `<meta>` named a charset lol_html cannot parse: nothing after it is read.
    pub refused_charset: Option<&'static Encoding>,
    /// Elements seen since the running parser started.
    pub elements_since_start: usize,
    /// `<svg>` elements whose end tag has not been seen.
    pub svg_depth: usize,
    /// `<math>` elements whose end tag has not been seen.
    pub math_depth: usize,
    /// The parser is to be restarted at this element's start (see [`RESTART_EVERY`]).
    pub restart_at: Option<u64>,
    /// Where the `<base>` element that set the document base starts.
    pub base_element_at: Option<u64>,
    /// How deep in `<iframe srcdoc>` documents this one is (0: the document itself).
    pub srcdoc_depth: u32,
    /// The document is the text of a `<noscript>`, raw text in the page around it: a `<`
    /// written into a value is escaped (`&lt;`), so that no `</noscript` written ends
    /// that text early on the next reading.
    pub in_raw_text: bool,
}

/// How many elements one lol_html parser sees before it is restarted at the next element
/// where nothing it holds matters any more.
///
/// lol_html keeps a stack of open elements for its selector matcher and pops it only on
/// an end tag of the same name; it does not know the end tags HTML implies (§13.1.2.4:
/// `<li>`, `<p>`, `<td>`, `<tr>`, `<option>` end without one; §13.2.6.4 closes an `<a>`
/// by the next one). In a valid document of unclosed `<li>` the stack grows without end
/// and reaches the memory limit. A fresh parser started on an element in HTML content,
/// outside `<template>`, SVG/MathML and raw text, sees the rest of the document exactly
/// as the old one would, with an empty stack.
pub(crate) const RESTART_EVERY: usize = 4096;

/// How a warning names the replacement encoding: by the charsets whose labels map to it
/// (Encoding Standard §4.2).
pub(crate) const REPLACEMENT_LABELS: &str =
    "the replacement encoding (ISO-2022-KR, ISO-2022-CN, HZ-GB-2312, ...)";

/// The name a warning gives `encoding`: the replacement encoding by the labels that
/// name it.
pub(crate) fn charset_name(encoding: &'static Encoding) -> &'static str {
    match encoding == encoding_rs::REPLACEMENT {
        true => REPLACEMENT_LABELS,
        false => encoding.name(),
    }
}

/// The element handler's signal that the parser restarts before this element.
#[derive(Debug)]
pub(crate) struct RestartParser;

impl std::fmt::Display for RestartParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the parser restarts here")
    }
}

impl std::error::Error for RestartParser {}

/// The most held bytes whose buffer a thread keeps for its next document.
const SPARE_PENDING_MAX: usize = 1 << 20;

/// The most queued edits whose buffer a thread keeps for its next document.
const SPARE_EDITS_MAX: usize = 4096;

thread_local! {
    /// The held-bytes buffer of the largest document this thread finished lately,
    /// emptied. With glibc's default thresholds a buffer over 128 KiB is given back to
    /// the kernel when freed and faulted in again page by page by the next document (the
    /// command sets other thresholds; a Python process keeps glibc's): 300 calls of
    /// `absolve.links` on a 119 KB page, 8,297 page faults before, 4,656 after (CPU -6%).
    static SPARE_PENDING: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// The edit queue of the same, emptied.
    static SPARE_EDITS: Cell<VecDeque<Edit>> = const { Cell::new(VecDeque::new()) };
}

impl Drop for Document {
    /// Leaves this document's buffers, emptied, to the thread's next document, if larger
    /// than those kept: one of each per thread at most, none larger than
    /// [`SPARE_PENDING_MAX`] bytes or [`SPARE_EDITS_MAX`] edits, so what is kept stays
    /// bounded.
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        if pending.capacity() <= SPARE_PENDING_MAX {
            pending.clear();
            keep_larger(&SPARE_PENDING, pending, Vec::capacity);
        }
        let mut edits = std::mem::take(&mut self.edits);
        if edits.capacity() <= SPARE_EDITS_MAX {
            edits.clear();
            keep_larger(&SPARE_EDITS, edits, VecDeque::capacity);
        }
    }
}

/// Keeps `buffer` in `spare` if it is larger than the one there (by `capacity`).
fn keep_larger<T: Default + 'static>(
    spare: &'static std::thread::LocalKey<Cell<T>>,
    buffer: T,
    capacity: fn(&T) -> usize,
) {
    spare.with(|spare| {
        let kept = spare.take();
        spare.set(match capacity(&buffer) >= capacity(&kept) {
            true => buffer,
            false => kept,
        });
    });
}

impl Document {
    pub(crate) fn new(outer: Base, base: BaseState, options: Options) -> Self {
        Document {
            pending: SPARE_PENDING.take(),
            pending_start: 0,
            edits: SPARE_EDITS.take(),
            base,
            outer,
            encoding: options.charset.unwrap_or(encoding_rs::UTF_8),
            encoding_fixed: options.charset.is_some(),
            options,
            template_depth: 0,
            open_region: None,
            warnings: Vec::new(),
            base_by_lookahead: false,
            wants_links: true,
            origin: 0,
            svg_styles_open: 0,
            url_encoding: None,
            refused_charset: None,
            elements_since_start: 0,
            svg_depth: 0,
            math_depth: 0,
            restart_at: None,
            base_element_at: None,
            srcdoc_depth: 0,
            in_raw_text: false,
        }
    }

    /// The absolute byte range of a range lol_html reports.
    pub(crate) fn absolute(&self, range: Range<usize>) -> Range<u64> {
        self.origin + range.start as u64..self.origin + range.end as u64
    }

    /// The bytes at an absolute range (which are still pending).
    pub(crate) fn bytes(&self, range: Range<u64>) -> &[u8] {
        let start = (range.start - self.pending_start) as usize;
        let end = (range.end - self.pending_start) as usize;
        &self.pending[start..end]
    }

    /// Handles one element: `<template>` nesting, `<base>`, `<meta>` (charset, refresh),
    /// the raw-text `<style>` and `<noscript>`, and every element's URL attributes.
    pub(crate) fn element(&mut self, el: &Element<'_, '_>) -> ElementEffects {
        let mut effects = ElementEffects::default();
        if self.refused_charset.is_some() {
            return effects;
        }
        let location = self.absolute(el.source_location().bytes());
        let tag = self
            .source(location.clone())
            .and_then(Name::of_start_tag)
            .unwrap_or_else(|| Name::Owned(el.tag_name()));
        let namespace = self.namespace_of(Namespace::from_uri(el.namespace_uri()), &tag);
        // In HTML content an `<image>` start tag is an `<img>` (HTML §13.2.6.4.7, "in
        // body": "change the token's tag name to img and reprocess it"): a browser loads
        // its `src` and `srcset`. In SVG it is SVG's `<image>`.
        let tag: &str = match namespace == Namespace::Html && tag == "image" {
            true => "img",
            false => &tag,
        };
        if self.restart_here(namespace, location.start) {
            self.restart_at = Some(location.start);
            return effects;
        }
        if self.breaks_out_of_nested_foreign(el, namespace, tag, location.start) {
            self.svg_depth = 0;
            self.math_depth = 0;
            self.restart_at = Some(location.start);
            return effects;
        }
        self.elements_since_start += 1;
        // Only an SVG `<style>` (foreign content, not raw text) can hold elements: its CSS
        // is the text of its own, so a child element ends a run of it (SVG 2 §6.5).
        if self.open_region.is_some() {
            self.close_region(location.start);
            // An HTML element here broke out of the foreign content (HTML §13.2.6.5):
            // the `<style>` is closed with its `<svg>`.
            match namespace {
                Namespace::Html => self.svg_styles_open = 0,
                _ => effects.resumes_svg_style = true,
            }
        }
        if namespace == Namespace::Html {
            match tag {
                "template" => {
                    self.template_depth += 1;
                    effects.closes_template = true;
                }
                "base" => self.base_element(el),
                "meta" => {
                    self.meta_element(el);
                    self.refresh(el);
                }
                "noscript" => effects.region = Some(Region::Noscript),
                _ => {}
            }
        }
        effects.opens_foreign = match (namespace, tag) {
            (Namespace::Svg, "svg") | (Namespace::MathMl, "math") => Some(namespace),
            _ => None,
        };
        if tag == "style" {
            effects.region = match namespace {
                Namespace::Html => Some(Region::Style),
                Namespace::Svg => Some(Region::SvgStyle),
                Namespace::MathMl => None,
            };
        }
        self.url_attributes(el, namespace, tag);
        if let Some(region) = effects.region {
            self.open_region = Some((location.end, region));
        }
        effects
    }

    /// The namespace of an element. lol_html reports the integration points themselves
    /// as HTML, where HTML puts them in their parent's namespace (§13.2.6.5: MathML
    /// `mi`, `mo`, `mn`, `ms`, `mtext`; SVG `foreignObject`, `desc`, `title`): only
    /// their content is HTML.
    fn namespace_of(&self, reported: Namespace, tag: &str) -> Namespace {
        match (reported, tag) {
            (Namespace::Html, "mi" | "mo" | "mn" | "ms" | "mtext") if self.math_depth > 0 => {
                Namespace::MathMl
            }
            (Namespace::Html, "foreignobject" | "desc" | "title") if self.svg_depth > 0 => {
                Namespace::Svg
            }
            _ => reported,
        }
    }

    /// Whether the parser restarts at an element starting at `start`: after
    /// [`RESTART_EVERY`] elements, at one in HTML content where no state but the
    /// tokenizer's (which a start tag resets) is open.
    fn restart_here(&self, namespace: Namespace, start: u64) -> bool {
        self.elements_since_start >= RESTART_EVERY
            && namespace == Namespace::Html
            && self.template_depth == 0
            && self.svg_depth + self.math_depth == 0
            && self.open_region.is_none()
            && self.svg_styles_open == 0
            && start > self.origin
    }

    /// Whether an element lol_html reports in SVG or MathML is one that breaks out of
    /// foreign content (HTML §13.2.6.5: `<img>`, `<p>`, `<div>`, `<table>`, a `<font>`
    /// with `color`, `face` or `size`, ...). The tree builder then pops every SVG and
    /// MathML element up to HTML content; lol_html leaves one level of it only, so in
    /// `<svg><svg><img src=a>` the `<img>`, and all that follows, stayed SVG to it: its
    /// `src` was not a URL and a `<textarea>` after it was not raw text. The parser is
    /// then restarted at the element, in HTML content as a browser has it (a breakout
    /// into an HTML integration point, `<foreignObject>` holding nested `<svg>`, is taken
    /// as one to the top). Not inside `<template>`, whose end would be lost.
    fn breaks_out_of_nested_foreign(
        &self,
        el: &Element<'_, '_>,
        namespace: Namespace,
        tag: &str,
        start: u64,
    ) -> bool {
        if namespace == Namespace::Html || self.template_depth > 0 || start <= self.origin {
            return false;
        }
        match tag {
            "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div"
            | "dl" | "dt" | "em" | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head"
            | "hr" | "i" | "img" | "li" | "listing" | "menu" | "meta" | "nobr" | "ol" | "p"
            | "pre" | "ruby" | "s" | "small" | "span" | "strong" | "strike" | "sub" | "sup"
            | "table" | "tt" | "u" | "ul" | "var" => true,
            "font" => ["color", "face", "size"]
                .iter()
                .any(|name| el.has_attribute(name)),
            _ => false,
        }
    }

    /// A raw-text element ends at `end` (its end tag's start, or the end of input).
    pub(crate) fn close_region(&mut self, end: u64) {
        let Some((start, region)) = self.open_region.take() else {
            return;
        };
        // An unclosed child of an SVG `<style>` may have its end handler run at the
        // `<style>`'s end tag, before the `<style>`'s own: the run it resumed is empty.
        if end > start {
            self.push_edit(match region {
                Region::Style => Edit::Style(start..end, self.encoding),
                Region::SvgStyle => Edit::SvgStyle(start..end, self.encoding),
                Region::Noscript => Edit::Noscript(start..end, self.encoding),
            });
        }
    }

    /// After a child element of an SVG `<style>` (at `end`), its text continues, if the
    /// `<style>` is still open.
    pub(crate) fn resume_svg_style(&mut self, end: u64) {
        if self.svg_styles_open > 0 && self.open_region.is_none() {
            self.open_region = Some((end, Region::SvgStyle));
        }
    }

    /// A comment at `range`. In an SVG `<style>` (foreign content, where `<!--` opens a
    /// comment) it is a Comment node, not text: the style's CSS is its child text content
    /// (HTML §4.2.6, SVG 2 §6.5), so the run of text ends before the comment and resumes
    /// after it. Read as CSS, a URL inside the comment was rewritten, and a `<` in it
    /// escaped, which ended the comment early on a second rewrite.
    pub(crate) fn comment(&mut self, range: Range<u64>) {
        if matches!(self.open_region, Some((_, Region::SvgStyle))) {
            self.close_region(range.start);
            self.resume_svg_style(range.end);
        }
    }

    /// Queues an edit in byte order. Edits arrive in order but for the attributes of one
    /// element, which two handlers may record in either order. Edits never overlap: one
    /// that would (which no well-formed token stream produces) is not queued.
    fn push_edit(&mut self, edit: Edit) {
        let range = edit.range();
        // The usual case: after every edit queued, at or after the bytes held.
        let after_last = self
            .edits
            .back()
            .is_none_or(|last| last.range().start < range.start && last.range().end <= range.start);
        if after_last && range.start <= range.end && range.start >= self.pending_start {
            self.edits.push_back(edit);
            return;
        }
        let at = self
            .edits
            .iter()
            .rposition(|e| e.range().start < range.start)
            .map_or(0, |i| i + 1);
        let overlaps_previous = at > 0 && self.edits[at - 1].range().end > range.start;
        let overlaps_next = self
            .edits
            .get(at)
            .is_some_and(|next| next.range().start < range.end);
        let misplaced = range.end < range.start || range.start < self.pending_start;
        if overlaps_previous || overlaps_next || misplaced {
            return;
        }
        self.edits.insert(at, edit);
    }

    /// HTML: the first `<base>` with an `href`, outside `<template>`, is the document base,
    /// its value resolved against the outer base (the fallback base URL).
    fn base_element(&mut self, el: &Element<'_, '_>) {
        if self.template_depth > 0 || el.get_attribute("href").is_none() {
            return;
        }
        if !matches!(self.base, BaseState::Pending) {
            if std::mem::take(&mut self.base_by_lookahead) {
                let at = self.absolute(el.source_location().bytes()).start;
                self.warnings.push(Warning::LateBase(at));
            }
            return;
        }
        // The lookahead is exact: a `<base>` that ends past it comes too late, as it
        // would had the bytes before it been written already.
        let location = self.absolute(el.source_location().bytes());
        let lookahead = self.options.base_lookahead;
        if location.end > lookahead as u64 {
            self.warnings
                .push(Warning::BaseLookaheadExceeded(lookahead));
            self.warnings.push(Warning::LateBase(location.start));
            self.base = BaseState::Known(self.outer.clone());
            return;
        }
        // A valueless `href` is the empty string (HTML §13.2.5.33): this is still the
        // first `<base>` with an `href`, its frozen base URL the fallback one (§4.2.3).
        let valueless = el
            .attributes()
            .iter()
            .find(|a| a.name() == "href")
            .is_some_and(|a| a.value_source_location().is_none());
        let href = match valueless {
            true => String::new(),
            false => match self.decoded_attribute(el, "href") {
                Some(href) => href,
                None => return,
            },
        };
        // Read as every reference is ([`super::emit::resolve`]): a tab or newline inside
        // is no part of it, whatever the standard, so that the base is the URL its
        // `href` is rewritten to.
        let href = super::emit::as_url_parser_reads(&href);
        let encoding = self.url_encoding.unwrap_or(self.encoding);
        let base = base_from_href(&href, &self.outer, self.options.standard, encoding);
        if base.is_none() {
            self.warnings.push(Warning::UnusableBase(href.into_owned()));
        }
        if base.is_some() {
            self.base_element_at = Some(location.start);
        }
        self.base = BaseState::Known(base.unwrap_or_else(|| self.outer.clone()));
    }

    /// `<meta charset>` or `<meta http-equiv=content-type content="...; charset=...">`,
    /// unless a BOM or the caller fixed the charset; the first one counts.
    fn meta_element(&mut self, el: &Element<'_, '_>) {
        if self.encoding_fixed {
            return;
        }
        let label = el.get_attribute("charset").or_else(|| {
            let http_equiv = el.get_attribute("http-equiv")?;
            http_equiv
                .eq_ignore_ascii_case("content-type")
                .then(|| el.get_attribute("content"))
                .flatten()
                .and_then(|content| super::charset::from_content_type(&content))
        });
        let Some(encoding) = label.and_then(|l| Encoding::for_label(l.trim().as_bytes())) else {
            return;
        };
        // HTML §13.2.3.2, the prescan: "If charset is UTF-16BE/LE, then set charset to
        // UTF-8" (a document a `<meta>` can be read in is not UTF-16).
        let encoding = match encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE
        {
            true => encoding_rs::UTF_8,
            false => encoding,
        };
        // Encoding Standard: labels such as `iso-2022-kr` name the replacement encoding;
        // it and ISO-2022-JP are not ASCII-compatible, so the bytes after this tag cannot
        // be read as markup here: the rewriter reads an ISO-2022-JP document again from
        // its start through UTF-8, and refuses the replacement encoding as `--charset`
        // would.
        if !encoding.is_ascii_compatible() {
            self.refused_charset = Some(encoding);
            return;
        }
        self.encoding = encoding.output_encoding();
        self.encoding_fixed = true;
    }

    /// Records every URL-bearing attribute of an element.
    fn url_attributes(&mut self, el: &Element<'_, '_>, namespace: Namespace, tag: &str) {
        let attributes = el.attributes();
        for (index, attr) in attributes.iter().enumerate() {
            let raw = self.name_source(attr);
            // Most attributes (`class`, `id`, `data-*`) are passed over on their bytes.
            if raw.is_some_and(|raw| !attributes::may_be_url_attribute(raw)) {
                continue;
            }
            let name = raw
                .and_then(Name::from_ascii)
                .unwrap_or_else(|| Name::Owned(attr.name()));
            if let Some(found) = attributes::lookup(namespace, tag, &name)
                && !self.named_earlier(&attributes[..index], &name)
            {
                self.record(el, attr, name, found, namespace, tag);
            }
        }
    }

    /// Whether one of `earlier` (the attributes before one on its tag) has the name
    /// `name`: lol_html keeps every attribute, but the tokenizer drops a second one of
    /// the same name (HTML §13.2.5.33, duplicate-attribute): only the first is the
    /// element's. Looked at only for a URL attribute, on the names' bytes (no list of
    /// names made for every tag).
    fn named_earlier(&self, earlier: &[lol_html::html_content::Attribute<'_>], name: &str) -> bool {
        earlier.iter().any(|attr| match self.name_source(attr) {
            Some(raw) => raw.eq_ignore_ascii_case(name.as_bytes()),
            None => attr.name() == name,
        })
    }

    /// An attribute's name as written in the source, if its bytes are still held: its
    /// [`Name`] is made from them where it can be, else taken from lol_html.
    fn name_source(&self, attr: &lol_html::html_content::Attribute<'_>) -> Option<&[u8]> {
        attr.name_source_location()
            .and_then(|at| self.source(self.absolute(at.bytes())))
    }

    /// The bytes at an absolute range, if they are still held.
    fn source(&self, range: Range<u64>) -> Option<&[u8]> {
        let start = usize::try_from(range.start.checked_sub(self.pending_start)?).ok()?;
        let end = usize::try_from(range.end.checked_sub(self.pending_start)?).ok()?;
        self.pending.get(start..end)
    }

    /// `<meta http-equiv=refresh content="5; url=...">`: the URL in its content.
    fn refresh(&mut self, el: &Element<'_, '_>) {
        let is_refresh = el
            .get_attribute("http-equiv")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh"));
        let content = el.attributes().iter().find(|a| a.name() == "content");
        if let (true, Some(attr)) = (is_refresh, content) {
            let found = UrlAttribute {
                syntax: Syntax::Refresh,
                against_codebase: false,
            };
            self.record(
                el,
                attr,
                Name::Owned(attr.name()),
                found,
                Namespace::Html,
                "meta",
            );
        }
    }

    /// Records one URL-bearing attribute value, decoded, for when the base is known.
    fn record(
        &mut self,
        el: &Element<'_, '_>,
        attr: &lol_html::html_content::Attribute<'_>,
        name: Name,
        found: UrlAttribute,
        namespace: Namespace,
        tag: &str,
    ) {
        let (range, valueless) = match attr.value_source_location() {
            Some(location) => (self.absolute(location.bytes()), false),
            // A valueless attribute's value is the empty string (HTML §13.2.5.33): where
            // an empty value means something, `="..."` is written after its name.
            None if namespace != Namespace::MathMl
                && empty_value_counts(namespace == Namespace::Svg, tag, &name) =>
            {
                let Some(name_at) = attr.name_source_location() else {
                    return;
                };
                let end = self.absolute(name_at.bytes()).end;
                (end..end, true)
            }
            None => return,
        };
        if !self.wants_links && found.syntax == Syntax::Url && self.cannot_change(&range, namespace)
        {
            return;
        }
        let (value, decodable) = match self.decode(range.clone()) {
            Some(value) => (value, true),
            // Listed all the same, so that no link is lost; never written.
            None if self.wants_links => (self.decode_lossy(range.clone()), false),
            None => return,
        };
        let codebase = if found.against_codebase {
            self.decoded_attribute(el, "codebase")
        } else {
            None
        };
        let quote = if valueless {
            None
        } else {
            self.quote_before(range.start)
        };
        self.push_edit(Edit::Attribute(AttributeValue {
            range,
            quote,
            element: Name::new(tag),
            attribute: name,
            value,
            syntax: found.syntax,
            codebase,
            foreign: namespace != Namespace::Html,
            is_base_href: namespace == Namespace::Html && tag == "base",
            encoding: self.encoding,
            decodable,
            valueless,
        }));
    }

    /// Whether a single-URL value is left as it is whatever the base, judged on its raw
    /// bytes: a fragment-only reference that is kept, or (by RFC 1808) a reference with a
    /// scheme. The delimiters involved are ASCII, which no character reference can spell
    /// before them.
    fn cannot_change(&self, range: &Range<u64>, namespace: Namespace) -> bool {
        let raw = self.bytes(range.clone());
        let start = raw
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(raw.len());
        let raw = &raw[start..];
        let keeps_fragments = !self.options.resolve_fragments || namespace != Namespace::Html;
        let kept_fragment = keeps_fragments && raw.first() == Some(&b'#');
        // By the URL Standard an absolute URL is parsed and serialized too (`HTTP://H`
        // is `http://h/`), by RFC 3986 its dot segments removed: only by RFC 1808 is one
        // returned as it is.
        if self.options.standard != crate::url::Standard::Rfc1808 {
            return kept_fragment;
        }
        let scheme = raw
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b"+.-".contains(&b)));
        kept_fragment || scheme.is_some_and(|i| i > 0 && raw[i] == b':')
    }

    /// The quote character just before an attribute value, if it is quoted.
    fn quote_before(&self, start: u64) -> Option<u8> {
        let index = (start.checked_sub(self.pending_start)? as usize).checked_sub(1)?;
        self.pending
            .get(index)
            .copied()
            .filter(|b| matches!(b, b'"' | b'\''))
    }

    /// An attribute's value from the source bytes, decoded with the document charset and
    /// its character references.
    fn decoded_attribute(&mut self, el: &Element<'_, '_>, name: &str) -> Option<String> {
        let attr = el.attributes().iter().find(|a| a.name() == name)?;
        let range = self.absolute(attr.value_source_location()?.bytes());
        self.decode(range)
    }

    /// Decodes the bytes at `range` (charset, then character references). Bytes that are
    /// not valid in the charset leave the value alone, with a warning.
    fn decode(&mut self, range: Range<u64>) -> Option<String> {
        let encoding = self.encoding;
        let bytes = self.bytes(range.clone());
        match encoding.decode_without_bom_handling_and_without_replacement(bytes) {
            Some(text) => Some(htmlize::unescape_attribute(nul_replaced(text)).into_owned()),
            None => {
                self.warnings
                    .push(Warning::Undecodable(range.start, encoding.name()));
                None
            }
        }
    }
}

impl Document {
    /// The count of open `<svg>` or `<math>` elements.
    pub(crate) fn foreign_depth(&mut self, namespace: Namespace) -> &mut usize {
        match namespace {
            Namespace::MathMl => &mut self.math_depth,
            _ => &mut self.svg_depth,
        }
    }

    /// The bytes at `range` decoded with replacement characters, then their character
    /// references.
    fn decode_lossy(&self, range: Range<u64>) -> String {
        let (text, _) = self.encoding.decode_without_bom_handling(self.bytes(range));
        htmlize::unescape_attribute(nul_replaced(text)).into_owned()
    }
}

/// An attribute value's text with each U+0000 NULL read as U+FFFD, as the tokenizer's
/// attribute value states read it (HTML §13.2.5.36-38, unexpected-null-character); a
/// `&#0;` is U+FFFD already by the character reference rules (§13.2.5.80).
fn nul_replaced(text: Cow<'_, str>) -> Cow<'_, str> {
    match memchr::memchr(0, text.as_bytes()) {
        Some(_) => Cow::Owned(text.replace('\0', "\u{FFFD}")),
        None => text,
    }
}

/// What the handler must arrange after recording an element.
#[derive(Debug, Default)]
pub(crate) struct ElementEffects {
    /// The element's text is buffered until its end tag.
    pub region: Option<Region>,
    /// A `<template>` was opened: its end tag closes it.
    pub closes_template: bool,
    /// The element ended a run of an SVG `<style>`'s text: the text resumes after it.
    pub resumes_svg_style: bool,
    /// An `<svg>` or `<math>`: foreign content until its end tag.
    pub opens_foreign: Option<Namespace>,
}

/// The base a `<base href>` value gives: resolved against the outer (fallback) base, and
/// usable only if absolute and not opaque (`data:`, `javascript:`, ...), as browsers do.
/// By the URL Standard, the href is parsed with the document's encoding (HTML "set the
/// frozen base URL"), and one that does not parse is passed over.
pub(crate) fn base_from_href(
    href: &str,
    outer: &Base,
    standard: crate::url::Standard,
    encoding: &'static encoding_rs::Encoding,
) -> Option<Base> {
    outer.inner_with(standard, href, BaseSource::BaseElement, Some(encoding))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Document {
        Document::new(Base::none(), BaseState::Pending, Options::default())
    }

    #[test]
    fn a_documents_buffers_are_left_to_the_next_on_its_thread() {
        let mut first = document();
        first.pending.extend_from_slice(&[b'x'; 200_000]);
        drop(first);
        let second = document();
        assert!(second.pending.is_empty());
        assert!(second.pending.capacity() >= 200_000, "reused");
        // A document open beside it (an `<iframe srcdoc>`'s) finished after it leaves no
        // smaller buffer in the place of the larger one.
        let inner = document();
        drop(second);
        drop(inner);
        let mut third = document();
        assert!(third.pending.capacity() >= 200_000, "the larger kept");
        third.pending.reserve(4 * SPARE_PENDING_MAX);
        drop(third);
        assert!(
            document().pending.capacity() < 4 * SPARE_PENDING_MAX,
            "too large: not kept"
        );
    }
}
