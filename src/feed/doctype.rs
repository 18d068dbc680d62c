//! Where a document type declaration ends, which quick-xml cannot always tell.
//!
//! quick-xml ends a DOCTYPE at the first `>` where the `<` and `>` it has seen balance
//! (tafia/quick-xml#258, still so in 0.38): a `>` inside a comment, a processing
//! instruction or a quoted literal of the internal subset (`<!-- a > b -->`,
//! `<!ENTITY x "a>b">`) ends it early, and the rest of the subset is read as markup of
//! the document (an error, or elements that are not there); a `<` in one keeps it open
//! past its end. This is no XML parser: it only skips what XML 1.0 §2.8 says the
//! declaration holds, to find the `>` that ends it:
//!
//! - \[28\] `doctypedecl ::= '<!DOCTYPE' S Name (S ExternalID)? S? ('[' intSubset ']' S?)? '>'`;
//!   an ExternalID's literals (\[11\] SystemLiteral, \[12\] PubidLiteral) are quoted;
//! - \[28b\] `intSubset ::= (markupdecl | DeclSep)*`, \[29\] markupdecl: element, attribute
//!   list, entity and notation declarations, whose only text that may hold `<`, `>`, `[`
//!   or `]` is quoted (\[9\] EntityValue, \[10\] AttValue, \[11\], \[12\]), processing
//!   instructions (\[16\], `<?` to `?>`) and comments (\[15\], `<!--` to `-->`).

/// What the bytes at a point of the document are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// Not a DOCTYPE (another markup, or text).
    NotDoctype,
    /// A DOCTYPE that the bytes end before it does.
    Cut,
    /// A DOCTYPE this many bytes long, its `>` included.
    Ends(usize),
}

/// Whether `bytes` start with a DOCTYPE, and where it ends (XML 1.0 §2.8 \[28\]); in any
/// case of `DOCTYPE`, as quick-xml reads it.
pub(crate) fn end(bytes: &[u8]) -> Scan {
    const OPEN: &[u8] = b"<!DOCTYPE";
    let head = &bytes[..bytes.len().min(OPEN.len())];
    if !head.eq_ignore_ascii_case(&OPEN[..head.len()]) {
        return Scan::NotDoctype;
    }
    if head.len() < OPEN.len() {
        return Scan::Cut;
    }
    walk(bytes, OPEN.len(), |_| {})
}

/// Whether the DOCTYPE `bytes` (from its `<!DOCTYPE`, or from just past it as quick-xml
/// hands it over) declares an entity: an `<!ENTITY` that starts a markup declaration of
/// its internal subset (XML 1.0 §2.8 \[28b\], \[29\]; §4.2 \[70\] EntityDecl), not
/// one inside a comment (§2.5 \[15\]), a processing instruction (§2.6 \[16\]) or a
/// quoted literal, where it declares nothing.
pub(crate) fn declares_entities(bytes: &[u8]) -> bool {
    let mut declares = false;
    walk(bytes, 0, |at| {
        declares |= bytes[at..].starts_with(b"<!ENTITY");
    });
    declares
}

/// Walks a DOCTYPE from `at` (past its `<!DOCTYPE`) to its `>`, skipping quoted
/// literals, and in the internal subset comments and processing instructions, as the
/// module says; `markup` is called at every other `<` of the internal subset, where a
/// markup declaration starts (XML 1.0 §2.8 \[28b\]).
fn walk(bytes: &[u8], mut at: usize, mut markup: impl FnMut(usize)) -> Scan {
    let mut in_subset = false;
    while let Some(&byte) = bytes.get(at) {
        let skipped = match byte {
            b'"' | b'\'' => past(bytes, at + 1, &[byte]),
            b'[' if !in_subset => {
                in_subset = true;
                Some(at + 1)
            }
            b']' if in_subset => {
                in_subset = false;
                Some(at + 1)
            }
            b'<' if in_subset && bytes[at..].starts_with(b"<!--") => past(bytes, at + 4, b"-->"),
            b'<' if in_subset && bytes[at..].starts_with(b"<?") => past(bytes, at + 2, b"?>"),
            b'<' if in_subset => {
                markup(at);
                Some(at + 1)
            }
            b'>' if !in_subset => return Scan::Ends(at + 1),
            _ => Some(at + 1),
        };
        match skipped {
            Some(next) => at = next,
            None => return Scan::Cut,
        }
    }
    Scan::Cut
}

/// The offset just past the first `close` in `bytes` from `from` on, if there is one.
fn past(bytes: &[u8], from: usize, close: &[u8]) -> Option<usize> {
    let rest = bytes.get(from..)?;
    memchr::memmem::find(rest, close).map(|i| from + i + close.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doctype_ends_at_its_own_end() {
        let subset = br#"<!DOCTYPE rss [ <!-- a > b --> <!ENTITY x "a>b"> <?pi > ?> <!ATTLIST a b CDATA '>]'> ]>"#;
        let mut doc = subset.to_vec();
        doc.extend_from_slice(b"<rss/>");
        assert_eq!(end(&doc), Scan::Ends(subset.len()));
        let external = b"<!doctype rss PUBLIC \"-//x//y>\" 'http://h/a.dtd' >";
        assert_eq!(end(external), Scan::Ends(external.len()));
        let lt = br#"<!DOCTYPE rss [<!ENTITY x "a<b">]>"#;
        assert_eq!(end(lt), Scan::Ends(lt.len()));
        assert_eq!(end(b"<!DOCTYPE rss [ <!-- > "), Scan::Cut);
        assert_eq!(end(b"<!DOC"), Scan::Cut);
        assert_eq!(end(b"<!-- x -->"), Scan::NotDoctype);
        assert_eq!(end(b"<rss>"), Scan::NotDoctype);
    }

    #[test]
    fn only_a_markup_declaration_declares_an_entity() {
        assert!(declares_entities(br#"<!DOCTYPE rss [ <!ENTITY x "y"> ]>"#));
        assert!(declares_entities(br#" rss [<!-- c --><!ENTITY x "y">]"#));
        for none in [
            &br#"<!DOCTYPE rss [ <!-- <!ENTITY x "y"> --> ]>"#[..],
            br#"<!DOCTYPE rss [ <?pi <!ENTITY x "y"> ?> ]>"#,
            br#"<!DOCTYPE rss [ <!ATTLIST a b CDATA "<!ENTITY x 'y'>"> ]>"#,
            br#"<!DOCTYPE rss SYSTEM "<!ENTITY x.dtd">"#,
            br#" rss [ <!-- <!ENTITY x "y"> --> ]"#,
        ] {
            assert!(
                !declares_entities(none),
                "{}",
                String::from_utf8_lossy(none)
            );
        }
    }
}
