//! The HTML rewriter: makes every URL-bearing attribute and CSS URL of a page absolute,
//! streaming, with every byte outside a changed value passed through unchanged.
//!
//! The base of the document (RFC 1808 §3) is, innermost first: its first `<base href>`
//! (§3.1, outside `<template>` and foreign content, itself resolved against the next
//! outer base); then the outer base the caller gives ([`Base`]: the encapsulating entity's
//! (§3.2), the retrieval URL (§3.3), or none (§3.4)). As in browsers, the `<base>` applies
//! to the URLs before it too: output is held back until it is known, up to
//! [`Options::base_lookahead`] bytes, or the caller finds it first with [`scan_base`].
//!
//! Three entry points:
//! - [`Rewriter`]: streaming, `write(chunk)` then `end()`, for a crawler or a pipe;
//! - [`rewrite`]: a whole document in memory;
//! - [`links`]: the URLs of a document, each with its resolved form and base.

pub mod attributes;
pub mod charset;
mod css_text;
mod document;
pub(crate) mod emit;
mod names;
pub(crate) mod transcode;
pub mod values;

use crate::base::Base;
use crate::links::Link;
pub use crate::sink::{Collected, Sink};
use crate::url::Standard;
use document::{BaseState, Document, Region};
pub use encoding_rs::Encoding;
use lol_html::send::{HtmlRewriter, Settings};
use lol_html::{AsciiCompatibleEncoding, MemorySettings, OutputSink};
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A caller's test on a reference as written (decoded, trimmed): `true` keeps it as it
/// is. See [`Options::keep_reference`].
pub type KeepReference = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// How a document is rewritten. Start from [`Options::default`] and set what differs.
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{rewrite, Options};
/// use absolve::Standard;
///
/// let options = Options {
///     standard: Standard::Rfc3986,
///     resolve_fragments: true,
///     ..Options::default()
/// };
/// let base = Base::retrieval_url("http://h/a/b").unwrap();
/// let out = rewrite(b"<a href='#top'>", &base, &options).output;
/// assert_eq!(out, b"<a href='http://h/a/b#top'>");
/// ```
#[derive(Clone)]
pub struct Options {
    /// The standard references are resolved by (default: RFC 1808).
    pub standard: Standard,
    /// Resolve fragment-only references (`#x`) as RFC 1808 §5 does, instead of leaving
    /// them as same-document references. Never in SVG/MathML `href` or CSS `url(#x)`.
    pub resolve_fragments: bool,
    /// The charset given by the transport or the caller; a BOM wins over it, and it wins
    /// over `<meta charset>`. `None`: `<meta charset>`, else UTF-8.
    pub charset: Option<&'static Encoding>,
    /// How many bytes are held back, at most, waiting for a `<base href>` before the outer
    /// base is used with a warning (default 1 MiB).
    pub base_lookahead: usize,
    /// The most bytes buffered for one tag or one `<style>`/`<noscript>` text
    /// (default 16 MiB); past it the rest passes through unchanged, with a warning.
    pub max_buffer: usize,
    /// Asked for every reference that would resolve, as written (decoded, trimmed): when
    /// it returns `true` the value is left exactly as it is and its [`Link`] says
    /// [`Kept::Local`](crate::links::Kept::Local). `None` (the default) keeps nothing.
    ///
    /// ```
    /// use absolve::base::Base;
    /// use absolve::html::{rewrite_and_list, Options};
    /// use absolve::links::Kept;
    /// use std::sync::Arc;
    ///
    /// let options = Options {
    ///     keep_reference: Some(Arc::new(|r: &str| r.starts_with("local/"))),
    ///     ..Options::default()
    /// };
    /// let base = Base::retrieval_url("http://h/").unwrap();
    /// let done = rewrite_and_list(b"<a href=local/x><a href=y>", &base, &options);
    /// assert_eq!(done.output, b"<a href=local/x><a href=http://h/y>");
    /// assert_eq!((done.links[0].kept, done.links[1].kept), (Some(Kept::Local), None));
    /// ```
    pub keep_reference: Option<KeepReference>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("standard", &self.standard)
            .field("resolve_fragments", &self.resolve_fragments)
            .field("charset", &self.charset)
            .field("base_lookahead", &self.base_lookahead)
            .field("max_buffer", &self.max_buffer)
            .field(
                "keep_reference",
                &self.keep_reference.as_ref().map(|_| "Fn"),
            )
            .finish()
    }
}

/// The default [`Options::base_lookahead`]: 1 MiB.
pub const DEFAULT_BASE_LOOKAHEAD: usize = 1 << 20;
/// The default [`Options::max_buffer`]: 16 MiB.
pub const DEFAULT_MAX_BUFFER: usize = 16 << 20;

impl Options {
    /// The charset of an HTTP or MIME `Content-Type` value (`text/html; charset=...`)
    /// as the transport charset: set when the value names a known charset, unchanged
    /// otherwise. One call where a crawler has the header.
    ///
    /// ```
    /// use absolve::html::{Encoding, Options};
    ///
    /// let options = Options::default().with_content_type("text/html; charset=Shift_JIS");
    /// assert_eq!(options.charset, Encoding::for_label(b"shift_jis"));
    /// let unknown = Options::default().with_content_type("text/html; charset=x-klingon");
    /// assert_eq!(unknown.charset, None);
    /// ```
    pub fn with_content_type(mut self, content_type: &str) -> Self {
        if let Some(encoding) =
            charset::from_content_type(content_type).and_then(|label| charset::from_label(&label))
        {
            self.charset = Some(encoding);
        }
        self
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            standard: Standard::Rfc1808,
            resolve_fragments: false,
            charset: None,
            base_lookahead: DEFAULT_BASE_LOOKAHEAD,
            max_buffer: DEFAULT_MAX_BUFFER,
            keep_reference: None,
        }
    }
}

/// Something that went wrong in a document without stopping the rewrite.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// No `<base href>` within the lookahead: the outer base was used.
    #[error("no <base href> in the first {0} bytes: URLs are resolved against the outer base")]
    BaseLookaheadExceeded(usize),
    /// A `<base href>` came after the lookahead had run out.
    #[error("<base href> at byte {0} came after the lookahead ran out: it was not used")]
    LateBase(u64),
    /// The `<base href>` gave no usable absolute URL.
    #[error("<base href={0:?}> gives no usable absolute URL: the outer base is used")]
    UnusableBase(String),
    /// A value's bytes are not valid in the document charset.
    #[error("the value at byte {0} is not valid {1}: left unchanged")]
    Undecodable(u64, &'static str),
    /// A reference the URL Standard rejects (`--spec whatwg`): left as it is.
    #[error(
        "the URL {reference:?} at byte {offset} is not a URL by the URL Standard ({reason}): left as it is"
    )]
    Unparsable {
        /// The byte offset of the value.
        offset: u64,
        /// The reference as written.
        reference: String,
        /// What the URL parser said.
        reason: String,
    },
    /// The document's charset is the replacement encoding (labels such as `iso-2022-kr`),
    /// which decodes any document to one U+FFFD. (UTF-16 and ISO-2022-JP, which lol_html
    /// cannot parse either, are read through UTF-8.)
    #[error("documents in {0} are not supported: passed through unchanged")]
    UnsupportedCharset(&'static str),
    /// The HTML parser gave up (for example a tag larger than the buffer limit).
    #[error(
        "the HTML parser stopped at byte {offset} ({reason}): the rest passed through unchanged"
    )]
    ParserStopped {
        /// The byte offset where it stopped.
        offset: u64,
        /// What lol_html said.
        reason: String,
    },
    /// A `<style>` or `<noscript>` text larger than the buffer limit.
    #[error(
        "the <style>/<noscript> text at byte {0} is larger than the buffer limit: passed through unchanged"
    )]
    RegionTooLarge(u64),
    /// An SVG `<style>` whose text holds `</`: in foreign content that begins an end tag
    /// (or a bogus comment), not text, so the bytes are not one run of CSS.
    #[error(
        "the SVG <style> text at byte {0} holds \"</\", which is markup there, not CSS: left as it is, its URLs not read"
    )]
    MarkupInSvgStyle(u64),
    /// A reference in a comma-separated list (`<applet archive>`) that resolves to a URL
    /// with a comma (from its base): written, it would be two URLs on the next reading.
    #[error(
        "the URL {reference:?} at byte {offset} resolves to one with a comma, which the comma-separated list cannot hold: left as it is"
    )]
    CommaInListUrl {
        /// The byte offset of the value.
        offset: u64,
        /// The reference as written.
        reference: String,
    },
}

impl Warning {
    /// The same warning for a fragment that starts at `shift` in the outer document.
    pub(crate) fn shifted(self, shift: u64) -> Self {
        self.with_offsets(|at| at + shift)
    }

    /// The same warning with each byte offset `at` made `offset(at)`.
    pub(crate) fn with_offsets(self, offset: impl Fn(u64) -> u64) -> Self {
        match self {
            Warning::LateBase(at) => Warning::LateBase(offset(at)),
            Warning::Undecodable(at, charset) => Warning::Undecodable(offset(at), charset),
            Warning::ParserStopped { offset: at, reason } => Warning::ParserStopped {
                offset: offset(at),
                reason,
            },
            Warning::RegionTooLarge(at) => Warning::RegionTooLarge(offset(at)),
            Warning::MarkupInSvgStyle(at) => Warning::MarkupInSvgStyle(offset(at)),
            Warning::CommaInListUrl {
                offset: at,
                reference,
            } => Warning::CommaInListUrl {
                offset: offset(at),
                reference,
            },
            Warning::Unparsable {
                offset: at,
                reference,
                reason,
            } => Warning::Unparsable {
                offset: offset(at),
                reference,
                reason,
            },
            other => other,
        }
    }
}

/// Rewrites a whole document in memory: the output and the warnings (its `links` stay
/// empty, which is faster: [`rewrite_and_list`] gives them too).
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{rewrite, Options};
///
/// let page = b"<a  href='../x?a=1&amp;b=2'>x</a>\n<img\tsrc=y.png alt=''>";
/// let base = Base::retrieval_url("http://h/d/p.html").unwrap();
/// let out = rewrite(page, &base, &Options::default());
/// assert_eq!(
///     out.output,
///     b"<a  href='http://h/x?a=1&amp;b=2'>x</a>\n<img\tsrc=http://h/d/y.png alt=''>"
/// );
/// ```
pub fn rewrite(document: &[u8], outer: &Base, options: &Options) -> Collected {
    rewrite_in_memory(document, outer, options, Collected::output_only())
}

/// Rewrites a whole document in memory and lists its links, in one pass.
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{rewrite_and_list, Options};
///
/// let base = Base::retrieval_url("http://h/").unwrap();
/// let done = rewrite_and_list(b"<a href=x>", &base, &Options::default());
/// assert_eq!((done.output.as_slice(), done.links[0].resolved.as_str()), (&b"<a href=http://h/x>"[..], "http://h/x"));
/// ```
pub fn rewrite_and_list(document: &[u8], outer: &Base, options: &Options) -> Collected {
    rewrite_in_memory(document, outer, options, Collected::default())
}

/// Lists the links of a whole document in memory, and its warnings (its `output` stays
/// empty: the rewritten bytes are not built).
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{list, Options};
///
/// let base = Base::retrieval_url("http://h/").unwrap();
/// let found = list(b"<a href=x>", &base, &Options::default());
/// assert_eq!((found.links[0].resolved.as_str(), found.output.len()), ("http://h/x", 0));
/// ```
pub fn list(document: &[u8], outer: &Base, options: &Options) -> Collected {
    rewrite_in_memory(document, outer, options, Collected::links_only())
}

/// Runs a whole document in memory into `collected` (which says what it keeps), its
/// `<base href>` found wherever it is.
fn rewrite_in_memory(
    document: &[u8],
    outer: &Base,
    options: &Options,
    mut collected: Collected,
) -> Collected {
    if collected.keep_output {
        collected.output = Vec::with_capacity(document.len() + document.len() / 8);
    }
    let options = Options {
        base_lookahead: usize::MAX,
        ..options.clone()
    };
    let mut rewriter = if may_have_base_element(document) {
        Rewriter::new(outer, &options, collected)
    } else {
        Rewriter::with_document_base(outer, outer, &options, collected)
    };
    // Writing to memory cannot fail. Chunks keep the parser's working set in cache.
    for chunk in document.chunks(64 * 1024) {
        let _ = rewriter.write(chunk);
    }
    rewriter.end().unwrap_or_default()
}

/// The URLs of a whole document, in order, each with its resolved form and base.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::html::{links, Options};
///
/// let page = br#"<img srcset="a.png 1x, b.png 2x"><base href="/s/">"#;
/// let base = Base::retrieval_url("http://h/d/p.html").unwrap();
/// let found = links(page, &base, &Options::default());
/// let resolved: Vec<_> = found.iter().map(|l| l.resolved.as_str()).collect();
/// assert_eq!(resolved, ["http://h/s/a.png", "http://h/s/b.png", "http://h/s/"]);
/// assert_eq!(found[0].base_from, BaseSource::BaseElement);
/// ```
pub fn links(document: &[u8], outer: &Base, options: &Options) -> Vec<Link> {
    list(document, outer, options).links
}

/// Reads a document to find its base (its first usable `<base href>` resolved against
/// `outer`, else `outer`), without keeping more than the parser's buffers: the first pass
/// over a file that lets [`Rewriter::with_document_base`] stream without holding back.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::html::{scan_base, Options};
///
/// let page: &[u8] = b"<p>text</p><template><base href=/t/></template><base href=/b/>";
/// let base = scan_base(page, &Base::retrieval_url("http://h/").unwrap(), &Options::default()).unwrap();
/// assert_eq!((base.url(), base.source()), (Some("http://h/b/"), BaseSource::BaseElement));
/// ```
pub fn scan_base(mut reader: impl Read, outer: &Base, options: &Options) -> io::Result<Base> {
    let options = Options {
        base_lookahead: usize::MAX,
        ..options.clone()
    };
    let mut scanner = Rewriter::new(outer, &options, Discard);
    scanner.scan_only = true;
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        scanner.write(&buf[..n])?;
        if let Some(base) = scanner.known_base() {
            return Ok(base);
        }
    }
    Ok(outer.clone())
}

/// Rewrites the `url()` and `@import` values of CSS text (a stylesheet, in `encoding`)
/// against `base`, reporting each URL; the new text, or `None` when nothing changed.
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{rewrite_css_text, Options};
///
/// let base = Base::retrieval_url("http://h/css/site.css").unwrap();
/// let mut found = Vec::new();
/// let out = rewrite_css_text(b"a{b:url(../i.png)}", encoding_rs::UTF_8, &base, &Options::default(), |l| found.push(l));
/// assert_eq!(out.unwrap(), b"a{b:url(http://h/i.png)}");
/// assert_eq!(found[0].offset, 8);
/// ```
pub fn rewrite_css_text(
    css: &[u8],
    encoding: &'static Encoding,
    base: &Base,
    options: &Options,
    on_link: impl FnMut(Link),
) -> Option<Vec<u8>> {
    emit::rewrite_css_reporting(css, encoding, base, options, on_link, drop)
}

/// Whether `document` could hold a `<base>` element at all: a byte scan for `<base`
/// (any case). When it cannot, the document base is the outer base without parsing, and
/// nothing needs holding back. Every ASCII-compatible charset spells `<base` the same way.
///
/// ```
/// assert!(absolve::html::may_have_base_element(b"<p><BASE href=x>"));
/// assert!(absolve::html::may_have_base_element(b"<p><bAsE href=x>"));
/// assert!(!absolve::html::may_have_base_element(b"<p><a href=based.html>"));
/// assert!(!absolve::html::may_have_base_element(b"<br><b>bas</b><B"));
/// ```
pub fn may_have_base_element(document: &[u8]) -> bool {
    // `<b` and `<B` are found by memchr's SIMD pair search (far rarer than `<` alone, which
    // cost a call per tag), then `ase` is compared in any case.
    [b"<b", b"<B"].iter().any(|start| {
        memchr::memmem::find_iter(document, start).any(|i| {
            document
                .get(i + 2..i + 5)
                .is_some_and(|rest| rest.eq_ignore_ascii_case(b"ase"))
        })
    })
}

/// The document state, shared by the rewriter and lol_html's handlers. Only one thread
/// holds a rewriter at a time, so the lock is never contended; a handler that panicked
/// cannot leave it half-changed in a way that matters more than the panic itself.
fn lock(doc: &Mutex<Document>) -> MutexGuard<'_, Document> {
    doc.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A sink that keeps nothing.
struct Discard;

impl Sink for Discard {
    fn output(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn wants_links(&self) -> bool {
        false
    }
    fn wants_output(&self) -> bool {
        false
    }
}

/// Counts the bytes lol_html writes: its output is its input, since nothing is changed
/// through it, so the count is how far the document is settled.
struct Settled(Arc<AtomicU64>);

impl OutputSink for Settled {
    fn handle_chunk(&mut self, chunk: &[u8]) {
        self.0.fetch_add(chunk.len() as u64, Ordering::Relaxed);
    }
}

enum Parser {
    /// Waiting for the first bytes (a BOM needs three).
    NotStarted,
    Running(Box<HtmlRewriter<'static, Settled>>),
    /// The rest of the input passes through as it is.
    Stopped,
    /// The document's charset is not ASCII-compatible: read through UTF-8.
    Transcoding(Box<transcode::Transcoder>),
}

/// The streaming rewriter: feed it chunks with [`write`](Self::write), finish with
/// [`end`](Self::end); the rewritten bytes, links and warnings go to the [`Sink`].
///
/// It is `Send` when its sink is, so an async server can hold it across an `.await`
/// (`examples/stream_response.rs`).
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{Collected, Options, Rewriter};
///
/// let base = Base::retrieval_url("http://h/a/").unwrap();
/// let mut rewriter = Rewriter::new(&base, &Options::default(), Collected::default());
/// for chunk in [&b"<link rel=icon hr"[..], b"ef=\"f.ico\"><p style='background:url(b.png)'>"] {
///     rewriter.write(chunk).unwrap();
/// }
/// let done = rewriter.end().unwrap();
/// assert_eq!(
///     String::from_utf8(done.output).unwrap(),
///     "<link rel=icon href=\"http://h/a/f.ico\"><p style='background:url(http://h/a/b.png)'>"
/// );
/// ```
pub struct Rewriter<S: Sink> {
    parser: Parser,
    doc: Arc<Mutex<Document>>,
    settled: Arc<AtomicU64>,
    read: u64,
    /// Only looking for the base ([`scan_base`]): nothing is recorded or written.
    scan_only: bool,
    sink: S,
}

impl<S: Sink> Rewriter<S> {
    /// A rewriter that finds the document base as it reads, holding output back until it
    /// is known (at most [`Options::base_lookahead`] bytes).
    /// `outer` and `options` are taken by reference, as [`rewrite`] takes them.
    pub fn new(outer: &Base, options: &Options, sink: S) -> Self {
        Self::with_state(
            Document::new(outer.clone(), BaseState::Pending, options.clone()),
            sink,
        )
    }

    /// A rewriter whose document base is already known (from [`scan_base`], or a fragment
    /// of a document), so that it holds nothing back.
    pub fn with_document_base(
        outer: &Base,
        document_base: &Base,
        options: &Options,
        sink: S,
    ) -> Self {
        Self::with_state(
            Document::new(
                outer.clone(),
                BaseState::Known(document_base.clone()),
                options.clone(),
            ),
            sink,
        )
    }

    fn with_state(mut doc: Document, sink: S) -> Self {
        doc.wants_links = sink.wants_links();
        Rewriter {
            parser: Parser::NotStarted,
            doc: Arc::new(Mutex::new(doc)),
            settled: Arc::new(AtomicU64::new(0)),
            read: 0,
            scan_only: false,
            sink,
        }
    }

    /// Makes room for `additional` more bytes of input held at once (a caller that knows
    /// the document's size), so that the held bytes are not copied as they grow.
    pub(crate) fn reserve(&mut self, additional: usize) {
        lock(&self.doc).pending.reserve(additional);
    }

    /// Feeds the next chunk of the document; writes out what is settled.
    pub fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        if let Parser::Transcoding(transcoder) = &mut self.parser {
            return transcoder.write(chunk, &mut self.sink);
        }
        lock(&self.doc).pending.extend_from_slice(chunk);
        self.read += chunk.len() as u64;
        match &mut self.parser {
            Parser::NotStarted if self.read < 3 => return Ok(()),
            // The usual first chunk is all that was read: lol_html is given it, not a
            // copy of the bytes held.
            Parser::NotStarted if self.read == chunk.len() as u64 => self.start(Some(chunk)),
            Parser::NotStarted => self.start(None),
            Parser::Running(parser) => {
                if let Err(error) = parser.write(chunk) {
                    self.parser_failed(error);
                }
            }
            Parser::Stopped | Parser::Transcoding(_) => {}
        }
        self.stop_if_unsettled_beyond_buffer();
        self.refuse_after_unsupported_meta();
        if let Parser::Transcoding(transcoder) = &mut self.parser {
            return transcoder.write(&[], &mut self.sink);
        }
        self.flush_settled(false)
    }

    /// Ends the document: writes out everything left and returns the sink.
    pub fn end(mut self) -> io::Result<S> {
        if matches!(self.parser, Parser::NotStarted) {
            self.start(None);
        }
        self.refuse_after_unsupported_meta();
        if let Parser::Transcoding(transcoder) =
            std::mem::replace(&mut self.parser, Parser::Stopped)
        {
            transcoder.end(&mut self.sink)?;
            return Ok(self.sink);
        }
        if let Parser::Running(parser) = std::mem::replace(&mut self.parser, Parser::Stopped)
            && let Err(error) = parser.end()
        {
            self.stop(error.to_string());
        }
        self.refuse_after_unsupported_meta();
        lock(&self.doc).close_region(self.read);
        self.flush_settled(true)?;
        Ok(self.sink)
    }

    /// Chooses the charset (BOM, caller, else UTF-8 with `<meta charset>`) and starts the
    /// parser on the bytes read so far (`read`, if the caller has them at hand).
    fn start(&mut self, read: Option<&[u8]>) {
        let (encoding, fixed) = {
            let doc = lock(&self.doc);
            match charset::sniff_bom(&doc.pending) {
                Some((encoding, _)) => (encoding, true),
                None => (doc.encoding, doc.encoding_fixed),
            }
        };
        {
            let mut doc = lock(&self.doc);
            doc.encoding = encoding;
            doc.encoding_fixed = fixed;
        }
        if transcode::is_transcoded(encoding) {
            return self.transcode_from_start(encoding);
        }
        if AsciiCompatibleEncoding::new(encoding).is_none() {
            lock(&self.doc)
                .warnings
                .push(Warning::UnsupportedCharset(encoding.name()));
            self.parser = Parser::Stopped;
            self.settle_base_on_outer();
            return;
        }
        self.run_parser_from(0, read);
    }

    /// Starts lol_html at absolute offset `from` (the start of the document, or a
    /// restart point) and feeds it the bytes read from there: `read`, if the caller has
    /// them at hand, else a copy of those held (the handlers use the bytes held as
    /// lol_html parses).
    fn run_parser_from(&mut self, mut from: u64, mut read: Option<&[u8]>) {
        loop {
            let (settings, copied) = {
                let mut doc = lock(&self.doc);
                doc.origin = from;
                doc.elements_since_start = 0;
                doc.restart_at = None;
                let encoding = AsciiCompatibleEncoding::new(doc.encoding)
                    .expect("only ASCII-compatible charsets are parsed");
                let memory =
                    MemorySettings::new().with_max_allowed_memory_usage(doc.options.max_buffer);
                let settings = Settings::new_send()
                    .with_strict(false)
                    .with_encoding(encoding)
                    .with_adjust_charset_on_meta_tag(!doc.encoding_fixed)
                    .with_memory_settings(memory)
                    .append_element_content_handler(self.element_handler())
                    .append_document_content_handler(self.comment_handler());
                let copied = match read {
                    Some(_) => Vec::new(),
                    None => doc.pending[(from - doc.pending_start) as usize..].to_vec(),
                };
                (settings, copied)
            };
            let bytes = read.take().unwrap_or(&copied);
            self.settled.store(from, Ordering::Relaxed);
            let mut parser = HtmlRewriter::new(settings, Settled(Arc::clone(&self.settled)));
            let result = parser.write(bytes);
            self.parser = Parser::Running(Box::new(parser));
            match result {
                Ok(()) => return,
                Err(error) => {
                    let restart = lock(&self.doc).restart_at.take();
                    match restart {
                        Some(at) => from = at,
                        None => return self.stop(error.to_string()),
                    }
                }
            }
        }
    }

    /// lol_html returned an error: a restart the element handler asked for, or the end.
    fn parser_failed(&mut self, error: lol_html::errors::RewritingError) {
        let restart = lock(&self.doc).restart_at.take();
        match restart {
            Some(at) => self.run_parser_from(at, None),
            None => self.stop(error.to_string()),
        }
    }

    /// The handler lol_html calls for every element.
    fn element_handler(
        &self,
    ) -> (
        std::borrow::Cow<'static, lol_html::Selector>,
        lol_html::send::ElementContentHandlers<'static>,
    ) {
        let doc = Arc::clone(&self.doc);
        let scan_only = self.scan_only;
        lol_html::element!("*", move |el| {
            let mut doc_ref = lock(&doc);
            let effects = doc_ref.element(el);
            if doc_ref.restart_at.is_some() {
                // Stops this parser before the element: a new one starts at it.
                return Err(Box::new(document::RestartParser));
            }
            let tag_end = doc_ref.absolute(el.source_location().bytes()).end;
            match el.end_tag_handlers() {
                Some(handlers) => {
                    if let Some(region) = effects.region.filter(|_| !scan_only) {
                        let svg = region == Region::SvgStyle;
                        doc_ref.svg_styles_open += usize::from(svg);
                        handlers.push(on_end_tag(&doc, move |doc, end_tag| {
                            doc.close_region(end_tag.start);
                            doc.svg_styles_open -= usize::from(svg && doc.svg_styles_open > 0);
                        }));
                    }
                    if effects.resumes_svg_style {
                        handlers.push(on_end_tag(&doc, |doc, end_tag| {
                            doc.resume_svg_style(end_tag.end);
                        }));
                    }
                    if effects.closes_template {
                        handlers.push(on_end_tag(&doc, |doc, _| {
                            doc.template_depth = doc.template_depth.saturating_sub(1);
                        }));
                    }
                    if let Some(namespace) = effects.opens_foreign {
                        *doc_ref.foreign_depth(namespace) += 1;
                        handlers.push(on_end_tag(&doc, move |doc, _| {
                            let depth = doc.foreign_depth(namespace);
                            *depth = depth.saturating_sub(1);
                        }));
                    }
                }
                None => {
                    // A self-closing (foreign) element: it has no content and no end tag.
                    if effects.region.is_some() {
                        doc_ref.open_region = None;
                    }
                    if effects.resumes_svg_style {
                        doc_ref.resume_svg_style(tag_end);
                    }
                }
            }
            if scan_only {
                // Only the base matters: nothing is kept for writing.
                doc_ref.edits.clear();
                doc_ref.open_region = None;
            }
            Ok(())
        })
    }

    /// The handler lol_html calls for every comment: a comment inside an SVG `<style>` is
    /// no part of its CSS (see [`Document::comment`]).
    ///
    /// While a comment handler is registered, lol_html also stays in its lexer. Without
    /// one it scans for tags and, at each start tag a selector may match, boxes a bookmark
    /// and lexes the tag again from its start; with the `*` selector every tag matches, so
    /// every tag was scanned, then lexed, and two boxes made (a third of the allocations
    /// of a page, ~5% of the instructions of `links`).
    fn comment_handler(&self) -> lol_html::send::DocumentContentHandlers<'static> {
        let doc = Arc::clone(&self.doc);
        lol_html::doc_comments!(move |comment| {
            let mut doc = lock(&doc);
            let range = doc.absolute(comment.source_location().bytes());
            doc.comment(range);
            Ok(())
        })
    }

    /// Bounded memory: if the parser holds more than [`Options::max_buffer`] bytes
    /// unsettled (one enormous tag), it is stopped and the rest passes through.
    fn stop_if_unsettled_beyond_buffer(&mut self) {
        let max_buffer = lock(&self.doc).options.max_buffer as u64;
        let unsettled = self.read - self.settled.load(Ordering::Relaxed);
        if matches!(self.parser, Parser::Running(_)) && unsettled > max_buffer {
            self.stop(format!("more than {max_buffer} bytes in one token"));
        }
    }

    /// A `<meta>` named a charset that is not ASCII-compatible: ISO-2022-JP rereads the
    /// document from its start through UTF-8 if nothing is written yet; otherwise (and
    /// for the replacement encoding) what follows it passes through unchanged, with the
    /// warning `--charset` gives for it.
    fn refuse_after_unsupported_meta(&mut self) {
        let Some(encoding) = lock(&self.doc).refused_charset else {
            return;
        };
        if matches!(self.parser, Parser::Stopped | Parser::Transcoding(_)) {
            return;
        }
        // Nothing written yet (a `<meta charset>` is in the first 1024 bytes, HTML
        // §13.2.3.2): the document is read again from its start in its charset.
        if transcode::is_transcoded(encoding) && lock(&self.doc).pending_start == 0 {
            return self.transcode_from_start(encoding);
        }
        self.parser = Parser::Stopped;
        let mut doc = lock(&self.doc);
        doc.warnings
            .push(Warning::UnsupportedCharset(document::charset_name(
                encoding,
            )));
        doc.open_region = None;
        drop(doc);
        self.settle_base_on_outer();
    }

    /// Reads the document from its start in `encoding`, which is not ASCII-compatible,
    /// through UTF-8 ([`transcode`]): a rewriter over the decoded text, in the state
    /// this one started in, is given every byte held so far.
    fn transcode_from_start(&mut self, encoding: &'static Encoding) {
        let (inner, held) = {
            let mut doc = lock(&self.doc);
            let options = Options {
                charset: Some(encoding_rs::UTF_8),
                ..doc.options.clone()
            };
            let events = transcode::Events::like(&self.sink);
            let mut inner = match &doc.base {
                BaseState::Known(base) => {
                    Rewriter::with_document_base(&doc.outer, base, &options, events)
                }
                BaseState::Pending => Rewriter::new(&doc.outer, &options, events),
            };
            inner.scan_only = self.scan_only;
            {
                let mut inner_doc = lock(&inner.doc);
                inner_doc.srcdoc_depth = doc.srcdoc_depth;
                // URL Standard §4.4: a UTF-16 page's URLs are encoded in UTF-8.
                inner_doc.url_encoding = Some(encoding.output_encoding());
            }
            doc.edits.clear();
            doc.warnings.clear();
            doc.refused_charset = None;
            (inner, std::mem::take(&mut doc.pending))
        };
        self.parser =
            Parser::Transcoding(Box::new(transcode::Transcoder::new(encoding, inner, held)));
    }

    /// The document base, once known.
    fn known_base(&self) -> Option<Base> {
        let doc = match &self.parser {
            Parser::Transcoding(transcoder) => lock(&transcoder.inner.doc),
            _ => lock(&self.doc),
        };
        match &doc.base {
            BaseState::Known(base) => Some(base.clone()),
            BaseState::Pending => None,
        }
    }

    /// The parser gave up: everything from here passes through as it is.
    fn stop(&mut self, reason: String) {
        self.parser = Parser::Stopped;
        let offset = self.settled.load(Ordering::Relaxed);
        let mut doc = lock(&self.doc);
        doc.warnings.push(Warning::ParserStopped { offset, reason });
        doc.open_region = None;
        drop(doc);
        self.settle_base_on_outer();
    }

    /// No `<base href>` will count any more: the outer base is the document base.
    fn settle_base_on_outer(&mut self) {
        let mut doc = lock(&self.doc);
        if matches!(doc.base, BaseState::Pending) {
            doc.base = BaseState::Known(doc.outer.clone());
        }
    }

    /// Writes out what is settled: up to what lol_html has passed, but not into an open
    /// `<style>`/`<noscript>` text, and nothing while the base is still unknown.
    fn flush_settled(&mut self, ending: bool) -> io::Result<()> {
        let stopped = matches!(self.parser, Parser::Stopped);
        let mut limit = if ending || stopped {
            self.read
        } else {
            self.settled.load(Ordering::Relaxed)
        };
        let mut doc = lock(&self.doc);
        if self.scan_only {
            let settled = (limit - doc.pending_start) as usize;
            doc.pending.drain(..settled);
            doc.pending_start = limit;
            return Ok(());
        }
        if matches!(doc.base, BaseState::Pending) {
            let lookahead = doc.options.base_lookahead;
            if ending || stopped {
                doc.base = BaseState::Known(doc.outer.clone());
            } else if doc.pending.len() > lookahead {
                doc.warnings.push(Warning::BaseLookaheadExceeded(lookahead));
                doc.base = BaseState::Known(doc.outer.clone());
                doc.base_by_lookahead = true;
            } else {
                limit = doc.pending_start;
            }
        }
        if let Some((start, _)) = doc.open_region {
            if self.read - start > doc.options.max_buffer as u64 {
                doc.warnings.push(Warning::RegionTooLarge(start));
                doc.open_region = None;
            } else {
                limit = limit.min(start);
            }
        }
        emit::flush(&mut doc, limit, &mut self.sink)?;
        for warning in doc.warnings.drain(..) {
            self.sink.warning(warning.into());
        }
        Ok(())
    }
}

/// An end tag handler that runs `f` on the document with the end tag's absolute range.
fn on_end_tag(
    doc: &Arc<Mutex<Document>>,
    f: impl FnOnce(&mut Document, std::ops::Range<u64>) + Send + 'static,
) -> lol_html::send::EndTagHandler<'static> {
    let doc = Arc::clone(doc);
    Box::new(move |end| {
        let mut doc = lock(&doc);
        let range = doc.absolute(end.source_location().bytes());
        f(&mut doc, range);
        Ok(())
    })
}
