//! The namespaces in scope (Namespaces in XML 1.0 §6.1-6.2): which namespace an element's
//! prefix names, looked up in constant time however many bindings are in scope.
//!
//! quick-xml's `NamespaceResolver` finds a prefix by scanning every binding in scope, for
//! each element: 20,000 bindings on the root made 2 million elements take 34 s. It still
//! checks each tag's declarations (the reserved `xml` and `xmlns` prefixes, §3); the
//! bindings are kept here, by prefix.

use super::escape::{self, Unreadable};
use super::vocabulary::Ns;
use quick_xml::events::BytesStart;
use quick_xml::name::{NamespaceError, NamespaceResolver, PrefixDeclaration, QName};
use std::collections::HashMap;
use std::ops::Range;

/// The bindings of the open elements that declare namespaces.
#[derive(Default)]
pub(crate) struct Namespaces {
    /// Each bound prefix (empty: the default namespace) and its innermost binding.
    innermost: HashMap<Box<[u8]>, usize>,
    /// Every binding in scope, outermost first.
    bindings: Vec<Binding>,
    /// The prefixes of `bindings`, one after another.
    prefixes: Vec<u8>,
    /// Where each open declaring element's bindings start in `bindings`.
    levels: Vec<usize>,
    /// The DOCTYPE, when it declares entities: a namespace declaration may use them.
    doctype: Option<Box<[u8]>>,
}

struct Binding {
    /// Its prefix's range in `Namespaces::prefixes`.
    prefix: Range<usize>,
    /// What it names.
    ns: Ns,
    /// The binding of the same prefix it hides, if any.
    hides: Option<usize>,
}

impl Namespaces {
    /// Takes the DOCTYPE `bytes` (which declare entities) for the namespace declarations
    /// that use its entities ([`namespace_name_in`]).
    pub(crate) fn declare_entities(&mut self, bytes: &[u8]) {
        self.doctype = Some(bytes.into());
    }

    /// Opens a level with the namespace declarations of `start` (its `xmlns` and
    /// `xmlns:p` attributes); an error when a declaration binds a reserved prefix or
    /// namespace (§3), and then nothing is opened.
    pub(crate) fn push(&mut self, start: &BytesStart) -> Result<(), NamespaceError> {
        NamespaceResolver::default().push(start)?;
        self.levels.push(self.bindings.len());
        for attribute in start.attributes().with_checks(false) {
            let Ok(attribute) = attribute else { break };
            let prefix = match attribute.key.as_namespace_binding() {
                Some(PrefixDeclaration::Default) => &b""[..],
                // `xml` may be declared, to its own namespace only: nothing changes.
                Some(PrefixDeclaration::Named(b"xml")) | None => continue,
                Some(PrefixDeclaration::Named(prefix)) => prefix,
            };
            // `xmlns:p=""` (XML Namespaces 1.1) unbinds the prefix: its elements are in no
            // namespace this module knows.
            let ns = match namespace_name_in(&attribute.value, self.doctype.as_deref()) {
                Ns::None if !prefix.is_empty() => Ns::Other,
                ns => ns,
            };
            let index = self.bindings.len();
            let hides = match self.innermost.get_mut(prefix) {
                Some(innermost) => Some(std::mem::replace(innermost, index)),
                None => {
                    self.innermost.insert(prefix.into(), index);
                    None
                }
            };
            let from = self.prefixes.len();
            self.prefixes.extend_from_slice(prefix);
            self.bindings.push(Binding {
                prefix: from..self.prefixes.len(),
                ns,
                hides,
            });
        }
        Ok(())
    }

    /// Closes the innermost level opened by [`push`](Self::push).
    pub(crate) fn pop(&mut self) {
        let Some(from) = self.levels.pop() else {
            return;
        };
        while self.bindings.len() > from {
            let binding = self.bindings.pop().expect("more than `from`");
            let prefix = &self.prefixes[binding.prefix.clone()];
            match binding.hides {
                Some(hidden) => {
                    if let Some(innermost) = self.innermost.get_mut(prefix) {
                        *innermost = hidden;
                    }
                }
                None => {
                    self.innermost.remove(prefix);
                }
            }
            self.prefixes.truncate(binding.prefix.start);
        }
    }

    /// The namespace of the element named `name`: its prefix's, else the default one's
    /// (§6.2); no namespace when no default is declared; an undeclared prefix (or `xml`,
    /// `xmlns`) names none this module knows.
    pub(crate) fn of_element(&self, name: QName) -> Ns {
        let prefix = name.prefix().map_or(&b""[..], |p| p.into_inner());
        match self.innermost.get(prefix) {
            Some(&index) => self.bindings[index].ns,
            None if prefix.is_empty() => Ns::None,
            None => Ns::Other,
        }
    }
}

/// The namespace a declaration's value names. Namespaces in XML 1.0 §3: the namespace
/// name is the attribute's normalized value (XML 1.0 §3.3.3), its character references
/// (§4.1) and references to XML's five entities (§4.6) read:
/// `xmlns="http:&#x2F;&#x2F;www.w3.org&#x2F;2005&#x2F;Atom"` names Atom 1.0. A value that
/// cannot be read (an entity no DTD of absolve's expands, a bare `&`, bytes that are not
/// UTF-8) names no namespace this module knows: every known name is ASCII, which every
/// charset the rewriter reads writes as in UTF-8.
pub(crate) fn namespace_name(raw: &[u8]) -> Ns {
    namespace_name_in(raw, None)
}

/// [`namespace_name`], the entities `doctype` declares read too (XML 1.0 §4.4.5: an
/// internal entity is "included in literal" in an attribute value). Adobe Illustrator
/// writes its SVG's namespace so: `<!ENTITY ns_svg "http://www.w3.org/2000/svg">` in the
/// DOCTYPE, then `<svg xmlns="&ns_svg;">`, which browsers read as SVG. The value is read
/// by the `xml` crate's parser over the DOCTYPE and one attribute: an entity's literal
/// value, an entity it names not expanded (one level: no "billion laughs"), at most
/// [`MAX_EXPANSION`] characters.
pub(crate) fn namespace_name_in(raw: &[u8], doctype: Option<&[u8]>) -> Ns {
    if !raw.contains(&b'&') {
        return Ns::from_uri(raw);
    }
    match (escape::read_value(raw, encoding_rs::UTF_8), doctype) {
        (Ok(name), _) => Ns::from_uri(name.as_bytes()),
        (Err(Unreadable::Entity(_)), Some(doctype)) => {
            declared_value(doctype, raw).map_or(Ns::Other, |name| Ns::from_uri(name.as_bytes()))
        }
        (Err(_), _) => Ns::Other,
    }
}

/// The most characters an entity in a namespace declaration expands to: every namespace
/// name absolve knows is shorter.
pub(crate) const MAX_EXPANSION: usize = 1024;

/// The value of an attribute written `raw`, the entities `doctype` declares expanded, as
/// an XML parser reads it in a document of that DOCTYPE; `None` when it cannot be read.
fn declared_value(doctype: &[u8], raw: &[u8]) -> Option<String> {
    use xml::reader::{ParserConfig, XmlEvent};
    let quote = if raw.contains(&b'"') { b'\'' } else { b'"' };
    let mut document = Vec::with_capacity(doctype.len() + raw.len() + 12);
    document.extend_from_slice(doctype);
    document.extend_from_slice(b"<x a=");
    document.push(quote);
    document.extend_from_slice(raw);
    document.push(quote);
    document.extend_from_slice(b"/>");
    let reader = ParserConfig::new()
        .max_entity_expansion_length(MAX_EXPANSION)
        .max_entity_expansion_depth(1)
        .create_reader(&document[..]);
    for event in reader {
        match event.ok()? {
            XmlEvent::StartElement { attributes, .. } => {
                let value = attributes.into_iter().next()?.value;
                return (!value.contains('&')).then_some(value);
            }
            XmlEvent::EndDocument => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(content: &str) -> BytesStart<'_> {
        let name_len = content.find(' ').unwrap_or(content.len());
        BytesStart::from_content(content, name_len)
    }

    #[test]
    fn inner_bindings_hide_outer_ones_until_their_element_closes() {
        let mut namespaces = Namespaces::default();
        let atom = "http://www.w3.org/2005/Atom";
        namespaces
            .push(&tag(&format!("feed xmlns='{atom}' xmlns:a='{atom}'")))
            .unwrap();
        assert_eq!(namespaces.of_element(QName(b"entry")), Ns::Atom10);
        assert_eq!(namespaces.of_element(QName(b"a:entry")), Ns::Atom10);
        assert_eq!(namespaces.of_element(QName(b"b:entry")), Ns::Other);
        namespaces
            .push(&tag("div xmlns='http://www.w3.org/1999/xhtml' xmlns:a=''"))
            .unwrap();
        assert_eq!(namespaces.of_element(QName(b"p")), Ns::Xhtml);
        assert_eq!(namespaces.of_element(QName(b"a:entry")), Ns::Other);
        namespaces.pop();
        assert_eq!(namespaces.of_element(QName(b"p")), Ns::Atom10);
        assert_eq!(namespaces.of_element(QName(b"a:entry")), Ns::Atom10);
        namespaces.push(&tag("x xmlns=''")).unwrap();
        assert_eq!(namespaces.of_element(QName(b"link")), Ns::None);
        namespaces.pop();
        namespaces.pop();
        assert_eq!(namespaces.of_element(QName(b"entry")), Ns::None);
        assert!(namespaces.innermost.is_empty() && namespaces.prefixes.is_empty());
    }

    #[test]
    fn reserved_prefixes_are_refused() {
        let mut namespaces = Namespaces::default();
        assert!(namespaces.push(&tag("x xmlns:xmlns='urn:x'")).is_err());
        assert!(
            namespaces
                .push(&tag("x xmlns:p='http://www.w3.org/XML/1998/namespace'"))
                .is_err()
        );
        assert!(namespaces.levels.is_empty());
        namespaces
            .push(&tag("x xmlns:xml='http://www.w3.org/XML/1998/namespace'"))
            .unwrap();
        assert_eq!(namespaces.of_element(QName(b"xml:x")), Ns::Other);
    }
}
