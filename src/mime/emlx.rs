//! Apple Mail's message files (`.emlx`, `.partial.emlx`): a first line giving the
//! message's length in bytes (decimal ASCII, padded with spaces by some versions), the
//! message (RFC 5322), then Apple Mail's property list of its flags. Apple has published
//! no specification; this is the layout every reader of the format relies on (Python's
//! `emlx` package, the forensic tools), and what Mail writes.
//!
//! The message is read as any `.eml` is; a rewrite that changes its length writes the
//! new length on the first line (padded as the old one was), since Mail finds where the
//! property list starts by it. The property list passes through unchanged.

use std::ops::Range;

/// The most digits a length is read from: 19 fit in a `u64`.
const MAX_DIGITS: usize = 19;

/// An `.emlx` file cut into its three parts ([`split`]).
///
/// ```
/// let file = b"29\nContent-Type: text/html\n\n<p>\n<?xml version=\"1.0\"?><plist/>\n";
/// let emlx = absolve::mime::emlx::split(file).unwrap();
/// assert_eq!(emlx.message, b"Content-Type: text/html\n\n<p>\n");
/// assert_eq!(emlx.after, b"<?xml version=\"1.0\"?><plist/>\n");
/// assert_eq!((emlx.count, emlx.missing), (29, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Emlx<'a> {
    /// The first line, its line end included.
    pub count_line: &'a [u8],
    /// The length the first line gives.
    pub count: u64,
    /// Where its digits are in the first line.
    pub digits: Range<usize>,
    /// The message: the `count` bytes after the first line, or fewer when the file ends
    /// first ([`missing`](Self::missing)).
    pub message: &'a [u8],
    /// What follows the message: Apple Mail's property list (XML), passed through.
    pub after: &'a [u8],
    /// How many of the `count` bytes the file does not hold (0 for a whole file).
    pub missing: u64,
}

/// The parts of `file` if it is an `.emlx`: a first line of digits (then, maybe, spaces
/// or tabs) and a header block after it (a mail or MIME field in it, as a message is told
/// by, [`crate::format::detect`]). `None` for anything else: an `.eml`, an MHTML page.
///
/// ```
/// use absolve::mime::emlx::split;
///
/// let padded = split(b"12        \nSubject: x\n\n<?xml").unwrap();
/// assert_eq!((padded.count, padded.digits.clone()), (12, 0..2));
/// assert_eq!(padded.message, b"Subject: x\n\n");
/// let cut = split(b"100\nSubject: x\n\nhi").unwrap();
/// assert_eq!((cut.message.len(), cut.missing), (14, 86));
/// assert!(split(b"Subject: x\n\nhi").is_none());
/// assert!(split(b"2024\n<p>a page</p>").is_none());
/// ```
pub fn split(file: &[u8]) -> Option<Emlx<'_>> {
    let (count_line, count, digits) = first_line(file)?;
    let rest = &file[count_line.len()..];
    if !crate::format::is_header_block(rest) {
        return None;
    }
    let held = usize::try_from(count).unwrap_or(usize::MAX).min(rest.len());
    let (message, after) = rest.split_at(held);
    Some(Emlx {
        count_line,
        count,
        digits,
        message,
        after,
        missing: count - held as u64,
    })
}

/// Whether `head`, a file's first bytes, starts as an `.emlx` does ([`split`]).
///
/// ```
/// assert!(absolve::mime::emlx::starts_emlx(b"1234\nReturn-Path: <a@b>\nX-Foo: 1\n"));
/// assert!(!absolve::mime::emlx::starts_emlx(b"1234\n"));
/// ```
pub fn starts_emlx(head: &[u8]) -> bool {
    first_line(head).is_some_and(|(line, _, _)| crate::format::is_header_block(&head[line.len()..]))
}

/// The first line of `file` if it is a length: digits, then spaces or tabs, then its
/// line end (LF or CRLF); with the length and where its digits are.
fn first_line(file: &[u8]) -> Option<(&[u8], u64, Range<usize>)> {
    let digits = file.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > MAX_DIGITS {
        return None;
    }
    let padding = file[digits..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let end = digits + padding;
    let line_end = match &file[end..] {
        [b'\n', ..] => 1,
        [b'\r', b'\n', ..] => 2,
        _ => return None,
    };
    let count = std::str::from_utf8(&file[..digits]).ok()?.parse().ok()?;
    Some((&file[..end + line_end], count, 0..digits))
}

/// The first line for a message of `length` bytes, written as the `.emlx`'s was: padded
/// with spaces to its width if it was (a longer number takes from the padding), and with
/// its line end.
///
/// ```
/// use absolve::mime::emlx::{count_line, split};
///
/// let emlx = split(b"12        \r\nSubject: x\n\n").unwrap();
/// assert_eq!(count_line(&emlx, 1234), b"1234      \r\n");
/// assert_eq!(count_line(&emlx, 9), b"9         \r\n");
/// assert_eq!(count_line(&emlx, 12345678901), b"12345678901\r\n");
/// let bare = split(b"12\nSubject: x\n\n").unwrap();
/// assert_eq!(count_line(&bare, 9), b"9\n");
/// ```
pub fn count_line(emlx: &Emlx<'_>, length: u64) -> Vec<u8> {
    let line = emlx.count_line;
    let content = line.len() - line_end_length(line);
    let padding = &line[emlx.digits.end..content];
    let number = length.to_string();
    let spaces = !padding.is_empty() && padding.iter().all(|&b| b == b' ');
    // Padded with spaces: to the line's width. Else (none, or tabs, never seen written)
    // the number, then what followed it.
    let width = if spaces { content } else { 0 };
    let mut new = format!("{number:<width$}").into_bytes();
    if !spaces {
        new.extend_from_slice(padding);
    }
    new.extend_from_slice(&line[content..]);
    new
}

/// Whether `after`, the bytes after an `.emlx`'s message, are what Mail writes there: a
/// property list (XML, or binary), or nothing (whitespace).
///
/// ```
/// use absolve::mime::emlx::is_property_list;
///
/// assert!(is_property_list(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"));
/// assert!(is_property_list(b"\n<plist version=\"1.0\">"));
/// assert!(is_property_list(b""));
/// assert!(!is_property_list(b"<a href=\"x.html\">the rest of the message</a>"));
/// ```
pub fn is_property_list(after: &[u8]) -> bool {
    let start = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let after = &after[start..];
    after.is_empty()
        || [&b"<?xml"[..], b"<!DOCTYPE plist", b"<plist", b"bplist"]
            .iter()
            .any(|start| after.starts_with(start))
}

fn line_end_length(line: &[u8]) -> usize {
    match line.ends_with(b"\r\n") {
        true => 2,
        false => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_lines_that_are_no_length() {
        for file in [
            &b"\nSubject: x\n\n"[..],
            b"12a\nSubject: x\n\n",
            b" 12\nSubject: x\n\n",
            b"12 x\nSubject: x\n\n",
            b"12",
            b"99999999999999999999\nSubject: x\n\n",
            b"12\n\nSubject: x\n",
        ] {
            assert!(split(file).is_none(), "{:?}", String::from_utf8_lossy(file));
        }
    }

    #[test]
    fn a_tab_after_the_digits_is_kept() {
        let emlx = split(b"12\t\nSubject: x\n\n").unwrap();
        assert_eq!(count_line(&emlx, 123), b"123\t\n");
    }
}
