//! MMDF mailboxes: each message between two lines of four Control-A bytes
//! (`\x01\x01\x01\x01`), as MMDF and SCO's mail wrote them and Python's `mailbox.MMDF`
//! reads and writes them (Python puts a From_ line after the opening one). Split into
//! messages one at a time, every byte kept: the delimiter lines, a From_ line after the
//! opening one, and any bytes between a closing line and the next opening one pass
//! through as they are ([`Entry`]s with no number).
//!
//! A message is read up to the next delimiter line, as Python's reader does: a body line
//! of four Control-A bytes ends it (MMDF's delivery agents never wrote one).

use super::Warning;
use super::mbox::Entry;
use std::io::{self, BufRead};

/// A delimiter line without its line end.
const DELIMITER: &[u8] = b"\x01\x01\x01\x01";

/// Whether `line` (its line end included) is a delimiter line.
fn is_delimiter(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line == DELIMITER
}

/// Whether `head`, a file's first bytes, starts an MMDF mailbox: a delimiter line, then
/// (after a From_ line, if one is there) a header block holding a mail or MIME field.
///
/// ```
/// use absolve::mime::mmdf::starts_mmdf;
///
/// assert!(starts_mmdf(b"\x01\x01\x01\x01\nSubject: x\n\nbody\n\x01\x01\x01\x01\n"));
/// assert!(starts_mmdf(b"\x01\x01\x01\x01\r\nFrom MAILER-DAEMON Mon Jan  1 00:00:00 2024\r\nTo: y\r\n"));
/// assert!(!starts_mmdf(b"\x01\x01\x01\x01\n<p>hi"));
/// assert!(!starts_mmdf(b"Subject: x\n\n"));
/// ```
pub fn starts_mmdf(head: &[u8]) -> bool {
    if !head.starts_with(DELIMITER) {
        return false;
    }
    let Some(end) = memchr::memchr(b'\n', head) else {
        return false;
    };
    if !is_delimiter(&head[..=end]) {
        return false;
    }
    let rest = &head[end + 1..];
    let rest = match memchr::memchr(b'\n', rest) {
        Some(end) if super::mbox::is_separator(&rest[..=end], false) => &rest[end + 1..],
        _ => rest,
    };
    crate::format::is_header_block(rest)
}

/// Reads an MMDF mailbox message by message: memory is bounded by the largest message,
/// or by the limit given ([`Messages::with_limit`]), past which a message is given in
/// pieces (the first [`Entry::too_large`], the rest [`Entry::continued`]).
///
/// ```
/// use absolve::mime::mmdf::Messages;
///
/// let mailbox: &[u8] = b"\x01\x01\x01\x01\nSubject: 1\n\none\n\x01\x01\x01\x01\n\
/// \x01\x01\x01\x01\nFrom a@b Mon Jan  1 00:00:00 2024\nSubject: 2\n\ntwo\n\x01\x01\x01\x01\n";
/// let entries: Vec<_> = Messages::new(mailbox).collect::<Result<_, _>>().unwrap();
/// let numbered: Vec<_> = entries.iter().filter(|e| e.number.is_some()).collect();
/// assert_eq!(numbered[0].separator, b"\x01\x01\x01\x01\n");
/// assert_eq!(numbered[0].message, b"Subject: 1\n\none\n");
/// assert_eq!(numbered[1].separator, b"\x01\x01\x01\x01\nFrom a@b Mon Jan  1 00:00:00 2024\n");
/// assert_eq!(numbered[1].message, b"Subject: 2\n\ntwo\n");
/// assert_eq!(numbered[1].number, Some(2));
/// // Every byte is in an entry, in order.
/// let all: Vec<u8> = entries.iter().flat_map(|e| [e.separator.clone(), e.message.clone()].concat()).collect();
/// assert_eq!(all, mailbox);
/// ```
pub struct Messages<R: BufRead> {
    reader: R,
    /// The opening line of the next message, read ahead.
    opening: Option<Vec<u8>>,
    /// The closing line of the message just given: the first bytes outside it.
    closing: Option<Vec<u8>>,
    /// How many messages were given.
    count: usize,
    /// The most bytes of a message held (a longer line is cut there too).
    limit: u64,
    /// A message longer than the limit is being given in pieces.
    overflowing: bool,
    done: bool,
}

impl<R: BufRead> Messages<R> {
    /// An MMDF mailbox read from `reader`, with no limit on a message's size.
    pub fn new(reader: R) -> Self {
        Messages {
            reader,
            opening: None,
            closing: None,
            count: 0,
            limit: u64::MAX,
            overflowing: false,
            done: false,
        }
    }

    /// Messages longer than `limit` bytes are given in pieces of about that size.
    ///
    /// ```
    /// use absolve::mime::mmdf::Messages;
    ///
    /// let mailbox: &[u8] = b"\x01\x01\x01\x01\nSubject: x\n\n1\n2\n3\n\x01\x01\x01\x01\n";
    /// let entries: Vec<_> = Messages::new(mailbox).with_limit(12).collect::<Result<_, _>>().unwrap();
    /// assert!(entries[0].too_large && entries[0].number == Some(1));
    /// assert!(entries[1].continued && entries[1].number.is_none());
    /// ```
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// Reads one line onto `buf` (cut at the limit): how many bytes, 0 at the end.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        io::Read::take(&mut self.reader, self.limit).read_until(b'\n', buf)
    }

    /// The bytes outside any message up to the next opening line (kept), from the
    /// closing line of the last message: an entry with no number; else the next
    /// message; `None` at the end.
    fn outside(&mut self) -> io::Result<Option<Entry>> {
        let mut bytes = self.closing.take().unwrap_or_default();
        while self.opening.is_none() && !self.done {
            let start = bytes.len();
            if self.read_line(&mut bytes)? == 0 {
                self.done = true;
            } else if is_delimiter(&bytes[start..]) {
                self.opening = Some(bytes.split_off(start));
                break;
            } else if bytes.len() as u64 >= self.limit {
                break;
            }
        }
        if !bytes.is_empty() {
            return Ok(Some(Entry {
                message: bytes,
                ..Entry::default()
            }));
        }
        match self.opening.take() {
            Some(opening) => self.message(opening).map(Some),
            None => Ok(None),
        }
    }

    /// The message after its opening line: a From_ line right after it joins the
    /// separator (Python writes one there).
    fn message(&mut self, mut separator: Vec<u8>) -> io::Result<Entry> {
        let mut first = Vec::new();
        if self.read_line(&mut first)? > 0 && super::mbox::is_separator(&first, false) {
            separator.append(&mut first);
        }
        self.count += 1;
        let mut entry = Entry {
            separator,
            message: first,
            number: Some(self.count),
            ..Entry::default()
        };
        self.read_body(&mut entry)?;
        entry.too_large = self.overflowing;
        Ok(entry)
    }

    /// Reads `entry`'s message (its first line, if any, read already) on to its closing
    /// line (kept for [`Self::outside`]), the end of the mailbox (with a warning: no
    /// closing line), or the limit (the rest given in pieces).
    fn read_body(&mut self, entry: &mut Entry) -> io::Result<()> {
        let message = &mut entry.message;
        let mut start = 0;
        loop {
            if start < message.len() && is_delimiter(&message[start..]) {
                self.closing = Some(message.split_off(start));
                self.overflowing = false;
                return Ok(());
            }
            if message.len() as u64 >= self.limit {
                self.overflowing = true;
                return Ok(());
            }
            start = message.len();
            if self.read_line(message)? == 0 {
                self.done = true;
                self.overflowing = false;
                entry.warning = Some(Warning::MmdfNotClosed);
                return Ok(());
            }
        }
    }

    /// The next piece of a message too large to hold.
    fn piece(&mut self) -> io::Result<Entry> {
        let mut entry = Entry {
            continued: true,
            ..Entry::default()
        };
        self.read_body(&mut entry)?;
        Ok(entry)
    }
}

impl<R: BufRead> Iterator for Messages<R> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = match self.overflowing {
            true => self.piece().map(Some),
            false => self.outside(),
        };
        match next {
            Ok(entry) => entry.map(Ok),
            Err(error) => {
                self.done = true;
                self.closing = None;
                self.opening = None;
                self.overflowing = false;
                Some(Err(error))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(mailbox: &[u8], limit: u64) -> Vec<Entry> {
        Messages::new(mailbox)
            .with_limit(limit)
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn joined(entries: &[Entry]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|e| [e.separator.clone(), e.message.clone()].concat())
            .collect()
    }

    #[test]
    fn every_byte_is_kept_in_order() {
        let mailboxes: [&[u8]; 6] = [
            b"",
            b"junk\n\x01\x01\x01\x01\nSubject: 1\n\n1\n\x01\x01\x01\x01\nbetween\n",
            b"\x01\x01\x01\x01\r\nSubject: 1\r\n\r\n1\r\n\x01\x01\x01\x01\r\n",
            b"\x01\x01\x01\x01\n\x01\x01\x01\x01\n",
            b"\x01\x01\x01\x01\nSubject: cut\n\nno closing line",
            b"\x01\x01\x01\x01\n",
        ];
        for mailbox in mailboxes {
            for limit in [1, 5, 1 << 20] {
                assert_eq!(
                    joined(&entries(mailbox, limit)),
                    mailbox,
                    "{mailbox:?} {limit}"
                );
            }
        }
    }

    #[test]
    fn messages_are_numbered_and_an_unclosed_one_warned_about() {
        let mailbox = b"junk\n\x01\x01\x01\x01\nSubject: 1\n\n1\n\x01\x01\x01\x01\n\x01\x01\x01\x01\nSubject: 2\n\n2";
        let found = entries(mailbox, 1 << 20);
        let numbered: Vec<_> = found.iter().filter_map(|e| e.number).collect();
        assert_eq!(numbered, [1, 2]);
        assert_eq!(found[0].message, b"junk\n");
        let last = found.last().unwrap();
        assert_eq!(
            (last.number, &last.warning),
            (Some(2), &Some(Warning::MmdfNotClosed))
        );
        assert!(found.iter().rev().skip(1).all(|e| e.warning.is_none()));
    }

    #[test]
    fn an_empty_message_is_one() {
        let found = entries(b"\x01\x01\x01\x01\n\x01\x01\x01\x01\n", 1 << 20);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].number, found[0].message.len()), (Some(1), 0));
        assert_eq!(
            (found[1].number, found[1].message.as_slice()),
            (None, DELIMITER_LINE)
        );
    }

    const DELIMITER_LINE: &[u8] = b"\x01\x01\x01\x01\n";
}
