//! ISO 28500 §4/§5: a record is a version line, named fields up to a blank line, a block
//! of `Content-Length` bytes, and two CRLFs. Read leniently, as warcio does: bytes between
//! records that do not start one (a wrong `Content-Length`) are skipped up to the next
//! `WARC/` line with a warning; a record cut short by the end of the file gives a warning.

use super::stream::{CHUNK, Stream};
use super::{Error, RecordRef, Warning, arc};
use crate::spool::Spool;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes of a record's header block whose fields are read: beyond, the record
/// is copied as it is (its `Content-Length` still frames it).
const MAX_HEAD: usize = 1 << 20;

/// The most bytes a record's header block may have: beyond, it is not a record (its
/// bytes are skipped, and copied by `rewrite`).
const HEAD_LIMIT: usize = 16 << 20;

/// The largest `Content-Length` believed (1 TiB): beyond, the record is read as if it had
/// none (up to the next `WARC/` line), rather than swallowing the rest of the file.
const MAX_LENGTH: u64 = 1 << 40;

/// How a record's version line begins (ISO 28500 §4).
const VERSION: &[u8] = b"WARC/";

/// The most compressed bytes read ahead that [`Framing::member_holds_a_record`] looks at:
/// a deflate block's header (its Huffman tables) and its first bytes are well within.
const PEEK_COMPRESSED: usize = 4096;

/// The most bytes [`Framing::probe_member_end`] reads ahead in a record's gzip member.
const PROBE_LIMIT: usize = 1 << 20;

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
    /// Whether the header block is over [`MAX_HEAD`] bytes (its fields beyond are not read).
    pub oversized: bool,
    /// The names of the fields whose values hold bytes that are not UTF-8 (read
    /// percent-encoded, by [`header_text`]).
    pub not_utf8: Vec<String>,
    /// An ARC record ([`super::arc`]): `raw` is its header line, its fields the WARC
    /// fields that say what it does; its content ends with a newline, not two CRLFs.
    pub arc: bool,
    /// An ARC record's identity, in the place of a `WARC-Record-ID`: the offset of its
    /// header line in the file as stored (that of its gzip member in an `.arc.gz`, as CDX
    /// indexes give it), `None` when it starts inside a gzip member.
    pub arc_offset: Option<u64>,
}

impl Head {
    /// The first value of the field `name` (ISO 28500 §4: names are case-insensitive).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// What names the record in a link's location: its `WARC-Record-ID`; an ARC
    /// record's offset in the file as stored ([`Head::arc_offset`]), in decimal.
    pub fn identity(&self) -> Option<String> {
        match self.arc {
            true => self.arc_offset.map(|offset| offset.to_string()),
            false => self.record.id.clone(),
        }
    }

    /// `WARC-Type`, lower case.
    pub fn kind(&self) -> String {
        self.field("WARC-Type")
            .unwrap_or_default()
            .to_ascii_lowercase()
    }
}

/// How many records the streams of a compressed file have begun so far, shared by the
/// framings that read them one after another (`Options`' `record_count`): a stream read
/// on after damage numbers its records after those before it, as a mail folder's
/// messages are numbered on. A record the damage cut counts where it began, so the
/// records after its rest keep their numbers in the file; whole records lost in the
/// damage are not counted.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordCount(Arc<AtomicU64>);

impl RecordCount {
    fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    fn set(&self, count: u64) {
        self.0.store(count, Ordering::SeqCst);
    }
}

/// Reads records one after another from a [`Stream`].
pub(crate) struct Framing<R> {
    pub input: BufReader<Stream<R>>,
    /// How many records of this stream have begun.
    pub number: u64,
    /// How many records the streams of the file before this one began (`Options`'
    /// `record_count`): this stream's are numbered after them.
    numbered_after: u64,
    /// Told how many records of the file have begun, for the stream read on after
    /// this one.
    record_count: Option<RecordCount>,
    /// The record before the next one, to name in a warning about the bytes after it.
    pub previous: Option<RecordRef>,
    /// Where the current record started (decompressed offset).
    pub start: u64,
    /// Bytes skipped before the current record that were not a record.
    pub skipped: u64,
    /// Where the bytes skipped before the next record start, while skipping.
    skipped_at: Option<u64>,
    /// [`next_head`](Self::next_head) returns `None` (with `yielded` set) each time it
    /// has skipped this many bytes, or the input's search for a gzip member has kept its
    /// limit of compressed bytes, so that its caller can pass on what it keeps of them.
    pub yield_after: Option<u64>,
    /// The last `None` of `next_head` was a pause, not the end of the input.
    pub yielded: bool,
    /// The start of the first line that is not blank, for the error if no record follows.
    first_line: Option<Vec<u8>>,
    /// The last record's block came up short ([`Block`]), until the next head is read.
    cut: bool,
    /// An ARC file (its first line a `filedesc://` header line): how many fields its
    /// header lines have ([`arc::V1_FIELDS`], [`arc::V2_FIELDS`]).
    pub arc: Option<usize>,
    /// The input is a stream read on after damaged compressed data ([`Options`]'
    /// `read_on`): bytes before its first record are the rest of one the damage cut, and
    /// an input with no record is no error.
    read_on: bool,
    /// Set when damage in the compressed data the input is decompressed from ended it
    /// (`Options`' `input_ends_at_damage`).
    ends_at_damage: Option<crate::compress::DamageEnd>,
}

/// The bytes of a record's block ([`Framing::block`]). Once a read comes up short (the
/// file ends, or gzip data is found damaged: the stream pauses there, its one read of
/// nothing), the block is cut there: every read after gives nothing, until the next
/// record is looked for. Read on, it would take the next gzip member's bytes, from where
/// reading resumed, as the rest of the damaged record: the record after it swallowed.
pub(crate) struct Block<'a, R> {
    take: io::Take<&'a mut BufReader<Stream<R>>>,
    cut: &'a mut bool,
}

impl<R: Read> Read for Block<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if *self.cut {
            return Ok(0);
        }
        let n = self.take.read(buf)?;
        if n == 0 && !buf.is_empty() && self.take.limit() > 0 {
            *self.cut = true;
        }
        Ok(n)
    }
}

impl<R: Read> BufRead for Block<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if *self.cut {
            return Ok(&[]);
        }
        let limit = self.take.limit();
        let bytes = self.take.fill_buf()?;
        if bytes.is_empty() && limit > 0 {
            *self.cut = true;
        }
        Ok(bytes)
    }
    fn consume(&mut self, amount: usize) {
        self.take.consume(amount);
    }
}

/// Where bytes that are not a record go: `rewrite` copies them, `Links` drops them.
pub(crate) type Skipped<'a> = &'a mut dyn FnMut(&[u8]) -> io::Result<()>;

/// What [`Framing::read_head`] found.
enum Found {
    Head(Head),
    /// A header block with no end within [`HEAD_LIMIT`]: its bytes.
    NotAHead(Vec<u8>),
}

impl<R: Read> Framing<R> {
    /// The framing of the WARC or ARC records of `input` (plain, or gzip told by its
    /// magic number), as `options` say: `read_on`, a stream read on after damaged
    /// compressed data; `input_ends_at_damage`, whether damage ended it.
    pub fn new(input: R, options: &crate::Options) -> Result<Self, Error> {
        let stream = Stream::new(input)?;
        let record_count = options.record_count.clone();
        Ok(Framing {
            input: BufReader::with_capacity(CHUNK, stream),
            number: 0,
            numbered_after: record_count.as_ref().map_or(0, RecordCount::get),
            record_count,
            previous: None,
            start: 0,
            skipped: 0,
            skipped_at: None,
            yield_after: None,
            yielded: false,
            first_line: None,
            cut: false,
            arc: None,
            read_on: options.read_on,
            ends_at_damage: options.input_ends_at_damage.clone(),
        })
    }

    /// Counts a record begun: its number in the file, after those of the streams before
    /// this one (the GUIDE, "Compressed files, mail folders and WACZ").
    fn begin_record(&mut self) -> u64 {
        self.number += 1;
        self.tell_record_count();
        self.numbered_after + self.number
    }

    fn tell_record_count(&self) {
        if let Some(count) = &self.record_count {
            count.set(self.numbered_after + self.number);
        }
    }

    /// The decompressed offset of the next byte the framing reads.
    pub fn position(&self) -> u64 {
        self.input.get_ref().produced - self.input.buffer().len() as u64
    }

    /// Gives back `bytes`, the last read: they are read again, at the same offsets.
    pub fn give_back(&mut self, bytes: &[u8]) {
        let mut again = bytes.to_vec();
        again.extend_from_slice(self.input.buffer());
        let buffered = self.input.buffer().len();
        self.input.consume(buffered);
        self.input.get_mut().unread(&again);
    }

    /// Gives back `produced`, the last bytes read, held in `spool`: they are read again,
    /// at the same offsets, a piece at a time.
    pub fn give_back_spool(&mut self, mut spool: Spool<'static>) -> Result<(), Error> {
        let produced = spool.len();
        // Bytes read ahead into the buffer come after them.
        spool.write_all(self.input.buffer()).map_err(stream_error)?;
        let buffered = self.input.buffer().len();
        self.input.consume(buffered);
        self.input
            .get_mut()
            .unread_spool(spool, produced + buffered as u64)
            .map_err(stream_error)
    }

    /// Whether the input is at its end (not only paused after damaged gzip data).
    pub fn at_end(&mut self) -> Result<bool, Error> {
        Ok(self.input.buffer().is_empty() && self.input.get_mut().at_end()?)
    }

    /// Whether the input is at its end, and that end is the file's: not where damage in
    /// the compressed data it is decompressed from (gzip members read here, or a file
    /// compressed whole) stopped it.
    pub fn at_the_files_end(&mut self) -> Result<bool, Error> {
        let damage_ended_it = self.ends_at_damage.as_ref().is_some_and(|end| end.ended());
        Ok(self.at_end()? && !damage_ended_it)
    }

    /// Warns about damaged gzip data found since the last call, naming the record it was
    /// in or after.
    pub fn report_damage(&mut self, warn: &mut dyn FnMut(Warning)) {
        for offset in std::mem::take(&mut self.input.get_mut().restored) {
            warn(Warning::GzipMagicRestored {
                record: self.previous.clone(),
                offset,
            });
        }
        for damage in std::mem::take(&mut self.input.get_mut().damage) {
            warn(Warning::DamagedGzip {
                record: self.previous.clone(),
                offset: damage.offset,
                found_at: damage.found_at,
                reason: damage.reason,
                resumed_at: damage.resumed_at,
                file_ends_there: damage.file_ends_there,
            });
        }
    }

    /// Warns, once, that the file ends inside its last gzip member (RFC 1952 §2.3.1: the
    /// member's CRC-32 and length are never read, so what it decoded to is not checked);
    /// `true` when it does. A record cut short by it has its own warning too; records that
    /// came out whole before the cut had none (a member whose deflate data is damaged near
    /// its end can decode, with no error, up to the end of the file).
    fn report_cut_short(&mut self, warn: &mut dyn FnMut(Warning)) -> bool {
        let stream = self.input.get_mut();
        if !std::mem::take(&mut stream.truncated) {
            return false;
        }
        let member = stream.members.back().map_or(0, |m| m.compressed);
        let end = stream.tee().consumed;
        warn(Warning::DamagedGzip {
            record: self.previous.clone(),
            offset: member,
            found_at: end,
            reason: "the file ends inside a gzip member (cut short)".into(),
            resumed_at: None,
            file_ends_there: true,
        });
        true
    }

    /// The end of an input in which no record was found. Damaged gzip data (a first member
    /// damaged or cut short) makes it a damaged WARC: a warning, its bytes passed on as
    /// they are. Bytes that are neither, with no record anywhere, are not a WARC: an error
    /// that says what they look like.
    fn no_record(&mut self, warn: &mut dyn FnMut(Warning)) -> Result<(), Error> {
        if self.report_cut_short(warn) {
            return Ok(());
        }
        let stream = self.input.get_mut();
        if stream.damaged > 0 {
            return Ok(());
        }
        match self.first_line.take() {
            Some(line) if !self.read_on => Err(not_a_warc(&line, stream.gzip)),
            _ => Ok(()),
        }
    }

    /// The next record's head, or `None` at the end of the input. Blank lines before it
    /// are passed over; other bytes are skipped (given to `skipped`) with a warning up to
    /// a `WARC/` version found anywhere, even inside a line (junk or NUL padding that does
    /// not end in a newline), or up to gzip members after a plain WARC.
    pub fn next_head(
        &mut self,
        warn: &mut dyn FnMut(Warning),
        skipped: Skipped<'_>,
    ) -> Result<Option<Head>, Error> {
        self.input.get_mut().mid_record = false;
        if !std::mem::take(&mut self.yielded) {
            self.skipped = 0;
            self.skipped_at = None;
        }
        let skipped_before = self.skipped;
        let mut line = Vec::new();
        loop {
            self.report_damage(warn);
            if let Some(limit) = self.yield_after
                && (self.skipped - skipped_before >= limit || self.input.get_mut().kept_full())
            {
                self.yielded = true;
                return Ok(None);
            }
            let at = self.position();
            line.clear();
            let n = self.read_line(&mut line)?;
            if n == 0 {
                if !self.at_end()? {
                    continue;
                }
                self.report_damage(warn);
                if self.number == 0 {
                    self.no_record(warn)?;
                } else if self.cut {
                    // The last record's block, cut short, has its warning.
                    self.input.get_mut().truncated = false;
                } else {
                    self.report_cut_short(warn);
                }
                self.report_skipped(warn);
                return Ok(None);
            }
            if let Some(head) = self.arc_head(&line, at)? {
                self.report_damage(warn);
                self.report_skipped(warn);
                self.start = at;
                return Ok(Some(head));
            }
            let version = match line.starts_with(VERSION) {
                _ if self.arc.is_some() => None,
                true => Some(0),
                false if self.number > 0 || self.skipped_at.is_some() => version_inside(&line),
                false => None,
            };
            if let Some(p) = version {
                if p > 0 {
                    self.skipped_at.get_or_insert(at);
                    self.skipped += p as u64;
                    skipped(&line[..p])?;
                }
                let head_at = at + p as u64;
                match self.read_head(line[p..].to_vec(), head_at)? {
                    Found::Head(head) if self.takes_as_first(&head) => {
                        // Damage found while its head was read is before it.
                        self.report_damage(warn);
                        self.report_skipped(warn);
                        self.start = head_at;
                        return Ok(Some(head));
                    }
                    Found::Head(head) => {
                        // Before any record, after bytes that are not one: `WARC/` in a
                        // text (a page about WARC files) is no record without its length.
                        self.number -= 1;
                        self.tell_record_count();
                        self.skipped += head.raw.len() as u64;
                        skipped(&head.raw)?;
                        continue;
                    }
                    Found::NotAHead(raw) => {
                        self.skipped_at.get_or_insert(head_at);
                        self.skipped += raw.len() as u64;
                        skipped(&raw)?;
                        continue;
                    }
                }
            }
            if !self.input.get_ref().gzip
                && let Some(p) = super::stream::find_gzip_start(&line)
                && line[p..].len() >= 10
                && self.member_holds_a_record(&line[p..])
            {
                // A plain WARC that goes on with gzip members: read as gzip from there.
                if p > 0 {
                    self.skipped_at.get_or_insert(at);
                    self.skipped += p as u64;
                    skipped(&line[..p])?;
                }
                let mut rest = line[p..].to_vec();
                rest.extend_from_slice(self.input.buffer());
                let buffered = self.input.buffer().len();
                self.input.consume(buffered);
                self.input
                    .get_mut()
                    .switch_to_gzip(&rest)
                    .map_err(stream_error)?;
                continue;
            }
            if trim_line_end(&line).is_empty() && self.skipped_at.is_none() {
                skipped(&line)?;
                continue;
            }
            if self.number == 0 && self.first_line.is_none() {
                // Kept for the error if no record follows: what the input looks like.
                self.first_line = Some(line[..line.len().min(64)].to_vec());
            }
            if n == MAX_HEAD && !line.ends_with(b"\n") {
                // A version line may start in the last bytes: they are read again.
                let keep = (1..5)
                    .rev()
                    .find(|&k| VERSION.starts_with(&line[n - k..]))
                    .unwrap_or(0);
                if keep > 0 {
                    self.give_back(&line[n - keep..]);
                    line.truncate(n - keep);
                }
            }
            self.skipped_at.get_or_insert(at);
            self.skipped += line.len() as u64;
            skipped(&line)?;
        }
    }

    /// Whether a head found is taken as a record: always, but before the first record
    /// after bytes that are not one, only with a `Content-Length`.
    fn takes_as_first(&self, head: &Head) -> bool {
        self.number > 1 || self.skipped_at.is_none() || head.has_length
    }

    fn report_skipped(&mut self, warn: &mut dyn FnMut(Warning)) {
        if let Some(at) = self.skipped_at.take() {
            let (after, offset, skipped) = (self.previous.clone(), at, self.skipped);
            if self.read_on && after.is_none() && offset == 0 {
                warn(Warning::RestOfCutRecord { skipped });
                return;
            }
            warn(match self.arc {
                Some(_) => Warning::ArcResynchronised {
                    after,
                    offset,
                    skipped,
                },
                None => Warning::Resynchronised {
                    after,
                    offset,
                    skipped,
                },
            });
        }
    }

    /// The head of the ARC record whose header line is `line`, at decompressed offset `at`
    /// ([`arc::head`]): in an ARC file, or as the first record of the input, where a
    /// `filedesc://` line makes the file an ARC file (its version block's first bytes
    /// telling how many fields its header lines have). `None` for any other line.
    fn arc_head(&mut self, line: &[u8], at: u64) -> Result<Option<Head>, Error> {
        let first = self.number == 0 && self.skipped_at.is_none() && self.arc.is_none();
        let fields = match self.arc {
            Some(fields) => fields,
            None if first && line.starts_with(arc::FILEDESC) => arc::V1_FIELDS,
            None => return Ok(None),
        };
        let Some(mut head) = arc::head(line, at, self.numbered_after + self.number + 1, fields)
        else {
            return Ok(None);
        };
        if first {
            let content = self.input.fill_buf().map_err(stream_error)?;
            self.arc = Some(arc::fields_of_version(content));
        }
        head.record.number = self.begin_record();
        let stream = self.input.get_ref();
        head.arc_offset = match stream.gzip {
            true => stream.member_at(at).map(|member| member.compressed),
            false => Some(at),
        };
        self.input.get_mut().mid_record = true;
        self.cut = false;
        Ok(Some(head))
    }

    /// One line, at most [`MAX_HEAD`] bytes, line ending included.
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<usize, Error> {
        let n = (&mut self.input)
            .take(MAX_HEAD as u64)
            .read_until(b'\n', line)
            .map_err(stream_error)?;
        Ok(n)
    }

    /// Whether the gzip member that starts `start` (the rest of the line read, the bytes
    /// read ahead after it) decompresses to a record's start, a `WARC/` line (WARC 1.1
    /// Annex D: a record per member; files joined, `cat a.warc b.warc.gz`): a plain WARC
    /// goes on in gzip members there. A member that does not, or whose start does not
    /// decompress from the bytes at hand, is bytes that are not a record: an HTTP payload
    /// sent `Content-Encoding: gzip`, met after a wrong `Content-Length`, is one. (Read as
    /// gzip, its decoded bytes were written besides its compressed bytes, copied as they
    /// were: a second rewrite wrote them again.)
    fn member_holds_a_record(&self, start: &[u8]) -> bool {
        let ahead = self.input.buffer();
        let bytes = start.chain(&ahead[..ahead.len().min(PEEK_COMPRESSED)]);
        let mut first = Vec::with_capacity(VERSION.len());
        let decoded = flate2::read::GzDecoder::new(bytes)
            .take(VERSION.len() as u64)
            .read_to_end(&mut first);
        decoded.is_ok() && first == VERSION
    }

    /// After a pause in the stream (gzip data found damaged), whether the bytes where
    /// reading resumed start a record (a `WARC/` line).
    fn resumes_at_a_record(&mut self) -> Result<bool, Error> {
        loop {
            let bytes = self.input.fill_buf().map_err(stream_error)?;
            if !bytes.is_empty() {
                let n = bytes.len().min(VERSION.len());
                return Ok(bytes[..n] == VERSION[..n]);
            }
            if self.at_end()? {
                return Ok(false);
            }
        }
    }

    /// The fields after the version line, up to the blank line (ISO 28500 §5.1; folded
    /// continuation lines joined, lines ending in LF alone accepted, as WARC/0.18 has).
    /// The fields of a header block over [`MAX_HEAD`] bytes are read no further (its
    /// `Content-Length` still is); one over [`HEAD_LIMIT`] is not a record.
    fn read_head(&mut self, version: Vec<u8>, at: u64) -> Result<Found, Error> {
        self.input.get_mut().mid_record = true;
        self.cut = false;
        let mut raw = version;
        let mut fields: Vec<(String, String)> = Vec::new();
        let mut line = Vec::new();
        let mut oversized = false;
        let mut length_field = None;
        let mut not_utf8: Vec<String> = Vec::new();
        loop {
            line.clear();
            if self.read_line(&mut line)? == 0 {
                if self.at_end()? {
                    break;
                }
                // A pause: gzip data found damaged. Where a record starts after it, the
                // head ends there (what was decoded of it is not a record's): read on,
                // its fields would be taken from that record's, its block from there,
                // the two rewritten as one. Else the head goes on there.
                if self.resumes_at_a_record()? {
                    return Ok(Found::NotAHead(raw));
                }
                continue;
            }
            raw.extend_from_slice(&line);
            if raw.len() > HEAD_LIMIT {
                return Ok(Found::NotAHead(raw));
            }
            let bare = trim_line_end(&line);
            if bare.is_empty() && line.ends_with(b"\n") {
                break;
            }
            if raw.len() > MAX_HEAD {
                oversized = true;
            }
            let (text, valid) = header_text(bare);
            if bare.starts_with(b" ") || bare.starts_with(b"\t") {
                if let Some((name, value)) = fields.last_mut().filter(|_| !oversized) {
                    if !valid && !not_utf8.contains(name) {
                        not_utf8.push(name.clone());
                    }
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            if let Some((name, value)) = text.split_once(':') {
                let name = name.trim();
                if name.eq_ignore_ascii_case("Content-Length") && length_field.is_none() {
                    length_field = Some(value.trim().to_owned());
                }
                if !oversized {
                    if !valid {
                        not_utf8.push(name.to_owned());
                    }
                    fields.push((name.to_owned(), value.trim().to_owned()));
                }
            }
        }
        let number = self.begin_record();
        let id = fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("WARC-Record-ID"))
            .map(|(_, v)| v.clone());
        let record = RecordRef {
            number,
            offset: at,
            id,
        };
        let length = length_field
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|&length| length <= MAX_LENGTH);
        Ok(Found::Head(Head {
            raw,
            fields,
            record,
            length: length.unwrap_or(0),
            has_length: length.is_some(),
            oversized,
            not_utf8,
            arc: false,
            arc_offset: None,
        }))
    }

    /// `rewrite`, after a record that began a gzip member (decompressed offset
    /// `member_start`): reads on in the member its last bytes are in (its own, or a later
    /// one when it runs on into others) until it is known whole (the next member begins:
    /// the decoder checked its CRC-32 and length, RFC 1952 §2.3.1; or the input ends) or
    /// damaged, or until a record starts in it, at most [`PROBE_LIMIT`] bytes, then gives
    /// them back. The damage of a member is found at its end, which may come after the
    /// record's: the record is then known damaged before it is written, not after. (Its
    /// own member was probed alone: a record running on into a damaged member was
    /// rewritten from what it decoded to, the damaged bytes lost.)
    pub fn probe_member_end(&mut self, member_start: u64) -> Result<(), Error> {
        let damaged_before = self.input.get_ref().damaged;
        let record_end = self.position().max(member_start);
        let mut ahead = Vec::new();
        loop {
            let stream = self.input.get_ref();
            if stream.member_after(record_end).is_some()
                || stream.damaged != damaged_before
                || ahead.len() >= PROBE_LIMIT
            {
                break;
            }
            let buf = self.input.fill_buf().map_err(stream_error)?;
            if buf.is_empty() || memchr::memmem::find(buf, VERSION).is_some() {
                // The end of the input, or a pause after damage; or a record after this
                // one in the member: it holds several, and damage found further in it is
                // copied from where it is found.
                break;
            }
            ahead.extend_from_slice(buf);
            let n = buf.len();
            self.input.consume(n);
        }
        if !ahead.is_empty() {
            self.give_back(&ahead);
        }
        Ok(())
    }

    /// The record's block, `length` bytes at most: fewer when the file ends first, or
    /// gzip data is found damaged in it (the stream pauses there), after which every read
    /// of the record's block gives nothing ([`Block`]).
    pub fn block(&mut self, length: u64) -> Block<'_, R> {
        Block {
            take: (&mut self.input).take(length),
            cut: &mut self.cut,
        }
    }

    /// Reads the two CRLFs after a block (ISO 28500 §4), and any further blank lines;
    /// stops before anything else, which the next [`next_head`](Self::next_head) judges.
    /// A record that does not end so (a wrong `Content-Length`, a writer that left them
    /// out) is named in a warning.
    pub fn end_of_record(
        &mut self,
        record: &RecordRef,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<Vec<u8>, Error> {
        // The block is read: a damaged member that gave nothing no longer cuts a record.
        self.input.get_mut().mid_record = false;
        let mut trailer = Vec::new();
        loop {
            let buf = self.input.fill_buf().map_err(stream_error)?;
            match buf.first() {
                Some(b'\r' | b'\n') if trailer.len() < 4 => {
                    trailer.push(buf[0]);
                    self.input.consume(1);
                }
                _ => break,
            }
        }
        let ends = trailer.iter().filter(|&&b| b == b'\n').count();
        // A block cut short has its warning: what follows it is no trailer.
        // An ARC record ends with one newline, or none (Heritrix counts it in the length).
        if ends < 2 && !self.cut && self.arc.is_none() && !self.at_end()? {
            warn(Warning::NoRecordEnd {
                record: record.clone(),
                found: trailer.len() as u64,
            });
        }
        Ok(trailer)
    }
}

/// Where a WARC version (`WARC/` and a digit) starts inside a line of bytes that are not
/// a record.
fn version_inside(line: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(line, VERSION)
        .find(|&p| line.get(p + 5).is_some_and(u8::is_ascii_digit))
}

/// A line ending (CRLF or LF) taken off.
/// A header line as text. ISO 28500 §4 writes header fields in UTF-8; a byte that is
/// not part of a UTF-8 sequence is read as its percent-encoding (`caf\xE9` as `caf%E9`:
/// in `WARC-Target-URI`, the URL the bytes name, where a lossy U+FFFD would name another),
/// and `false` says so. The header itself is written back from its bytes
/// (`write::converted_head`), not from this text.
pub(crate) fn header_text(line: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    if let Ok(text) = std::str::from_utf8(line) {
        return (text.into(), true);
    }
    let mut text = String::with_capacity(line.len() + 8);
    for chunk in line.utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    (text.into(), false)
}

pub(crate) fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The error for an input with no record in it (no `WARC/` line anywhere, no damaged
/// gzip data), from its first line that is not blank (decompressed when `gzip`): what it
/// looks like, and what to do.
fn not_a_warc(line: &[u8], gzip: bool) -> Error {
    let start: String = String::from_utf8_lossy(&line[..line.len().min(24)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    let text = line.trim_ascii_start();
    let hint = if line.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        " (zstd-compressed: decompress it first with `zstd -dc`)"
    } else if line.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        " (LZ4-compressed: decompress it first with `lz4 -dc`)"
    } else if text.starts_with(b"<") && gzip {
        " and has no WARC/ record line: it is gzipped HTML or XML, not a WARC; leave --format out to read it as what it is"
    } else if text.starts_with(b"<") {
        " and has no WARC/ record line: it is HTML or XML, not a WARC; leave --format out to read it as what it is"
    } else if gzip {
        " and has no WARC/ record line: gzip data that is not a WARC; give its format with --format, or leave --format out"
    } else {
        " and has no WARC/ record line: it is not a WARC; give its format with --format, or leave --format out"
    };
    Error::NotWarc { start, hint }
}

/// An input error.
pub(crate) fn stream_error(error: io::Error) -> Error {
    Error::Io(error)
}
