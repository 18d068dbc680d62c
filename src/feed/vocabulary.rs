//! Which elements and attributes of a feed hold URLs or HTML: a table, not code.
//!
//! Sources: Atom 1.0 (RFC 4287 §3.1 text constructs, §3.2 person constructs, §4.2),
//! Atom 0.3 (draft-nottingham-atom-format-02: `url`, `generator/@url`, `mode`), RSS 2.0
//! (<https://www.rssboard.org/rss-specification>), RSS 0.91, RSS 1.0 (`rdf:RDF`) and its
//! content module, the Well-Formed Web comment API, Media RSS
//! (<https://www.rssboard.org/media-rss>), Apple's podcast tags, the Podcast Namespace
//! (<https://podcastindex.org/namespace/1.0>), Atom Threading (RFC 4685) and
//! FeedBurner's original links; and, as feedparser reads them, RSS's unprefixed `body`
//! (XHTML) and `fullitem` (escaped HTML).
//! Atom `id` and RSS `guid` are identifiers, not locations: they are not listed.

/// A namespace a rule is about, told by its URI (never by a prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ns {
    /// No namespace: RSS 0.91, 0.92 and 2.0 elements.
    None,
    /// `http://www.w3.org/2005/Atom`.
    Atom10,
    /// `http://purl.org/atom/ns#`.
    Atom03,
    /// `http://purl.org/rss/1.0/`.
    Rss10,
    /// `http://my.netscape.com/rdf/simple/0.9/` (RSS 0.90).
    Rss090,
    /// `http://www.w3.org/1999/02/22-rdf-syntax-ns#`.
    Rdf,
    /// `http://purl.org/rss/1.0/modules/content/`.
    Content,
    /// `http://wellformedweb.org/CommentAPI/`.
    Wfw,
    /// `http://search.yahoo.com/mrss/`.
    Media,
    /// `http://www.itunes.com/dtds/podcast-1.0.dtd`.
    Itunes,
    /// `https://podcastindex.org/namespace/1.0` (the Podcast Namespace; its document's
    /// URL on GitHub names it too).
    Podcast,
    /// `http://purl.org/syndication/thread/1.0` (Atom Threading Extensions, RFC 4685).
    Thread,
    /// `http://rssnamespace.org/feedburner/ext/1.0` (FeedBurner's `origLink`).
    Feedburner,
    /// `http://www.w3.org/1999/xhtml`.
    Xhtml,
    /// `http://www.w3.org/2000/svg` (an SVG image, or SVG in inline XHTML).
    Svg,
    /// `http://www.w3.org/1998/Math/MathML` (in inline XHTML).
    MathMl,
    /// Any other namespace.
    Other,
}

/// The namespace URIs this module knows.
const URIS: [(&[u8], Ns); 17] = [
    (b"http://www.w3.org/2005/Atom", Ns::Atom10),
    (b"http://purl.org/atom/ns#", Ns::Atom03),
    (b"http://purl.org/rss/1.0/", Ns::Rss10),
    (b"http://my.netscape.com/rdf/simple/0.9/", Ns::Rss090),
    (b"http://www.w3.org/1999/02/22-rdf-syntax-ns#", Ns::Rdf),
    (b"http://purl.org/rss/1.0/modules/content/", Ns::Content),
    (b"http://wellformedweb.org/CommentAPI/", Ns::Wfw),
    (b"http://search.yahoo.com/mrss/", Ns::Media),
    (b"http://search.yahoo.com/mrss", Ns::Media),
    (b"http://www.itunes.com/dtds/podcast-1.0.dtd", Ns::Itunes),
    (b"https://podcastindex.org/namespace/1.0", Ns::Podcast),
    (
        b"https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md",
        Ns::Podcast,
    ),
    (b"http://purl.org/syndication/thread/1.0", Ns::Thread),
    (
        b"http://rssnamespace.org/feedburner/ext/1.0",
        Ns::Feedburner,
    ),
    (b"http://www.w3.org/1999/xhtml", Ns::Xhtml),
    (b"http://www.w3.org/2000/svg", Ns::Svg),
    (b"http://www.w3.org/1998/Math/MathML", Ns::MathMl),
];

impl Ns {
    /// The namespace of a namespace name: an `xmlns` attribute's value with its
    /// references read (Namespaces in XML 1.0 §3), not the bytes as written.
    pub fn from_uri(uri: &[u8]) -> Ns {
        if uri.is_empty() {
            return Ns::None;
        }
        URIS.iter()
            .find(|(known, _)| *known == uri)
            .map_or(Ns::Other, |&(_, ns)| ns)
    }
}

/// Where an element keeps its URL, or how its content is HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// The value of this attribute (unprefixed) is a URL.
    Attribute(&'static str),
    /// The element's text is a URL.
    Text,
    /// The element's text is HTML (escaped or in CDATA).
    Html,
    /// An Atom text construct (RFC 4287 §3.1): its `type` (and Atom 0.3 `mode`) says
    /// whether it is text, escaped HTML or inline XHTML.
    TextConstruct,
    /// The element is XHTML, and so is everything in it (`xhtml:body` in RSS); or SVG,
    /// read as in HTML (the root of an SVG image).
    XhtmlBody,
}

/// One row: elements of these namespaces with this local name (under this parent, if
/// given) hold a URL or HTML as `value` says.
struct Rule {
    namespaces: &'static [Ns],
    local: &'static str,
    parent: Option<&'static str>,
    value: Value,
}

const ATOM: &[Ns] = &[Ns::Atom10, Ns::Atom03];
const ATOM10: &[Ns] = &[Ns::Atom10];
const ATOM03: &[Ns] = &[Ns::Atom03];
/// RSS elements: no namespace (0.91-2.0), RSS 1.0 and RSS 0.90.
const RSS: &[Ns] = &[Ns::None, Ns::Rss10, Ns::Rss090];

const RULES: &[Rule] = &[
    // Atom 1.0 and 0.3.
    rule(ATOM, "link", None, Value::Attribute("href")),
    rule(ATOM, "content", None, Value::Attribute("src")),
    rule(ATOM, "icon", None, Value::Text),
    rule(ATOM, "logo", None, Value::Text),
    rule(ATOM10, "uri", None, Value::Text),
    rule(ATOM10, "generator", None, Value::Attribute("uri")),
    rule(ATOM03, "url", None, Value::Text),
    rule(ATOM03, "generator", None, Value::Attribute("url")),
    rule(ATOM, "title", None, Value::TextConstruct),
    rule(ATOM10, "subtitle", None, Value::TextConstruct),
    rule(ATOM, "summary", None, Value::TextConstruct),
    rule(ATOM, "content", None, Value::TextConstruct),
    rule(ATOM10, "rights", None, Value::TextConstruct),
    rule(ATOM03, "tagline", None, Value::TextConstruct),
    rule(ATOM03, "copyright", None, Value::TextConstruct),
    rule(ATOM03, "info", None, Value::TextConstruct),
    // RSS: `link` in channel, item, image and textInput; `url` of the image.
    rule(RSS, "link", None, Value::Text),
    rule(RSS, "comments", None, Value::Text),
    rule(RSS, "docs", None, Value::Text),
    rule(RSS, "url", Some("image"), Value::Text),
    rule(RSS, "enclosure", None, Value::Attribute("url")),
    rule(RSS, "source", None, Value::Attribute("url")),
    rule(RSS, "description", None, Value::Html),
    // Two old RSS habits feedparser reads as content (its `_start_body` and
    // `_start_fullitem`): an unprefixed `<body>` as XHTML (as `xhtml:body`), `<fullitem>`
    // as escaped HTML (as `content:encoded`). RSS itself has no element of either name.
    // feedparser takes them wherever they are; here only an item's or a channel's (the
    // `<body>` of an HTML page read as a feed is no feed's content).
    rule(&[Ns::None], "body", Some("item"), Value::XhtmlBody),
    rule(&[Ns::None], "body", Some("channel"), Value::XhtmlBody),
    rule(&[Ns::None], "fullitem", Some("item"), Value::Html),
    rule(&[Ns::None], "fullitem", Some("channel"), Value::Html),
    // Extensions.
    rule(&[Ns::Content], "encoded", None, Value::Html),
    rule(&[Ns::Wfw], "comment", None, Value::Text),
    rule(&[Ns::Wfw], "commentRss", None, Value::Text),
    // Media RSS 1.5.1: the URLs of media, players, licences, peer-to-peer links and
    // pages linking to the media; `media:title` and `media:description` hold HTML when
    // their `type` says `html` (else `plain`).
    rule(&[Ns::Media], "content", None, Value::Attribute("url")),
    rule(&[Ns::Media], "thumbnail", None, Value::Attribute("url")),
    rule(&[Ns::Media], "player", None, Value::Attribute("url")),
    rule(&[Ns::Media], "embed", None, Value::Attribute("url")),
    rule(&[Ns::Media], "license", None, Value::Attribute("href")),
    rule(&[Ns::Media], "peerLink", None, Value::Attribute("href")),
    rule(&[Ns::Media], "price", None, Value::Attribute("info")),
    rule(&[Ns::Media], "backLink", None, Value::Text),
    rule(&[Ns::Media], "title", None, Value::TextConstruct),
    rule(&[Ns::Media], "description", None, Value::TextConstruct),
    // Apple's podcast tags: the artwork, and the URL a feed has moved to.
    rule(&[Ns::Itunes], "image", None, Value::Attribute("href")),
    rule(&[Ns::Itunes], "new-feed-url", None, Value::Text),
    // The Podcast Namespace 1.0: transcripts, chapters, funding, people's pages and
    // pictures, trailers, licences, alternate enclosures' sources, content links,
    // social interactions and other feeds (`remoteItem`'s `feedUrl`).
    rule(&[Ns::Podcast], "transcript", None, Value::Attribute("url")),
    rule(&[Ns::Podcast], "chapters", None, Value::Attribute("url")),
    rule(&[Ns::Podcast], "funding", None, Value::Attribute("url")),
    rule(&[Ns::Podcast], "person", None, Value::Attribute("href")),
    rule(&[Ns::Podcast], "person", None, Value::Attribute("img")),
    rule(&[Ns::Podcast], "trailer", None, Value::Attribute("url")),
    rule(&[Ns::Podcast], "license", None, Value::Attribute("url")),
    rule(&[Ns::Podcast], "source", None, Value::Attribute("uri")),
    rule(
        &[Ns::Podcast],
        "contentLink",
        None,
        Value::Attribute("href"),
    ),
    rule(
        &[Ns::Podcast],
        "socialInteract",
        None,
        Value::Attribute("uri"),
    ),
    rule(
        &[Ns::Podcast],
        "remoteItem",
        None,
        Value::Attribute("feedUrl"),
    ),
    // RFC 4685 §3: the entry replied to (`href`) and its feed (`source`), IRIs that
    // resolve against xml:base; its `ref` is an identifier, as `atom:id` is.
    rule(&[Ns::Thread], "in-reply-to", None, Value::Attribute("href")),
    rule(
        &[Ns::Thread],
        "in-reply-to",
        None,
        Value::Attribute("source"),
    ),
    // FeedBurner's copies of an item's link and enclosure before it rewrote them.
    rule(&[Ns::Feedburner], "origLink", None, Value::Text),
    rule(&[Ns::Feedburner], "origEnclosureLink", None, Value::Text),
    rule(&[Ns::Xhtml], "body", None, Value::XhtmlBody),
    // An SVG image (the root of an `.svg` file, or SVG inline in Atom content of an XML
    // type, RFC 4287 §4.1.3.3): its elements are read as the same elements in HTML.
    rule(&[Ns::Svg], "svg", None, Value::XhtmlBody),
];

const fn rule(
    namespaces: &'static [Ns],
    local: &'static str,
    parent: Option<&'static str>,
    value: Value,
) -> Rule {
    Rule {
        namespaces,
        local,
        parent,
        value,
    }
}

/// What the element `local` of namespace `ns` under `parent` (a local name) holds: every
/// matching row, in table order (Atom `content` has both a `src` and a content).
///
/// ```
/// use absolve::feed::vocabulary::{values, Ns, Value};
///
/// assert_eq!(values(Ns::Atom10, b"link", b"entry").collect::<Vec<_>>(), [Value::Attribute("href")]);
/// assert_eq!(values(Ns::None, b"url", b"image").collect::<Vec<_>>(), [Value::Text]);
/// assert_eq!(values(Ns::None, b"url", b"item").count(), 0);
/// assert_eq!(values(Ns::Atom10, b"id", b"entry").count(), 0);
/// assert_eq!(values(Ns::None, b"body", b"item").collect::<Vec<_>>(), [Value::XhtmlBody]);
/// assert_eq!(values(Ns::None, b"fullitem", b"item").collect::<Vec<_>>(), [Value::Html]);
/// assert_eq!(values(Ns::None, b"body", b"html").count(), 0);
/// assert_eq!(values(Ns::Atom10, b"body", b"entry").count(), 0);
/// assert_eq!(
///     values(Ns::Thread, b"in-reply-to", b"entry").collect::<Vec<_>>(),
///     [Value::Attribute("href"), Value::Attribute("source")],
/// );
/// assert_eq!(Ns::from_uri(b"https://podcastindex.org/namespace/1.0"), Ns::Podcast);
/// ```
pub fn values<'a>(ns: Ns, local: &'a [u8], parent: &'a [u8]) -> impl Iterator<Item = Value> + 'a {
    RULES
        .iter()
        .filter(move |rule| {
            rule.local.as_bytes() == local
                && rule.namespaces.contains(&ns)
                && rule.parent.is_none_or(|p| p.as_bytes() == parent)
        })
        .map(|rule| rule.value)
}

/// How an Atom text construct holds its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextType {
    /// Plain text (`type="text"` or none): no URL in it.
    Text,
    /// Escaped HTML (`type="html"`, Atom 0.3 `type="text/html"`).
    Html,
    /// Inline XHTML (`type="xhtml"`, Atom 0.3 `type="application/xhtml+xml"`).
    Xhtml,
    /// Base64 of HTML or XHTML (Atom 0.3 `mode="base64"` with `type="text/html"` or
    /// `"application/xhtml+xml"`): decoded, rewritten as HTML, and encoded again.
    Base64Html,
}

/// RFC 4287 §3.1.1 (and Atom 0.3, draft-nottingham-atom-format-02 §3.1.2: `mode="xml"`,
/// `"escaped"` or `"base64"`): the kind of a text construct from its `type` and `mode`
/// attributes. Base64 of a type that is neither HTML nor XHTML (none, `text/plain`, an
/// image) decodes to no URL: it is [`TextType::Text`].
///
/// ```
/// use absolve::feed::vocabulary::{text_type, TextType};
///
/// assert_eq!(text_type(Some(b"html"), None), TextType::Html);
/// assert_eq!(text_type(Some(b"text/html"), Some(b"escaped")), TextType::Html);
/// assert_eq!(text_type(Some(b"xhtml"), None), TextType::Xhtml);
/// assert_eq!(text_type(Some(b"text/html"), Some(b"base64")), TextType::Base64Html);
/// assert_eq!(text_type(Some(b"application/xhtml+xml"), Some(b"base64")), TextType::Base64Html);
/// assert_eq!(text_type(Some(b"text/plain"), Some(b"base64")), TextType::Text);
/// assert_eq!(text_type(None, None), TextType::Text);
/// ```
pub fn text_type(kind: Option<&[u8]>, mode: Option<&[u8]>) -> TextType {
    let base64 = mode.is_some_and(|m| m.trim_ascii().eq_ignore_ascii_case(b"base64"));
    match (markup_type(kind), base64) {
        (TextType::Html | TextType::Xhtml, true) => TextType::Base64Html,
        (_, true) => TextType::Text,
        (kind, false) => kind,
    }
}

/// RFC 4287 §3.1.1 (and Atom 0.3 §3.1.1, a MIME type): whether a `type` says HTML,
/// XHTML, or anything else (text).
fn markup_type(kind: Option<&[u8]>) -> TextType {
    let kind = kind.map(<[u8]>::trim_ascii).unwrap_or_default();
    if kind.eq_ignore_ascii_case(b"html") || kind.eq_ignore_ascii_case(b"text/html") {
        TextType::Html
    } else if kind.eq_ignore_ascii_case(b"xhtml")
        || kind.eq_ignore_ascii_case(b"application/xhtml+xml")
    {
        TextType::Xhtml
    } else {
        TextType::Text
    }
}
