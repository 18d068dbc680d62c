//! Telling a feed apart: an XML document whose root element is a feed's.

use super::vocabulary::Ns;
use quick_xml::Reader;
use quick_xml::errors::{Error, SyntaxError};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{NamespaceResolver, ResolveResult};

/// Whether `head` (the first bytes of a document, a few KiB are enough) starts an Atom 1.0
/// or 0.3 `feed`, an RSS 0.9x/2.0 `rss` or an RSS 1.0/0.90 `rdf:RDF`: after an optional
/// BOM, XML declaration, comments, processing instructions and DOCTYPE, the root
/// element, told by its namespace URI (not its prefix). An `rdf:RDF` is a feed when it
/// binds the RSS 1.0 or 0.90 namespace.
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
/// ```
pub fn is_feed(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut reader = Reader::from_reader(head);
    reader.config_mut().allow_dangling_amp = true;
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event() {
            Ok(Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_)) => {}
            Ok(Event::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => {}
            Ok(Event::Start(root) | Event::Empty(root)) => return is_feed_root(&root),
            // The root's start tag goes on past `head` (thousands of namespace
            // declarations): told by its name and the attributes `head` holds whole.
            Err(Error::Syntax(SyntaxError::UnclosedTag)) => {
                return cut_root(&head[before..]).is_some_and(|root| is_feed_root(&root));
            }
            _ => return false,
        }
    }
}

/// Whether the root element's start tag is a feed's.
fn is_feed_root(root: &BytesStart) -> bool {
    let mut resolver = NamespaceResolver::default();
    if resolver.push(root).is_err() {
        return false;
    }
    let (ns, local) = resolver.resolve_element(root.name());
    let ns = match ns {
        ResolveResult::Bound(uri) => Ns::from_uri(uri.as_ref()),
        ResolveResult::Unbound => Ns::None,
        ResolveResult::Unknown(_) => return false,
    };
    match (ns, local.as_ref()) {
        (Ns::Atom10 | Ns::Atom03, b"feed") => true,
        (Ns::None, b"rss") => true,
        (Ns::Rdf, b"RDF") => binds_rss(root),
        _ => false,
    }
}

/// The start of a start tag cut at the end of the head (`<name attributes...`), as a
/// start tag of its name and whole attributes; `None` if its name is cut too. (The
/// namespace resolver reads attributes up to the first one that is cut.)
fn cut_root(cut: &[u8]) -> Option<BytesStart<'_>> {
    let content = cut.strip_prefix(b"<")?;
    let name_len = content.iter().position(|b| b.is_ascii_whitespace())?;
    let valid = match std::str::from_utf8(content) {
        Ok(all) => all,
        Err(error) => std::str::from_utf8(&content[..error.valid_up_to()]).ok()?,
    };
    Some(BytesStart::from_content(valid, name_len))
}

/// Whether a start tag binds the RSS 1.0 or RSS 0.90 namespace.
fn binds_rss(root: &quick_xml::events::BytesStart) -> bool {
    root.attributes().with_checks(false).flatten().any(|a| {
        a.key.as_namespace_binding().is_some()
            && matches!(Ns::from_uri(&a.value), Ns::Rss10 | Ns::Rss090)
    })
}

#[cfg(test)]
mod tests {
    use super::is_feed;

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
        assert!(!is_feed(b"\xFF\xFE<\0r\0s\0s\0>\0"));
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
