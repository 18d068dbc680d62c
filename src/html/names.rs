//! Tag and attribute names read from the source bytes, lower-cased on the stack.
//!
//! lol_html gives names as new `String`s (`Element::tag_name`, `Attribute::name`): one
//! allocation per element and one per attribute, most of them (`class`, `id`, `data-*`)
//! only to be compared with the URL attribute table and dropped. The same name is in the
//! source bytes, which the document still holds: a name of ASCII bytes is, in every
//! ASCII-compatible charset, the same characters, and lol_html lower-cases ASCII only
//! (HTML §13.2.5.8, §13.2.5.33), so lower-casing the bytes gives lol_html's name exactly.
//! A name with other bytes, or longer than [`INLINE`], is taken from lol_html instead.

use arrayvec::ArrayString;
use std::ops::Deref;

/// The longest name kept on the stack (every name the URL tables know is shorter).
pub(crate) const INLINE: usize = 24;

/// A lower-cased tag or attribute name.
#[derive(Debug)]
pub(crate) enum Name {
    /// ASCII, at most [`INLINE`] bytes.
    Inline(ArrayString<INLINE>),
    /// Anything else, as lol_html gave it.
    Owned(String),
}

impl Name {
    /// The name spelled by `raw` (ASCII, short), lower-cased; `None` for any other bytes.
    pub(crate) fn from_ascii(raw: &[u8]) -> Option<Name> {
        if raw.len() > INLINE || !raw.is_ascii() {
            return None;
        }
        let mut name = ArrayString::new();
        for &byte in raw {
            name.push(char::from(byte.to_ascii_lowercase()));
        }
        Some(Name::Inline(name))
    }

    /// The tag name at the start of a start tag's bytes (`<name ...`): it ends at ASCII
    /// whitespace, `/` or `>` (HTML §13.2.5.8, the tag name state).
    pub(crate) fn of_start_tag(tag: &[u8]) -> Option<Name> {
        let rest = tag.strip_prefix(b"<")?;
        let end = rest
            .iter()
            .position(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
            .unwrap_or(rest.len());
        Name::from_ascii(&rest[..end])
    }

    /// A name already lower-cased (a tag name [`Name`] gave), kept inline where it fits.
    pub(crate) fn new(name: &str) -> Name {
        match ArrayString::from(name) {
            Ok(inline) => Name::Inline(inline),
            Err(_) => Name::Owned(name.to_owned()),
        }
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Name::Inline(name) => name,
            Name::Owned(name) => name,
        }
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.deref() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_tag_names_end_where_the_tokenizer_ends_them() {
        for (tag, name) in [
            ("<A HREF=x>", "a"),
            ("<img/src=x>", "img"),
            ("<IFRAME>", "iframe"),
            ("<svg\tviewBox=0>", "svg"),
            ("<foreignObject\r\n>", "foreignobject"),
            ("<x-Custom-Element>", "x-custom-element"),
            ("<p", "p"),
        ] {
            assert_eq!(&*Name::of_start_tag(tag.as_bytes()).unwrap(), name, "{tag}");
        }
    }

    #[test]
    fn other_bytes_are_left_to_lol_html() {
        assert!(Name::of_start_tag("<é>".as_bytes()).is_none());
        assert!(Name::of_start_tag(b"a>").is_none());
        assert!(Name::from_ascii(&[b'a'; INLINE + 1]).is_none());
        assert_eq!(
            &*Name::from_ascii(&[b'A'; INLINE]).unwrap(),
            "a".repeat(INLINE)
        );
    }

    #[test]
    fn owned_names_read_the_same() {
        let name = Name::Owned("href".to_owned());
        assert!(name == "href");
        assert_eq!(&*Name::from_ascii(b"SrcSet").unwrap(), "srcset");
        assert_eq!(
            &*Name::new("x".repeat(INLINE + 1).as_str()),
            "x".repeat(INLINE + 1)
        );
        assert!(matches!(Name::new("img"), Name::Inline(_)));
    }
}
