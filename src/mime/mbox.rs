//! mbox archives (RFC 4155 and its variants): split into messages one at a time, keeping
//! every byte: the `From ` separator lines, the blank lines and the `>From ` quoting
//! (mboxo and mboxrd alike are left as they are, since only HTML/CSS bodies change).
//!
//! A separator is a line starting with `From ` at the start of the archive (after an
//! optional UTF-8 BOM) or after a blank line (jwz's rule), that also looks like a From_
//! line: a sender token, then the end of the line (Gmail exports) or a date (something
//! with a digit). So an unquoted body line such as `From here on` stays in its message.
//!
//! A From_ line right after a line that is not blank is a separator too when a heading
//! follows it: every line up to a blank line (or the end of the archive) a header field
//! `Name: value` or a folded continuation of one, at least one of them a mail or MIME
//! field (`From:`, `Subject:`, `Content-Type:`, ...), read ahead at most
//! [`HEADING_LOOKAHEAD`] bytes. RFC 4155 wants a body's `From ` lines quoted, yet some
//! writers end a message with no blank line (MimeKit's `simple.mbox`): Python's mailbox
//! and MimeKit split at every `From ` line, mutt at every line its `is_from` takes (a
//! sender and a ctime date), blank line or not. Asking for both the From_ shape and a
//! heading keeps a badly quoted body line (`From me 2 you` then prose, or `From` then
//! `Year: 1963`) in its message. The first such split in an archive is warned about
//! ([`Warning::NoBlankLineBeforeFromLine`], on the message it ends); later ones are not.
//!
//! mboxcl and mboxcl2 archives count each body in a `Content-Length` header and may leave
//! a body's `From ` lines unquoted. As mutt does, the count is trusted when it is
//! consistent: the counted body ends where the file ends, or at a From_ line, or at a
//! blank line and then a From_ line or the end. Then a separator-like line inside the
//! counted body stays in its message. A count that does not end so is not trusted: the
//! message is split at the separator-like line as without the header, with a warning.

use super::Warning;
use std::io::{self, BufRead};

/// The most bytes read ahead after a From_ line that no blank line precedes, looking for
/// the heading that makes it a separator (`Messages::heading_follows`): real headings
/// are a few kilobytes, a long `Received` chain some 20 KiB. A From_ line whose heading
/// is longer stays in the body, as it did before such lines were split at.
pub const HEADING_LOOKAHEAD: usize = 32 << 10;

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
    /// What went wrong in cutting the message from the archive (a `Content-Length` that
    /// could not be trusted), if anything did.
    pub warning: Option<Warning>,
    /// The message is longer than the limit ([`Messages::with_limit`]): `message` holds
    /// its first bytes, and the entries after it with [`Entry::continued`] the rest.
    pub too_large: bool,
    /// More bytes of the message before, too large to hold: no separator, no number.
    pub continued: bool,
}

/// Reads an archive message by message: memory is bounded by the largest message, or
/// by the limit given ([`Messages::with_limit`]), plus the [`HEADING_LOOKAHEAD`] read
/// ahead after a From_ line that no blank line precedes.
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
///
/// // mboxcl2: a consistent Content-Length keeps an unquoted From_ line in its body.
/// let counted: &[u8] = b"From a@b 1\nContent-Length: 14\n\nx\n\nFrom b@c 2\n\nFrom d@e 3\n\ny\n";
/// let entries: Vec<_> = Messages::new(counted).collect::<Result<_, _>>().unwrap();
/// assert_eq!(entries.len(), 2);
/// assert_eq!(entries[1].separator, b"From d@e 3\n");
/// ```
pub struct Messages<R: BufRead> {
    reader: R,
    next_separator: Option<Vec<u8>>,
    at_start: bool,
    done: bool,
    /// How many messages (entries with a separator) were given.
    count: usize,
    /// Bytes read ahead to check a `Content-Length`, to be read again: they come before
    /// the reader's.
    replay: Vec<u8>,
    replay_at: usize,
    /// Where in the archive the next byte read is.
    position: u64,
    /// The archive's bytes before this were read ahead once for a `Content-Length` that
    /// proved wrong: no count is checked again there, so that reading stays linear.
    checked_until: u64,
    /// The most bytes of a message held (a longer line is cut there too).
    limit: u64,
    /// The rest of a message longer than `limit` is being given in pieces.
    overflowing: Option<Overflow>,
    /// A message was split at a From_ line that no blank line preceded, with a warning:
    /// later ones are split alike without one.
    warned_no_blank_line: bool,
}

/// Where a message too large to hold is, as its pieces are given.
#[derive(Debug, Clone, Copy)]
struct Overflow {
    /// Whether the last line read was blank.
    previous_blank: bool,
    /// The message's `Content-Length` and where in the archive the body it counts ends
    /// (saturated), if it has one.
    count: Option<(u64, u64)>,
}

/// What a separator-like line inside a message too large to hold is.
enum PieceCount {
    /// A separator: the message ends before it (with a warning if its count was not
    /// trusted, as [`Count`] says).
    Separator(Option<Warning>),
    /// Covered by the count: it starts a piece of its own, so that the count is checked
    /// with the whole limit to read ahead.
    NewPiece,
    /// Covered by a consistent count: the next separator is at this offset in the piece.
    Inside(usize),
}

/// What a message's `Content-Length` says about a separator-like line inside it.
enum Count {
    /// No count, or one that ends before the line: the line is a separator.
    Irrelevant,
    /// The count is consistent: the next separator is at this offset in the message (or
    /// the archive ends there).
    Ends(usize),
    /// The count covers the line but does not end at a separator: not trusted.
    Wrong(u64),
    /// The count covers the line and ends past the limit on a message held: not read
    /// ahead to check (that would hold the rest of the archive), not trusted.
    TooLong(u64),
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
            replay: Vec::new(),
            replay_at: 0,
            position: 0,
            checked_until: 0,
            limit: u64::MAX,
            overflowing: None,
            warned_no_blank_line: false,
        }
    }

    /// Holds at most about `limit` bytes of a message: a longer one is given as an entry
    /// with [`Entry::too_large`] holding its first bytes, then entries with
    /// [`Entry::continued`] of about `limit` bytes each, to the next separator. Its
    /// `Content-Length` is honoured as a message's held whole is: a From_ line that the
    /// count covers starts a piece, the count is read ahead to (up to
    /// the limit) and checked, and if consistent the line stays in the message (an
    /// [`Entry::warning`] on the piece if it was not trusted). A From_ line that no blank
    /// line precedes is a separator if a heading follows it, as in a message held. Memory
    /// stays bounded by the limit (plus [`HEADING_LOOKAHEAD`]) whatever the archive.
    ///
    /// ```
    /// use absolve::mime::mbox::Messages;
    ///
    /// let archive: &[u8] = b"From a@b 1\nSubject: 1\n\nline\nline\nline\n\nFrom c@d 2\n\nshort\n";
    /// let entries: Vec<_> = Messages::new(archive).with_limit(16).collect::<Result<_, _>>().unwrap();
    /// assert!(entries[0].too_large && entries[0].number == Some(1));
    /// assert!(entries[1..entries.len() - 1].iter().all(|e| e.continued && e.number.is_none()));
    /// let last = entries.last().unwrap();
    /// assert_eq!((last.number, &last.message[..]), (Some(2), &b"\nshort\n"[..]));
    /// let message: Vec<u8> = entries[..entries.len() - 1].iter().flat_map(|e| e.message.clone()).collect();
    /// assert_eq!(message, b"Subject: 1\n\nline\nline\nline\n\n");
    /// ```
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// The next piece of a message too large to hold: lines up to about the limit, or to
    /// the next separator (kept for the next entry), its `Content-Length` honoured
    /// ([`Messages::with_limit`]).
    fn next_piece(&mut self, overflow: Overflow) -> io::Result<Entry> {
        let Overflow {
            mut previous_blank,
            count,
        } = overflow;
        let mut entry = Entry {
            continued: true,
            ..Entry::default()
        };
        loop {
            let start = entry.message.len();
            if self.read_line(&mut entry.message)? == 0 {
                self.done = true;
                self.overflowing = None;
                return Ok(entry);
            }
            let line = &entry.message[start..];
            let blank = is_blank(line);
            if is_separator(line, false)
                && (previous_blank || self.heading_follows(&mut entry.message)?)
            {
                let separator_at = match self.piece_count(&mut entry.message, start, count)? {
                    PieceCount::Separator(warning) => {
                        let read_ahead = entry.message.len() - start;
                        entry.warning = warning
                            .or_else(|| self.no_blank_line_warning(previous_blank, read_ahead));
                        start
                    }
                    PieceCount::NewPiece => {
                        let line = entry.message.split_off(start);
                        self.push_back(line);
                        self.overflowing = Some(Overflow {
                            previous_blank,
                            count,
                        });
                        return Ok(entry);
                    }
                    // The counted body ends where the archive does.
                    PieceCount::Inside(split) if split >= entry.message.len() => continue,
                    PieceCount::Inside(split) => split,
                };
                self.next_separator = Some(self.take_separator(&mut entry.message, separator_at));
                self.overflowing = None;
                return Ok(entry);
            }
            previous_blank = blank;
            if entry.message.len() as u64 >= self.limit {
                self.overflowing = Some(Overflow {
                    previous_blank,
                    count,
                });
                return Ok(entry);
            }
        }
    }

    /// What the separator-like line at `line` of `piece` (its end the end of `piece`) is,
    /// inside a message too large to hold whose count is `count`: as for a message held
    /// ([`Messages::counted`]), with the piece as the bytes held.
    fn piece_count(
        &mut self,
        piece: &mut Vec<u8>,
        line: usize,
        count: Option<(u64, u64)>,
    ) -> io::Result<PieceCount> {
        let piece_start = self.position - piece.len() as u64;
        let line_position = piece_start + line as u64;
        let Some((length, end)) = count.filter(|&(_, end)| end > line_position) else {
            return Ok(PieceCount::Separator(None));
        };
        if line > 0 && line_position >= self.checked_until {
            return Ok(PieceCount::NewPiece);
        }
        let end = usize::try_from(end - piece_start).ok();
        Ok(match self.check_count(piece, line, length, end)? {
            Count::Ends(split) => PieceCount::Inside(split),
            Count::Irrelevant => PieceCount::Separator(None),
            count => PieceCount::Separator(self.count_warning(count, piece.len() - line)),
        })
    }

    /// The message's `Content-Length` and where in the archive its counted body ends, for
    /// `message` (its first bytes), just read.
    fn count_of(&self, message: &[u8]) -> Option<(u64, u64)> {
        let (length, body_start) = counted_body(message)?;
        let message_start = self.position - message.len() as u64;
        let end = message_start
            .saturating_add(body_start as u64)
            .saturating_add(length);
        Some((length, end))
    }

    /// The warning for a count not trusted, the line it covers `read_ahead` bytes before
    /// the position (the line and what was read ahead after it).
    fn count_warning(&self, count: Count, read_ahead: usize) -> Option<Warning> {
        let offset = self.position - read_ahead as u64;
        match count {
            Count::Wrong(length) => Some(Warning::ContentLengthNotTrusted(length, offset)),
            Count::TooLong(length) => {
                Some(Warning::ContentLengthTooLong(length, offset, self.limit))
            }
            Count::Irrelevant | Count::Ends(_) => None,
        }
    }

    /// The separator line at `at` of `message`, taken out of it; what was read ahead
    /// after the line is to be read again.
    fn take_separator(&mut self, message: &mut Vec<u8>, at: usize) -> Vec<u8> {
        let mut separator = message.split_off(at);
        let line_len = memchr::memchr(b'\n', &separator).map_or(separator.len(), |i| i + 1);
        let read_ahead = separator.split_off(line_len);
        if !read_ahead.is_empty() {
            self.push_back(read_ahead);
        }
        separator
    }

    /// Reads one line (to its `\n` or the end) onto `buf`: the bytes read ahead first.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        let mut read = 0;
        if self.replay_at < self.replay.len() {
            let pending = &self.replay[self.replay_at..];
            let take = memchr::memchr(b'\n', pending).map_or(pending.len(), |i| i + 1);
            buf.extend_from_slice(&pending[..take]);
            self.replay_at += take;
            if self.replay_at == self.replay.len() {
                self.replay.clear();
                self.replay_at = 0;
            }
            read = take;
        }
        if read == 0 || !buf.ends_with(b"\n") {
            // A line longer than the limit is cut there (memory stays bounded).
            read += io::Read::take(&mut self.reader, self.limit).read_until(b'\n', buf)?;
        }
        self.position += read as u64;
        Ok(read)
    }

    /// `bytes`, just read, to be read again next.
    fn push_back(&mut self, mut bytes: Vec<u8>) {
        self.position -= bytes.len() as u64;
        bytes.extend_from_slice(&self.replay[self.replay_at..]);
        self.replay = bytes;
        self.replay_at = 0;
    }

    /// Reads one more line onto `message`: where it is, `None` at the end.
    fn next_line(&mut self, message: &mut Vec<u8>) -> io::Result<Option<std::ops::Range<usize>>> {
        let start = message.len();
        Ok((self.read_line(message)? > 0).then_some(start..message.len()))
    }

    /// Whether the `Content-Length` of `message`, read up to `line` (a separator-like
    /// line just read, its end the end of `message`), covers the line and is consistent;
    /// the body is read ahead to its counted end to tell, as mutt checks it.
    fn counted(&mut self, message: &mut Vec<u8>, line: usize) -> io::Result<Count> {
        let Some((length, body_start)) = counted_body(&message[..line]) else {
            return Ok(Count::Irrelevant);
        };
        let end = usize::try_from(length)
            .ok()
            .and_then(|length| body_start.checked_add(length));
        self.check_count(message, line, length, end)
    }

    /// Whether a count of `length` whose body ends at `end` of `message` (`None`: past
    /// what memory can index) covers `line` (a separator-like line just read, its end
    /// the end of `message`) and is consistent; read ahead to `end` to tell, up to the
    /// limit.
    fn check_count(
        &mut self,
        message: &mut Vec<u8>,
        line: usize,
        length: u64,
        end: Option<usize>,
    ) -> io::Result<Count> {
        if end.is_some_and(|end| end <= line) {
            return Ok(Count::Irrelevant);
        }
        let line_position = self.position - (message.len() - line) as u64;
        if line_position < self.checked_until {
            return Ok(Count::Wrong(length));
        }
        if end.is_some_and(|end| end as u64 > self.limit) {
            return Ok(Count::TooLong(length));
        }
        let consistent = match end {
            Some(end) => self.read_to_counted_end(message, end)?,
            None => None,
        };
        match consistent {
            Some(split) => Ok(Count::Ends(split)),
            None => {
                self.checked_until = self.position;
                Ok(Count::Wrong(length))
            }
        }
    }

    /// Reads `message` on to `end`, where its counted body ends; where the next message
    /// starts if a From_ line, or a blank line and a From_ line (mboxcl2), or the end of
    /// the archive, is there.
    fn read_to_counted_end(
        &mut self,
        message: &mut Vec<u8>,
        end: usize,
    ) -> io::Result<Option<usize>> {
        while message.len() < end {
            if self.read_line(message)? == 0 {
                return Ok(None);
            }
        }
        // Whole lines are read: the counted end must be where one ends.
        if message.len() != end {
            return Ok(None);
        }
        let Some(first) = self.next_line(message)? else {
            return Ok(Some(end));
        };
        if is_separator(&message[first.clone()], false) {
            return Ok(Some(first.start));
        }
        if !is_blank(&message[first]) {
            return Ok(None);
        }
        let Some(second) = self.next_line(message)? else {
            return Ok(Some(message.len()));
        };
        Ok(is_separator(&message[second.clone()], false).then_some(second.start))
    }

    /// Whether the From_ line that ends `message`, right after a line that is not blank,
    /// starts a message all the same: whether a heading follows it. Every line up to a
    /// blank line (or the end of the archive) must be a header field `Name: value` (RFC
    /// 5322 §2.2, as [`crate::format`] reads one) or a folded continuation of one, and at
    /// least one a mail or MIME field (`From`, `Subject`, `Content-Type`, ...): prose, a
    /// quoted line or another From_ line says it is a body line. The lines after it are
    /// read ahead to tell, at most [`HEADING_LOOKAHEAD`] bytes whatever the limit on a
    /// message held (so that a message is split alike held whole or in pieces), then read
    /// again: each is read ahead at most once, since the read stops at the first line that
    /// is no field, a From_ line among them.
    fn heading_follows(&mut self, message: &mut Vec<u8>) -> io::Result<bool> {
        let ahead = message.len();
        let mut fields = 0;
        let mut mail_field = false;
        let follows = loop {
            let Some(line) = self.next_line(message)? else {
                break mail_field;
            };
            let line = &message[line];
            if is_blank(line) {
                break mail_field;
            }
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if fields > 0 && matches!(text.first(), Some(b' ' | b'\t')) {
                // A folded continuation of the field before.
            } else if let Some(name) = crate::format::field_name(text) {
                fields += 1;
                mail_field |= crate::format::is_mail_field(name);
            } else {
                break false;
            }
            if message.len() - ahead >= HEADING_LOOKAHEAD {
                break false;
            }
        };
        let read_ahead = message.split_off(ahead);
        if !read_ahead.is_empty() {
            self.push_back(read_ahead);
        }
        Ok(follows)
    }

    /// The warning for a message split at a From_ line (`read_ahead` bytes before the
    /// position: the line and what was read ahead after it) that no blank line preceded
    /// (`after_blank` false), the first in the archive; `None` for the others.
    fn no_blank_line_warning(&mut self, after_blank: bool, read_ahead: usize) -> Option<Warning> {
        if after_blank || std::mem::replace(&mut self.warned_no_blank_line, true) {
            return None;
        }
        let offset = self.position - read_ahead as u64;
        Some(Warning::NoBlankLineBeforeFromLine(offset))
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

/// Whether `line` (one line, its end included) looks like a From_ line: `From `, a sender,
/// then nothing or something with a digit ([the module's rules](self)).
pub(crate) fn is_separator(line: &[u8], at_start: bool) -> bool {
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
        if let Some(overflow) = self.overflowing {
            let piece = self.next_piece(overflow);
            if matches!(&piece, Ok(e) if e.message.is_empty() && self.done) {
                return None;
            }
            return Some(piece);
        }
        let mut entry = Entry {
            separator: self.next_separator.take().unwrap_or_default(),
            ..Entry::default()
        };
        let mut previous_blank = false;
        // Where a consistent Content-Length puts the next separator.
        let mut counted_end = None;
        loop {
            // Each line is read into the message itself (no copy of a long line), and
            // taken back out when it is the next separator.
            let start = entry.message.len();
            match self.read_line(&mut entry.message) {
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
            let blank = is_blank(line);
            let after_blank = at_start || previous_blank;
            let from_line = is_separator(line, at_start);
            previous_blank = blank;
            let candidate = from_line
                && (after_blank
                    || counted_end == Some(start)
                    || match self.heading_follows(&mut entry.message) {
                        Ok(follows) => follows,
                        Err(error) => {
                            self.done = true;
                            return Some(Err(error));
                        }
                    });
            if counted_end != Some(start) && !candidate {
                if entry.message.len() as u64 > self.limit {
                    self.overflowing = Some(Overflow {
                        previous_blank: blank,
                        count: self.count_of(&entry.message),
                    });
                    entry.too_large = true;
                    return Some(Ok(self.numbered(entry)));
                }
                continue;
            }
            if candidate && counted_end.is_none() && !entry.separator.is_empty() {
                match self.counted(&mut entry.message, start) {
                    Ok(Count::Irrelevant) => {}
                    Ok(Count::Ends(split)) => {
                        counted_end = Some(split);
                        let rest = entry.message.split_off(split);
                        self.push_back(rest);
                        continue;
                    }
                    Ok(count) => {
                        entry.warning = self.count_warning(count, entry.message.len() - start);
                    }
                    Err(error) => {
                        self.done = true;
                        return Some(Err(error));
                    }
                }
                if entry.warning.is_none() {
                    let read_ahead = entry.message.len() - start;
                    entry.warning = self.no_blank_line_warning(after_blank, read_ahead);
                }
            }
            let separator = self.take_separator(&mut entry.message, start);
            if at_start || (entry.separator.is_empty() && entry.message.is_empty()) {
                entry.separator = separator;
                continue;
            }
            self.next_separator = Some(separator);
            return Some(Ok(self.numbered(entry)));
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
pub fn update_content_length(original: &[u8], mut rewritten: Vec<u8>) -> Vec<u8> {
    if original.len() == rewritten.len() {
        return rewritten;
    }
    let grown = rewritten.len() as i64 - original.len() as i64;
    if let Some((digits, value)) = new_content_length(&rewritten, grown) {
        // In place: no second copy of the message.
        rewritten.splice(digits, value.to_string().into_bytes());
    }
    rewritten
}

/// Where the digits of a message's `Content-Length` header are, and its value moved by
/// `grown` bytes: what [`update_content_length`] writes there, for a rewrite written out
/// as it is made (a rewrite leaves the heading as it is). `None` if the message has no
/// such header, or its value is no number or would go below zero.
///
/// ```
/// use absolve::mime::mbox::new_content_length;
///
/// let message = b"Subject: s\nContent-Length: 5\n\n<a>\n\n";
/// let (digits, value) = new_content_length(message, 2).unwrap();
/// assert_eq!((&message[digits], value), (&b"5"[..], 7));
/// assert_eq!(new_content_length(b"Subject: s\n\n<a>\n", 2), None);
/// ```
pub fn new_content_length(message: &[u8], grown: i64) -> Option<(std::ops::Range<usize>, u64)> {
    let (value, digits) = content_length(message)?;
    Some((digits, value.checked_add_signed(grown)?))
}

/// Whether the message has a `Content-Length` header (mboxcl, mboxcl2): then its rewrite
/// must be held whole (or spooled) before it is written, for [`update_content_length`]
/// ([`new_content_length`]).
///
/// ```
/// assert!(absolve::mime::mbox::has_content_length(b"content-length: 5\n\nabcde"));
/// assert!(!absolve::mime::mbox::has_content_length(b"Subject: x\n\nContent-Length: 5\n"));
/// ```
pub fn has_content_length(message: &[u8]) -> bool {
    content_length(message).is_some()
}

/// The value of the `Content-Length` header of a message read up to some line, and where
/// its body starts; `None` when it has no such header or no blank line has ended its
/// heading yet.
fn counted_body(message: &[u8]) -> Option<(u64, usize)> {
    let (length, _) = content_length(message)?;
    let (_, body_start) = mailparse::parse_headers(message).ok()?;
    let heading = &message[..body_start];
    (heading.ends_with(b"\n\n") || heading.ends_with(b"\n\r\n")).then_some((length, body_start))
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

    /// MimeKit's `simple.mbox` and other archives put each From_ line right after the
    /// last line of the message before, with no blank line: it was read as one message,
    /// the later messages' headings as body text (Python's mailbox reads 3). A From_ line
    /// that a heading follows is a separator there too, with one warning per archive.
    #[test]
    fn from_lines_without_a_blank_line_before_split_when_a_heading_follows() {
        for eol in ["\n", "\r\n"] {
            let message = |n: usize| {
                format!(
                    "From - Mon Jan  {n} 00:00:00 2024{eol}From: a@b{eol}Subject: {n}{eol}\
                     Received: by x;{eol} Mon, {n} Jan 2024{eol}{eol}body {n}{eol}"
                )
            };
            let archive = [message(1), message(2), message(3)].concat();
            let found = pieces(&archive, u64::MAX);
            let (separators, warnings) = split(&found);
            assert_eq!(separators.len(), 3, "{eol:?}");
            assert_eq!(
                found[1].message,
                message(2).split_once(eol).unwrap().1.as_bytes()
            );
            let offset = archive.find("From - Mon Jan  2").unwrap() as u64;
            assert_eq!(warnings, [Warning::NoBlankLineBeforeFromLine(offset)]);
            assert_eq!(
                found[0].warning,
                Some(warnings[0].clone()),
                "on the message it ends"
            );
            // Read in pieces (a message too large to hold), the same split.
            for limit in [40, 64, 100] {
                assert_eq!(
                    split(&pieces(&archive, limit)),
                    (separators.clone(), warnings.clone())
                );
            }
        }
    }

    /// A From_ line right after a body line stays in its message unless a whole heading
    /// follows it: a line of prose, a field that no mail message has alone (`Year:`), a
    /// quoted or another From_ line, or the end of the archive say it is a body line.
    #[test]
    fn a_from_line_without_a_blank_line_before_and_no_heading_after_stays() {
        for body in [
            "x\nFrom b 2\nprose\n\n",
            "x\nFrom b 2\nYear: 1963\n\nprose\n",
            "x\nFrom b 2\nSubject: y\nprose, no blank line\n\nz\n",
            "x\nFrom b 2\n>From c 3\nSubject: y\n\n",
            "x\nFrom b 2\nFrom c 3\n",
            "x\nFrom b 2\n Subject: y\n\n",
            "x\nFrom me to you\nSubject: y\n\n",
            "x\nFrom b 2\n",
        ] {
            let archive = format!("From a 1\nSubject: 1\n\n{body}");
            let found = pieces(&archive, u64::MAX);
            assert_eq!(found.len(), 1, "{body:?}");
            assert!(found[0].warning.is_none());
        }
        // A heading ended by the end of the archive is one.
        assert_eq!(
            count(b"From a 1\nSubject: 1\n\nx\nFrom b 2\nSubject: 2\n"),
            2
        );
    }

    /// The heading after such a line is read ahead at most `HEADING_LOOKAHEAD` bytes,
    /// whatever the limit on a message held: a longer one leaves the line in the body.
    #[test]
    fn the_heading_after_a_from_line_is_read_ahead_a_bounded_length() {
        let fields = |bytes: usize| "X-Field: 123456789\n".repeat(bytes / 19);
        let archive = |heading: &str| {
            format!("From a 1\nSubject: 1\n\nx\nFrom b 2\nSubject: 2\n{heading}\nbody\n")
        };
        let long = archive(&fields(HEADING_LOOKAHEAD + 100));
        assert_eq!(split(&pieces(&long, u64::MAX)).0.len(), 1);
        let short = archive(&fields(HEADING_LOOKAHEAD - 100));
        assert_eq!(split(&pieces(&short, u64::MAX)).0.len(), 2);
        assert_eq!(
            split(&pieces(&short, 4096)).0.len(),
            2,
            "held in pieces alike"
        );
        assert_eq!(split(&pieces(&long, 4096)).0.len(), 1);
    }

    /// A consistent `Content-Length` covering such a line keeps it in its body, as it
    /// keeps one after a blank line; one that is not consistent is not trusted, with its
    /// own warning (which says the message is split at the line).
    #[test]
    fn a_content_length_covering_a_from_line_without_a_blank_line_before_is_honoured() {
        let body = "x\nFrom b 2\nSubject: y\n\nz\n";
        let next = counted_message("c@d", "w", None, "\n");
        let archive = counted_message("a@b", body, None, "\n") + &next;
        let (separators, warnings) = split(&pieces(&archive, u64::MAX));
        assert_eq!((separators.len(), warnings), (2, vec![]));
        let wrong = counted_message("a@b", body, Some(body.len() + 2), "\n") + &next;
        let (separators, warnings) = split(&pieces(&wrong, u64::MAX));
        let offset = wrong.find("From b 2").unwrap() as u64;
        let length = body.len() as u64 + 2;
        assert_eq!(separators.len(), 3);
        assert_eq!(warnings, [Warning::ContentLengthNotTrusted(length, offset)]);
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

    fn entries(archive: &[u8]) -> Vec<Entry> {
        Messages::new(archive).collect::<Result<_, _>>().unwrap()
    }

    /// An mboxcl2 message of `body`, counted by `length` (its own length if `None`).
    fn counted_message(sender: &str, body: &str, length: Option<usize>, eol: &str) -> String {
        let length = length.unwrap_or(body.len());
        format!(
            "From {sender} Mon Jan  1 00:00:00 2024{eol}Content-Length: {length}{eol}{eol}{body}{eol}"
        )
    }

    #[test]
    fn a_consistent_content_length_keeps_from_lines_in_its_body() {
        for eol in ["\n", "\r\n"] {
            let body = format!("x{eol}{eol}From Monday on{eol}y{eol}");
            let one = counted_message("a@b", &body, None, eol);
            let two = counted_message("c@d", "z", None, eol);
            let archive = format!("{one}{two}");
            let found = entries(archive.as_bytes());
            assert_eq!(found.len(), 2, "{archive:?}");
            assert!(found.iter().all(|e| e.warning.is_none()));
            assert_eq!(
                found[1].separator,
                format!("From c@d Mon Jan  1 00:00:00 2024{eol}").as_bytes()
            );
            // The count ends at the end of the archive, with or without the blank line.
            let last = entries(one.as_bytes());
            assert_eq!(last.len(), 1);
            let unended = &one[..one.len() - eol.len()];
            assert_eq!(entries(unended.as_bytes()).len(), 1);
            // A count that takes in the blank line too ends at the From_ line.
            let with_blank = counted_message("a@b", &body, Some(body.len() + eol.len()), eol);
            assert_eq!(entries(format!("{with_blank}{two}").as_bytes()).len(), 2);
        }
    }

    #[test]
    fn a_wrong_content_length_is_not_trusted_and_is_warned_about() {
        let body = "x\n\nFrom Monday 3 on\ny\n";
        for length in [body.len() - 1, body.len() + 3, 1 << 40] {
            let archive = counted_message("a@b", body, Some(length), "\n")
                + &counted_message("c@d", "z\n", None, "\n");
            let found = entries(archive.as_bytes());
            assert_eq!(found.len(), 3, "{length}");
            let offset = archive.find("From Monday").unwrap() as u64;
            assert_eq!(
                found[0].warning,
                Some(Warning::ContentLengthNotTrusted(length as u64, offset))
            );
            assert!(found[1].warning.is_none() && found[2].warning.is_none());
            let joined: Vec<u8> = found
                .into_iter()
                .flat_map(|e| [e.separator, e.message].concat())
                .collect();
            assert_eq!(joined, archive.as_bytes(), "every byte kept, once");
        }
    }

    /// A count past the limit on a message held is not read ahead to check: a huge
    /// `Content-Length` covering a From_ line held the rest of the archive (1 MB here,
    /// any size in the wild) to find out it was wrong. The message is split at the line,
    /// with a warning; every byte is kept.
    #[test]
    fn a_content_length_past_the_limit_is_not_read_ahead() {
        /// A reader that counts the bytes taken from it.
        struct Counting<'a>(&'a [u8], std::rc::Rc<std::cell::Cell<usize>>);
        impl io::Read for Counting<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.read(buf)?;
                self.1.set(self.1.get() + n);
                Ok(n)
            }
        }
        let body = "x\n\nFrom Monday 3 on\ny\n";
        let mut archive = counted_message("a@b", body, Some(1 << 30), "\n");
        let later = counted_message("c@d", &"z\n".repeat(100), None, "\n");
        while archive.len() < 1 << 20 {
            archive += &later;
        }
        let read = std::rc::Rc::new(std::cell::Cell::new(0));
        let reader = io::BufReader::with_capacity(4096, Counting(archive.as_bytes(), read.clone()));
        let mut messages = Messages::new(reader).with_limit(64 << 10);
        let first = messages.next().unwrap().unwrap();
        assert!(
            read.get() < 128 << 10,
            "{} bytes read for the first",
            read.get()
        );
        let offset = archive.find("From Monday").unwrap() as u64;
        assert_eq!(
            first.warning,
            Some(Warning::ContentLengthTooLong(1 << 30, offset, 64 << 10))
        );
        let mut joined = [first.separator, first.message].concat();
        for entry in messages {
            let entry = entry.unwrap();
            joined.extend_from_slice(&entry.separator);
            joined.extend_from_slice(&entry.message);
        }
        assert_eq!(joined, archive.as_bytes(), "every byte kept, once");
    }

    /// A count read ahead and found wrong is not read ahead again: many messages, each
    /// counted to past the end, take time linear in the archive.
    #[test]
    fn wrong_counts_are_read_ahead_once() {
        let message = counted_message("a@b", "x\n\nFrom Monday 1\n", Some(1 << 40), "\n");
        let archive = message.repeat(20_000);
        let started = std::time::Instant::now();
        assert_eq!(entries(archive.as_bytes()).len(), 40_000);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    /// The entries of `archive` read with `limit`, checked to keep every byte once.
    fn pieces(archive: &str, limit: u64) -> Vec<Entry> {
        let found: Vec<Entry> = Messages::new(archive.as_bytes())
            .with_limit(limit)
            .collect::<Result<_, _>>()
            .unwrap();
        let joined: Vec<u8> = found
            .iter()
            .flat_map(|e| [&e.separator[..], &e.message[..]].concat())
            .collect();
        assert_eq!(joined, archive.as_bytes(), "every byte kept, once");
        found
    }

    /// The separators of the messages found, and the warnings.
    fn split(found: &[Entry]) -> (Vec<String>, Vec<Warning>) {
        let separators = found
            .iter()
            .filter(|e| e.number.is_some())
            .map(|e| String::from_utf8_lossy(&e.separator).into_owned())
            .collect();
        (
            separators,
            found.iter().filter_map(|e| e.warning.clone()).collect(),
        )
    }

    #[test]
    fn a_message_too_large_to_hold_keeps_the_from_lines_its_content_length_covers() {
        // Before: past the limit, a From_ line after a blank line ended the message
        // whatever its Content-Length, where a message held kept it.
        let filler = "<p>a line of filler</p>\n".repeat(400);
        for eol_in_count in [0, 1] {
            let body = format!("{filler}\nFrom Monday 3 on\n\nFrom Tuesday 4 on\nend\n");
            let length = Some(body.len() + eol_in_count);
            let archive = counted_message("a@b", &body, length, "\n")
                + &counted_message("c@d", "z\n", None, "\n");
            let held = split(&pieces(&archive, u64::MAX));
            assert_eq!(held.0.len(), 2, "{held:?}");
            assert!(held.1.is_empty());
            for limit in [64, 1000, 4096, 9000] {
                let found = pieces(&archive, limit);
                assert!(found[0].too_large, "{limit}");
                assert_eq!(split(&found), held, "limit {limit}, {eol_in_count}");
            }
        }
    }

    #[test]
    fn past_the_limit_a_wrong_or_too_long_content_length_is_not_trusted_as_when_held() {
        let filler = "<p>a line of filler</p>\n".repeat(400);
        let body = format!("{filler}\nFrom Monday 3 on\ny\n");
        let offset = |archive: &str| archive.find("From Monday").unwrap() as u64;
        // A count that ends mid-line: read ahead, found wrong.
        let archive = counted_message("a@b", &body, Some(body.len() - 1), "\n")
            + &counted_message("c@d", "z\n", None, "\n");
        let wrong = Warning::ContentLengthNotTrusted(body.len() as u64 - 1, offset(&archive));
        assert_eq!(
            split(&pieces(&archive, u64::MAX)).1,
            std::slice::from_ref(&wrong)
        );
        let (separators, warnings) = split(&pieces(&archive, 1000));
        assert_eq!((separators.len(), warnings), (3, vec![wrong]));
        // A count past the limit from the line: not read ahead, not trusted.
        let archive = counted_message("a@b", &body, Some(body.len() + 50_000), "\n")
            + &counted_message("c@d", &"z\n".repeat(30_000), None, "\n");
        let (separators, warnings) = split(&pieces(&archive, 1000));
        let too_long =
            Warning::ContentLengthTooLong(body.len() as u64 + 50_000, offset(&archive), 1000);
        assert_eq!((separators.len(), warnings), (3, vec![too_long]));
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
