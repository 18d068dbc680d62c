//! Telling a feed apart: an XML document whose root element is a feed's.

use super::doctype::Scan;
use super::namespaces::{Namespaces, namespace_name};
use super::vocabulary::Ns;
use quick_xml::Reader;
use quick_xml::errors::{Error, SyntaxError};
use quick_xml::events::{BytesStart, Event};

/// How far into a document its root element is looked for: 64 KiB, so a prolog (an
/// XML declaration, comments, processing instructions, a DOCTYPE with its internal
/// subset, whitespace) up to that size is read past. A root that starts later is not told
/// ([`ends_in_prolog`] says so). It is also the size of the head the pipeline reads
/// before telling an input's format.
pub const SNIFF_LIMIT: usize = 64 * 1024;

/// Whether `head` (the first bytes of a document; bytes past [`SNIFF_LIMIT`] are not
/// read) starts an Atom 1.0 or 0.3 `feed`, an RSS 0.9x/2.0 `rss` or an RSS 1.0/0.90
/// `rdf:RDF`: after an optional BOM, XML declaration, comments, processing instructions
/// and DOCTYPE (XML 1.0 §2.8, the prolog), the root element, told by its namespace URI
/// (not its prefix). An `rdf:RDF` is a feed when it binds the RSS 1.0 or 0.90 namespace.
///
/// ```
/// use absolve::feed::is_feed;
///
/// assert!(is_feed(b"<?xml version='1.0'?>\n<!-- hi --><feed xmlns='http://www.w3.org/2005/Atom'>"));
/// assert!(is_feed(b"\xEF\xBB\xBF<!DOCTYPE rss SYSTEM 'x.dtd'><rss version='0.91'>"));
/// assert!(is_feed(br#"<r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">"#));
/// assert!(!is_feed(b"<feed>"));
/// assert!(!is_feed(b"<html><body>"));
/// assert!(!is_feed(b"text <rss>"));
/// // In UTF-16, by its BOM.
/// let utf16: Vec<u8> = "\u{FEFF}<rss version='2.0'>".encode_utf16().flat_map(u16::to_le_bytes).collect();
/// assert!(is_feed(&utf16));
/// ```
pub fn is_feed(head: &[u8]) -> bool {
    root(head) == Root::Feed
}

/// Whether `head` (bytes past [`SNIFF_LIMIT`] not read) ends inside a well-formed XML
/// prolog, before the root element's name: more of the document would tell whether it
/// is a feed. A caller that read less than [`SNIFF_LIMIT`] may read more and ask
/// [`is_feed`] again.
///
/// ```
/// use absolve::feed::{ends_in_prolog, is_feed};
///
/// let cut = b"<?xml version='1.0'?>\n<!-- a long comment, cut";
/// assert!(ends_in_prolog(cut) && !is_feed(cut));
/// assert!(!ends_in_prolog(b"<?xml version='1.0'?><rss>"));
/// assert!(!ends_in_prolog(b"<html><!-- cut"));
/// ```
pub fn ends_in_prolog(head: &[u8]) -> bool {
    root(head) == Root::Cut
}

/// Whether `head` (bytes past [`SNIFF_LIMIT`] not read) starts an SVG image: after the
/// prolog, as [`is_feed`] reads it, a root element `svg` in the SVG namespace
/// (`http://www.w3.org/2000/svg`, told by its URI, whatever the prefix). An `<svg>` in no
/// namespace is no SVG image: a browser shows it as an XML tree.
///
/// ```
/// use absolve::feed::is_svg;
///
/// assert!(is_svg(b"<?xml version='1.0'?>\n<!DOCTYPE svg PUBLIC '-//W3C//DTD SVG 1.1//EN' 'x.dtd'>\n<svg xmlns='http://www.w3.org/2000/svg'>"));
/// assert!(is_svg(br#"<s:svg xmlns:s="http://www.w3.org/2000/svg">"#));
/// assert!(!is_svg(b"<svg>"));
/// assert!(!is_svg(b"<html><svg xmlns='http://www.w3.org/2000/svg'>"));
/// ```
pub fn is_svg(head: &[u8]) -> bool {
    root(head) == Root::Svg
}

/// Whether `head` starts a feed or an SVG image ([`is_feed`] or [`is_svg`]), its prolog
/// read once.
pub(crate) fn is_feed_or_svg(head: &[u8]) -> bool {
    matches!(root(head), Root::Feed | Root::Svg)
}

/// What the root element of a document's head is.
#[derive(Debug, PartialEq, Eq)]
enum Root {
    /// A feed's.
    Feed,
    /// An SVG image's.
    Svg,
    /// Another's, or the head is not an XML prolog.
    Other,
    /// The head ends before the root's name does.
    Cut,
}

/// The root element of `head`, read as XML events by quick-xml up to [`SNIFF_LIMIT`]:
/// the prolog's markup and whitespace are passed over (XML 1.0 §2.8).
fn root(head: &[u8]) -> Root {
    let head = &head[..head.len().min(SNIFF_LIMIT)];
    // A UTF-16 feed (XML 1.0 §4.3.3: its BOM says so) is read as the rewriter reads it,
    // decoded (a character cut at the end of the head is U+FFFD).
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(head)
        && encoding != encoding_rs::UTF_8
    {
        let (text, _) = encoding.decode_without_bom_handling(&head[bom..]);
        return root(text.as_bytes());
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    // Where in `head` the reader's input starts (past a DOCTYPE read here).
    let mut start = 0;
    let mut doctype = None;
    let mut reader = reader_of(head);
    loop {
        let before = start + reader.buffer_position() as usize;
        // quick-xml ends a DOCTYPE where its `<` and `>` balance, not where it ends.
        match super::doctype::end(&head[before..]) {
            Scan::NotDoctype => {}
            Scan::Ends(len) => {
                doctype = Some(&head[before..before + len]);
                start = before + len;
                reader = reader_of(&head[start..]);
                continue;
            }
            Scan::Cut => return Root::Cut,
        }
        match reader.read_event() {
            Ok(Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_)) => {}
            Ok(Event::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => {}
            Ok(Event::Start(root) | Event::Empty(root)) => return root_of(&root, doctype),
            // The root's start tag goes on past `head` (thousands of namespace
            // declarations): told by its name and the attributes `head` holds whole.
            Err(Error::Syntax(SyntaxError::UnclosedTag)) => {
                return match cut_root(&head[before..]) {
                    CutRoot::Named(root) => root_of(&root, doctype),
                    CutRoot::NotUtf8 => Root::Other,
                    CutRoot::NameCut => Root::Cut,
                };
            }
            Ok(Event::Eof) => return Root::Cut,
            Err(Error::Syntax(error)) if is_cut_markup(&error) => return Root::Cut,
            _ => return Root::Other,
        }
    }
}

/// A tokenizer of the prolog from `input` on.
fn reader_of(input: &[u8]) -> Reader<&[u8]> {
    let mut reader = Reader::from_reader(input);
    reader.config_mut().allow_dangling_amp = true;
    reader
}

/// Whether a syntax error is the end of the input cutting markup of the prolog: `<!`
/// alone, a processing instruction or XML declaration, a comment, a DOCTYPE.
fn is_cut_markup(error: &SyntaxError) -> bool {
    matches!(
        error,
        SyntaxError::InvalidBangMarkup
            | SyntaxError::UnclosedPIOrXmlDecl
            | SyntaxError::UnclosedComment
            | SyntaxError::UnclosedDoctype
    )
}

/// What a root element's start tag is: a feed's, an SVG image's, or another's; `doctype`
/// the document's DOCTYPE, if it has one.
fn root_of(root: &BytesStart, doctype: Option<&[u8]>) -> Root {
    // Told as the rewriter tells namespaces: a declaration's references read (Namespaces
    // in XML 1.0 §3: the namespace name is the attribute's normalized value), those to
    // the entities the DOCTYPE declares too.
    let mut namespaces = Namespaces::default();
    if let Some(doctype) = doctype.filter(|d| super::doctype::declares_entities(d)) {
        namespaces.declare_entities(doctype);
    }
    if namespaces.push(root).is_err() {
        return Root::Other;
    }
    match (
        namespaces.of_element(root.name()),
        root.local_name().as_ref(),
    ) {
        (Ns::Atom10 | Ns::Atom03, b"feed") | (Ns::None, b"rss") => Root::Feed,
        (Ns::Rdf, b"RDF") if binds_rss(root) => Root::Feed,
        (Ns::Svg, b"svg") => Root::Svg,
        _ => Root::Other,
    }
}

/// A root start tag cut at the end of the head, as [`cut_root`] reads it.
enum CutRoot<'a> {
    /// Its name and the attributes the head holds whole.
    Named(BytesStart<'a>),
    /// Its name holds a byte that is not UTF-8: no feed's name.
    NotUtf8,
    /// The head ends inside its name.
    NameCut,
}

/// The start of a start tag cut at the end of the head (`<name attributes...`), as a
/// start tag of its name and the attributes up to the first byte that is not UTF-8. (The
/// namespace resolver reads attributes up to the first one that is cut.)
fn cut_root(cut: &[u8]) -> CutRoot<'_> {
    let Some(content) = cut.strip_prefix(b"<") else {
        return CutRoot::NameCut;
    };
    let Some(name_len) = content.iter().position(|b| b.is_ascii_whitespace()) else {
        return CutRoot::NameCut;
    };
    let valid = match std::str::from_utf8(content) {
        Ok(all) => all,
        Err(error) => match std::str::from_utf8(&content[..error.valid_up_to()]) {
            Ok(valid) => valid,
            Err(_) => return CutRoot::NotUtf8,
        },
    };
    // quick-xml's attribute reader slices the content from `name_len` on: it must be
    // within what is kept.
    if valid.len() < name_len {
        return CutRoot::NotUtf8;
    }
    CutRoot::Named(BytesStart::from_content(valid, name_len))
}

/// Whether a start tag binds the RSS 1.0 or RSS 0.90 namespace.
fn binds_rss(root: &quick_xml::events::BytesStart) -> bool {
    root.attributes().with_checks(false).flatten().any(|a| {
        a.key.as_namespace_binding().is_some()
            && matches!(namespace_name(&a.value), Ns::Rss10 | Ns::Rss090)
    })
}

#[cfg(test)]
mod tests {
    use super::{SNIFF_LIMIT, ends_in_prolog, is_feed};

    #[test]
    fn every_flavour_is_told() {
        assert!(is_feed(
            b"<feed xmlns=\"http://purl.org/atom/ns#\" version=\"0.3\">"
        ));
        assert!(is_feed(b"<a:feed xmlns:a=\"http://www.w3.org/2005/Atom\">"));
        assert!(is_feed(b"<?xml version=\"1.0\" encoding=\"utf-8\"?><?xml-stylesheet href=\"s.xsl\"?><rss version=\"2.0\">"));
        assert!(is_feed(
            b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://my.netscape.com/rdf/simple/0.9/\">"
        ));
    }

    #[test]
    fn other_xml_is_not_a_feed() {
        assert!(!is_feed(
            b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        ));
        assert!(!is_feed(b"<feed xmlns=\"http://example.com/\">"));
        assert!(!is_feed(b"<svg xmlns=\"http://www.w3.org/2000/svg\">"));
        assert!(!is_feed(b"<x:rss xmlns:x=\"urn:x\">"));
        assert!(!is_feed(b""));
        // UTF-16 by its BOM is read decoded: `<rss>` is a feed's root, `<svg>` is not.
        assert!(is_feed(b"\xFF\xFE<\0r\0s\0s\0>\0"));
        assert!(is_feed(b"\xFE\xFF\0<\0r\0s\0s\0>"));
        assert!(!is_feed(b"\xFF\xFE<\0s\0v\0g\0>\0"));
        // A cut root whose name is not UTF-8 (found by fuzzing: quick-xml was given a
        // name longer than the content and panicked).
        for cut in [&b"<\xB2xmo "[..], b"<rs\xCF ve\xC3\r\n\x9Airs\xCF\x01i ve?"] {
            assert!(!is_feed(cut));
        }
    }

    /// A prolog of kilobytes before the root: an XML declaration, a DOCTYPE whose
    /// internal subset holds declarations and a comment, comments, processing
    /// instructions and blank lines, as some feed generators write. (quick-xml ends a
    /// DOCTYPE where its `<` and `>` balance, tafia/quick-xml#258: a lone `>` in a
    /// comment or literal of the subset ends it early, and such a prolog is not told.)
    fn long_prolog(size: usize) -> Vec<u8> {
        let mut prolog = b"<?xml version='1.0'?>\n<!DOCTYPE rss [\n  <!ENTITY site 'http://x/'>\n  <!-- the <channel> entity -->\n  <!ELEMENT rss ANY>\n]>\n".to_vec();
        while prolog.len() < size {
            prolog.extend(b"<!-- generated by some tool, lorem ipsum dolor sit amet -->\n\t\n");
            prolog.extend(b"<?xml-stylesheet type='text/xsl' href='s.xsl'?>\n");
        }
        prolog
    }

    /// A root after a 7 KB prolog was not looked for past the 4 KiB `-r` read (nor, past
    /// 64 KiB, anywhere): read up to `SNIFF_LIMIT`, and a head cut inside the prolog says
    /// so, that more may be read.
    #[test]
    fn a_long_prolog_is_read_past_up_to_the_limit() {
        let mut rss = long_prolog(7000);
        rss.extend(b"<rss version='2.0'><channel><link>x</link></channel></rss>");
        assert!(is_feed(&rss));
        assert!(!is_feed(&rss[..4096]) && ends_in_prolog(&rss[..4096]));
        let mut atom = long_prolog(SNIFF_LIMIT - 100);
        atom.extend(b"<feed xmlns='http://www.w3.org/2005/Atom'/>");
        assert!(is_feed(&atom) && !ends_in_prolog(&atom));
        let mut html = long_prolog(7000);
        html.extend(b"<html><body>");
        assert!(!is_feed(&html) && !ends_in_prolog(&html));
        // Past the limit the root is not looked for: not told a feed, but said to be cut.
        let mut past = long_prolog(SNIFF_LIMIT + 10);
        past.extend(b"<rss version='2.0'/>");
        assert!(!is_feed(&past) && ends_in_prolog(&past));
        assert!(ends_in_prolog(b"<?xml version='1.0'?><!"));
        assert!(ends_in_prolog(b"\xEF\xBB\xBF \n"));
        assert!(!ends_in_prolog(b"text <rss>"));
    }

    /// A root whose start tag does not end within the bytes sniffed (the CLI reads 64 KiB)
    /// is told by its name and the attributes that are whole: such a feed was read as
    /// HTML, with no link and no warning.
    #[test]
    fn a_root_tag_longer_than_the_head_is_told_by_what_it_holds() {
        let mut rss = b"<?xml version='1.0'?><rss version='2.0'".to_vec();
        let mut atom = b"<feed xmlns='http://www.w3.org/2005/Atom'".to_vec();
        let mut other = b"<feed xmlns='http://example.com/'".to_vec();
        for tag in [&mut rss, &mut atom, &mut other] {
            for i in 0..5000 {
                tag.extend(format!(" xmlns:p{i}='urn:x:{i}'").bytes());
            }
        }
        let head = 64 * 1024;
        assert!(is_feed(&rss[..head]));
        assert!(is_feed(&atom[..head]));
        assert!(!is_feed(&other[..head]));
        assert!(!is_feed(b"<rs"));
        assert!(!is_feed(b"<html lang='en'"));
    }
}
