//! The one place where bytes are written out: the pending bytes up to a settled offset,
//! with each recorded value replaced by its resolved form where that differs. Everything
//! outside a replaced value is written exactly as it was read.

use super::css_text::DecodedText;
use super::document::{AttributeValue, BaseState, Document, Edit};
use super::values::{escape_attribute, url_ranges};
use super::{Options, Rewriter, Sink, Warning, attributes::Syntax};
use crate::base::Base;
use crate::links::{Kept, Link, LinkRef, NOWHERE};
use encoding_rs::Encoding;
use std::borrow::Cow;
use std::cell::RefCell;
use std::io;
use std::ops::Range;

/// Writes the pending bytes before absolute offset `limit`, edits applied. The base must be
/// known. An edit that reaches past `limit` waits, and so does everything after it.
pub(crate) fn flush(doc: &mut Document, mut limit: u64, sink: &mut dyn Sink) -> io::Result<()> {
    let BaseState::Known(base) = &doc.base else {
        return Ok(());
    };
    let base = base.clone();
    let mut cursor = doc.pending_start;
    while let Some(range) = doc.edits.front().map(Edit::range) {
        if range.start >= limit {
            break;
        }
        if range.end > limit {
            limit = range.start;
            break;
        }
        let edit = doc.edits.pop_front().expect("an edit");
        if range.start < cursor {
            // Never queued (edits do not overlap); were it, the bytes are written once.
            continue;
        }
        sink.output_unchanged(cursor, doc.bytes(cursor..range.start))?;
        match &edit {
            Edit::Attribute(value) => write_attribute(doc, value, &base, sink)?,
            Edit::Style(range, encoding) => {
                let css = Css(range.clone(), CssIn::RawText, encoding);
                write_style(doc, css, &base, sink)?;
            }
            Edit::SvgStyle(range, encoding) => {
                let css = Css(range.clone(), CssIn::Text, encoding);
                write_style(doc, css, &base, sink)?;
            }
            Edit::Noscript(range, encoding) => {
                write_noscript(doc, range.clone(), encoding, &base, sink)?;
            }
        }
        cursor = range.end;
    }
    sink.output_unchanged(cursor, doc.bytes(cursor..limit))?;
    doc.pending.drain(..(limit - doc.pending_start) as usize);
    doc.pending_start = limit;
    Ok(())
}

/// An attribute value: each URL in it resolved and reported; the value written back
/// escaped and in the document charset if any URL changed, else its original bytes.
fn write_attribute(
    doc: &Document,
    value: &AttributeValue,
    document_base: &Base,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let base = value_base(doc, value, document_base);
    let fragments = FragmentRule::for_value(value, &doc.options);
    let wants_links = sink.wants_links();
    let wants_output = sink.wants_output();
    // Reports a URL (if links are wanted), borrowed, and gives its new text if it changed
    // (if the bytes are wanted).
    let mut settle = |original: &str, resolved: Cow<'_, str>, kept: Option<Kept>| {
        let changed = resolved != original;
        if wants_links {
            sink.link_ref(LinkRef {
                location: &NOWHERE,
                element: &value.element,
                attribute: Some(&value.attribute),
                original,
                // What `rewrite` writes: a value invalid in its charset is left as it is.
                resolved: if value.decodable { &resolved } else { original },
                base: base.shared_url_ref(),
                base_from: base.source(),
                offset: value.range.start,
                srcdoc: 0,
                kept,
            });
        }
        (changed && wants_output).then(|| resolved.into_owned())
    };
    let mut rejected = Vec::new();
    let mut commas = Vec::new();
    let new_value = match value.syntax {
        Syntax::Css => rewritten_css(
            value.value.as_bytes(),
            CssIn::Raw,
            encoding_rs::UTF_8,
            |url, _, _| {
                let utf8 = encoding_rs::UTF_8;
                let resolved = resolve(url, &base, &doc.options, FragmentRule::Keep, utf8);
                rejected.extend(resolved.failure.map(|reason| (url.to_owned(), reason)));
                settle(url, resolved.text, resolved.kept)
            },
        )
        .map(|bytes| String::from_utf8(bytes).expect("CSS rewritten from UTF-8 is UTF-8")),
        Syntax::Srcdoc => rewrite_srcdoc(doc, value, &base, sink)?,
        Syntax::Url if value.value.trim_ascii().is_empty() => {
            empty_value(doc, value, &base).and_then(|target| settle("", target.into(), None))
        }
        syntax => replace_urls(&value.value, syntax, |url| {
            let encoding = doc.url_encoding.unwrap_or(value.encoding);
            let resolved = resolve(url, &base, &doc.options, fragments, encoding);
            rejected.extend(resolved.failure.map(|reason| (url.to_owned(), reason)));
            let new = settle(url, resolved.text, resolved.kept)?;
            if syntax == Syntax::CommaList && new.contains(',') {
                // A comma in the resolved URL (an item of the list holds none: it comes
                // from the base) would split it in two on the next reading of the list:
                // the reference is left as it is.
                commas.push(url.to_owned());
                return None;
            }
            Some(new)
        }),
    };
    for reference in commas {
        let offset = value.range.start;
        sink.warning(Warning::CommaInListUrl { offset, reference }.into());
    }
    for (reference, reason) in rejected {
        let offset = value.range.start;
        sink.warning(
            Warning::Unparsable {
                offset,
                reference,
                reason,
            }
            .into(),
        );
    }
    if !wants_output {
        // Only the links were wanted (reported above): the bytes would be dropped.
        return Ok(());
    }
    match new_value.filter(|_| value.decodable) {
        Some(new_value) => {
            if value.valueless {
                // Quoted: a `/` or `>` may follow the name directly.
                let escaped = in_raw_text(doc, escape_attribute(&new_value, Some(b'"')));
                return sink.output(&encode(&format!("=\"{escaped}\""), value.encoding));
            }
            let escaped = in_raw_text(doc, escape_attribute(&new_value, value.quote));
            sink.output(&encode(&escaped, value.encoding))
        }
        None => sink.output_unchanged(value.range.start, doc.bytes(value.range.clone())),
    }
}

/// A value escaped for writing, its `<` escaped too in the text of a `<noscript>` (see
/// [`Document::in_raw_text`]): `escape_attribute` has quoted a value holding one.
fn in_raw_text(doc: &Document, escaped: String) -> String {
    match doc.in_raw_text && escaped.contains('<') {
        true => escaped.replace('<', "&lt;"),
        false => escaped,
    }
}

/// How deep `<iframe srcdoc>` documents are rewritten; deeper ones are left as they are.
const MAX_SRCDOC_DEPTH: u32 = 16;

/// An `<iframe srcdoc>` value: a whole document (HTML §4.8.5), rewritten with the same
/// rules, its links reported with `srcdoc` one deeper and the offset of the value. Its
/// base: its own first `<base href>` resolved against its fallback base, the parent's
/// document base (HTML "fallback base URL": the about base URL of an `about:srcdoc`
/// document). A browser takes that from the parent when the iframe is inserted: before
/// the parent's `<base>` is parsed, it is the parent's own URL (the outer base).
fn rewrite_srcdoc(
    doc: &Document,
    value: &AttributeValue,
    document_base: &Base,
    sink: &mut dyn Sink,
) -> io::Result<Option<String>> {
    if doc.srcdoc_depth >= MAX_SRCDOC_DEPTH {
        return Ok(None);
    }
    let before_base = doc.base_element_at.is_some_and(|at| value.range.start < at);
    let fallback = if before_base {
        &doc.outer
    } else {
        document_base
    };
    let options = Options {
        charset: Some(encoding_rs::UTF_8),
        base_lookahead: usize::MAX,
        ..doc.options.clone()
    };
    let inner_sink = SrcdocSink {
        output: Vec::with_capacity(value.value.len() + 64),
        outer: sink,
        offset: value.range.start,
    };
    let mut inner = Rewriter::new(fallback, &options, inner_sink);
    super::lock(&inner.doc).srcdoc_depth = doc.srcdoc_depth + 1;
    inner.write(value.value.as_bytes())?;
    let done = inner.end()?;
    let text = String::from_utf8(done.output).expect("UTF-8 in, UTF-8 out");
    Ok((text != value.value).then_some(text))
}

/// Where a srcdoc document's rewrite goes: its bytes kept, its links and warnings passed
/// on, placed at the srcdoc value.
struct SrcdocSink<'a> {
    output: Vec<u8>,
    outer: &'a mut dyn Sink,
    offset: u64,
}

impl Sink for SrcdocSink<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.output.extend_from_slice(bytes);
        Ok(())
    }
    fn link(&mut self, mut link: Link) {
        link.srcdoc += 1;
        link.offset = self.offset;
        self.outer.link(link);
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.outer.link_ref(LinkRef {
            srcdoc: link.srcdoc + 1,
            offset: self.offset,
            ..link
        });
    }
    fn warning(&mut self, warning: crate::Warning) {
        self.outer.warning(warning.shifted(self.offset));
    }
    fn wants_links(&self) -> bool {
        self.outer.wants_links()
    }
}

/// What an empty (or all-whitespace) single-URL value means. HTML: `<a href="">` and
/// `<area href="">` are this document, the base itself (RFC 1808 §4 step 2a), without
/// a fragment (not part of a URL in RFC 1808 §2.4.1), and so is an SVG `<a href="">`
/// (browsers follow it the same way); a form's empty `action` or
/// `formaction` is the document's own URL (HTML §4.10.21.3 step 8: "the document's URL",
/// which a `<base>` does not change): the outer base. Any other empty value is no
/// resource and stays empty.
fn empty_value(doc: &Document, value: &AttributeValue, base: &Base) -> Option<String> {
    if !super::document::empty_value_counts(value.foreign, &value.element, &value.attribute) {
        return None;
    }
    let target = match &*value.attribute {
        "href" | "xlink:href" => base.url()?,
        _ => doc.outer.url()?,
    };
    // Written as a resolved URL is: a base can hold whitespace (RFC 1808 and 3986 take
    // a `<base href>` as it is), which the next reading would not read as this URL.
    Some(without_whitespace(
        target.split('#').next().unwrap_or(target).to_owned(),
    ))
}

/// The base a value resolves against: the outer base for `<base href>` itself, the
/// element's `codebase` for `<object>`/`<applet>` values, else the document base.
fn value_base<'a>(
    doc: &'a Document,
    value: &AttributeValue,
    document_base: &'a Base,
) -> Cow<'a, Base> {
    if value.is_base_href {
        return Cow::Borrowed(&doc.outer);
    }
    let codebase = value.codebase.as_deref().map(as_url_parser_reads);
    let standard = doc.options.standard;
    let encoding = doc.url_encoding.unwrap_or(value.encoding);
    let inner = |c: Cow<'_, str>| {
        document_base.inner_with(standard, &c, document_base.source(), Some(encoding))
    };
    match codebase.and_then(inner) {
        Some(codebase) => Cow::Owned(codebase),
        None => Cow::Borrowed(document_base),
    }
}

/// How CSS is held in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CssIn {
    /// As it is: a stylesheet, a `style` attribute's value.
    Raw,
    /// As it is, in an HTML `<style>` (raw text, HTML §13.2.5.3): a `<` written is the CSS
    /// escape `\3c `, so that no `</style` (or `</noscript` around it) written ends the
    /// text early on the next reading.
    RawText,
    /// As HTML text, with character references: an SVG `<style>` (foreign content).
    Text,
}

/// The CSS text of a `<style>` element: where it is, how it is held, its charset.
struct Css(std::ops::Range<u64>, CssIn, &'static Encoding);

/// The text of a `<style>` element: its `url()` and `@import` values, written and
/// reported as they are met ([`write_css`]), at their offsets in the document.
fn write_style(doc: &Document, css: Css, base: &Base, sink: &mut dyn Sink) -> io::Result<()> {
    let Css(range, held, encoding) = css;
    let css = doc.bytes(range.clone());
    if held == CssIn::Text && memchr::memmem::find(css, b"</").is_some() {
        // In foreign content `</` begins an end tag or a bogus comment (HTML §13.2.5.7):
        // the tokens between runs of text are not CSS, and a URL rewritten across one
        // (escaping its `<`) would turn the tag into text, so that the next reading
        // finds another structure. The text is left as it is, with a warning.
        sink.warning(Warning::MarkupInSvgStyle(range.start).into());
        return sink.output_unchanged(range.start, css);
    }
    let mut shifted = Shifted {
        inner: sink,
        shift: range.start,
    };
    write_css(css, held, encoding, base, &doc.options, &mut shifted)
}

/// How many bytes of rewritten CSS are gathered before they are given to a sink.
const CSS_CHUNK: usize = 64 << 10;

/// CSS text held as `held` written to `sink` as its URLs are met, in one pass: each
/// URL resolved against `base` and reported (as [`rewrite_css_reporting`] reports it,
/// when the sink wants links), each warning given, the bytes written in chunks of
/// [`CSS_CHUNK`] (when it wants them): nothing is gathered, whatever the number of URLs.
pub(crate) fn write_css(
    css: &[u8],
    held: CssIn,
    encoding: &'static Encoding,
    base: &Base,
    options: &Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let wants_links = sink.wants_links();
    let mut out = CssOut {
        buf: Vec::new(),
        cursor: 0,
        wanted: sink.wants_output(),
    };
    // Both the URLs' reports and the bytes between them go to the one sink, in turn.
    let sink = RefCell::new(sink);
    let report = |url: &str, offset: usize, decodable: bool| {
        let mut sink = sink.borrow_mut();
        let resolved = resolve_css_url(url, offset, decodable, encoding, base, options, |w| {
            sink.warning(w.into())
        });
        if wants_links {
            sink.link_ref(css_link(url, &resolved, offset, base));
        }
        changed(url, resolved.text)
    };
    let replace = |token, new: &[u8]| out.replace(css, token, new, *sink.borrow_mut());
    rewrite_css(css, held, encoding, report, replace)?;
    out.finish(css, sink.into_inner())
}

/// The bytes of CSS on their way to a sink: those before each replaced token as they
/// were, given as unchanged ([`Sink::output_unchanged`], at their offset in the CSS, so
/// that a sink can tell each new token apart: the feed rewriter writes back only those),
/// then its new token, the new tokens gathered up to [`CSS_CHUNK`] bytes.
struct CssOut {
    buf: Vec<u8>,
    /// Where the bytes not yet written start.
    cursor: usize,
    /// Whether the sink wants the bytes at all.
    wanted: bool,
}

impl CssOut {
    /// The bytes of `css` up to `token`, then `new` in its place.
    fn replace(
        &mut self,
        css: &[u8],
        token: Range<usize>,
        new: &[u8],
        sink: &mut dyn Sink,
    ) -> io::Result<()> {
        self.unchanged(css, self.cursor..token.start, sink)?;
        self.write(new, sink)?;
        self.cursor = token.end;
        Ok(())
    }

    /// The rest of `css`, after whatever is gathered.
    fn finish(mut self, css: &[u8], sink: &mut dyn Sink) -> io::Result<()> {
        self.unchanged(css, self.cursor..css.len(), sink)
    }

    /// The bytes of `css` at `range`, as they were: whatever is gathered goes first.
    fn unchanged(
        &mut self,
        css: &[u8],
        range: Range<usize>,
        sink: &mut dyn Sink,
    ) -> io::Result<()> {
        if !self.wanted {
            return Ok(());
        }
        if !self.buf.is_empty() {
            sink.output(&self.buf)?;
            self.buf.clear();
        }
        match range.is_empty() {
            true => Ok(()),
            false => sink.output_unchanged(range.start as u64, &css[range]),
        }
    }

    fn write(&mut self, bytes: &[u8], sink: &mut dyn Sink) -> io::Result<()> {
        if !self.wanted {
            return Ok(());
        }
        if !self.buf.is_empty() && self.buf.len() + bytes.len() > CSS_CHUNK {
            sink.output(&self.buf)?;
            self.buf.clear();
        }
        if bytes.len() >= CSS_CHUNK {
            return sink.output(bytes);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }
}

/// The URLs of CSS text resolved against `base` (fragment-only ones kept), each reported
/// as a link of element `style` with the offset of its token; the new CSS if any changed.
pub(crate) fn rewrite_css_reporting(
    css: &[u8],
    encoding: &'static Encoding,
    base: &Base,
    options: &Options,
    mut on_link: impl FnMut(Link),
    mut on_warning: impl FnMut(Warning),
) -> Option<Vec<u8>> {
    rewritten_css(css, CssIn::Raw, encoding, |url, offset, decodable| {
        let place = (offset, decodable, encoding);
        reported_css_url(url, place, base, options, &mut on_link, &mut on_warning)
    })
}

/// The URLs of CSS text resolved and reported as [`rewrite_css_reporting`] does, the
/// changes given one token at a time: the range of each token that changed and its new
/// bytes, in order (the bytes between them are unchanged). What a rewriter of CSS held in
/// another document needs to write back only the bytes each URL alters.
pub(crate) fn css_changes_reporting(
    css: &[u8],
    encoding: &'static Encoding,
    base: &Base,
    options: &Options,
    mut on_link: impl FnMut(Link),
    mut on_warning: impl FnMut(Warning),
) -> Vec<(Range<usize>, Vec<u8>)> {
    let mut changes = Vec::new();
    let report = |url: &str, offset: usize, decodable: bool| {
        let place = (offset, decodable, encoding);
        reported_css_url(url, place, base, options, &mut on_link, &mut on_warning)
    };
    let replace = |token: Range<usize>, new: &[u8]| {
        changes.push((token, new.to_vec()));
        Ok(())
    };
    rewrite_css(css, CssIn::Raw, encoding, report, replace).expect("changes gathered in memory");
    changes
}

/// A URL of CSS resolved ([`resolve_css_url`]; `place` is its token's offset, whether its
/// bytes are valid in the charset, and the charset) and reported as a link of element
/// `style`: its new text if it changed.
fn reported_css_url(
    url: &str,
    (offset, decodable, encoding): (usize, bool, &'static Encoding),
    base: &Base,
    options: &Options,
    on_link: &mut impl FnMut(Link),
    on_warning: &mut impl FnMut(Warning),
) -> Option<String> {
    let resolved = resolve_css_url(url, offset, decodable, encoding, base, options, on_warning);
    on_link(css_link(url, &resolved, offset, base).to_link());
    changed(url, resolved.text)
}

/// A URL of CSS at `offset` resolved against `base`, its warnings given (a URL whose
/// bytes are not valid in `encoding`, one the URL Standard rejects).
fn resolve_css_url<'a>(
    url: &'a str,
    offset: usize,
    decodable: bool,
    encoding: &'static Encoding,
    base: &Base,
    options: &Options,
    mut on_warning: impl FnMut(Warning),
) -> Resolved<'a> {
    let offset = offset as u64;
    if !decodable {
        on_warning(Warning::Undecodable(offset, encoding.name()));
        // Listed as `rewrite` writes it: a URL invalid in its charset is left as it is.
        return Resolved::unchanged(url, None);
    }
    // CSS URLs are parsed with UTF-8, whatever the stylesheet's or page's encoding
    // (CSS Values 4 §4.5.1: "parse a URL ... with UTF-8"; what Chromium fetches).
    let mut resolved = resolve(url, base, options, FragmentRule::Keep, encoding_rs::UTF_8);
    if let Some(reason) = resolved.failure.take() {
        on_warning(Warning::Unparsable {
            offset,
            reference: url.to_owned(),
            reason,
        });
    }
    resolved
}

/// The link of a URL of CSS at `offset`: element `style`, no attribute.
fn css_link<'a>(
    url: &'a str,
    resolved: &'a Resolved<'_>,
    offset: usize,
    base: &'a Base,
) -> LinkRef<'a> {
    LinkRef {
        location: &NOWHERE,
        element: "style",
        attribute: None,
        original: url,
        resolved: &resolved.text,
        base: base.shared_url_ref(),
        base_from: base.source(),
        offset: offset as u64,
        srcdoc: 0,
        kept: resolved.kept,
    }
}

/// The text of a `<noscript>` element, parsed as HTML with the document's base, in the
/// charset in force where it was found.
fn write_noscript(
    doc: &Document,
    range: std::ops::Range<u64>,
    encoding: &'static Encoding,
    base: &Base,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let options = Options {
        charset: Some(encoding),
        ..doc.options.clone()
    };
    let shifted = Shifted {
        inner: sink,
        shift: range.start,
    };
    let mut inner = Rewriter::with_document_base(&doc.outer, base, &options, shifted);
    super::lock(&inner.doc).in_raw_text = true;
    super::lock(&inner.doc).url_encoding = doc.url_encoding;
    inner.write(doc.bytes(range))?;
    inner.end().map(drop)
}

/// A sink that passes everything on with link offsets moved to the outer document's.
struct Shifted<'a> {
    inner: &'a mut dyn Sink,
    shift: u64,
}

impl Sink for Shifted<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.output(bytes)
    }
    fn output_unchanged(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.inner.output_unchanged(offset + self.shift, bytes)
    }
    fn link(&mut self, mut link: Link) {
        link.offset += self.shift;
        self.inner.link(link);
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.inner.link_ref(LinkRef {
            offset: link.offset + self.shift,
            ..link
        });
    }
    fn warning(&mut self, warning: crate::Warning) {
        self.inner.warning(warning.shifted(self.shift));
    }
    fn wants_links(&self) -> bool {
        self.inner.wants_links()
    }
    fn wants_output(&self) -> bool {
        self.inner.wants_output()
    }
}

/// What becomes of a fragment-only reference (`#x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FragmentRule {
    /// It stays a same-document reference.
    Keep,
    /// It is resolved as RFC 1808 §5 does (`--resolve-fragments`).
    Resolve,
}

impl FragmentRule {
    /// SVG/MathML references point inside the document: they are always kept.
    fn for_value(value: &AttributeValue, options: &Options) -> Self {
        if value.foreign {
            FragmentRule::Keep
        } else {
            FragmentRule::by_options(options)
        }
    }

    /// As [`Options::resolve_fragments`] says.
    pub(crate) fn by_options(options: &Options) -> Self {
        if options.resolve_fragments {
            FragmentRule::Resolve
        } else {
            FragmentRule::Keep
        }
    }
}

/// The resolved form of one reference, and why it was kept if the caller kept it; what
/// is left alone comes back as it is.
///
/// The reference is read as the URL parser reads it (WHATWG URL "basic URL parser"):
/// leading and trailing C0 controls and spaces, and every tab and newline inside, are
/// not part of it, so a changed value is the absolute URL alone. This reading holds by
/// every standard (RFC 1808 and 3986 say nothing of whitespace around a reference: a
/// browser's reading is taken), and for feeds too: their URLs and the HTML inside them
/// are resolved here, so a URL resolves the same in a feed element and in its content.
pub(crate) fn resolve<'a>(
    reference: &'a str,
    base: &Base,
    options: &Options,
    fragments: FragmentRule,
    encoding: &'static Encoding,
) -> Resolved<'a> {
    let cleaned = as_url_parser_reads(reference);
    // By the URL Standard an absolute URL is parsed too (and serialized as a browser
    // does: `HTTP://H` is `http://h/`).
    let keep = cleaned.is_empty()
        || (fragments == FragmentRule::Keep && cleaned.starts_with('#'))
        || crate::url::returned_as_written(options.standard, &cleaned, base.url().is_some());
    if keep {
        return Resolved::unchanged(reference, None);
    }
    if options
        .keep_reference
        .as_ref()
        .is_some_and(|keep| keep(&cleaned))
    {
        return Resolved::unchanged(reference, Some(Kept::Local));
    }
    let mut out = String::with_capacity(cleaned.len() + 64);
    match base.try_resolve_into(options.standard, &cleaned, Some(encoding), &mut out) {
        Ok(()) => Resolved {
            text: Cow::Owned(without_whitespace(out)),
            kept: None,
            failure: None,
        },
        // The URL Standard rejects it: left exactly as written, with the reason.
        Err(error) => Resolved {
            text: Cow::Borrowed(reference),
            kept: None,
            failure: Some(error.to_string()),
        },
    }
}

/// What [`resolve`] made of a reference: its new text, why it was kept if it was, why
/// the URL Standard rejected it if it did.
pub(crate) struct Resolved<'a> {
    pub text: Cow<'a, str>,
    pub kept: Option<Kept>,
    pub failure: Option<String>,
}

impl<'a> Resolved<'a> {
    fn unchanged(reference: &'a str, kept: Option<Kept>) -> Self {
        Resolved {
            text: Cow::Borrowed(reference),
            kept,
            failure: None,
        }
    }
}

/// A resolved URL with no ASCII whitespace in it: whitespace can come from the base (a
/// `<base href>` or `codebase` with a space inside), and in a space-separated list
/// (`archive`, `ping`) or a `srcset` it would split the URL, so that a second rewrite
/// reads other URLs. RFC 1738 §2.2 makes space unsafe: it is written `%20` (and form feed
/// `%0C`), as the WHATWG URL serializer writes them; tabs and newlines, which the URL
/// parser drops, are dropped.
fn without_whitespace(url: String) -> String {
    // ASCII whitespace: space, tab, newline, form feed, carriage return.
    let bytes = url.as_bytes();
    if memchr::memchr3(b' ', b'\t', b'\n', bytes).is_none()
        && memchr::memchr2(b'\x0C', b'\r', bytes).is_none()
    {
        return url;
    }
    let mut out = String::with_capacity(url.len() + 8);
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '\x0C' => out.push_str("%0C"),
            '\t' | '\n' | '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A reference without leading and trailing C0 controls and spaces, and without tabs
/// and newlines inside (WHATWG URL, basic URL parser steps 1-3).
pub(crate) fn as_url_parser_reads(reference: &str) -> Cow<'_, str> {
    // On the bytes: the characters trimmed are ASCII, and no byte of another character's
    // UTF-8 is below 0x80, so the cuts fall between characters.
    let bytes = reference.as_bytes();
    let start = bytes.iter().position(|&b| b > b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |i| i + 1);
    let trimmed = &reference[start..end];
    if memchr::memchr3(b'\t', b'\n', b'\r', trimmed.as_bytes()).is_some() {
        Cow::Owned(trimmed.replace(['\t', '\n', '\r'], ""))
    } else {
        Cow::Borrowed(trimmed)
    }
}

/// `Some(resolved)` when it differs from the original.
fn changed(original: &str, resolved: Cow<'_, str>) -> Option<String> {
    (resolved != original).then(|| resolved.into_owned())
}

/// Replaces each URL of a decoded attribute value by what `rewrite` gives for it; `None`
/// when nothing changed.
fn replace_urls(
    value: &str,
    syntax: Syntax,
    mut rewrite: impl FnMut(&str) -> Option<String>,
) -> Option<String> {
    if syntax == Syntax::Url {
        // One URL: no list to build.
        // A changed value is the URL alone, without the whitespace HTML strips around it.
        let range = super::values::trimmed(value, 0..value.len())?;
        return rewrite(&value[range]);
    }
    let mut out = String::new();
    let mut cursor = 0;
    for range in url_ranges(syntax, value) {
        let original = &value[range.clone()];
        if let Some(mut new) = rewrite(original) {
            if syntax == Syntax::Srcset && new.ends_with(',') {
                keep_srcset_url_whole(original, &mut new);
            }
            out.push_str(&value[cursor..range.start]);
            out.push_str(&new);
            cursor = range.end;
        }
    }
    if cursor == 0 {
        return None;
    }
    out.push_str(&value[cursor..]);
    Some(out)
}

/// HTML "parse a srcset attribute" strips a URL's trailing commas, and the URL parser strips
/// its trailing C0 controls: `s,\u{2}` is the URL `s,`, whose resolved form `http://h/s,`
/// would be read as `http://h/s`. The controls the original ended with are written after
/// the resolved URL again, so that the srcset parser keeps its comma and the URL parser
/// drops them, as it did from the original.
fn keep_srcset_url_whole(original: &str, resolved: &mut String) {
    let kept = original.trim_end_matches(|c: char| c <= ' ').len();
    resolved.push_str(&original[kept..]);
}

/// [`rewrite_css`] into new bytes: `None` when nothing changed.
fn rewritten_css(
    css: &[u8],
    held: CssIn,
    encoding: &'static Encoding,
    rewrite: impl FnMut(&str, usize, bool) -> Option<String>,
) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut cursor = 0;
    let replace = |token: Range<usize>, new: &[u8]| {
        out.extend_from_slice(&css[cursor..token.start]);
        out.extend_from_slice(new);
        cursor = token.end;
        Ok(())
    };
    rewrite_css(css, held, encoding, rewrite, replace).expect("bytes gathered in memory");
    if cursor == 0 {
        return None;
    }
    out.extend_from_slice(&css[cursor..]);
    Some(out)
}

/// Rewrites the URLs of CSS bytes in `encoding` by what `rewrite` gives for each decoded
/// URL, in order: `replace` is given the range of each token that changed and its new
/// bytes (an error it returns ends the rewrite). URLs whose bytes are not valid in the
/// charset are left alone. Non-ASCII in a new URL is percent-encoded (as UTF-8, which is
/// how CSS parses URLs) unless the CSS is UTF-8, so the bytes written are valid in any
/// charset.
pub(crate) fn rewrite_css(
    css: &[u8],
    held: CssIn,
    encoding: &'static Encoding,
    mut rewrite: impl FnMut(&str, usize, bool) -> Option<String>,
    mut replace: impl FnMut(Range<usize>, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let ascii_inside = ascii_in_characters(encoding, css);
    let decoded = match held {
        CssIn::Text if ascii_inside || css.contains(&b'&') => DecodedText::decode(css, encoding),
        _ if ascii_inside => DecodedText::decode_charset(css, encoding),
        _ => None,
    };
    if let Some(text) = decoded {
        return rewrite_css_text(&text, held, encoding, rewrite, replace);
    }
    for url in crate::css::urls(css) {
        let Some(text) = encoding.decode_without_bom_handling_and_without_replacement(url.raw(css))
        else {
            // Listed (decoded with replacement characters), never written.
            let (lossy, _) = encoding.decode_without_bom_handling(url.raw(css));
            let _ = rewrite(&crate::css::unescape(&lossy), url.token.start, false);
            continue;
        };
        if held == CssIn::Text && text.contains('&') {
            // Its character references could not be decoded: this token may not be what
            // the CSS parser sees, so it is left as it is.
            continue;
        }
        let Some(new) = rewrite(&crate::css::unescape(&text), url.token.start, true) else {
            continue;
        };
        replace(
            url.token.clone(),
            new_token(&new, url.quote, held, encoding).as_bytes(),
        )?;
    }
    Ok(())
}

/// Whether `css`, in `encoding`, may hold characters whose second byte is an ASCII one
/// (Shift_JIS, Big5, GBK, gb18030: `ソ` is `83 5C` in Shift_JIS, its `5C` a `\\`), which
/// a scan of its bytes would take for CSS syntax (an escape that swallows the quote
/// after it): such CSS is scanned as decoded text. Only CSS with non-ASCII bytes.
fn ascii_in_characters(encoding: &'static Encoding, css: &[u8]) -> bool {
    [
        encoding_rs::SHIFT_JIS,
        encoding_rs::BIG5,
        encoding_rs::GBK,
        encoding_rs::GB18030,
    ]
    .contains(&encoding)
        && !css.is_ascii()
}

/// [`rewrite_css`] for CSS that is scanned as decoded text: the text of an SVG `<style>`
/// holding character references (the CSS the browser parses, HTML §13.2.6.5: not raw
/// text), or CSS in a charset whose characters may hold ASCII bytes
/// ([`ascii_in_characters`]). The URLs are those of the decoded text; each one replaces
/// the raw bytes it came from, the rest passes as it was. A URL whose ends fall inside a
/// reference is listed, never written.
fn rewrite_css_text(
    text: &DecodedText,
    held: CssIn,
    encoding: &'static Encoding,
    mut rewrite: impl FnMut(&str, usize, bool) -> Option<String>,
    mut replace: impl FnMut(Range<usize>, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    // The end of the last URL written.
    let mut cursor = 0;
    for url in crate::css::urls(&text.bytes) {
        let raw = text.raw_range(url.token.clone());
        // (Where its start does not map back: the end of the last URL written.)
        let offset = raw.as_ref().map_or(cursor, |raw| raw.start);
        // Decoded text is UTF-8 but where a UTF-8 document's own bytes are not.
        let Some(decoded) = encoding_rs::UTF_8
            .decode_without_bom_handling_and_without_replacement(url.raw(&text.bytes))
        else {
            let (lossy, _) = encoding_rs::UTF_8.decode_without_bom_handling(url.raw(&text.bytes));
            let _ = rewrite(&crate::css::unescape(&lossy), offset, false);
            continue;
        };
        let new = rewrite(&crate::css::unescape(&decoded), offset, true);
        let (Some(new), Some(raw)) = (new, raw) else {
            continue;
        };
        cursor = raw.end;
        replace(raw, new_token(&new, url.quote, held, encoding).as_bytes())?;
    }
    Ok(())
}

/// The token written for a new URL: CSS-escaped for its quote (CSS Syntax 3 §4.3.5),
/// non-ASCII percent-encoded unless the CSS is UTF-8, and as HTML text (`&` and `<` as
/// character references, HTML §13.1.2.6) where the CSS is held as text.
fn new_token(new: &str, quote: Option<u8>, held: CssIn, encoding: &'static Encoding) -> String {
    let new = if encoding == encoding_rs::UTF_8 {
        Cow::Borrowed(new)
    } else {
        percent_encode_non_ascii(new)
    };
    let mut token = String::new();
    crate::css::write_url(&mut token, &new, quote);
    match held {
        CssIn::Text => token = token.replace('&', "&amp;").replace('<', "&lt;"),
        CssIn::RawText if token.contains('<') => token = token.replace('<', "\\3c "),
        _ => {}
    }
    token
}

/// Non-ASCII characters as `%XX` of their UTF-8 bytes.
fn percent_encode_non_ascii(url: &str) -> Cow<'_, str> {
    if url.is_ascii() {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() * 3);
    for c in url.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    Cow::Owned(out)
}

/// Text in the document charset; characters it cannot hold become `&#N;` references,
/// which is what they mean inside an attribute value.
fn encode<'a>(text: &'a str, encoding: &'static Encoding) -> Cow<'a, [u8]> {
    if encoding == encoding_rs::UTF_8 {
        return Cow::Borrowed(text.as_bytes());
    }
    encoding.encode(text).0
}
