//! Feeds: Atom 1.0 and 0.3, RSS 0.9x, 2.0 and 1.0, with W3C XML Base.
//!
//! A feed carries its own base, element by element: each element's base is its
//! `xml:base` resolved against its parent's base (XML Base §4.2,
//! <https://www.w3.org/TR/xmlbase/#resolution>), the RFC 1808 §3.1 "base within the
//! document" of XML; the outermost base is the document's, which the caller gives (§3.2:
//! the enclosing MIME part or WARC record, §3.3: the retrieval URL, §3.4: none).
//!
//! What is rewritten:
//! - the feed's own URLs ([`vocabulary`]: Atom `link/@href`, `content/@src`, `icon`,
//!   `logo`, person `uri`, `generator/@uri`; RSS `link`, `comments`, `docs`,
//!   `enclosure/@url`, `source/@url`, `image/url`; `wfw:`, `media:`, `itunes:` ones, and
//!   the `href` of an `xml-stylesheet` instruction in the prolog, against the document's
//!   base), spliced into the original bytes: every byte outside a changed URL passes through
//!   unchanged, and rewriting twice changes nothing;
//! - the HTML inside (Atom text constructs of `type="html"` or `"xhtml"`, RSS
//!   `description`, `content:encoded`, `xhtml:body`, an unprefixed `body` or a
//!   `fullitem` of an item or channel), by the HTML rewriter with the
//!   element's base, written back in the form it came in: escaped text stays escaped,
//!   CDATA stays CDATA, inline XHTML stays inline;
//! - the HTML of Atom 0.3 base64 content (`mode="base64"`, draft-nottingham-atom-format-02
//!   §3.1.2, of an HTML or XHTML `type`): decoded, rewritten the same way, and encoded
//!   again in the original's layout (line width, line ending, indentation).
//!
//! The charset is the BOM's, else the transport's (the `charset` parameter), else the
//! XML declaration's `encoding`, else UTF-8; a charset that is not ASCII-compatible
//! (UTF-16) passes the feed through with a warning. No entity but XML's five and
//! character references is ever expanded, and no DTD is fetched.
//!
//! Entry points:
//! - [`Rewriter`]: streaming, `write(chunk)` then `end()`, into a [`Sink`](crate::Sink);
//! - [`rewrite`] and [`links`]: a whole feed in memory;
//! - [`is_feed`]: telling a feed from other XML by its first bytes.
//!
//! Links are reported as HTML links are: `element` the XML element's local name (or the
//! HTML element for a URL in HTML content), `attribute` the attribute or `None` for the
//! element's text, `offset` the value's byte offset in the feed (for escaped or CDATA
//! HTML content, the offset of the content's first byte), `base_from` `xml-base` under
//! an `xml:base`.

mod content;
mod detect;
mod doctype;
mod escape;
mod namespaces;
mod rewriter;
pub mod vocabulary;
mod xhtml;

pub(crate) use detect::is_feed_or_svg;
pub use detect::{SNIFF_LIMIT, ends_in_prolog, is_feed, is_svg};
pub use rewriter::Rewriter;

use crate::base::Base;
use crate::html::{Collected, Options};
use encoding_rs::Encoding;

/// How deep elements may nest: deeper, the rest of the feed passes through unchanged
/// with [`Warning::TooDeep`] (the stack of bases stays bounded).
pub const MAX_DEPTH: usize = 1024;

/// The most bytes held at once for one token (a tag, a comment, a CDATA section) or the
/// content of one element whose text is a URL or HTML: 4 MiB, or
/// [`Options::max_buffer`] if that is smaller. A larger content passes through unchanged
/// with [`Warning::ContentTooLarge`]; a larger token ends the rewrite there
/// ([`Warning::TokenTooLarge`]: the rest passes through unchanged).
pub const MAX_HELD: usize = 4 << 20;

/// The most bytes the open elements keep at once (their names, namespace declarations
/// and `xml:base` URLs): 1 MiB. Past it the rest of the feed passes through unchanged
/// with [`Warning::ScopeTooLarge`].
pub const MAX_SCOPE_BYTES: usize = 1 << 20;

/// A problem in a feed; the rewrite goes on (or passes the rest through, as each says).
/// Each carries the byte offset in the feed where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// The feed's charset is the replacement encoding (labels such as `iso-2022-kr`), which
    /// decodes any feed to one U+FFFD: passed through. (UTF-16 and ISO-2022-JP, which
    /// cannot be tokenized as ASCII either, are read through UTF-8.)
    #[error(
        "XML documents in {charset} are not supported: passed through unchanged (byte {offset})"
    )]
    UnsupportedCharset {
        /// Where (0: the feed's start).
        offset: u64,
        /// The charset's name.
        charset: &'static str,
    },
    /// The XML declaration names a charset the WHATWG Encoding Standard has no label for
    /// (XML 1.0 §4.3.3: an encoding the processor cannot read is a fatal error): the feed
    /// is read as UTF-8, the default for a feed without a declared charset.
    #[error(
        "the XML declaration names the charset {label:?}, which is not one known (WHATWG Encoding Standard labels): read as UTF-8 (byte {offset})"
    )]
    UnknownCharset {
        /// Where the declaration starts (0: the feed's start).
        offset: u64,
        /// The label as written, cut to 64 bytes.
        label: String,
    },
    /// The DOCTYPE declares entities: they are not expanded (XML's five and character
    /// references only), and values using them are left as written; but in a namespace
    /// declaration (Adobe Illustrator's `xmlns="&ns_svg;"`), which names the namespace.
    #[error(
        "the DOCTYPE at byte {offset} declares entities: they are not expanded (but in a namespace declaration)"
    )]
    EntityDeclarations {
        /// The DOCTYPE's offset.
        offset: u64,
    },
    /// A value refers to an entity other than XML's five, or a bad reference: left as
    /// written.
    #[error(
        "the value at byte {offset} has a reference that is not expanded ({reason}): left unchanged"
    )]
    Entity {
        /// The value's offset.
        offset: u64,
        /// Which reference, or what is wrong with it.
        reason: String,
    },
    /// A value is not well-formed XML (a `&` that starts no reference, a `<` in an
    /// attribute value): left as written, its URL not listed.
    #[error("the value at byte {offset} is not well-formed XML ({reason}): left unchanged")]
    NotWellFormed {
        /// Where the offending byte is.
        offset: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// A value's bytes are not valid in the feed's charset: left as written.
    #[error("the value at byte {offset} is not valid {charset}: left unchanged")]
    Undecodable {
        /// The value's offset.
        offset: u64,
        /// The charset's name.
        charset: &'static str,
    },
    /// An `xml:base` gives no usable absolute URL: the parent's base is kept.
    #[error(
        "xml:base={value:?} at byte {offset} gives no usable absolute URL: the parent's base is used"
    )]
    UnusableBase {
        /// The attribute value's offset.
        offset: u64,
        /// Its value.
        value: String,
    },
    /// The XML is malformed: the rest passed through unchanged.
    #[error("malformed XML at byte {offset} ({reason}): the rest passed through unchanged")]
    Malformed {
        /// Where the tokenizer stopped.
        offset: u64,
        /// What it said.
        reason: String,
    },
    /// The feed is not well-formed XML here, in a way that leaves what follows readable:
    /// a byte sequence not valid in the feed's charset (XML 1.0 §2.2, §4.3.3), text or an
    /// element after the root element ends (or text before it: §2.1, only comments,
    /// processing instructions and whitespace), `]]>` in character data (§2.4), an XML
    /// declaration that does not match §2.8 or is not at the document's start. The bytes
    /// are left as written and the rest is read on as before. Reported once a feed for
    /// each of these kinds: later ones of the same kind are not (a byte sequence inside a
    /// value reported [`Warning::Undecodable`] is not reported again).
    #[error(
        "the document is not well-formed XML at byte {offset} ({reason}): left as written, the rest read on (later ones of this kind not reported)"
    )]
    IllFormed {
        /// Where the offending bytes start.
        offset: u64,
        /// What is wrong, with the section of XML 1.0 it breaks.
        reason: String,
    },
    /// An end tag that does not close the open element: the rest passed through.
    #[error("the end tag </{found}> at byte {offset} does not close {}: the rest passed through unchanged", expected.as_deref().map_or("any open element".to_owned(), |e| format!("<{e}>")))]
    Mismatched {
        /// The end tag's offset.
        offset: u64,
        /// The open element's name, if any is open.
        expected: Option<String>,
        /// The end tag's name.
        found: String,
    },
    /// The feed ended with elements open.
    #[error(
        "the document ends with {open} element(s) open, the innermost <{name}> at byte {offset}"
    )]
    Unclosed {
        /// The innermost open element's start tag offset.
        offset: u64,
        /// How many are open.
        open: usize,
        /// Its name.
        name: String,
    },
    /// Elements nest deeper than [`MAX_DEPTH`]: the rest passed through unchanged.
    #[error(
        "elements nest deeper than {limit} at byte {offset}: the rest passed through unchanged"
    )]
    TooDeep {
        /// The start tag's offset.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// The open elements keep more than [`MAX_SCOPE_BYTES`] (names, namespace
    /// declarations, bases): the rest passed through unchanged.
    #[error(
        "the open elements' names, namespaces and bases pass {limit} bytes at byte {offset}: the rest passed through unchanged"
    )]
    ScopeTooLarge {
        /// The start tag's offset.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// One token is larger than the limit ([`MAX_HELD`]): the rest passed through.
    #[error(
        "a token at byte {offset} is larger than {limit} bytes: the rest passed through unchanged"
    )]
    TokenTooLarge {
        /// The token's offset.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// A URL or HTML content larger than the limit ([`MAX_HELD`]): passed through
    /// unchanged.
    #[error("the content at byte {offset} is larger than {limit} bytes: passed through unchanged")]
    ContentTooLarge {
        /// The content's offset.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// A comment or processing instruction inside a URL that changes, where no place for
    /// it in the resolved URL can be told (the feed's charset is a multi-byte one other
    /// than UTF-8, or too many in one URL): the element is left as written (and listed
    /// so). Elsewhere one is kept in the resolved URL, between the bytes that match those
    /// it stood between.
    #[error(
        "the URL of <{element}> holds a comment or processing instruction at byte {offset} where it changes: left unchanged"
    )]
    MarkupInUrl {
        /// The comment's or processing instruction's offset.
        offset: u64,
        /// The element whose text is the URL.
        element: String,
    },
    /// A comment or processing instruction inside the bytes a changed value of HTML
    /// content alters, where no place for it in the new value can be told (the feed's
    /// charset is a multi-byte one other than UTF-8, whose characters cannot be told
    /// apart byte by byte, or too many in one value): the value is left as written, and
    /// its links listed so.
    #[error(
        "a value in the HTML of <{element}> holds a comment or processing instruction at byte {offset} where it changes: left unchanged"
    )]
    MarkupInHtmlValue {
        /// The comment's or processing instruction's offset.
        offset: u64,
        /// The feed element whose content holds the HTML.
        element: String,
    },
    /// Base64 content of an HTML or XHTML type (Atom 0.3, draft-nottingham-atom-format-02
    /// §3.1.2: `mode="base64"`) that cannot be read: it does not decode (a character
    /// outside the base64 alphabet, a length or padding not of whole 4-character quanta),
    /// or it holds a comment or processing instruction. It is left as written, its links
    /// not read. (A reference to an entity not expanded is [`Warning::Entity`].)
    ///
    /// ```
    /// use absolve::base::Base;
    /// use absolve::feed::{self, Warning};
    /// use absolve::html::Options;
    /// use absolve::Problem;
    ///
    /// let atom = br#"<feed xmlns="http://purl.org/atom/ns#"><info type="text/html" mode="base64">&lt;a href="x"&gt;</info></feed>"#;
    /// let base = Base::retrieval_url("http://h/")?;
    /// let done = feed::rewrite(atom, &base, &Options::default(), None);
    /// assert_eq!(done.output, atom);
    /// assert!(matches!(
    ///     &done.warnings[0].problem,
    ///     Problem::Feed(Warning::UnreadableBase64 { offset: 76, element, .. }) if element == "info"
    /// ));
    /// # Ok::<(), absolve::base::NotAbsolute>(())
    /// ```
    #[error(
        "the base64 content of <{element}> at byte {offset} {reason}: left unchanged, its links not read"
    )]
    UnreadableBase64 {
        /// The content's offset (or the comment's).
        offset: u64,
        /// The element whose content it is.
        element: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A URL the URL Standard rejects (`--spec whatwg`): left as written, as in HTML
    /// ([`crate::html::Warning::Unparsable`]).
    #[error(
        "the URL {reference:?} at byte {offset} is not a URL by the URL Standard ({reason}): left as it is"
    )]
    Unparsable {
        /// The URL's offset.
        offset: u64,
        /// The URL as written (its character references decoded).
        reference: String,
        /// What the URL parser said.
        reason: String,
    },
    /// An element inside one whose text is a URL or HTML (`<description>` with a raw
    /// `<a>` in it, a `<br/>` in `type="html"` content): the content is not text, and
    /// passes through unchanged, its links not read.
    #[error(
        "the <{element}> at byte {offset} holds the element <{child}> where text is expected (a URL, or HTML escaped or in CDATA): passed through unchanged, its links not read"
    )]
    MarkupInContent {
        /// The content's offset.
        offset: u64,
        /// The element whose text it is.
        element: String,
        /// The element found in it.
        child: String,
    },
}

/// `$body` with `offset` bound to the field every [`Warning`] has (a reference, shared or
/// mutable as `$warning` is).
macro_rules! with_offset {
    ($warning:expr, $offset:ident => $body:expr) => {
        match $warning {
            Warning::UnsupportedCharset { $offset, .. }
            | Warning::UnknownCharset { $offset, .. }
            | Warning::EntityDeclarations { $offset, .. }
            | Warning::Entity { $offset, .. }
            | Warning::NotWellFormed { $offset, .. }
            | Warning::Undecodable { $offset, .. }
            | Warning::UnusableBase { $offset, .. }
            | Warning::Malformed { $offset, .. }
            | Warning::IllFormed { $offset, .. }
            | Warning::Mismatched { $offset, .. }
            | Warning::Unclosed { $offset, .. }
            | Warning::TooDeep { $offset, .. }
            | Warning::ScopeTooLarge { $offset, .. }
            | Warning::TokenTooLarge { $offset, .. }
            | Warning::ContentTooLarge { $offset, .. }
            | Warning::MarkupInContent { $offset, .. }
            | Warning::Unparsable { $offset, .. }
            | Warning::MarkupInUrl { $offset, .. }
            | Warning::MarkupInHtmlValue { $offset, .. }
            | Warning::UnreadableBase64 { $offset, .. } => $body,
        }
    };
}

impl Warning {
    /// The byte offset in the feed the warning is about.
    ///
    /// ```
    /// let warning = absolve::feed::Warning::EntityDeclarations { offset: 22 };
    /// assert_eq!(warning.offset(), 22);
    /// ```
    pub fn offset(&self) -> u64 {
        with_offset!(self, offset => *offset)
    }

    /// The offset, to be moved (a feed read through UTF-8: its offset in the feed's bytes).
    pub(crate) fn offset_mut(&mut self) -> &mut u64 {
        with_offset!(self, offset => offset)
    }
}

/// Rewrites a whole feed in memory and lists its links, in one pass.
///
/// ```
/// use absolve::base::{Base, BaseSource};
/// use absolve::html::Options;
///
/// let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/">
///   <entry xml:base="2024/01/"><link href="post.html"/>
///     <content type="html">&lt;img src="x.png"&gt;</content></entry></feed>"#;
/// let base = Base::retrieval_url("http://feeds.example.com/feed.xml")?;
/// let done = absolve::feed::rewrite(feed, &base, &Options::default(), None);
/// let out = String::from_utf8(done.output).unwrap();
/// assert!(out.contains(r#"<link href="http://example.org/blog/2024/01/post.html"/>"#));
/// assert!(out.contains(r#"&lt;img src="http://example.org/blog/2024/01/x.png"&gt;"#));
/// assert_eq!(done.links[0].base_from, BaseSource::XmlBase);
/// assert_eq!(done.links[1].element, "img");
/// # Ok::<(), absolve::base::NotAbsolute>(())
/// ```
pub fn rewrite(
    feed: &[u8],
    base: &Base,
    options: &Options,
    charset: Option<&'static Encoding>,
) -> Collected {
    let mut collected = Collected::default();
    collected.output.reserve(feed.len() + feed.len() / 8);
    in_memory(feed, base, options, charset, collected)
}

/// The links of a whole feed in memory, and its warnings (the output is not built).
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::Options;
///
/// let feed = b"<rss version='2.0'><channel><item><enclosure url='a.mp3'/></item></channel></rss>";
/// let base = Base::retrieval_url("http://h/podcast/feed.rss")?;
/// let found = absolve::feed::links(feed, &base, &Options::default(), None);
/// assert_eq!(found.links[0].resolved, "http://h/podcast/a.mp3");
/// assert_eq!(found.links[0].attribute.as_deref(), Some("url"));
/// assert!(found.output.is_empty());
/// # Ok::<(), absolve::base::NotAbsolute>(())
/// ```
pub fn links(
    feed: &[u8],
    base: &Base,
    options: &Options,
    charset: Option<&'static Encoding>,
) -> Collected {
    in_memory(feed, base, options, charset, Collected::links_only())
}

fn in_memory(
    feed: &[u8],
    base: &Base,
    options: &Options,
    charset: Option<&'static Encoding>,
    collected: Collected,
) -> Collected {
    let mut rewriter = Rewriter::new(base, options, charset, collected);
    // Writing to memory cannot fail. Chunks keep the window small.
    for chunk in feed.chunks(64 * 1024) {
        let _ = rewriter.write(chunk);
    }
    rewriter.end().unwrap_or_default()
}
