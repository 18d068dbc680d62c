//! Telling an HTML document, a MIME message, an mbox archive, a WARC file, a Safari web
//! archive and a stylesheet apart: by content ([`detect`], [`sniff`]) and by file name
//! extension ([`from_extension`]).

use crate::compress::Compression;
use std::path::Path;

/// What an input is: a document (HTML, a stylesheet) or a container of documents (a
/// message, an mbox, a WARC file). Its name ([`Format::name`], [`FromStr`](std::str::FromStr))
/// is the CLI's `--format` value and Python's `format=`.
///
/// ```
/// use absolve::format::Format;
///
/// assert_eq!("MBOX".parse::<Format>(), Ok(Format::Mbox));
/// assert_eq!(Format::Warc.name(), "warc");
/// assert!("pdf".parse::<Format>().unwrap_err().to_string().contains("\"html\""));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// An HTML document.
    Html,
    /// An RFC 822/MIME message: an `.eml` message, an MHTML page, or Apple Mail's
    /// `.emlx` (a line with the message's length first, [`crate::mime::emlx`]).
    Mime,
    /// An mbox archive: messages each after a `From ` separator line; or an MMDF
    /// mailbox, each message between two lines of four Control-A bytes
    /// ([`crate::mime::mmdf`]).
    Mbox,
    /// A WARC file (ISO 28500): it starts with `WARC/`, or with a gzip member whose
    /// content does. An ARC file (the Internet Archive's format before WARC: a first
    /// line `filedesc://`, plain or gzipped) is read as one ([`crate::warc`]).
    Warc,
    /// A standalone CSS stylesheet: never told by content, only by its `.css` name.
    Css,
    /// A WACZ (Webrecorder's ZIP of WARC files): a ZIP whose `datapackage.json` says so;
    /// its WARC files are listed, it is never rewritten.
    Wacz,
    /// An Atom or RSS feed: an XML document whose root is Atom's `feed`, RSS's `rss` or
    /// RSS 1.0's `rdf:RDF` ([`feed::is_feed`](crate::feed::is_feed)), with XML Base.
    Feed,
    /// A Safari web archive (`.webarchive`): a property list, binary or XML, whose root
    /// names `WebMainResource` ([`webarchive::is_webarchive`](crate::webarchive::is_webarchive));
    /// its HTML and CSS resources, each against its own URL.
    WebArchive,
    /// An SVG image: an XML document whose root is SVG's `svg`
    /// ([`feed::is_svg`](crate::feed::is_svg)), read by the feed's XML rewriter with XML
    /// Base: each element's `href` and `xlink:href`, `style` and `<style>`, and the
    /// `xml-stylesheet` instruction, as the same SVG inline in HTML.
    Svg,
}

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 9] = [
        Format::Html,
        Format::Mime,
        Format::Mbox,
        Format::Css,
        Format::Feed,
        Format::Warc,
        Format::Wacz,
        Format::WebArchive,
        Format::Svg,
    ];

    /// The format's name: `html`, `mime`, `mbox`, `css`, `feed`, `warc`, `wacz`,
    /// `webarchive`, `svg`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Mime => "mime",
            Format::Mbox => "mbox",
            Format::Css => "css",
            Format::Warc => "warc",
            Format::Wacz => "wacz",
            Format::Feed => "feed",
            Format::WebArchive => "webarchive",
            Format::Svg => "svg",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name no format has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid value {0:?}: expected one of \"auto\", {names}", names = Format::ALL.map(|f| format!("\"{f}\"")).join(", "))]
pub struct UnknownFormat(pub String);

/// A format by its name, in any case.
impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

/// The format a file name extension (any case, without the dot) names: `html`, `htm`,
/// `xhtml`, `xht`, `shtml`; `eml`, `emlx`, `mht`, `mhtml`; `mbox`, `mmdf`; `css`; `warc`, `arc` (a `.warc.gz`
/// file is named by its last two extensions: the caller passes `warc` for it); `wacz`; `atom`,
/// `rss`, `rdf`; `webarchive`; `svg`, `svgz` (gzipped SVG, decompressed by content).
/// `None` for any other.
/// A message or page is still told apart from HTML by content ([`detect`]): the
/// extension only says the file is a document.
///
/// ```
/// use absolve::format::{from_extension, Format};
///
/// assert_eq!(from_extension("HTM"), Some(Format::Html));
/// assert_eq!(from_extension("mhtml"), Some(Format::Mime));
/// assert_eq!(from_extension("css"), Some(Format::Css));
/// assert_eq!(from_extension("WebArchive"), Some(Format::WebArchive));
/// assert_eq!(from_extension("arc"), Some(Format::Warc));
/// assert_eq!(from_extension("php?id=3"), None);
/// ```
pub fn from_extension(extension: &str) -> Option<Format> {
    const TABLE: [(&str, Format); 21] = [
        ("html", Format::Html),
        ("htm", Format::Html),
        ("xhtml", Format::Html),
        ("xht", Format::Html),
        ("shtml", Format::Html),
        ("css", Format::Css),
        ("eml", Format::Mime),
        ("emlx", Format::Mime),
        ("mht", Format::Mime),
        ("mhtml", Format::Mime),
        ("mbox", Format::Mbox),
        ("mmdf", Format::Mbox),
        ("warc", Format::Warc),
        ("arc", Format::Warc),
        ("wacz", Format::Wacz),
        ("atom", Format::Feed),
        ("rss", Format::Feed),
        ("rdf", Format::Feed),
        ("webarchive", Format::WebArchive),
        ("svg", Format::Svg),
        ("svgz", Format::Svg),
    ];
    TABLE
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(extension))
        .map(|&(_, format)| format)
}

/// A file's extension once a compression's (`.gz`, `.bz2`, `.xz`, `.zst`, `.lz4`) is
/// taken off, without the dot: `x.mbox.gz` is an `mbox`, `page.HTML` an `HTML`. Read
/// from the name's bytes, so that a name that is not UTF-8 (`caf\xE9.css`, Latin-1) still
/// has its extension; `None` when there is none, or it is not UTF-8 itself.
///
/// ```
/// use std::path::Path;
/// use absolve::format::extension_of;
///
/// assert_eq!(extension_of(Path::new("a/crawl.warc.GZ")), Some("warc"));
/// assert_eq!(extension_of(Path::new("page.html")), Some("html"));
/// assert_eq!(extension_of(Path::new(".gz")), None);
/// assert_eq!(extension_of(Path::new("x.gz")), None);
/// ```
pub fn extension_of(path: &Path) -> Option<&str> {
    let (stem, extension) = split_extension(path.file_name()?.as_encoded_bytes())?;
    match Compression::from_extension(extension) {
        Some(_) => split_extension(stem).map(|(_, extension)| extension),
        None => Some(extension),
    }
}

/// The compression a file's name ends with (`.gz`, `.bz2`, `.xz`, `.zst`, `.lz4`, any
/// case), read from its bytes as [`extension_of`] reads them.
///
/// ```
/// use std::path::Path;
/// use absolve::compress::Compression;
/// use absolve::format::compression_named;
///
/// assert_eq!(compression_named(Path::new("box.mbox.xz")), Some(Compression::Xz));
/// assert_eq!(compression_named(Path::new("page.html")), None);
/// assert_eq!(compression_named(Path::new(".gz")), None);
/// ```
pub fn compression_named(path: &Path) -> Option<Compression> {
    let (_, extension) = split_extension(path.file_name()?.as_encoded_bytes())?;
    Compression::from_extension(extension)
}

/// A file name's bytes before its last dot, and its extension after it, as
/// [`Path::extension`] splits a name (a name that starts with its only dot has none).
fn split_extension(name: &[u8]) -> Option<(&[u8], &str)> {
    let dot = memchr::memrchr(b'.', name).filter(|&dot| dot > 0)?;
    let extension = std::str::from_utf8(&name[dot + 1..]).ok()?;
    Some((&name[..dot], extension))
}

/// Whether a file name extension names a type that is not a document here, so that a
/// file so named is not sniffed: text, scripts, data and XML types (`txt`, `md`, `js`,
/// `json`, `xml`, `csv`, ...), whose servers send them with a MIME type that the
/// MIME Sniffing standard never sniffs as HTML (its "unknown type" rules, §7.1, apply only
/// to a missing or unknown type).
///
/// ```
/// assert!(absolve::format::is_not_a_document("TXT"));
/// assert!(!absolve::format::is_not_a_document("aspx"));
/// ```
pub fn is_not_a_document(extension: &str) -> bool {
    const TYPES: [&str; 17] = [
        "txt", "text", "md", "markdown", "rst", "csv", "tsv", "log", "js", "mjs", "cjs", "json",
        "map", "xml", "xsl", "ics", "vcf",
    ];
    TYPES.iter().any(|t| t.eq_ignore_ascii_case(extension))
}

/// What the first bytes of a file of unknown type are, if a document at all: a feed or
/// an SVG image by its root element ([`crate::feed::is_feed`], [`crate::feed::is_svg`],
/// first, since an XML prolog may start with `<!--`); HTML by the
/// MIME Sniffing standard's HTML patterns (§7.1 "rules for identifying an unknown MIME
/// type": after whitespace, `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<SCRIPT`, `<IFRAME`, `<H1`,
/// `<DIV`, `<FONT`, `<TABLE`, `<A`, `<STYLE`, `<TITLE`, `<B`, `<BODY`, `<BR`, `<P` or
/// `<!--`, any case, then a space or `>`); an mbox or a message as [`detect`] tells them.
/// A UTF-8 BOM first is allowed. `None`: not a document (an image, a script, text).
///
/// ```
/// use absolve::format::{sniff, Format};
///
/// assert_eq!(sniff(b"\n <!DOCTYPE html>\n<title>x</title>"), Some(Format::Html));
/// assert_eq!(sniff(b"<p>para"), Some(Format::Html));
/// assert_eq!(sniff(b"<pre>x"), None);
/// assert_eq!(sniff(b"Subject: hi\nFrom: a@b\n\nbody"), Some(Format::Mime));
/// assert_eq!(sniff(b"\x89PNG\r\n"), None);
/// assert_eq!(sniff(b"body { color: red }"), None);
/// ```
pub fn sniff(head: &[u8]) -> Option<Format> {
    // A feed whose prolog starts with a comment matches the `<!--` pattern: its root
    // element tells first, as in [`detect`].
    if crate::feed::is_feed(head) {
        return Some(Format::Feed);
    }
    if crate::feed::is_svg(head) {
        return Some(Format::Svg);
    }
    let bom_free = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if is_html_by_sniffing(bom_free) {
        return Some(Format::Html);
    }
    match detect(head) {
        // A ZIP is a WACZ only by its name or its datapackage.json, not its first bytes.
        Format::Html | Format::Wacz => None,
        other => Some(other),
    }
}

/// MIME Sniffing §7.1: the HTML patterns, each followed by a tag-terminating byte.
fn is_html_by_sniffing(head: &[u8]) -> bool {
    const PATTERNS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    // Whitespace bytes the standard skips: HT, LF, FF, CR, SP.
    let start = head
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' '))
        .unwrap_or(head.len());
    let head = &head[start..];
    PATTERNS.iter().any(|pattern| {
        head.get(..pattern.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(pattern))
            && matches!(head.get(pattern.len()), Some(b' ' | b'>'))
    })
}

/// The format of a document from its first bytes (a few kilobytes are plenty): a feed or
/// an SVG image by its root element; an mbox
/// starts with a From_ line as the mbox splitter ([`crate::mime::mbox`]) defines it,
/// followed by a header block (an MMDF mailbox with a line of four Control-A bytes,
/// [`crate::mime::mmdf::starts_mmdf`]); a message with a header block (lines that are a field
/// `Name: value` or its continuation, up to a blank line, the first line that is
/// neither, or the end of what was read) that has at least one mail or MIME field, or
/// such a block after a line that is a length (Apple Mail's `.emlx`);
/// anything else is HTML. A UTF-8 BOM first is
/// allowed. An ARC file is a WARC here ([`Format::Warc`]); LZ4 data is read inside
/// ([`crate::compress`]).
///
/// ```
/// use absolve::format::{detect, Format};
///
/// assert_eq!(detect(b"From a@b Thu Jan  1 00:00:00 1970\nSubject: x\n\nhi\n"), Format::Mbox);
/// assert_eq!(detect(b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>"), Format::Mime);
/// assert_eq!(detect(b"<!doctype html><p>From here: on</p>"), Format::Html);
/// assert_eq!(detect(b"\xEF\xBB\xBFFrom - Mon Jan 1 00:00:00 2024\nTo: b@c\n"), Format::Mbox);
/// assert_eq!(detect(b"Note: a fragment\n<p><a href=x>"), Format::Html);
/// assert_eq!(detect(b"Subject: x\nX-Mailer Foo 1.0\nTo: y\n\n<p>"), Format::Mime);
/// assert_eq!(detect(b"From the editor: welcome!<p><a href=\"news.html\">"), Format::Html);
/// assert_eq!(detect(b"From the editor 2024\n<p><a href=\"news.html\">"), Format::Html);
/// assert_eq!(detect(b"1543      \nReturn-Path: <a@b>\nSubject: x\n\n"), Format::Mime);
/// assert_eq!(detect(b"2024\n<p><a href=\"news.html\">"), Format::Html);
/// assert_eq!(detect(b"\x01\x01\x01\x01\nSubject: x\n\n"), Format::Mbox);
/// ```
pub fn detect(head: &[u8]) -> Format {
    if is_warc(head) {
        return Format::Warc;
    }
    if crate::wacz::is_zip(head) {
        return Format::Wacz;
    }
    if crate::webarchive::is_webarchive(head) {
        return Format::WebArchive;
    }
    if crate::feed::is_feed(head) {
        return Format::Feed;
    }
    if crate::feed::is_svg(head) {
        return Format::Svg;
    }
    if is_mbox(head) || crate::mime::mmdf::starts_mmdf(head) {
        return Format::Mbox;
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if is_header_block(head) || crate::mime::emlx::starts_emlx(head) {
        return Format::Mime;
    }
    Format::Html
}

/// Whether `head` starts with a From_ line, as the mbox splitter tells one, then a header
/// block holding at least one mail or MIME field.
fn is_mbox(head: &[u8]) -> bool {
    let Some(end) = memchr::memchr(b'\n', head) else {
        return false;
    };
    let (first_line, rest) = head.split_at(end + 1);
    let first = crate::mime::mbox::Messages::new(first_line).next();
    let is_from_line = matches!(first, Some(Ok(entry)) if !entry.separator.is_empty());
    is_from_line && is_header_block(rest)
}

/// Whether `head`, the first bytes of an input, is JSON (RFC 8259): an object or an array
/// (after whitespace and a UTF-8 BOM) whose bytes are JSON as far as they go, as
/// serde_json reads them. HTML in its strings is escaped as JSON escapes it
/// (`<a href=\"x\">`): read as HTML, the quotes' backslashes would be taken into the
/// URLs and the JSON broken. A template's `{{ name }}` and text in brackets are no JSON.
///
/// ```
/// use absolve::format::is_json;
///
/// assert!(is_json(br#" {"version": "https://jsonfeed.org/version/1.1", "items": [{"con"#));
/// assert!(is_json(b"[1, 2"));
/// assert!(!is_json(b"{{ title }}<a href=x>"));
/// assert!(!is_json(b"[Intro] <a href=x>"));
/// assert!(!is_json(b"42"));
/// ```
pub fn is_json(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    if !start.is_some_and(|i| matches!(head[i], b'{' | b'[')) {
        return false;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(head) {
        Ok(_) => true,
        Err(error) => error.is_eof(),
    }
}

/// What an input is by its signature when it is an image, audio or video, a font or a
/// program: none holds HTML or CSS, and read as HTML one could be broken where its bytes
/// happen to look like a tag. The signatures are the MIME Sniffing Standard's (§6.1
/// images, §6.2 audio and video, §6.3 fonts), those it names with fewer than four bytes
/// left out (BMP's `BM`, MP3 frames without an ID3 tag), and WebAssembly's, ELF's and
/// SQLite's. `None` for anything else.
///
/// ```
/// use absolve::format::binary_kind;
///
/// assert_eq!(binary_kind(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some("a PNG image"));
/// assert_eq!(binary_kind(b"\0\0\0\x20ftypavif\0\0\0\0"), Some("an ISO media file (MP4, MOV, M4A, HEIF or AVIF)"));
/// assert_eq!(binary_kind(b"wOF2\0\x01\0\0"), Some("a WOFF2 font"));
/// assert_eq!(binary_kind(b"<!DOCTYPE html>"), None);
/// assert_eq!(binary_kind(b"GIF is a format"), None);
/// ```
pub fn binary_kind(head: &[u8]) -> Option<&'static str> {
    const SIGNATURES: [(&[u8], &str); 19] = [
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"\0\0\x01\0", "a Windows icon"),
        (b"\0\0\x02\0", "a Windows cursor"),
        (b"\x1A\x45\xDF\xA3", "a WebM or Matroska file"),
        (b"OggS\0", "an Ogg audio or video file"),
        (b"MThd\0\0\0\x06", "a MIDI file"),
        (b"fLaC", "a FLAC audio file"),
        (b"\0\x01\0\0", "a TrueType font"),
        (b"OTTO", "an OpenType font"),
        (b"ttcf", "a font collection"),
        (b"wOFF", "a WOFF font"),
        (b"wOF2", "a WOFF2 font"),
        (b"\0asm", "a WebAssembly module"),
        (b"\x7FELF", "an ELF executable"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"%!PS-Adobe-", "a PostScript document"),
    ];
    if let Some(&(_, kind)) = SIGNATURES.iter().find(|(s, _)| head.starts_with(s)) {
        return Some(kind);
    }
    if let Some(kind) = riff_or_form_kind(head) {
        return Some(kind);
    }
    // An ID3v2 tag (version 2, 3 or 4) before MP3 frames.
    if head.starts_with(b"ID3") && head.get(3).is_some_and(|v| (2..=4).contains(v)) {
        return Some("an MP3 audio file");
    }
    // An ISO base media file's first box, `ftyp` (ISO/IEC 14496-12 §4.3; MIME Sniffing
    // §6.2.1 "matches the signature for MP4"): its size, a multiple of 4, at least 8.
    let size = head
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    if head.get(4..8) == Some(b"ftyp") && size.is_some_and(|n| n >= 8 && n % 4 == 0) {
        return Some("an ISO media file (MP4, MOV, M4A, HEIF or AVIF)");
    }
    None
}

/// A RIFF (WebP, WAVE, AVI) or IFF (AIFF) file, by the form type after the chunk's size.
fn riff_or_form_kind(head: &[u8]) -> Option<&'static str> {
    let form = head.get(8..12)?;
    match (&head[..4], form) {
        (b"RIFF", b"WEBP") => Some("a WebP image"),
        (b"RIFF", b"WAVE") => Some("a WAVE audio file"),
        (b"RIFF", b"AVI ") => Some("an AVI video"),
        (b"FORM", b"AIFF") => Some("an AIFF audio file"),
        _ => None,
    }
}

/// A web archive in a form absolve does not read, told by its first bytes
/// ([`unreadable`]): an input without a `--format` is refused with what it is and what
/// to do ([`Error::Unreadable`](crate::Error::Unreadable)), never read as HTML (its
/// bytes rewritten as if they were text, its framing broken).
///
/// ```
/// use absolve::format::Unreadable;
///
/// assert!(Unreadable::Tar.to_string().starts_with("a tar archive"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unreadable {
    /// A tar archive (POSIX ustar or GNU tar, plain or compressed): its members' bytes
    /// read as one HTML document would be rewritten past the sizes its headers give.
    #[error(
        "a tar archive: absolve does not read the files in it; extract it (`tar xf FILE`), then run `absolve rewrite -r` over the folder"
    )]
    Tar,
    /// A 7z archive (its signature `7z\xBC\xAF\x27\x1C`).
    #[error(
        "a 7z archive: absolve does not read the files in it; extract it (`7z x FILE`), then run `absolve rewrite -r` over the folder"
    )]
    SevenZip,
    /// A RAR archive (its signature `Rar!\x1A\x07`, versions 1.5 to 5).
    #[error(
        "a RAR archive: absolve does not read the files in it; extract it (`unrar x FILE`), then run `absolve rewrite -r` over the folder"
    )]
    Rar,
    /// A binary property list (`bplist00`) that is not a Safari web archive: no
    /// `WebMainResource` in its first bytes ([`webarchive::is_webarchive`](crate::webarchive::is_webarchive)),
    /// nor a `.webarchive` name. Its strings and data, written with their lengths before
    /// them, are not text to rewrite.
    #[error(
        "a binary property list that is not a Safari web archive (no WebMainResource key in its first 64 KiB): absolve does not read it; if it is a web archive, name it .webarchive or pass --format webarchive"
    )]
    PropertyList,
    /// An OLE2 compound file (its signature `D0 CF 11 E0 A1 B1 1A E1`): an Outlook `.msg`
    /// message or an Office 97-2003 document. An HTML body in it is a stream whose size
    /// its directory gives: rewritten as text, the file is broken.
    #[error(
        "an OLE2 compound file (an Outlook .msg message, or an Office 97-2003 document): absolve does not read it; convert a .msg to an .eml (`msgconvert FILE`, Debian's libemail-outlook-message-perl), then run absolve on the .eml"
    )]
    CompoundFile,
    /// An Outlook data file, `.pst` or `.ost` (its signature `!BDN`).
    #[error(
        "an Outlook data file (.pst, .ost): absolve does not read it; export its folders as mbox files (`readpst -r FILE`, Debian's pst-utils), then run `absolve rewrite -r` over them"
    )]
    OutlookDataFile,
    /// An Emacs Babyl mailbox (RMAIL before Emacs 23: its first line `BABYL OPTIONS:`):
    /// each message's heading is there twice, around an `*** EOOH ***` line.
    #[error(
        "an Emacs Babyl mailbox (RMAIL): absolve does not read it; convert it to an mbox (visit it in Emacs 23 or later, which converts it; or copy its messages with Python's mailbox module, mailbox.Babyl to mailbox.mbox), then run absolve on the mbox"
    )]
    Babyl,
    /// A PDF document (`%PDF-`): its links are annotations, and its cross-reference table
    /// gives byte offsets that a rewrite as text would move.
    #[error(
        "a PDF document: absolve does not read it (its links are PDF annotations, not HTML or CSS)"
    )]
    Pdf,
}

/// What an input absolve does not read is, by its first bytes: a tar archive
/// ([`is_tar`]), a 7z or RAR archive (their signatures), a binary
/// property list (`bplist00`) that is not a Safari web archive (which [`detect`] tells),
/// an OLE2 compound file (an Outlook `.msg`), an Outlook data file, an Emacs Babyl
/// mailbox, a PDF document.
/// `None` for anything else.
///
/// ```
/// use absolve::format::{unreadable, Unreadable};
///
/// assert_eq!(unreadable(b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 76\n"), None); // ARC: a WARC
/// assert_eq!(unreadable(b"\x04\x22\x4d\x18\x64\x40\xa7"), None); // LZ4: decompressed
/// assert_eq!(unreadable(b"7z\xBC\xAF\x27\x1C\x00\x04"), Some(Unreadable::SevenZip));
/// assert_eq!(unreadable(b"Rar!\x1A\x07\x01\x00"), Some(Unreadable::Rar));
/// assert_eq!(unreadable(b"bplist00\xd1\x01\x02TName"), Some(Unreadable::PropertyList));
/// assert_eq!(unreadable(b"bplist00\xd1\x01\x02_\x10\x0fWebMainResource"), None);
/// assert_eq!(unreadable(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0"), Some(Unreadable::CompoundFile));
/// assert_eq!(unreadable(b"!BDN\x8a\x41"), Some(Unreadable::OutlookDataFile));
/// assert_eq!(unreadable(b"%PDF-1.7\n"), Some(Unreadable::Pdf));
/// assert_eq!(unreadable(b"BABYL OPTIONS: -*- rmail -*-\n"), Some(Unreadable::Babyl));
/// assert_eq!(unreadable(b"WARC/1.1\r\n"), None);
/// assert_eq!(unreadable(b"<p>filedesc://"), None);
/// ```
pub fn unreadable(head: &[u8]) -> Option<Unreadable> {
    if is_tar(head) {
        return Some(Unreadable::Tar);
    }
    if head.starts_with(b"7z\xBC\xAF\x27\x1C") {
        return Some(Unreadable::SevenZip);
    }
    if head.starts_with(b"Rar!\x1A\x07\x00") || head.starts_with(b"Rar!\x1A\x07\x01\x00") {
        return Some(Unreadable::Rar);
    }
    if head.starts_with(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1") {
        return Some(Unreadable::CompoundFile);
    }
    if head.starts_with(b"!BDN") {
        return Some(Unreadable::OutlookDataFile);
    }
    if head.starts_with(b"%PDF-") {
        return Some(Unreadable::Pdf);
    }
    if head.starts_with(b"BABYL OPTIONS:") {
        return Some(Unreadable::Babyl);
    }
    let property_list = head.starts_with(crate::webarchive::BINARY_MAGIC)
        && !crate::webarchive::is_webarchive(head);
    property_list.then_some(Unreadable::PropertyList)
}

impl Unreadable {
    /// Whether a file of this kind found in a tree (`-r`) is worth a warning as it is
    /// skipped, given its name's extension: an archive, a property list or an Outlook
    /// file holds messages or pages; a PDF, or an Office document that is no `.msg`,
    /// is one of the many files of a site that are no documents, skipped as images are.
    ///
    /// ```
    /// use absolve::format::Unreadable;
    ///
    /// assert!(Unreadable::CompoundFile.warned_in_a_tree(Some("MSG")));
    /// assert!(!Unreadable::CompoundFile.warned_in_a_tree(Some("doc")));
    /// assert!(!Unreadable::Pdf.warned_in_a_tree(Some("pdf")));
    /// assert!(Unreadable::Tar.warned_in_a_tree(None));
    /// ```
    pub fn warned_in_a_tree(self, extension: Option<&str>) -> bool {
        match self {
            Unreadable::Pdf => false,
            Unreadable::CompoundFile => extension.is_some_and(|e| e.eq_ignore_ascii_case("msg")),
            _ => true,
        }
    }
}

/// Whether `head` starts with a tar header block (POSIX.1-2001 `pax`/ustar, GNU tar): the
/// magic `ustar\0` (POSIX) or `ustar  \0` (GNU) at byte 257, and the header's checksum
/// (bytes 148 to 155, in octal: the sum of the block's 512 bytes, the checksum's own
/// counted as spaces) right. Tar files of before ustar (no magic) are not told.
///
/// ```
/// let mut header = [0u8; 512];
/// header[..9].copy_from_slice(b"site/a.ht");
/// header[257..263].copy_from_slice(b"ustar\0");
/// let sum: u32 = header.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * u32::from(b' ');
/// header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
/// assert!(absolve::format::is_tar(&header));
/// header[0] = b'S';
/// assert!(!absolve::format::is_tar(&header));
/// ```
pub fn is_tar(head: &[u8]) -> bool {
    let Some(block) = head.get(..512) else {
        return false;
    };
    if &block[257..263] != b"ustar\0" && &block[257..265] != b"ustar  \0" {
        return false;
    }
    let field = &block[148..156];
    let mut digits = field
        .iter()
        .skip_while(|&&b| b == b' ')
        .take_while(|&&b| (b'0'..=b'7').contains(&b));
    let Some(written) = digits.try_fold(0u32, |sum, &d| {
        sum.checked_mul(8)?.checked_add(u32::from(d - b'0'))
    }) else {
        return false;
    };
    let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
    let own: u32 = field.iter().map(|&b| u32::from(b)).sum();
    sum - own + 8 * u32::from(b' ') == written
}

/// Whether `head` starts a WARC file: `WARC/`, plain or in a gzip member (WARC 1.1
/// Annex D); or an ARC file, read as one: `filedesc://`, plain or gzipped.
///
/// ```
/// use absolve::format::{detect, Format};
/// use std::io::Write;
///
/// assert_eq!(detect(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"), Format::Warc);
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// gz.write_all(b"WARC/1.0\r\n").unwrap();
/// assert_eq!(detect(&gz.finish().unwrap()), Format::Warc);
/// assert_eq!(detect(b"filedesc://x.arc 0.0.0.0 20240101000000 text/plain 76\n"), Format::Warc);
/// ```
fn is_warc(head: &[u8]) -> bool {
    [b"WARC/".as_slice(), b"filedesc://"]
        .into_iter()
        .any(|start| head.starts_with(start) || starts_gunzipped_with(head, start))
}

/// Whether `head` is gzip data whose content starts with `prefix`.
fn starts_gunzipped_with(head: &[u8], prefix: &[u8]) -> bool {
    use std::io::Read;
    if !head.starts_with(&[0x1f, 0x8b]) {
        return false;
    }
    let mut start = vec![0; prefix.len()];
    flate2::read::GzDecoder::new(head)
        .read_exact(&mut start)
        .is_ok_and(|()| start == prefix)
}

/// Fields that only a mail or MIME heading has.
const MAIL_FIELDS: [&str; 12] = [
    "mime-version",
    "content-type",
    "content-location",
    "content-base",
    "content-transfer-encoding",
    "from",
    "to",
    "subject",
    "date",
    "message-id",
    "received",
    "return-path",
];

/// Whether `head` starts with a header block holding at least one mail or MIME field.
/// The block ends at a blank line, or at its first line that is not a field (after at
/// least one that is), as the MIME walk reads a heading (`walk::unended_heading`, as
/// Python's email does): one damaged line (`X-Mailer Foo`) does not make a message, or a
/// whole mbox, HTML.
pub(crate) fn is_header_block(head: &[u8]) -> bool {
    let mut mail_fields = 0;
    let mut lines = head.split(|&b| b == b'\n').peekable();
    let mut first = true;
    while let Some(line) = lines.next() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let is_last_read = lines.peek().is_none();
        if line.is_empty() || (is_last_read && !first) {
            break;
        }
        if !first && matches!(line[0], b' ' | b'\t') {
            continue;
        }
        let Some(name) = field_name(line) else {
            break;
        };
        first = false;
        mail_fields += usize::from(is_mail_field(name));
    }
    mail_fields > 0
}

/// Whether `name`, a field name in any case, is one of the mail and MIME fields a message
/// is told by ([`detect`]); the mbox splitter looks for one too, in the heading after a
/// From_ line that no blank line precedes ([`crate::mime::mbox`]).
pub(crate) fn is_mail_field(name: &[u8]) -> bool {
    MAIL_FIELDS
        .iter()
        .any(|field| name.eq_ignore_ascii_case(field.as_bytes()))
}

/// RFC 5322 §2.2: a field name (printable ASCII but `:`) followed by `:`.
pub(crate) fn field_name(line: &[u8]) -> Option<&[u8]> {
    let len = line
        .iter()
        .take_while(|&&b| (0x21..=0x7e).contains(&b) && b != b':')
        .count();
    (len > 0 && line.get(len) == Some(&b':')).then_some(&line[..len])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name that is not UTF-8 (Latin-1's `café.css`) has its extension: it is read from
    /// the name's bytes.
    #[cfg(unix)]
    #[test]
    fn extensions_of_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let path = |name: &[u8]| Path::new(std::ffi::OsStr::from_bytes(name)).to_path_buf();
        assert_eq!(extension_of(&path(b"d/caf\xE9.css")), Some("css"));
        assert_eq!(extension_of(&path(b"caf\xE9.mbox.GZ")), Some("mbox"));
        assert_eq!(
            compression_named(&path(b"caf\xE9.mbox.GZ")),
            Some(Compression::Gzip)
        );
        assert_eq!(extension_of(&path(b"caf.\xE9")), None);
        assert_eq!(extension_of(&path(b"\xE9")), None);
    }

    #[test]
    fn sniffing_follows_the_html_patterns() {
        assert_eq!(
            sniff(b"<!-- saved from url=(0010)http://h/ -->"),
            Some(Format::Html)
        );
        assert_eq!(sniff(b"\xEF\xBB\xBF<HTML>"), Some(Format::Html));
        assert_eq!(sniff(b"\x0C\r\n<br>"), Some(Format::Html));
        // Only a space or `>` terminates a tag name in the standard's patterns.
        assert_eq!(sniff(b"<a\nhref=x>"), None);
        assert_eq!(sniff(b"<?xml version=\"1.0\"?><rss>"), Some(Format::Feed));
        assert_eq!(sniff(b"<?xml version=\"1.0\"?><svg>"), None);
        // A feed's prolog may start as the `<!--` pattern does: its root tells first.
        assert_eq!(
            sniff(b"<!-- generated -->\n<rss version=\"2.0\">"),
            Some(Format::Feed)
        );
        assert_eq!(sniff(b"<!-- generated -->\n<html>"), Some(Format::Html));
        assert_eq!(sniff(b"PK\x03\x04\x14\0"), None);
        assert_eq!(sniff(b"<abbr>x</abbr>"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn arc_is_told_by_its_first_bytes_lz4_is_not_refused() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"filedesc://x.arc 0.0.0.0 2014 text/plain 9\n")
            .unwrap();
        let gzipped_arc = gz.finish().unwrap();
        assert_eq!(unreadable(&gzipped_arc), None);
        assert_eq!(detect(&gzipped_arc), Format::Warc);
        // LZ4 (a frame, a legacy frame) is decompressed (`compress`), not refused.
        assert_eq!(unreadable(b"\x02\x21\x4c\x18\0\0"), None);
        assert_eq!(unreadable(b"\x1f\x8b\x08\0garbage"), None);
        assert_eq!(detect(b" filedesc://x"), Format::Html);
        assert_eq!(unreadable(b""), None);
    }

    #[test]
    fn an_mbox_needs_a_from_line_and_a_header_block() {
        let gmail = b"From 1844347792267117879@xxx\r\nX-GM-THRID: 1\r\nReceived: by x\r\n\r\nbody";
        assert_eq!(detect(gmail), Format::Mbox);
        assert_eq!(detect(b"From a@b 1\nnot a header\n"), Format::Html);
        assert_eq!(detect(b"From here on\nSubject: x\n\n"), Format::Html);
        assert_eq!(detect(b"From a@b Mon Jan  1 00:00:00 2024"), Format::Html);
    }
}
