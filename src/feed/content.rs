//! HTML held in a feed element's text, escaped (`&lt;p&gt;`) or in CDATA sections:
//! read as the HTML it stands for, rewritten by the HTML rewriter, and written back in
//! the form it came in.
//!
//! Every byte outside a change comes back as it was: the HTML rewriter tells which bytes
//! it passed through unchanged ([`Sink::output_unchanged`](crate::Sink::output_unchanged)),
//! and only the bytes each changed value alters are written anew, escaped as the original
//! escaped (`&`, `<`, and `>` or quotes where the original wrote them as references), or
//! as CDATA where they lie in one CDATA section (a `]]>` split so that it never ends the
//! section). The text between two changed URLs is copied from the feed's own bytes.

mod base64_html;
mod markup;

pub(crate) use base64_html::rewrite as rewrite_base64;
pub(crate) use markup::places as markup_places;

use super::Warning;
use super::escape::{self, TextEscapes};
use crate::base::Base;
use crate::html::{self, Collected, Options};
use crate::links::Link;
use encoding_rs::Encoding;
use std::ops::Range;

/// What a piece of an element's content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PieceKind {
    /// Character data, escaped.
    Text,
    /// A reference `&name;`.
    Reference,
    /// The inside of a CDATA section.
    CData,
}

/// One piece of content: its kind and its bytes' range in the content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub kind: PieceKind,
    pub raw: Range<usize>,
}

/// A piece with the range of the HTML bytes it stands for.
pub(crate) struct Mapped {
    kind: PieceKind,
    raw: Range<usize>,
    html: Range<usize>,
}

/// The result of rewriting one element's HTML.
pub(crate) struct Done {
    /// The new content bytes, or `None` when nothing changed.
    pub content: Option<Vec<u8>>,
    /// The links found (offsets not yet set).
    pub links: Vec<Link>,
    /// The HTML rewriter's warnings, offsets in the feed's bytes.
    pub warnings: Vec<html::Warning>,
    /// Values left as written because they use an entity that is not expanded.
    pub feed_warnings: Vec<Warning>,
}

/// What the rewrite needs besides the content.
pub(crate) struct Context<'a> {
    pub base: &'a Base,
    pub options: &'a Options,
    pub encoding: &'static Encoding,
    pub wants_output: bool,
    pub wants_links: bool,
    /// The content's offset in the feed.
    pub offset: u64,
    /// The comments and processing instructions in the content (ranges in it).
    pub markup: &'a [Range<usize>],
    /// The feed element whose content it is.
    pub element: &'a str,
}

/// Rewrites the HTML that `pieces` of `raw` (an element's content) stand for.
pub(crate) fn rewrite(raw: &[u8], pieces: &[Piece], context: &Context) -> Done {
    let (html_bytes, mapped) = as_html(raw, pieces, context.encoding);
    if !may_hold_url(&html_bytes) {
        return Done {
            content: None,
            links: Vec::new(),
            warnings: Vec::new(),
            feed_warnings: Vec::new(),
        };
    }
    let options = Options {
        charset: Some(context.encoding),
        ..context.options.clone()
    };
    let collected = Collected {
        keep_links: context.wants_links,
        keep_output: context.wants_output,
        ..Collected::default()
    };
    let changes = Changes {
        collected,
        read: 0,
        new: Vec::new(),
        found: Vec::new(),
    };
    // The element's base is the document base: a `<base>` inside does not reach across
    // the feed.
    let mut rewriter =
        html::Rewriter::with_document_base(context.base, context.base, &options, changes);
    // Writing to memory cannot fail.
    let _ = rewriter.write(&html_bytes);
    let changes = rewriter.end().unwrap_or_else(|_| Changes {
        collected: Collected::default(),
        read: 0,
        new: Vec::new(),
        found: Vec::new(),
    });
    let (mut collected, changed) = changes.finish(&html_bytes);
    let (changed, feed_warnings) = settled(
        raw,
        &mapped,
        &html_bytes,
        changed,
        &mut collected.links,
        context,
    );
    let to_feed = |at: u64| context.offset + raw_offset(&mapped, at as usize, raw.len()) as u64;
    let warnings = collected
        .warnings
        .into_iter()
        .filter_map(|w| match w.problem {
            crate::Problem::Html(warning) => Some(shifted(warning, &to_feed)),
            _ => None,
        })
        .collect();
    let content = (context.wants_output && !changed.is_empty()).then(|| {
        let escapes = escapes_of(raw, &mapped);
        written_changes(raw, &mapped, &html_bytes, changed, &|middle, out| {
            escape::text_bytes(middle, escapes, out)
        })
    });
    Done {
        content,
        links: collected.links,
        warnings,
        feed_warnings,
    }
}

/// The changes that can be written back into the content, and the warnings about those
/// that cannot: a change to a value holding a reference to an entity not expanded is
/// dropped ([`Unexpanded::drop_changes`]), and one whose altered bytes hold a comment or
/// processing instruction is split around it ([`markup::split`]), or dropped if it
/// cannot be.
fn settled(
    raw: &[u8],
    mapped: &[Mapped],
    old: &[u8],
    mut changes: Vec<Change>,
    links: &mut Vec<Link>,
    context: &Context,
) -> (Vec<Change>, Vec<Warning>) {
    let unexpanded = Unexpanded {
        raw,
        mapped,
        context,
    };
    let mut warnings = unexpanded.drop_changes(&mut changes, links);
    if context.markup.is_empty() {
        return (changes, warnings);
    }
    let points = markup::points(mapped, context.markup);
    let (changes, unplaced) = markup::split(old, changes, &points, context.encoding);
    for (range, at) in unplaced {
        warnings.push(Warning::MarkupInHtmlValue {
            offset: context.offset + at as u64,
            element: context.element.to_owned(),
        });
        markup::listed_as_written(&range, links);
    }
    (changes, warnings)
}

/// The references of a content to entities that are not expanded (XML 1.0 §4.1: one a
/// DTD declares; only XML's five and character references are read).
struct Unexpanded<'a> {
    raw: &'a [u8],
    mapped: &'a [Mapped],
    context: &'a Context<'a>,
}

impl Unexpanded<'_> {
    /// The first reference in the HTML stretch `range` to an entity not expanded, or
    /// `&` that starts no reference (XML 1.0 §4.1; quick-xml hands it over as text): the
    /// warning about it, at its offset in the feed.
    fn in_range(&self, range: &Range<usize>) -> Option<Warning> {
        let first = self.mapped.partition_point(|m| m.html.end <= range.start);
        self.mapped[first..]
            .iter()
            .take_while(|m| m.html.start < range.end.max(range.start + 1))
            .find_map(|m| self.unreadable(m, range))
    }

    /// What makes the piece `m` unreadable within the HTML stretch `range`: a reference
    /// to an entity not expanded, or a bare `&` in its text (any `&` there: quick-xml
    /// splits references off).
    fn unreadable(&self, m: &Mapped, range: &Range<usize>) -> Option<Warning> {
        let bytes = &self.raw[m.raw.clone()];
        let offset = self.context.offset + m.raw.start as u64;
        match m.kind {
            PieceKind::Reference => {
                let name = &bytes[1..bytes.len().saturating_sub(1).max(1)];
                escape::reference(name, self.context.encoding)
                    .is_none()
                    .then(|| Warning::Entity {
                        offset,
                        reason: String::from_utf8_lossy(name).into_owned(),
                    })
            }
            PieceKind::Text => {
                let from = range.start.max(m.html.start) - m.html.start;
                let to = range.end.min(m.html.end).max(from + m.html.start) - m.html.start;
                memchr::memchr(b'&', &bytes[from..to]).map(|at| Warning::NotWellFormed {
                    offset: offset + (from + at) as u64,
                    reason: escape::BARE_AMPERSAND,
                })
            }
            PieceKind::CData => None,
        }
    }

    /// Drops each change to a value (an attribute value, a URL of a `<style>`) that holds
    /// a reference to an entity not expanded: what it stands for is not known, so the
    /// value is left as written and its links not listed (HTML offsets in `range`), with
    /// a warning naming the entity, as a feed URL or an XHTML value that uses one.
    fn drop_changes(&self, changes: &mut Vec<Change>, links: &mut Vec<Link>) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let mut dropped: Vec<Range<usize>> = Vec::new();
        changes.retain(|(range, _)| match self.in_range(range) {
            Some(warning) => {
                warnings.push(warning);
                dropped.push(range.clone());
                false
            }
            None => true,
        });
        if !dropped.is_empty() {
            links.retain(|link| {
                let at = link.offset as usize;
                let i = dropped.partition_point(|r| r.end < at);
                dropped.get(i).is_none_or(|r| at < r.start)
            });
        }
        warnings
    }
}

/// A sink that tells what the HTML rewriter changed: the bytes it passes through
/// unchanged come with their offset ([`Sink::output_unchanged`](crate::Sink::output_unchanged)),
/// so every other byte written replaces the stretch of the input between them.
struct Changes {
    /// The links and warnings.
    collected: Collected,
    /// How far the input has been written out.
    read: usize,
    /// The bytes written since, that are no copy of the input.
    new: Vec<u8>,
    /// Each stretch of the input replaced, and what replaced it.
    found: Vec<Change>,
}

/// A stretch of the HTML replaced by new bytes.
pub(crate) type Change = (Range<usize>, Vec<u8>);

impl Changes {
    /// The stretch up to `to` replaced by the bytes written since the last copy.
    fn settle(&mut self, to: usize) {
        if to > self.read || !self.new.is_empty() {
            let to = to.max(self.read);
            self.found
                .push((self.read..to, std::mem::take(&mut self.new)));
        }
    }

    /// The links and warnings, and the changes to `old` (the HTML given) that change it.
    fn finish(mut self, old: &[u8]) -> (Collected, Vec<Change>) {
        self.settle(old.len());
        let mut found = self.found;
        found.retain(|(range, new)| old.get(range.clone()) != Some(new.as_slice()));
        (self.collected, found)
    }
}

impl html::Sink for Changes {
    fn output(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.new.extend_from_slice(bytes);
        Ok(())
    }
    fn output_unchanged(&mut self, offset: u64, bytes: &[u8]) -> std::io::Result<()> {
        self.settle(offset as usize);
        self.read = self.read.max(offset as usize + bytes.len());
        Ok(())
    }
    fn link(&mut self, link: Link) {
        self.collected.link(link);
    }
    fn warning(&mut self, warning: crate::Warning) {
        self.collected.warning(warning);
    }
    fn wants_output(&self) -> bool {
        self.collected.wants_output()
    }
    fn wants_links(&self) -> bool {
        self.collected.wants_links()
    }
}

/// Rewrites the CSS that `pieces` of `raw` (the content of a `<style>` in inline XHTML)
/// stand for: its `url()` and `@import` values, as the HTML rewriter rewrites a
/// `<style>`'s, each listed with element `style` at the offset of its token in the feed
/// (the start of a reference or section it begins in), written back in the form the
/// content came in (escaped text stays escaped, CDATA stays CDATA).
pub(crate) fn rewrite_css(raw: &[u8], pieces: &[Piece], context: &Context) -> Done {
    let (css, mapped) = as_html(raw, pieces, context.encoding);
    let to_feed = |at: u64| context.offset + raw_offset(&mapped, at as usize, raw.len()) as u64;
    let mut links = Vec::new();
    let mut warnings = Vec::new();
    // One change a URL token: a reference or a comment outside a token that changes does
    // not keep the other tokens from being rewritten.
    let changes = html::emit::css_changes_reporting(
        &css,
        context.encoding,
        context.base,
        context.options,
        |link| {
            if context.wants_links {
                links.push(link);
            }
        },
        |warning| warnings.push(shifted(warning, &to_feed)),
    );
    let (changes, feed_warnings) = settled(raw, &mapped, &css, changes, &mut links, context);
    for link in &mut links {
        link.offset = to_feed(link.offset);
    }
    let content = (context.wants_output && !changes.is_empty()).then(|| {
        let escapes = escapes_of(raw, &mapped);
        written_changes(raw, &mapped, &css, changes, &|middle, out| {
            escape::text_bytes(middle, escapes, out)
        })
    });
    Done {
        content,
        links,
        warnings,
        feed_warnings,
    }
}

/// Whether HTML may hold a URL at all: an attribute value needs a `=`, CSS a `url(` or
/// an `@import` (in any case). Plain text (most RSS descriptions) is not parsed.
fn may_hold_url(html_bytes: &[u8]) -> bool {
    let has = |needle: &[u8]| {
        html_bytes
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    memchr::memchr(b'=', html_bytes).is_some() || has(b"url(") || has(b"@import")
}

/// The pieces of an attribute value as written: text, and references `&name;`.
pub(crate) fn value_pieces(raw: &[u8]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < raw.len() {
        let reference = (raw[at] == b'&')
            .then(|| memchr::memchr(b';', &raw[at..]))
            .flatten();
        let (kind, end) = match reference {
            Some(semicolon) => (PieceKind::Reference, at + semicolon + 1),
            None => {
                let next = memchr::memchr(b'&', &raw[at + 1..]).map_or(raw.len(), |p| at + 1 + p);
                (PieceKind::Text, next)
            }
        };
        pieces.push(Piece { kind, raw: at..end });
        at = end;
    }
    pieces
}

/// The HTML bytes the pieces stand for, and where each piece's bytes are in them.
pub(crate) fn as_html(
    raw: &[u8],
    pieces: &[Piece],
    encoding: &'static Encoding,
) -> (Vec<u8>, Vec<Mapped>) {
    let mut html_bytes = Vec::with_capacity(raw.len());
    let mut mapped = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let bytes = &raw[piece.raw.clone()];
        let start = html_bytes.len();
        match piece.kind {
            PieceKind::Reference => {
                let name = &bytes[1..bytes.len().saturating_sub(1).max(1)];
                match escape::reference(name, encoding) {
                    Some(stands_for) => html_bytes.extend_from_slice(&stands_for),
                    // Another entity (`&nbsp;`): HTML reads it as it is written.
                    None => html_bytes.extend_from_slice(bytes),
                }
            }
            PieceKind::Text | PieceKind::CData => html_bytes.extend_from_slice(bytes),
        }
        mapped.push(Mapped {
            kind: piece.kind,
            raw: piece.raw.clone(),
            html: start..html_bytes.len(),
        });
    }
    (html_bytes, mapped)
}

/// The content offset of HTML offset `at`: within a text or CDATA piece byte for byte,
/// a reference's start for anything in what it stands for.
fn raw_offset(mapped: &[Mapped], at: usize, raw_len: usize) -> usize {
    match mapped.iter().find(|m| m.html.contains(&at)) {
        Some(m) if m.kind == PieceKind::Reference => m.raw.start,
        Some(m) => m.raw.start + (at - m.html.start),
        None => mapped.last().map_or(raw_len, |m| m.raw.end),
    }
}

/// The content with the HTML between the first and the last change replaced: `old` is the
/// HTML the content stood for, `new` what the rewriter made of it; `escape` writes the
/// changed stretch where it is not in one CDATA section.
pub(crate) fn written_back(
    raw: &[u8],
    mapped: &[Mapped],
    old: &[u8],
    new: &[u8],
    escape: &dyn Fn(&[u8], &mut Vec<u8>),
) -> Vec<u8> {
    written_changes(raw, mapped, old, vec![(0..old.len(), new.to_vec())], escape)
}

/// The content with each change to the HTML it stood for (`old`) written in: only the
/// bytes a change alters are written anew (by `escape`, or as CDATA within one CDATA
/// section), moved out to the ends of a reference they fall in; every other byte of the
/// content is copied as it was, references and escapes included.
pub(crate) fn written_changes(
    raw: &[u8],
    mapped: &[Mapped],
    old: &[u8],
    changes: Vec<Change>,
    escape: &dyn Fn(&[u8], &mut Vec<u8>),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 8);
    let mut copied = 0;
    for span in spans(mapped, old, changes) {
        out.extend_from_slice(&raw[copied..span.start.raw]);
        let in_cdata =
            |piece: Option<usize>| piece.is_some_and(|i| mapped[i].kind == PieceKind::CData);
        let middle = &span.middle;
        if in_cdata(span.start_piece) && span.start_piece == span.end_piece {
            escape::cdata_bytes(middle, &mut out);
        } else {
            if in_cdata(span.start_piece) {
                out.extend_from_slice(b"]]>");
            }
            escape(middle, &mut out);
            if in_cdata(span.end_piece) {
                out.extend_from_slice(b"<![CDATA[");
            }
        }
        copied = span.end.raw;
    }
    out.extend_from_slice(&raw[copied..]);
    out
}

/// A change narrowed to the bytes it alters and moved out to the ends of the references
/// it falls in: where it starts and ends (in the HTML and the content), the pieces it
/// starts and ends in, and the HTML written in its place.
struct Span {
    start: At,
    start_piece: Option<usize>,
    end: At,
    end_piece: Option<usize>,
    middle: Vec<u8>,
}

/// The spans of `changes` (in order, not overlapping), two that would share a reference
/// made one.
fn spans(mapped: &[Mapped], old: &[u8], changes: Vec<Change>) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::with_capacity(changes.len());
    // The narrowed change of the last span: where it is in `old`, and its new bytes.
    let mut last: Option<(Range<usize>, Vec<u8>)> = None;
    for (range, new) in changes {
        let Some((mut range, mut new)) = narrowed(old, range, new) else {
            continue;
        };
        let (start, _) = change_start(mapped, range.start);
        if let Some((previous, previous_new)) = last.take()
            && spans.last().is_some_and(|s| start.html < s.end.html)
        {
            // Both would be written in one reference: one change from the first to the
            // second, the bytes between as they were.
            spans.pop();
            let mut joined = previous_new;
            joined.extend_from_slice(&old[previous.end..range.start]);
            joined.extend_from_slice(&new);
            (range, new) = (previous.start..range.end, joined);
        }
        let (start, start_piece) = change_start(mapped, range.start);
        let (end, end_piece) = match change_end(mapped, range.end) {
            // Bytes inserted where a comment or processing instruction stands between two
            // pieces: after it (were they written before it too, it would be copied twice).
            (end, _) if end.raw < start.raw => (start, start_piece),
            end => end,
        };
        let mut middle = Vec::with_capacity(new.len() + end.html - start.html - range.len());
        middle.extend_from_slice(&old[start.html..range.start]);
        middle.extend_from_slice(&new);
        middle.extend_from_slice(&old[range.end..end.html]);
        spans.push(Span {
            start,
            start_piece,
            end,
            end_piece,
            middle,
        });
        last = Some((range, new));
    }
    spans
}

/// The change of `old[range]` into `new` without the bytes both begin or end with;
/// `None` if they are the same.
fn narrowed(old: &[u8], range: Range<usize>, new: Vec<u8>) -> Option<(Range<usize>, Vec<u8>)> {
    let was = &old[range.clone()];
    if was == new.as_slice() {
        return None;
    }
    let prefix = was.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let max_suffix = was.len().min(new.len()) - prefix;
    let suffix = was
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let narrowed = range.start + prefix..range.end - suffix;
    Some((narrowed, new[prefix..new.len() - suffix].to_vec()))
}

/// A position in both the HTML and the content.
#[derive(Debug, Clone, Copy)]
struct At {
    html: usize,
    raw: usize,
}

/// Where a change starting at HTML offset `at` starts, moved back to the start of a
/// reference it falls in, and the piece it starts in.
fn change_start(mapped: &[Mapped], at: usize) -> (At, Option<usize>) {
    match mapped.iter().position(|m| m.html.contains(&at)) {
        Some(i) => {
            let m = &mapped[i];
            let at = match m.kind {
                PieceKind::Reference => At {
                    html: m.html.start,
                    raw: m.raw.start,
                },
                _ => At {
                    html: at,
                    raw: m.raw.start + (at - m.html.start),
                },
            };
            (at, Some(i))
        }
        None => {
            let raw = mapped.last().map_or(0, |m| m.raw.end);
            (At { html: at, raw }, mapped.len().checked_sub(1))
        }
    }
}

/// Where a change ending at HTML offset `at` ends, moved on to the end of a reference it
/// falls in, and the piece it ends in.
fn change_end(mapped: &[Mapped], at: usize) -> (At, Option<usize>) {
    match mapped
        .iter()
        .position(|m| m.html.start < at && at <= m.html.end)
    {
        Some(i) => {
            let m = &mapped[i];
            let at = match m.kind {
                PieceKind::Reference => At {
                    html: m.html.end,
                    raw: m.raw.end,
                },
                _ => At {
                    html: at,
                    raw: m.raw.start + (at - m.html.start),
                },
            };
            (at, Some(i))
        }
        None => {
            let raw = mapped.first().map_or(0, |m| m.raw.start);
            (At { html: at, raw }, (!mapped.is_empty()).then_some(0))
        }
    }
}

/// How the original text escaped `>` and quotes: as references where it did so more often
/// than not.
fn escapes_of(raw: &[u8], mapped: &[Mapped]) -> TextEscapes {
    let count = |written: &[u8], plain: u8| {
        let mut references = 0usize;
        let mut plains = 0usize;
        for m in mapped {
            let bytes = &raw[m.raw.clone()];
            match m.kind {
                PieceKind::Reference => references += usize::from(bytes == written),
                PieceKind::Text => plains += memchr::memchr_iter(plain, bytes).count(),
                PieceKind::CData => {}
            }
        }
        (references, plains)
    };
    let (gt_refs, gt_plain) = count(b"&gt;", b'>');
    let (quot_refs, quot_plain) = count(b"&quot;", b'"');
    let (apos_refs, apos_plain) = count(b"&apos;", b'\'');
    TextEscapes {
        greater: gt_refs >= gt_plain,
        quot: quot_refs > quot_plain,
        apos: apos_refs > apos_plain,
    }
}

/// An HTML warning with its offset in the feed.
fn shifted(warning: html::Warning, to_feed: &dyn Fn(u64) -> u64) -> html::Warning {
    use html::Warning as W;
    match warning {
        W::LateBase(at) => W::LateBase(to_feed(at)),
        W::Undecodable(at, charset) => W::Undecodable(to_feed(at), charset),
        W::ParserStopped { offset, reason } => W::ParserStopped {
            offset: to_feed(offset),
            reason,
        },
        W::RegionTooLarge(at) => W::RegionTooLarge(to_feed(at)),
        W::MarkupInSvgStyle(at) => W::MarkupInSvgStyle(to_feed(at)),
        W::CommaInListUrl { offset, reference } => W::CommaInListUrl {
            offset: to_feed(offset),
            reference,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces_of(raw: &[u8]) -> Vec<Piece> {
        // Test helper: text and references of an escaped string without CDATA.
        let mut pieces = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            if raw[i] == b'&' {
                let end = raw[i..].iter().position(|&b| b == b';').unwrap() + i + 1;
                pieces.push(Piece {
                    kind: PieceKind::Reference,
                    raw: i..end,
                });
                i = end;
            } else {
                let end = raw[i..]
                    .iter()
                    .position(|&b| b == b'&')
                    .map_or(raw.len(), |p| p + i);
                pieces.push(Piece {
                    kind: PieceKind::Text,
                    raw: i..end,
                });
                i = end;
            }
        }
        pieces
    }

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

    #[test]
    fn escaped_html_stays_escaped_and_the_rest_byte_identical() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"&#60;p&#62;x&lt;a href=&quot;a.html&quot;&gt;y&lt;/a&gt;";
        let done = rewrite(raw, &pieces_of(raw), &context(&base, &options));
        assert_eq!(
            String::from_utf8(done.content.unwrap()).unwrap(),
            "&#60;p&#62;x&lt;a href=&quot;http://h/d/a.html&quot;&gt;y&lt;/a&gt;"
        );
        assert_eq!(done.links[0].resolved, "http://h/d/a.html");
    }

    #[test]
    fn text_without_markup_is_not_parsed() {
        assert!(!may_hold_url(b"Tom & Jerry <b>bold</b>"));
        assert!(may_hold_url(b"<p style=x>"));
        assert!(may_hold_url(b"<style>a{b:URL(x)}</style>"));
        assert!(may_hold_url(b"<style>@IMPORT 'x';</style>"));
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"<style>p{background:url(p.png)}</style>";
        let pieces = [Piece {
            kind: PieceKind::Text,
            raw: 0..raw.len(),
        }];
        let done = rewrite(raw, &pieces, &context(&base, &options));
        assert_eq!(done.links[0].resolved, "http://h/d/p.png");
    }

    #[test]
    fn unchanged_html_gives_nothing() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"&lt;a href=&quot;http://x/&quot;&gt;";
        let done = rewrite(raw, &pieces_of(raw), &context(&base, &options));
        assert_eq!(done.content, None);
        assert_eq!(done.links.len(), 1);
    }

    #[test]
    fn cdata_stays_cdata_and_never_holds_its_end() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"<![CDATA[<a href=\"x]]]]><![CDATA[>y\">z</a>]]>";
        let split = memchr::memmem::find(raw, b"]]]]>").unwrap() + 2;
        let pieces = [
            Piece {
                kind: PieceKind::CData,
                raw: 9..split,
            },
            Piece {
                kind: PieceKind::CData,
                raw: split + 12..raw.len() - 3,
            },
        ];
        let done = rewrite(raw, &pieces, &context(&base, &options));
        assert_eq!(done.links[0].original, "x]]>y");
        // Only `http://h/d/` is new: inserted inside the first section.
        assert_eq!(
            String::from_utf8(done.content.unwrap()).unwrap(),
            "<![CDATA[<a href=\"http://h/d/x]]]]><![CDATA[>y\">z</a>]]>"
        );
    }

    #[test]
    fn a_change_across_sections_is_written_as_text_between_them() {
        let base = Base::retrieval_url("http://h/d/").unwrap();
        let options = Options::default();
        let raw = b"<![CDATA[<a href=\"a]]>&amp;b<![CDATA[\">]]>";
        let pieces = [
            Piece {
                kind: PieceKind::CData,
                raw: 9..19,
            },
            Piece {
                kind: PieceKind::Reference,
                raw: 22..27,
            },
            Piece {
                kind: PieceKind::Text,
                raw: 27..28,
            },
            Piece {
                kind: PieceKind::CData,
                raw: 37..39,
            },
        ];
        let done = rewrite(raw, &pieces, &context(&base, &options));
        assert_eq!(done.links[0].original, "a&b");
        // The HTML is now `href="http://h/d/a&amp;b"` (the rewriter escapes `&`): the
        // changed stretch starts in the first section and ends in the reference, so it
        // is written as text after the section is closed.
        assert_eq!(
            String::from_utf8(done.content.unwrap()).unwrap(),
            "<![CDATA[<a href=\"]]>http://h/d/a&amp;amp;b<![CDATA[\">]]>"
        );
    }
}
