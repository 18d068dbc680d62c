//! mbox archives (RFC 4155 and its variants): split into messages one at a time, keeping
//! every byte: the `From ` separator lines, the blank lines and the `>From ` quoting
//! (mboxo and mboxrd alike are left as they are, since only HTML/CSS bodies change).
//!
//! A separator is a line starting with `From ` at the start of the archive (after an
//! optional UTF-8 BOM) or after a blank line (jwz's rule), that also looks like a From_
//! line: a sender token, then the end of the line (Gmail exports) or a date (something
//! with a digit). So an unquoted body line such as `From here on` stays in its message.

use std::io::{self, BufRead};

/// One message of an archive: its separator line (with its line ending) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// The `From ` line, BOM included for the first one; empty for bytes before any.
    pub separator: Vec<u8>,
    /// The message, up to the next separator line.
    pub message: Vec<u8>,
    /// The message's number in the archive, from 1 (as `absolve links` reports it);
    /// `None` for bytes before the first separator line, which are no message.
    pub number: Option<usize>,
}

/// Reads an archive message by message: memory is bounded by the largest message.
///
/// ```
/// use absolve::mime::mbox::Messages;
///
/// let archive: &[u8] = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: 1\n\nFrom here on\n\n>From b\n\
/// \nFrom c@d Tue Jan  2 00:00:00 2024\nSubject: 2\n\nbody\n";
/// let entries: Vec<_> = Messages::new(archive).collect::<Result<_, _>>().unwrap();
/// assert_eq!(entries.len(), 2);
/// assert_eq!(entries[0].separator, b"From a@b Mon Jan  1 00:00:00 2024\n");
/// assert_eq!(entries[0].message, b"Subject: 1\n\nFrom here on\n\n>From b\n\n");
/// assert_eq!(entries[1].message, b"Subject: 2\n\nbody\n");
/// assert_eq!((entries[0].number, entries[1].number), (Some(1), Some(2)));
///
/// // Bytes before the first separator are kept, and are no message.
/// let stray: Vec<_> = Messages::new(&b"junk\n\nFrom a@b\n\nx\n"[..]).collect::<Result<_, _>>().unwrap();
/// assert_eq!((stray[0].number, stray[0].message.as_slice(), stray[1].number), (None, &b"junk\n\n"[..], Some(1)));
/// ```
pub struct Messages<R: BufRead> {
    reader: R,
    next_separator: Option<Vec<u8>>,
    at_start: bool,
    done: bool,
    /// How many messages (entries with a separator) were given.
    count: usize,
}

impl<R: BufRead> Messages<R> {
    /// Reads the archive `reader` holds, from its start.
    pub fn new(reader: R) -> Self {
        Messages {
            reader,
            next_separator: None,
            at_start: true,
            done: false,
            count: 0,
        }
    }

    /// `entry`, numbered if it is a message.
    fn numbered(&mut self, mut entry: Entry) -> Entry {
        if !entry.separator.is_empty() {
            self.count += 1;
            entry.number = Some(self.count);
        }
        entry
    }
}

fn is_separator(line: &[u8], at_start: bool) -> bool {
    let line = if at_start {
        line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
    } else {
        line
    };
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let rest = rest.trim_ascii_end();
    let sender_len = rest.iter().take_while(|b| !b.is_ascii_whitespace()).count();
    let after_sender = &rest[sender_len..];
    sender_len > 0 && (after_sender.is_empty() || after_sender.iter().any(u8::is_ascii_digit))
}

fn is_blank(line: &[u8]) -> bool {
    line == b"\n" || line == b"\r\n"
}

impl<R: BufRead> Iterator for Messages<R> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut entry = Entry {
            separator: self.next_separator.take().unwrap_or_default(),
            ..Entry::default()
        };
        let mut previous_blank = false;
        loop {
            // Each line is read into the message itself (no copy of a long line), and
            // taken back out when it is the next separator.
            let start = entry.message.len();
            match self.reader.read_until(b'\n', &mut entry.message) {
                Ok(0) => {
                    self.done = true;
                    let empty = entry.separator.is_empty() && entry.message.is_empty();
                    return (!empty).then(|| Ok(self.numbered(entry)));
                }
                Ok(_) => {}
                Err(error) => {
                    self.done = true;
                    return Some(Err(error));
                }
            }
            let line = &entry.message[start..];
            let at_start = std::mem::take(&mut self.at_start);
            if is_separator(line, at_start) && (at_start || previous_blank) {
                let separator = entry.message.split_off(start);
                if at_start || (entry.separator.is_empty() && entry.message.is_empty()) {
                    entry.separator = separator;
                    continue;
                }
                self.next_separator = Some(separator);
                return Some(Ok(self.numbered(entry)));
            }
            previous_blank = is_blank(line);
        }
    }
}

/// A message of an mboxcl/mboxcl2 archive after its rewrite: its `Content-Length` header,
/// if it has one, moved by as many bytes as the message grew (or shrank), so that readers
/// that trust it (mutt) still find the next message. Nothing else changes.
///
/// ```
/// use absolve::mime::mbox::update_content_length;
///
/// let before = b"Content-Length: 5\n\n<a>\n\n";
/// let after = b"Content-Length: 5\n\n<a b>\n\n".to_vec();
/// assert_eq!(update_content_length(before, after), b"Content-Length: 7\n\n<a b>\n\n");
/// ```
pub fn update_content_length(original: &[u8], rewritten: Vec<u8>) -> Vec<u8> {
    if original.len() == rewritten.len() {
        return rewritten;
    }
    let Some((value, range)) = content_length(&rewritten) else {
        return rewritten;
    };
    let grown = rewritten.len() as i64 - original.len() as i64;
    let Some(new_value) = value.checked_add_signed(grown) else {
        return rewritten;
    };
    let mut out = Vec::with_capacity(rewritten.len() + 4);
    out.extend_from_slice(&rewritten[..range.start]);
    out.extend_from_slice(new_value.to_string().as_bytes());
    out.extend_from_slice(&rewritten[range.end..]);
    out
}

/// Whether the message has a `Content-Length` header (mboxcl, mboxcl2): then its rewrite
/// must be held whole, for [`update_content_length`].
///
/// ```
/// assert!(absolve::mime::mbox::has_content_length(b"content-length: 5\n\nabcde"));
/// assert!(!absolve::mime::mbox::has_content_length(b"Subject: x\n\nContent-Length: 5\n"));
/// ```
pub fn has_content_length(message: &[u8]) -> bool {
    content_length(message).is_some()
}

/// The value of the message's `Content-Length` header and where its digits are.
fn content_length(message: &[u8]) -> Option<(u64, std::ops::Range<usize>)> {
    use mailparse::MailHeaderMap;
    let (headers, _) = mailparse::parse_headers(message).ok()?;
    let header = headers
        .get_all_headers("Content-Length")
        .into_iter()
        .next()?;
    let raw = header.get_value_raw();
    let start = (raw.as_ptr() as usize).checked_sub(message.as_ptr() as usize)?;
    let text = std::str::from_utf8(raw).ok()?;
    let digits_start = start + (text.len() - text.trim_start().len());
    let digits = text.trim();
    let value = digits.parse().ok()?;
    Some((value, digits_start..digits_start + digits.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(archive: &[u8]) -> usize {
        Messages::new(archive)
            .filter(|e| !e.as_ref().unwrap().separator.is_empty())
            .count()
    }

    #[test]
    fn separator_forms_seen_in_the_wild() {
        assert_eq!(count(b"From - Mon Jan  1 00:00:00 2024\nA: b\n\nx\n\nFrom - Tue Jan  2 00:00:00 2024\nA: c\n\ny\n"), 2);
        assert_eq!(
            count(b"From 1844347792267117879@xxx\nA: b\n\nx\n\nFrom 99@xxx\nA: c\n\ny\n"),
            2
        );
        assert_eq!(
            count(b"\xEF\xBB\xBFFrom - Mon Jan  1 00:00:00 2024\nA: b\n\nx\n"),
            1
        );
    }

    #[test]
    fn body_lines_starting_with_from_do_not_split() {
        assert_eq!(
            count(b"From a 1\nA: b\n\nFrom Russia with love\n\nFrom me to you\n"),
            1
        );
        assert_eq!(
            count(b"From a 1\nA: b\n\nx\nFrom b 2\n"),
            1,
            "no blank line before it"
        );
    }

    #[test]
    fn content_length_follows_the_body_and_is_left_alone_when_not_a_number() {
        let before = b"Subject: s\r\nContent-Length:  12\r\n\r\n<a href=x>\r\n";
        let after = b"Subject: s\r\nContent-Length:  12\r\n\r\n<a href=http://h/x>\r\n".to_vec();
        let fixed = update_content_length(before, after);
        assert_eq!(
            fixed,
            b"Subject: s\r\nContent-Length:  21\r\n\r\n<a href=http://h/x>\r\n"
        );
        let odd = b"Content-Length: many\n\nx".to_vec();
        assert_eq!(
            update_content_length(b"Content-Length: many\n\n", odd.clone()),
            odd
        );
    }

    #[test]
    fn every_byte_is_kept() {
        let archive = b"junk\n\nFrom a 1\r\nA: b\r\n\r\nx\r\n\r\nFrom b 2\r\nA: c\r\n\r\ny";
        let joined: Vec<u8> = Messages::new(&archive[..])
            .flat_map(|e| {
                let e = e.unwrap();
                [e.separator, e.message].concat()
            })
            .collect();
        assert_eq!(joined, archive);
    }
}
