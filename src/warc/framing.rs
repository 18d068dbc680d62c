//! ISO 28500 §4/§5: a record is a version line, named fields up to a blank line, a block
//! of `Content-Length` bytes, and two CRLFs. Read leniently, as warcio does: bytes between
//! records that do not start one (a wrong `Content-Length`) are skipped up to the next
//! `WARC/` line with a warning; a record cut short by the end of the file gives a warning.

use super::stream::{CHUNK, Stream};
use super::{Error, RecordRef, Warning};
use std::io::{self, BufRead, BufReader, Read};

/// The most bytes a record's header block may have.
const MAX_HEAD: usize = 1 << 20;

/// A record's version line and named fields, as read.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    /// The header block as it was, blank line included.
    pub raw: Vec<u8>,
    /// The fields, in order, names as written, values trimmed (continuations joined).
    pub fields: Vec<(String, String)>,
    /// Which record this is.
    pub record: RecordRef,
    /// `Content-Length`: the length of the block.
    pub length: u64,
    /// Whether `Content-Length` was there and a number.
    pub has_length: bool,
}

impl Head {
    /// The first value of the field `name` (ISO 28500 §4: names are case-insensitive).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `WARC-Type`, lower case.
    pub fn kind(&self) -> String {
        self.field("WARC-Type")
            .unwrap_or_default()
            .to_ascii_lowercase()
    }
}

/// Reads records one after another from a [`Stream`].
pub(crate) struct Framing<R> {
    pub input: BufReader<Stream<R>>,
    /// How many records have begun.
    pub number: u64,
    /// The record before the next one, to name in a warning about the bytes after it.
    pub previous: Option<RecordRef>,
    /// Where the current record started (decompressed offset).
    pub start: u64,
    /// Bytes skipped before the current record that were not a record.
    pub skipped: u64,
}

impl<R: Read> Framing<R> {
    pub fn new(input: R) -> Result<Self, Error> {
        let stream = Stream::new(input)?;
        Ok(Framing {
            input: BufReader::with_capacity(CHUNK, stream),
            number: 0,
            previous: None,
            start: 0,
            skipped: 0,
        })
    }

    /// The decompressed offset of the next byte the framing reads.
    pub fn position(&self) -> u64 {
        self.input.get_ref().produced - self.input.buffer().len() as u64
    }

    /// The next record's head, or `None` at the end of the input. Blank lines before it
    /// are passed over; other bytes are skipped with a warning up to a `WARC/` line.
    pub fn next_head(&mut self, warn: &mut dyn FnMut(Warning)) -> Result<Option<Head>, Error> {
        self.skipped = 0;
        let mut skipped_at = None;
        let mut line = Vec::new();
        loop {
            let at = self.position();
            line.clear();
            let n = self.read_line(&mut line)?;
            if n == 0 {
                self.report_skipped(skipped_at, warn);
                let stream = self.input.get_ref();
                if stream.truncated && self.number == 0 {
                    return Err(Error::Gzip {
                        offset: 0,
                        reason: "the first gzip member ends before its data does".into(),
                    });
                }
                return Ok(None);
            }
            if line.starts_with(b"WARC/") {
                self.report_skipped(skipped_at, warn);
                self.start = at;
                return self.read_head(line, at).map(Some);
            }
            if trim_line_end(&line).is_empty() && skipped_at.is_none() {
                continue;
            }
            if self.number == 0 && skipped_at.is_none() {
                return Err(not_a_warc(&line));
            }
            skipped_at.get_or_insert(at);
            self.skipped += n as u64;
        }
    }

    fn report_skipped(&self, skipped_at: Option<u64>, warn: &mut dyn FnMut(Warning)) {
        if let Some(at) = skipped_at {
            warn(Warning::Resynchronised {
                after: self.previous.clone(),
                offset: at,
                skipped: self.skipped,
            });
        }
    }

    /// One line, at most [`MAX_HEAD`] bytes, line ending included.
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<usize, Error> {
        let n = (&mut self.input)
            .take(MAX_HEAD as u64)
            .read_until(b'\n', line)
            .map_err(stream_error)?;
        Ok(n)
    }

    /// The fields after the version line, up to the blank line (ISO 28500 §5.1; folded
    /// continuation lines joined, lines ending in LF alone accepted, as WARC/0.18 has).
    fn read_head(&mut self, version: Vec<u8>, at: u64) -> Result<Head, Error> {
        self.number += 1;
        let mut raw = version;
        let mut fields: Vec<(String, String)> = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            if self.read_line(&mut line)? == 0 || raw.len() > MAX_HEAD {
                break;
            }
            raw.extend_from_slice(&line);
            let text = String::from_utf8_lossy(trim_line_end(&line)).into_owned();
            if text.is_empty() {
                break;
            }
            if text.starts_with([' ', '\t']) {
                if let Some((_, value)) = fields.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            if let Some((name, value)) = text.split_once(':') {
                fields.push((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
        let id = fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("WARC-Record-ID"))
            .map(|(_, v)| v.clone());
        let record = RecordRef {
            number: self.number,
            offset: at,
            id,
        };
        let length = fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
            .and_then(|(_, v)| v.trim().parse::<u64>().ok());
        Ok(Head {
            raw,
            fields,
            record,
            length: length.unwrap_or(0),
            has_length: length.is_some(),
        })
    }

    /// The record's block, `length` bytes at most (fewer when the file ends first).
    pub fn block(&mut self, length: u64) -> io::Take<&mut BufReader<Stream<R>>> {
        (&mut self.input).take(length)
    }

    /// Reads the two CRLFs after a block (ISO 28500 §4), and any further blank lines;
    /// stops before anything else, which the next [`next_head`](Self::next_head) judges.
    pub fn end_of_record(&mut self) -> Result<Vec<u8>, Error> {
        let mut trailer = Vec::new();
        loop {
            let buf = self.input.fill_buf().map_err(stream_error)?;
            match buf.first() {
                Some(b'\r' | b'\n') if trailer.len() < 4 => {
                    trailer.push(buf[0]);
                    self.input.consume(1);
                }
                _ => return Ok(trailer),
            }
        }
    }
}

/// A line ending (CRLF or LF) taken off.
pub(crate) fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The error for a first line that is not a WARC version line, naming what it looks like.
fn not_a_warc(line: &[u8]) -> Error {
    let start: String = String::from_utf8_lossy(&line[..line.len().min(24)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    let hint = if line.starts_with(b"filedesc://") {
        " (an ARC file: ARC is not supported, convert it with `warcio recompress` or `jwarc`)"
    } else if line.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        " (LZ4-compressed: decompress it first, e.g. `lz4 -dc FILE | absolve ... --format warc`)"
    } else if line.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        " (zstd-compressed: decompress it first with `zstd -dc`)"
    } else {
        ""
    };
    Error::NotWarc { start, hint }
}

/// An input error: a damaged gzip member is named as such.
pub(crate) fn stream_error(error: io::Error) -> Error {
    if error
        .get_ref()
        .is_some_and(|inner| inner.is::<super::stream::GzipError>())
    {
        let inner = error.into_inner().expect("checked above");
        let gzip = inner
            .downcast::<super::stream::GzipError>()
            .expect("checked above");
        return Error::Gzip {
            offset: gzip.at,
            reason: gzip.error.to_string(),
        };
    }
    Error::Io(error)
}
