//! Comments and processing instructions inside HTML content (XML 1.0 §2.5 and §2.6: no
//! part of the character data around them), kept where a change falls around them.
//!
//! The HTML a content stands for is its character data: a comment in it is no part of
//! that HTML, which reads the same wherever the comment stands. A change whose altered
//! bytes hold one (a URL, a `srcset` list or a `<style>`'s CSS written anew) is split
//! there: the comment is put between the bytes of the new value that match the bytes it
//! stood between, furthest on both sides (the first such place of equals), never inside
//! a character. Where no place can be told (a multi-byte charset other than UTF-8, whose
//! characters cannot be told apart byte by byte, or too much to weigh), the value is left
//! as written, its links listed so, with a warning: no byte is ever lost.

use super::{Change, Mapped};
use crate::links::Link;
use encoding_rs::Encoding;
use std::ops::Range;

/// How many bytes on each side of a comment are compared with those of a place.
const CONTEXT: usize = 16;

/// The most comments placed inside one change: more, and the value is left as written.
const MAX_INSIDE: usize = 64;

/// A comment or processing instruction: the point of the HTML it stands at (between two
/// pieces of character data) and its offset in the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Point {
    pub html: usize,
    pub raw: usize,
}

/// The points of the content's comments and processing instructions (`markup`: their
/// ranges in the content, in order).
pub(super) fn points(mapped: &[Mapped], markup: &[Range<usize>]) -> Vec<Point> {
    markup
        .iter()
        .map(|m| {
            let before = mapped.partition_point(|p| p.raw.end <= m.start);
            let html = before.checked_sub(1).map_or(0, |i| mapped[i].html.end);
            Point { html, raw: m.start }
        })
        .collect()
}

/// The changes to the HTML `old`, each one whose altered bytes hold a point split there
/// (the changes written back keep every comment); and each change that cannot be split,
/// with the offset in the content of its first comment.
pub(super) fn split(
    old: &[u8],
    changes: Vec<Change>,
    points: &[Point],
    encoding: &'static Encoding,
) -> (Vec<Change>, Vec<(Range<usize>, usize)>) {
    let mut kept = Vec::with_capacity(changes.len());
    let mut unplaced = Vec::new();
    for (range, new) in changes {
        if strictly_inside(points, &range).is_empty() {
            kept.push((range, new));
            continue;
        }
        let Some((altered, altered_new)) = super::narrowed(old, range.clone(), new.clone()) else {
            kept.push((range, new));
            continue;
        };
        let inside = strictly_inside(points, &altered);
        if inside.is_empty() {
            kept.push((range, new));
            continue;
        }
        let around = Around {
            old,
            altered,
            new: &altered_new,
        };
        match around.split(inside, encoding) {
            Some(parts) => kept.extend(parts),
            None => unplaced.push((range, inside[0].raw)),
        }
    }
    (kept, unplaced)
}

/// Where each comment of a text (`points`: offsets in `old`, in order, each at a
/// character's boundary) goes in `new`, which the whole of `old` becomes: offsets in
/// `new`, in order, placed as in [`split`]; `None` where no place can be told.
pub(crate) fn places(
    old: &[u8],
    new: &[u8],
    points: &[usize],
    encoding: &'static Encoding,
) -> Option<Vec<usize>> {
    let Some((altered, altered_new)) = super::narrowed(old, 0..old.len(), new.to_vec()) else {
        return Some(points.to_vec());
    };
    let points: Vec<Point> = points.iter().map(|&html| Point { html, raw: 0 }).collect();
    let inside = strictly_inside(&points, &altered);
    if inside.is_empty() {
        return Some(
            points
                .iter()
                .map(|p| moved(p.html, &altered, &altered_new))
                .collect(),
        );
    }
    let around = Around {
        old,
        altered: altered.clone(),
        new: &altered_new,
    };
    let mut placed = around.places(inside, encoding)?.into_iter();
    let places = points
        .iter()
        .map(|point| match point.html {
            at if at <= altered.start || at >= altered.end => moved(at, &altered, &altered_new),
            _ => altered.start + placed.next().expect("one place for each inside"),
        })
        .collect();
    Some(places)
}

/// Where the point `at` of the old bytes, not strictly inside `altered`, is once
/// `altered` becomes `new`.
fn moved(at: usize, altered: &Range<usize>, new: &[u8]) -> usize {
    if at <= altered.start {
        at
    } else {
        at - altered.end + altered.start + new.len()
    }
}

/// Each link of a value left as written (its HTML offset in `range`) listed so: resolved
/// as it is written.
pub(super) fn listed_as_written(range: &Range<usize>, links: &mut [Link]) {
    for link in links {
        let at = link.offset as usize;
        if range.start <= at && at <= range.end {
            link.resolved = link.original.clone();
        }
    }
}

/// The points strictly inside `range` (one at either end is outside the bytes it alters:
/// the change is written before or after it).
fn strictly_inside<'p>(points: &'p [Point], range: &Range<usize>) -> &'p [Point] {
    let first = points.partition_point(|p| p.html <= range.start);
    let count = points[first..].partition_point(|p| p.html < range.end);
    &points[first..first + count]
}

/// A change narrowed to the bytes it alters: `old[altered]` becomes `new`.
struct Around<'a> {
    old: &'a [u8],
    altered: Range<usize>,
    new: &'a [u8],
}

impl Around<'_> {
    /// The change split at each of `inside` (in order), or `None` if a place cannot be
    /// told for one.
    fn split(&self, inside: &[Point], encoding: &'static Encoding) -> Option<Vec<Change>> {
        let places = self.places(inside, encoding)?;
        let mut parts = Vec::with_capacity(inside.len() + 1);
        let (mut from_old, mut from_new) = (self.altered.start, 0);
        for (point, place) in inside.iter().zip(places) {
            parts.push((from_old..point.html, self.new[from_new..place].to_vec()));
            (from_old, from_new) = (point.html, place);
        }
        parts.push((from_old..self.altered.end, self.new[from_new..].to_vec()));
        Some(parts)
    }

    /// Where each of `inside` (in order) goes in the new bytes, in order, or `None` if a
    /// place cannot be told for one.
    fn places(&self, inside: &[Point], encoding: &'static Encoding) -> Option<Vec<usize>> {
        let utf8 = encoding == encoding_rs::UTF_8;
        if inside.len() > MAX_INSIDE || !(utf8 || encoding.is_single_byte()) {
            return None;
        }
        // A bound on the bytes compared, so that no content takes long to place.
        let mut budget = (2 * CONTEXT + 2) * (self.new.len() + 1) * 4;
        let mut from_new = 0;
        let mut places = Vec::with_capacity(inside.len());
        for point in inside {
            from_new = self.place(point.html, from_new, utf8, &mut budget)?;
            places.push(from_new);
        }
        Some(places)
    }

    /// Where in the new bytes, from `from` on, the point `at` of the old goes: the place
    /// whose bytes before and after match the most of the [`CONTEXT`] bytes before and
    /// after `at` (the first of equals), at a character's boundary in UTF-8.
    fn place(&self, at: usize, from: usize, utf8: bool, budget: &mut usize) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for place in from..=self.new.len() {
            let next = match self.new.get(place) {
                Some(&b) => Some(b),
                None => self.old.get(self.altered.end).copied(),
            };
            if utf8 && next.is_some_and(|b| (0x80..0xC0).contains(&b)) {
                continue;
            }
            let before = self.before(at, place);
            let after = self.after(at, place);
            *budget = budget.checked_sub(before + after + 2)?;
            let score = before + after;
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, place));
            }
            if score == 2 * CONTEXT {
                break;
            }
        }
        best.map(|(_, place)| place)
    }

    /// How many of the bytes before `at` in the old are the bytes before `place` in the
    /// new (up to [`CONTEXT`]); the bytes before the change are the same in both.
    fn before(&self, at: usize, place: usize) -> usize {
        let new = self.new[..place].iter().rev();
        let out = new.chain(self.old[..self.altered.start].iter().rev());
        self.old[..at]
            .iter()
            .rev()
            .zip(out)
            .take(CONTEXT)
            .take_while(|(a, b)| a == b)
            .count()
    }

    /// How many of the bytes from `at` on in the old are those from `place` on in the new
    /// (up to [`CONTEXT`]); the bytes after the change are the same in both.
    fn after(&self, at: usize, place: usize) -> usize {
        let out = self.new[place..]
            .iter()
            .chain(&self.old[self.altered.end..]);
        self.old[at..]
            .iter()
            .zip(out)
            .take(CONTEXT)
            .take_while(|(a, b)| a == b)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_at(old: &[u8], new: &[u8], at: usize, encoding: &'static Encoding) -> Option<usize> {
        let changes = vec![(0..old.len(), new.to_vec())];
        let point = Point { html: at, raw: 0 };
        let (parts, unplaced) = split(old, changes, &[point], encoding);
        if !unplaced.is_empty() {
            return None;
        }
        // The first part ends at the point: its new bytes, after the common prefix.
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        Some(prefix + parts[0].1.len())
    }

    #[test]
    fn a_comment_goes_between_the_bytes_it_stood_between() {
        let utf8 = encoding_rs::UTF_8;
        // `a b|c d` percent-encoded: between `b` and `c`.
        assert_eq!(split_at(b"a bc d", b"a%20bc%20d", 3, utf8), Some(5));
        // Between two CSS rules whose URLs both change.
        let old = b"a{b:url(x)}p{c:url(y)}";
        let new = b"a{b:url(http://h/x)}p{c:url(http://h/y)}";
        assert_eq!(split_at(old, new, 11, utf8), Some(20));
        // Never inside a character: `é` is two bytes in UTF-8.
        let place = split_at("xé".as_bytes(), "yéé".as_bytes(), 1, utf8).unwrap();
        assert!(std::str::from_utf8(&"yéé".as_bytes()[..place]).is_ok());
        // A multi-byte charset other than UTF-8: no place is told.
        assert_eq!(split_at(old, new, 11, encoding_rs::SHIFT_JIS), None);
    }

    #[test]
    fn comments_of_a_text_are_placed_in_the_whole_new_text() {
        let utf8 = encoding_rs::UTF_8;
        // `/a|/b` resolved: between `a` and `/b`; one at either end stays there.
        let new = b"http://h/a/b";
        assert_eq!(
            places(b"/a/b", new, &[0, 2, 2, 4], utf8),
            Some(vec![0, 10, 10, 12])
        );
        assert_eq!(places(b"x", b"x", &[1], utf8), Some(vec![1]));
        assert_eq!(
            places(b"a bc d", b"a%20bc%20d", &[3], encoding_rs::SHIFT_JIS),
            None
        );
        assert_eq!(
            places(b"ab", b"h/ab", &[1], encoding_rs::SHIFT_JIS),
            Some(vec![3])
        );
    }
}
