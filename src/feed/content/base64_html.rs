//! Base64 content of an HTML or XHTML type: Atom 0.3 (draft-nottingham-atom-format-02
//! §3.1.2) says `mode="base64"` content is base64 (RFC 2045 §6.8) of the bytes its
//! `type` (§3.1.1) names. Those bytes are decoded (by the MIME reader's decoder), read
//! and rewritten by the HTML rewriter with the element's base, and encoded again in the
//! original's layout: the whitespace before and after the base64 text, its line width,
//! line ending and the indentation of its lines. An unchanged text is left as written.
//!
//! Base64 that does not decode (a character outside its alphabet, bad padding), or that
//! holds a reference to an entity not expanded or a comment, is left as written, its
//! links not read, with a warning.

use super::{Context, Done, as_html, may_hold_url, shifted, written_back};
use crate::feed::Warning;
use crate::feed::escape::{self, TextEscapes};
use crate::html::{self, Collected, Options};
use crate::mime::transfer::{self, Original, TransferEncoding};
use base64::Engine as _;

/// Rewrites the HTML that the base64 `pieces` of `raw` (an element's content) encode.
/// The links are listed as the HTML rewriter gives them (their offsets set by the
/// caller); the HTML rewriter's warnings are placed at the content's start.
pub(crate) fn rewrite(raw: &[u8], pieces: &[super::Piece], context: &Context) -> Done {
    let (text, mapped) = as_html(raw, pieces, context.encoding);
    if let Some(warning) = unreadable(raw, pieces, context) {
        return left_as_written(Some(warning));
    }
    let layout = Layout::of(&text);
    if layout.lines.is_empty() {
        return left_as_written(None);
    }
    let decoded = match decoded(&layout.lines) {
        Ok(decoded) => decoded,
        Err(reason) => {
            return left_as_written(Some(Warning::UnreadableBase64 {
                offset: context.offset,
                element: context.element.to_owned(),
                reason,
            }));
        }
    };
    if !may_hold_url(&decoded) {
        return left_as_written(None);
    }
    let collected = rewritten_html(&decoded, context);
    let at_start = |_| context.offset;
    let warnings = collected
        .warnings
        .into_iter()
        .filter_map(|w| match w.problem {
            crate::Problem::Html(warning) => Some(shifted(warning, &at_start)),
            _ => None,
        })
        .collect();
    let content = (context.wants_output && collected.output != decoded).then(|| {
        let new_text = layout.around(&encoded_like(&collected.output, &layout, &decoded));
        written_back(raw, &mapped, &text, &new_text, &|middle, out| {
            escape::text_bytes(middle, TextEscapes::default(), out)
        })
    });
    Done {
        content,
        links: collected.links,
        warnings,
        feed_warnings: Vec::new(),
    }
}

/// Nothing rewritten, nothing listed; a warning saying why, if there is one.
fn left_as_written(warning: Option<Warning>) -> Done {
    Done {
        content: None,
        links: Vec::new(),
        warnings: Vec::new(),
        feed_warnings: warning.into_iter().collect(),
    }
}

/// Why the character data cannot be read, if it cannot: a reference to an entity that is
/// not expanded (XML 1.0 §4.1: what it stands for is not known), or a comment or
/// processing instruction (no part of the character data, and with no place in a new
/// encoding of it).
fn unreadable(raw: &[u8], pieces: &[super::Piece], context: &Context) -> Option<Warning> {
    if let Some(markup) = context.markup.first() {
        return Some(Warning::UnreadableBase64 {
            offset: context.offset + markup.start as u64,
            element: context.element.to_owned(),
            reason: "holds a comment or processing instruction".to_owned(),
        });
    }
    pieces
        .iter()
        .filter(|p| p.kind == super::PieceKind::Reference)
        .find_map(|p| {
            let bytes = &raw[p.raw.clone()];
            let name = &bytes[1..bytes.len().saturating_sub(1).max(1)];
            escape::reference(name, context.encoding)
                .is_none()
                .then(|| Warning::Entity {
                    offset: context.offset + p.raw.start as u64,
                    reason: String::from_utf8_lossy(name).into_owned(),
                })
        })
}

/// The bytes base64 `lines` encode (RFC 2045 §6.8: line breaks are no part of them), or
/// why they do not decode: a character outside the base64 alphabet, or a length or
/// padding that is not whole 4-character quanta.
fn decoded(lines: &[u8]) -> Result<Vec<u8>, String> {
    let alphabet = |b: u8| transfer::is_base64_alphabet(b) || b == b'=';
    if let Some(other) = lines
        .iter()
        .find(|&&b| !alphabet(b) && !b.is_ascii_whitespace())
    {
        let character = String::from_utf8_lossy(&[*other]).into_owned();
        return Err(format!(
            "is not base64 ({character:?} is outside its alphabet)"
        ));
    }
    // Strictly: RFC 4287 §4.1.3.3 asks for valid base64 (RFC 3548 §2.3), not what a
    // lenient MIME decoder makes of the text.
    transfer::decode_whole(lines, TransferEncoding::Base64)
        .map_err(|error| format!("is not base64 ({error})"))
}

/// The decoded HTML rewritten, as escaped HTML content is: the element's base is the
/// document base (a `<base>` inside does not reach across the feed), and the feed's
/// charset is the transport's (a BOM in the HTML wins over it).
fn rewritten_html(decoded: &[u8], context: &Context) -> Collected {
    let options = Options {
        charset: Some(context.encoding),
        ..context.options.clone()
    };
    let collected = Collected {
        keep_links: context.wants_links,
        keep_output: context.wants_output,
        ..Collected::default()
    };
    let mut rewriter =
        html::Rewriter::with_document_base(context.base, context.base, &options, collected);
    // Writing to memory cannot fail.
    let _ = rewriter.write(decoded);
    rewriter.end().unwrap_or_default()
}

/// `new` in base64, laid out as the original was: on one line if it was on one, else in
/// lines of its width, with its line ending and indentation ([`transfer::encode`] keeps
/// the width and line ending).
fn encoded_like(new: &[u8], layout: &Layout, old: &[u8]) -> Vec<u8> {
    if !layout.lines.contains(&b'\n') {
        return base64::engine::general_purpose::STANDARD
            .encode(new)
            .into_bytes();
    }
    let original = Original {
        encoded: &layout.lines,
        decoded: old,
    };
    let lines = transfer::encode(new, TransferEncoding::Base64, &original, false);
    let mut out = Vec::with_capacity(lines.len() + lines.len() / 8);
    for (i, line) in lines.split_inclusive(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.extend_from_slice(layout.indent);
        }
        out.extend_from_slice(line);
    }
    out
}

/// How base64 text lies in an element: the XML whitespace (1.0 §2.3 \[3\] S) before and
/// after it, and its lines.
#[derive(Debug, PartialEq, Eq)]
struct Layout<'a> {
    lead: &'a [u8],
    /// The base64 lines, each with its line ending, without the spaces and tabs around
    /// them.
    lines: Vec<u8>,
    /// The indentation of the second line (that of the lines after the first).
    indent: &'a [u8],
    trail: &'a [u8],
}

impl<'a> Layout<'a> {
    /// The layout of the character data `text`.
    fn of(text: &'a [u8]) -> Self {
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        let is_blank = |b: &u8| matches!(b, b' ' | b'\t');
        let start = text.iter().position(|b| !is_space(b)).unwrap_or(text.len());
        let end = text
            .iter()
            .rposition(|b| !is_space(b))
            .map_or(start, |i| i + 1);
        let mut lines = Vec::with_capacity(end - start);
        let mut indent: &[u8] = b"";
        for (i, line) in text[start..end]
            .split_inclusive(|&b| b == b'\n')
            .enumerate()
        {
            let ending = line.len() - line.iter().rev().take_while(|b| is_space(b)).count();
            let (content, ending) = line.split_at(ending);
            let ending = &ending[ending.iter().take_while(|b| is_blank(b)).count()..];
            let blanks = content.iter().take_while(|b| is_blank(b)).count();
            if i == 1 {
                indent = &content[..blanks];
            }
            lines.extend_from_slice(&content[blanks..]);
            lines.extend_from_slice(ending);
        }
        Layout {
            lead: &text[..start],
            lines,
            indent,
            trail: &text[end..],
        }
    }

    /// `encoded` with the whitespace that was before and after the original.
    fn around(&self, encoded: &[u8]) -> Vec<u8> {
        [self.lead, encoded, self.trail].concat()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Piece, PieceKind};
    use super::*;
    use crate::base::Base;

    fn context<'a>(base: &'a Base, options: &'a Options) -> Context<'a> {
        Context {
            base,
            options,
            encoding: encoding_rs::UTF_8,
            wants_output: true,
            wants_links: true,
            offset: 100,
            markup: &[],
            element: "content",
        }
    }

    fn text(raw: &[u8]) -> Vec<Piece> {
        vec![Piece {
            kind: PieceKind::Text,
            raw: 0..raw.len(),
        }]
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn decode(text: &[u8]) -> Vec<u8> {
        let layout = Layout::of(text);
        decoded(&layout.lines).unwrap()
    }

    #[test]
    fn the_layout_is_the_whitespace_around_and_the_indentation() {
        let layout = Layout::of(b"\n    QUJD\r\n    REVG\r\n    R0g=\n  ");
        assert_eq!(layout.lead, b"\n    ");
        assert_eq!(layout.lines, b"QUJD\r\nREVG\r\nR0g=");
        assert_eq!(layout.indent, b"    ");
        assert_eq!(layout.trail, b"\n  ");
        let one = Layout::of(b"QUJD");
        assert_eq!(
            (one.lead, one.lines.as_slice(), one.trail),
            (&b""[..], &b"QUJD"[..], &b""[..])
        );
        assert!(Layout::of(b" \n\t").lines.is_empty());
    }

    #[test]
    fn a_single_line_stays_one_line() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let html = format!("<p>{}</p><a href=\"x.html\">x</a>", "long text ".repeat(20));
        let raw = format!(" {} ", b64(html.as_bytes()));
        let done = rewrite(
            raw.as_bytes(),
            &text(raw.as_bytes()),
            &context(&base, &options),
        );
        let content = done.content.unwrap();
        assert!(content.starts_with(b" ") && content.ends_with(b" "));
        assert!(!content.trim_ascii().contains(&b'\n'));
        let new = decode(&content);
        assert_eq!(new, html.replace("x.html", "http://h/d/x.html").as_bytes());
        assert_eq!(done.links[0].resolved, "http://h/d/x.html");
    }

    #[test]
    fn lines_keep_their_width_line_ending_and_indentation() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let html = format!("<a href=\"x.html\">{}</a>", "text ".repeat(30));
        let encoded = b64(html.as_bytes());
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(40)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let raw = format!("\r\n      {}\r\n    ", lines.join("\r\n      "));
        let done = rewrite(
            raw.as_bytes(),
            &text(raw.as_bytes()),
            &context(&base, &options),
        );
        let content = String::from_utf8(done.content.unwrap()).unwrap();
        assert!(content.starts_with("\r\n      ") && content.ends_with("\r\n    "));
        for line in content.trim().split("\r\n") {
            assert!(
                line.starts_with("      ") || !line.starts_with(' '),
                "{line:?}"
            );
            assert!(line.trim().len() <= 40, "{line:?}");
        }
        assert!(!content.trim().replace("\r\n", "").contains('\n'));
        assert_eq!(
            decode(content.as_bytes()),
            html.replace("x.html", "http://h/d/x.html").as_bytes()
        );
    }

    #[test]
    fn unchanged_html_is_left_as_written_and_its_links_listed() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b64(b"<a href=\"http://x/\">x</a>");
        let done = rewrite(
            raw.as_bytes(),
            &text(raw.as_bytes()),
            &context(&base, &options),
        );
        assert_eq!(done.content, None);
        assert_eq!(done.links[0].resolved, "http://x/");
    }

    #[test]
    fn text_that_is_not_base64_is_left_with_a_warning() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        for raw in [&b"<a href=x>"[..], b"PGE+PGE", b"PGE+\xc3\xa9"] {
            let done = rewrite(raw, &text(raw), &context(&base, &options));
            assert_eq!(done.content, None);
            assert!(done.links.is_empty());
            assert!(
                matches!(&done.feed_warnings[..], [Warning::UnreadableBase64 { offset: 100, reason, .. }] if reason.starts_with("is not base64")),
                "{:?}",
                done.feed_warnings
            );
        }
    }

    #[test]
    fn cdata_and_character_references_are_read_and_kept() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        // `PGEgaHJlZj14Pg==` is `<a href=x>`; its first quantum written as a reference.
        let raw = b"&#80;GEg<![CDATA[aHJlZj14Pg==]]>";
        let pieces = [
            Piece {
                kind: PieceKind::Reference,
                raw: 0..5,
            },
            Piece {
                kind: PieceKind::Text,
                raw: 5..8,
            },
            Piece {
                kind: PieceKind::CData,
                raw: 17..29,
            },
        ];
        let done = rewrite(raw, &pieces, &context(&base, &options));
        assert_eq!(done.links[0].resolved, "http://h/d/x");
        let content = String::from_utf8(done.content.unwrap()).unwrap();
        assert!(content.starts_with("&#80;GEg<![CDATA["), "{content}");
        let inside = content
            .replace("&#80;", "P")
            .replace("<![CDATA[", "")
            .replace("]]>", "");
        assert_eq!(decode(inside.as_bytes()), b"<a href=http://h/d/x>");
    }

    #[test]
    fn an_entity_not_expanded_or_a_comment_leaves_it_as_written() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"PGEgaHJlZj14Pg&nbsp;";
        let pieces = [
            Piece {
                kind: PieceKind::Text,
                raw: 0..14,
            },
            Piece {
                kind: PieceKind::Reference,
                raw: 14..20,
            },
        ];
        let done = rewrite(raw, &pieces, &context(&base, &options));
        assert_eq!((done.content, done.links.len()), (None, 0));
        assert_eq!(
            done.feed_warnings,
            [Warning::Entity {
                offset: 114,
                reason: "nbsp".to_owned()
            }]
        );
        let raw = b"PGEgaHJl<!-- c -->Zj14Pg==";
        let pieces = [
            Piece {
                kind: PieceKind::Text,
                raw: 0..8,
            },
            Piece {
                kind: PieceKind::Text,
                raw: 18..26,
            },
        ];
        let markup = vec![std::ops::Range { start: 8, end: 18 }];
        let context = Context {
            markup: &markup,
            ..context(&base, &options)
        };
        let done = rewrite(raw, &pieces, &context);
        assert_eq!((done.content, done.links.len()), (None, 0));
        assert!(matches!(
            &done.feed_warnings[..],
            [Warning::UnreadableBase64 { offset: 108, .. }]
        ));
    }
}
