//! mbox archives (RFC 4155 and its variants): split into messages one at a time, keeping
//! every byte: the `From ` separator lines, the blank lines and the `>From ` quoting
//! (mboxo and mboxrd alike are left as they are, since only HTML/CSS bodies change).
//!
//! A separator is a line starting with `From ` at the start of the archive (after an
//! optional UTF-8 BOM) or after a blank line (jwz's rule, which Thunderbird files need).

use std::io::{self, BufRead};

/// One message of an archive: its separator line (with its line ending) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// The `From ` line, BOM included for the first one; empty for bytes before any.
    pub separator: Vec<u8>,
    /// The message, up to the next separator line.
    pub message: Vec<u8>,
}

/// Reads an archive message by message: memory is bounded by the largest message.
///
/// ```
/// use absolve::mime::mbox::Messages;
///
/// let archive: &[u8] = b"From a Mon\nSubject: 1\n\nFrom here on\n\n>From b\nFrom c Tue\nSubject: 2\n\nbody\n";
/// let entries: Vec<_> = Messages::new(archive).collect::<Result<_, _>>().unwrap();
/// assert_eq!(entries.len(), 1 + 0);
/// assert_eq!(entries[0].separator, b"From a Mon\n");
/// let archive: &[u8] = b"From a Mon\nSubject: 1\n\nbody\n\nFrom c Tue\nSubject: 2\n\nbody\n";
/// let entries: Vec<_> = Messages::new(archive).collect::<Result<_, _>>().unwrap();
/// assert_eq!(entries.len(), 2);
/// assert_eq!(entries[1].message, b"Subject: 2\n\nbody\n");
/// ```
pub struct Messages<R: BufRead> {
    reader: R,
    next_separator: Option<Vec<u8>>,
    at_start: bool,
    done: bool,
}

impl<R: BufRead> Messages<R> {
    pub fn new(reader: R) -> Self {
        Messages {
            reader,
            next_separator: None,
            at_start: true,
            done: false,
        }
    }
}

fn is_separator(line: &[u8], at_start: bool) -> bool {
    let line = if at_start {
        line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
    } else {
        line
    };
    line.starts_with(b"From ")
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
            message: Vec::new(),
        };
        let mut previous_blank = false;
        let mut line = Vec::new();
        loop {
            line.clear();
            match self.reader.read_until(b'\n', &mut line) {
                Ok(0) => {
                    self.done = true;
                    let empty = entry.separator.is_empty() && entry.message.is_empty();
                    return (!empty).then_some(Ok(entry));
                }
                Ok(_) => {}
                Err(error) => {
                    self.done = true;
                    return Some(Err(error));
                }
            }
            let at_start = std::mem::take(&mut self.at_start);
            if is_separator(&line, at_start) && (at_start || previous_blank) {
                if at_start || (entry.separator.is_empty() && entry.message.is_empty()) {
                    entry.separator = line.clone();
                    continue;
                }
                self.next_separator = Some(line.clone());
                return Some(Ok(entry));
            }
            previous_blank = is_blank(&line);
            entry.message.extend_from_slice(&line);
        }
    }
}
