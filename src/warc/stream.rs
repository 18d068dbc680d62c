//! The bytes of a WARC file as one stream of records, whether it is plain or gzipped:
//! WARC 1.1 Annex D (one gzip member per record) or one gzip stream for the whole file.
//!
//! For `rewrite`, the compressed bytes read are kept (a [`Tee`]) and each gzip member's
//! start is remembered in both offsets, so that a record that is a member of its own can
//! be copied byte for byte, member and all.

use crate::compress::Compression;
use crate::spool::{Kept, Spool, SpoolReader};
use flate2::bufread::GzDecoder;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};

/// How many bytes are read from the input at a time.
pub(crate) const CHUNK: usize = 64 * 1024;

/// How many compressed bytes the input buffer holds: room for [`WHOLE_INPUT`] and more
/// read behind them, so that the bytes kept are moved to its front only once in
/// `INPUT_BUFFER - WHOLE_INPUT` bytes read.
const INPUT_BUFFER: usize = 1 << 20;

/// How many compressed bytes are in the input buffer, when the input has them, before a
/// gzip member is decompressed whole: a member of at most this size is never split by
/// the buffer's end.
const WHOLE_INPUT: usize = 256 << 10;

/// The most decompressed bytes of a member decompressed whole; a larger member is
/// streamed. Common Crawl cuts its payloads at 1 MiB.
const WHOLE_OUTPUT: usize = 2 << 20;

/// The start of a gzip member: the magic number and the deflate method (RFC 1952 §2.3.1).
pub(crate) const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// How many compressed bytes of the current member are kept to look for the next member
/// in when it turns out damaged (a member cut short is followed by the next member, which
/// the decoder reads on into before it fails).
const LOOKBACK: usize = 1 << 20;

/// How many kept bytes a run of bytes that are not gzip data may add before the stream
/// pauses (its read returns 0, not at the end), so that they are passed on (by `rewrite`)
/// and dropped: the memory held for a run of junk stays bounded whatever its length.
pub(crate) const KEPT_LIMIT: usize = 4 << 20;

/// How a search for the next gzip member ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// At a member's start.
    Found,
    /// The input ended first.
    End,
    /// [`KEPT_LIMIT`] bytes are kept: the search goes on at the next read.
    Paused,
}

/// A buffered reader of the raw input that counts the bytes consumed and, while
/// `keeping`, keeps them. Bytes given back ([`Tee::unread`]) are read again first.
pub(crate) struct Tee<R> {
    inner: Input<R>,
    /// Bytes given back, read before the input; `replay[replayed..]` are still to come.
    replay: Vec<u8>,
    replayed: usize,
    /// Bytes consumed from the input since it began.
    pub consumed: u64,
    /// Bytes kept, the first of them at input offset `kept_from` (past 4 MiB, the older
    /// ones in a temporary file).
    pub kept: Kept,
    pub kept_from: u64,
    pub keeping: bool,
    /// The bytes of the current gzip member consumed so far (at most [`LOOKBACK`]).
    member: Vec<u8>,
    member_from: u64,
    /// The member had more bytes than are recorded.
    member_full: bool,
    /// The last bytes consumed by a paused search, looked at again when it goes on.
    skip_tail: Vec<u8>,
    /// Every byte consumed from an offset on, while `rewrite` holds back what a gzip
    /// member decodes to ([`Tee::begin_recording`]).
    recording: Option<Recording>,
}

/// The compressed bytes of a gzip member, from its start: those consumed from input offset
/// `from` on, past 1 MiB in a temporary file ([`Kept`]), so that memory stays bounded
/// whatever the member's size.
pub(crate) struct Recording {
    /// Where the first byte recorded is in the input.
    pub from: u64,
    /// The bytes recorded.
    pub bytes: Kept,
}

impl<R: Read> Tee<R> {
    fn new(inner: R) -> Self {
        Tee {
            inner: Input::new(inner),
            replay: Vec::new(),
            replayed: 0,
            consumed: 0,
            kept: Kept::default(),
            kept_from: 0,
            keeping: false,
            member: Vec::new(),
            member_from: 0,
            member_full: true,
            skip_tail: Vec::new(),
            recording: None,
        }
    }

    /// Records every byte consumed from input offset `from` on, those consumed already
    /// taken from the kept bytes: `false`, and nothing recorded, when the kept bytes do not
    /// run from `from` to the last byte consumed.
    pub fn begin_recording(&mut self, from: u64) -> io::Result<bool> {
        let kept_end = self.kept_from + self.kept.len();
        if from < self.kept_from || kept_end != self.consumed || from > self.consumed {
            return Ok(false);
        }
        let mut bytes = Kept::default();
        self.kept
            .for_each_from(from - self.kept_from, &mut |piece| {
                bytes.extend_from_slice(piece);
                bytes.spill()
            })?;
        self.recording = Some(Recording { from, bytes });
        Ok(true)
    }

    /// Stops recording: the bytes recorded, unless bytes before the first were given back
    /// (the recording then no longer runs from its start).
    pub fn end_recording(&mut self) -> Option<Recording> {
        self.recording.take()
    }

    /// Moves the recorded bytes beyond memory's share to their temporary file.
    fn spill_recording(&mut self) -> io::Result<()> {
        match &mut self.recording {
            Some(recording) => recording.bytes.spill(),
            None => Ok(()),
        }
    }

    /// Drops the kept bytes before input offset `to`.
    pub fn drop_kept_before(&mut self, to: u64) {
        let n = to.saturating_sub(self.kept_from).min(self.kept.len());
        self.kept.drop_front(n);
        self.kept_from += n;
        if self.kept.is_empty() {
            self.kept_from = self.consumed;
        }
    }

    /// Whether the input is at its end.
    pub fn at_end(&mut self) -> io::Result<bool> {
        Ok(self.fill_buf()?.is_empty())
    }

    /// Gives back the last `bytes` consumed: they are read again, at the same offsets.
    fn unread(&mut self, bytes: &[u8]) {
        let n = bytes.len() as u64;
        self.consumed -= n;
        let kept_end = self.kept_from + self.kept.len();
        if kept_end > self.consumed {
            let keep = self.consumed.saturating_sub(self.kept_from);
            self.kept.truncate(keep);
        }
        if self.kept.is_empty() {
            self.kept_from = self.consumed;
        }
        if let Some(recording) = &mut self.recording {
            match self.consumed.checked_sub(recording.from) {
                Some(keep) if keep < recording.bytes.len() => recording.bytes.truncate(keep),
                Some(_) => {}
                // Bytes before the member's start are to be consumed again: the recording
                // is no longer the member's.
                None => self.recording = None,
            }
        }
        let mut replay = bytes.to_vec();
        replay.extend_from_slice(&self.replay[self.replayed..]);
        self.replay = replay;
        self.replayed = 0;
    }

    /// The input's next bytes, at least `wanted` of them if it has them; `None` while
    /// bytes given back are read again.
    fn fill_at_least(&mut self, wanted: usize) -> io::Result<Option<&[u8]>> {
        self.kept.spill()?;
        self.spill_recording()?;
        if self.replayed < self.replay.len() {
            return Ok(None);
        }
        self.inner.fill_at_least(wanted).map(Some)
    }

    /// Starts recording a member's bytes.
    fn begin_member(&mut self) {
        self.member.clear();
        self.member_full = false;
        self.member_from = self.consumed;
    }

    /// RFC 1952 §2.3: after a damaged member, the next member's start: searched in the
    /// damaged member's bytes after its first (those still kept, when keeping), then in the
    /// input; the bytes before it are consumed.
    fn find_member(&mut self, member_start: u64) -> io::Result<Skip> {
        if let Some(at) = self.lookback_from(member_start) {
            if let Some(i) = find_gzip_start(&self.member[at..]) {
                let back = self.member[at + i..].to_vec();
                self.member.clear();
                self.unread(&back);
                return Ok(Skip::Found);
            }
            // The last bytes may begin a header whose rest is not read yet.
            let keep = (self.member.len() - at).min(GZIP_HEADER - 1);
            let back = self.member[self.member.len() - keep..].to_vec();
            self.member.clear();
            self.unread(&back);
        }
        self.member.clear();
        self.skip_to_member()
    }

    /// Where, in the damaged member's bytes consumed (starting at `member_start`), the
    /// search for the next member's start begins: after its first byte, and not before
    /// bytes passed on already (unless the member's bytes are recorded from its start:
    /// they are then copied from the recording, up to the next member). `None` when those
    /// bytes are not all recorded up to the last consumed.
    fn lookback_from(&self, member_start: u64) -> Option<usize> {
        let mut from = member_start + 1;
        let recorded = self
            .recording
            .as_ref()
            .is_some_and(|recording| recording.from <= member_start);
        if self.keeping && !recorded {
            from = from.max(self.kept_from);
        }
        let recorded_end = self.member_from + self.member.len() as u64;
        (from >= self.member_from && from < recorded_end && recorded_end == self.consumed)
            .then(|| (from - self.member_from) as usize)
    }

    /// Whether the current member's bytes consumed hold the start of another member (see
    /// [`Tee::lookback_from`]): a member whose deflate data was damaged or cut short, read
    /// on into the next.
    fn ran_into_a_member(&self, member_start: u64) -> bool {
        self.lookback_from(member_start)
            .is_some_and(|at| find_gzip_start(&self.member[at..]).is_some())
    }

    /// RFC 1952 §2.3.1: whether the bytes ahead, which start no member, are a member
    /// whose magic number is damaged: with it restored (ID1, ID2, CM), it decodes whole,
    /// or with no damage up to the end of the 1 MiB looked at (or of the file: cut short)
    /// ([`crate::compress::decodes_with_magic_restored`]).
    /// If so, the magic number is put in place of the damaged bytes, to be read from
    /// there.
    fn restores_magic(&mut self) -> io::Result<bool> {
        // A first look, before more is read ahead (a stream is read as it is needed): a
        // header's flags (FLG) have no reserved bit set, which a plain record's `WARC/` has.
        let Some(head) = self.fill_at_least(GZIP_HEADER)? else {
            return Ok(false);
        };
        if head.get(3).is_none_or(|flags| flags & 0xe0 != 0) {
            return Ok(false);
        }
        let Some(ahead) = self.fill_at_least(LOOKBACK)? else {
            return Ok(false);
        };
        if !crate::compress::decodes_with_magic_restored(Compression::Gzip, ahead) {
            return Ok(false);
        }
        self.consume(GZIP_MAGIC.len());
        self.unread(&GZIP_MAGIC);
        Ok(true)
    }

    /// Consumes bytes up to the next gzip member start. While keeping, pauses once
    /// [`KEPT_LIMIT`] bytes are kept: called again, it goes on where it stopped.
    fn skip_to_member(&mut self) -> io::Result<Skip> {
        let mut tail: Vec<u8> = std::mem::take(&mut self.skip_tail);
        loop {
            if self.keeping && self.kept.len() >= KEPT_LIMIT as u64 {
                self.skip_tail = tail;
                return Ok(Skip::Paused);
            }
            let buf = self.fill_buf()?;
            if buf.is_empty() {
                return Ok(Skip::End);
            }
            if tail.is_empty() {
                if let Some(i) = find_gzip_start(buf) {
                    self.consume(i);
                    return Ok(Skip::Found);
                }
                // The last bytes could begin a member whose header continues in the
                // next read: they are looked at again with it.
                let keep = buf.len().min(GZIP_HEADER - 1);
                tail = buf[buf.len() - keep..].to_vec();
                let n = buf.len();
                self.consume(n);
                continue;
            }
            let mut joined = std::mem::take(&mut tail);
            let n = buf.len().min(GZIP_HEADER);
            joined.extend_from_slice(&buf[..n]);
            let back = joined.len() - n;
            match find_gzip_start(&joined) {
                Some(i) if i < back => {
                    let again = joined[i..back].to_vec();
                    self.unread(&again);
                    return Ok(Skip::Found);
                }
                _ => {}
            }
        }
    }
}

/// The raw input, buffered: as `std::io::BufReader`, and it can read more behind the
/// bytes it holds ([`Input::fill_at_least`]), so that a whole gzip member can be in it.
struct Input<R> {
    inner: R,
    /// `buffer[start..end]` are read and not consumed.
    buffer: Vec<u8>,
    start: usize,
    end: usize,
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Self {
        Input {
            inner,
            buffer: Vec::new(),
            start: 0,
            end: 0,
        }
    }

    /// The bytes held, not consumed.
    fn buffer(&self) -> &[u8] {
        &self.buffer[self.start..self.end]
    }

    /// Reads once into the room after the bytes held; 0 at the end of the input.
    fn read_more(&mut self) -> io::Result<usize> {
        if self.buffer.is_empty() {
            self.buffer = vec![0; CHUNK];
        }
        loop {
            match self.inner.read(&mut self.buffer[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Holds at least `wanted` bytes (at most [`INPUT_BUFFER`]), or all the input has
    /// left: the bytes held move to the buffer's front when the room behind them is short.
    fn fill_at_least(&mut self, wanted: usize) -> io::Result<&[u8]> {
        let wanted = wanted.min(INPUT_BUFFER);
        if self.end - self.start < wanted {
            if self.buffer.len() < INPUT_BUFFER {
                self.buffer.resize(INPUT_BUFFER, 0);
            }
            if self.buffer.len() - self.start < wanted {
                self.buffer.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            while self.end - self.start < wanted && self.read_more()? > 0 {}
        }
        Ok(self.buffer())
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(self.buffer())
    }
    fn consume(&mut self, amount: usize) {
        self.start = (self.start + amount).min(self.end);
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::compress::read_from_buffer(self, buf)
    }
}

/// The bytes of a gzip header that are checked to tell a member's start.
const GZIP_HEADER: usize = 10;

/// Where the first gzip member header starts in `bytes`: the magic number and method, no
/// reserved flag set, a known XFL (RFC 1952 §2.3.1); the checks make a chance match in
/// compressed data rare. A start in the last 9 bytes is accepted on the magic alone.
pub(crate) fn find_gzip_start(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&bytes[from..], &GZIP_MAGIC) {
        let at = from + i;
        let header = &bytes[at..];
        if header.len() < GZIP_HEADER || (header[3] & 0xe0 == 0 && matches!(header[8], 0 | 2 | 4)) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

impl<R: Read> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // Bytes kept beyond memory's share go to a file before more are read.
        self.kept.spill()?;
        self.spill_recording()?;
        if self.replayed < self.replay.len() {
            return Ok(&self.replay[self.replayed..]);
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        let bytes = if self.replayed < self.replay.len() {
            &self.replay[self.replayed..self.replayed + amount]
        } else {
            &self.inner.buffer()[..amount]
        };
        if self.keeping {
            self.kept.extend_from_slice(bytes);
        } else if self.kept.is_empty() {
            self.kept_from = self.consumed + amount as u64;
        }
        if let Some(recording) = &mut self.recording {
            recording.bytes.extend_from_slice(bytes);
        }
        if self.member_full || self.member.len() + amount > LOOKBACK {
            self.member_full = true;
        } else {
            self.member.extend_from_slice(bytes);
        }
        self.consumed += amount as u64;
        if self.replayed < self.replay.len() {
            self.replayed += amount;
            if self.replayed == self.replay.len() {
                self.replay = Vec::new();
                self.replayed = 0;
            }
        } else {
            self.inner.consume(amount);
        }
    }
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::compress::read_from_buffer(self, buf)
    }
}

/// What a gzip decoder reads from: the input while inside a member, nothing between
/// members. One decoder then serves every member ([`GzDecoder::reset`] swaps the input in
/// and out), so that its inflate state (some 40 KiB, zeroed when made) is made once, not
/// once per record.
enum Slot<T> {
    Held(T),
    Empty,
}

impl<T> Slot<T> {
    fn held(&mut self) -> &mut T {
        match self {
            Slot::Held(inner) => inner,
            Slot::Empty => unreachable!("a decoder holds the input while inside a member"),
        }
    }
}

impl<T: Read> Read for Slot<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Slot::Held(inner) => inner.read(buf),
            Slot::Empty => Ok(0),
        }
    }
}

impl<T: BufRead> BufRead for Slot<T> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Slot::Held(inner) => inner.fill_buf(),
            Slot::Empty => Ok(&[]),
        }
    }
    fn consume(&mut self, amount: usize) {
        if let Slot::Held(inner) = self {
            inner.consume(amount);
        }
    }
}

/// A gzip decoder over the input.
type Decoder<R> = Box<GzDecoder<Slot<Tee<R>>>>;

/// Where a gzip member starts: its offset in the decompressed stream and in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemberStart {
    pub decompressed: u64,
    pub compressed: u64,
}

/// Compressed bytes that could not be decompressed, and where reading resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    /// Where the damaged bytes start in the file (a member's start, or bytes between
    /// members that are not one).
    pub offset: u64,
    /// Where the damage was found in the file.
    pub found_at: u64,
    /// What the decompressor said.
    pub reason: String,
    /// The next member's start in the file, where reading resumed (`None`: the file ends).
    pub resumed_at: Option<u64>,
    /// The file ends where the damage was found: no byte after it is skipped.
    pub file_ends_there: bool,
}

/// A gzip member whose deflate data decoded to its end but whose trailer, the CRC-32 and
/// length of what it decoded to (RFC 1952 §2.3.1), does not match: the damage is
/// somewhere in the member, not where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FailedCheck {
    /// Where the member starts in the file.
    pub member: u64,
    /// Where its bytes end in the file: after the trailer read, or where the next member
    /// starts when that is before (a member cut short, the decoder reading on into the
    /// next, whose bytes decoded as deflate data).
    pub end: u64,
}

/// What flate2's gzip decoder says, and says only, when a member's trailer does not match
/// what its deflate data decoded to (`flate2::gz::corrupt`, for the CRC-32 and the length
/// alike).
const TRAILER_MISMATCH: &str = "corrupt gzip stream does not have a matching checksum";

/// Whether a gzip decoder's `error` is a trailer that does not match ([`FailedCheck`]),
/// not deflate data that cannot be decoded or a member cut short.
fn failed_check(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::InvalidInput && error.to_string() == TRAILER_MISMATCH
}

/// Damage whose search for the next member is paused ([`Skip::Paused`]): it is noted
/// (one [`Damage`]) when the search ends.
struct Pending {
    offset: u64,
    found_at: u64,
    reason: String,
    /// The bytes are after a member that ended whole (not inside a damaged one).
    after_member: bool,
    /// The decompressed bytes before this offset are whole: those of the members before
    /// the damaged one (each ended with its CRC-32 checked, RFC 1952 §2.3.1), or all
    /// produced before bytes that are not a member.
    whole_until: u64,
    /// A read is to return 0 once when the search ends (the damaged member gave bytes).
    pause: bool,
}

enum Body<R> {
    Plain(Tee<R>),
    /// Inside a gzip member.
    Member(Decoder<R>),
    /// Inside a gzip member decompressed whole ([`Whole`]): its bytes are read from there.
    Whole(Tee<R>),
    /// Between members, or at the end.
    Between(Tee<R>),
    /// A transient state while a member is replaced.
    Swapping,
}

/// The decompressed bytes of a WARC file, plain or gzip, detected by the magic number.
///
/// Damaged gzip data never stops it: the damage is noted ([`Stream::damage`]), the
/// decompressed stream pauses (one read returns 0, so that the record being read ends
/// there) and goes on with the next gzip member found anywhere after the damaged one's
/// start.
pub(crate) struct Stream<R> {
    body: Body<R>,
    /// Decompressed bytes produced so far.
    pub produced: u64,
    /// Since the last reset (`None`), where the bytes known whole end (the least of every
    /// damage found since): a record whose bytes all came before it is whole.
    pub damage_produced: Option<u64>,
    /// Decompressed bytes given back, produced again first.
    replay: Vec<u8>,
    replayed: usize,
    /// Larger runs of decompressed bytes given back ([`Stream::unread_spool`]), produced
    /// again after `replay`: the last given back first.
    spools: Vec<SpoolReader>,
    /// Member starts not yet passed by the reader (and the last one passed).
    pub members: VecDeque<MemberStart>,
    pub gzip: bool,
    /// The last gzip member was cut short (a truncated file).
    pub truncated: bool,
    /// Damage found and not reported yet.
    pub damage: Vec<Damage>,
    /// Members read with their damaged magic number restored ([`Tee::restores_magic`]),
    /// not reported yet: where each starts in the file.
    pub restored: Vec<u64>,
    /// The last member whose trailer did not match.
    pub failed_check: Option<FailedCheck>,
    /// How many times damage was found.
    pub damaged: u64,
    /// A read is to return 0 once, after damage.
    pause: bool,
    /// Whether gzip members met after plain data have their compressed bytes kept.
    pub keep_gzip: bool,
    /// A record's head or block is being read (set by the framing): a damaged member that
    /// gave nothing pauses the stream then, as one that gave bytes always does.
    pub mid_record: bool,
    /// The decoder of the last member, for the next.
    spare: Option<Decoder<R>>,
    /// While set (and the input's bytes not kept), the bytes decoded are being
    /// recompressed: on damage, the input's bytes are kept again from where it was found,
    /// so that the damaged part is copied once, as it is.
    pub lean: bool,
    /// The search for the next member after damage, paused.
    skipping: Option<Pending>,
    /// Members decompressed whole, made at the first member.
    whole: Option<Box<Whole>>,
}

/// A gzip member decompressed at once, from the input buffer to an output buffer of its
/// own, by libdeflate: 1.6 to 2 times as fast as zlib-rs streaming it (measured in
/// BENCHMARKS.md, "WARC links"), which it is only when the member is whole within
/// [`WHOLE_INPUT`] bytes of input and [`WHOLE_OUTPUT`] of output, and valid (CRC-32 and
/// size checked). Any other member (larger, damaged, cut short, or met while bytes given
/// back are read again) is streamed as before, from its start: the bytes produced are the
/// same either way.
struct Whole {
    #[cfg(feature = "libdeflate")]
    decompressor: absolve_libdeflate::Decompressor,
    output: Vec<u8>,
    /// `output[read..produced]` are still to be read.
    read: usize,
    produced: usize,
}

impl Whole {
    fn new() -> Self {
        Whole {
            #[cfg(feature = "libdeflate")]
            decompressor: absolve_libdeflate::Decompressor::new(),
            output: Vec::new(),
            read: 0,
            produced: 0,
        }
    }

    /// Decompresses the member at the start of `input` whole, if it can; the compressed
    /// bytes it took.
    #[cfg(feature = "libdeflate")]
    fn decompress(&mut self, input: &[u8]) -> Option<usize> {
        if self.output.is_empty() {
            self.output = vec![0; WHOLE_OUTPUT];
        }
        let member = self
            .decompressor
            .gzip_member(input, &mut self.output)
            .ok()?;
        self.read = 0;
        self.produced = member.produced;
        Some(member.consumed)
    }

    /// Without libdeflate every member is streamed.
    #[cfg(not(feature = "libdeflate"))]
    fn decompress(&mut self, _input: &[u8]) -> Option<usize> {
        None
    }

    /// Copies the next bytes of the member into `buf`; 0 once it is all read.
    fn read(&mut self, buf: &mut [u8]) -> usize {
        let rest = &self.output[self.read..self.produced];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.read += n;
        n
    }
}

impl<R: Read> Stream<R> {
    /// A stream over `input`; gzip when it starts with the gzip magic number.
    pub fn new(input: R) -> io::Result<Self> {
        let mut tee = Tee::new(input);
        let mut gzip = tee.fill_buf()?.starts_with(&GZIP_MAGIC[..2]);
        let mut restored = Vec::new();
        if !gzip && tee.restores_magic()? {
            // The first member's magic number is damaged.
            gzip = true;
            restored.push(0);
        }
        let body = if gzip {
            Body::Between(tee)
        } else {
            Body::Plain(tee)
        };
        Ok(Stream {
            body,
            produced: 0,
            damage_produced: None,
            replay: Vec::new(),
            replayed: 0,
            spools: Vec::new(),
            members: VecDeque::new(),
            gzip,
            truncated: false,
            damage: Vec::new(),
            restored,
            failed_check: None,
            damaged: 0,
            pause: false,
            keep_gzip: false,
            mid_record: false,
            spare: None,
            lean: false,
            skipping: None,
            whole: None,
        })
    }

    /// The raw input, to read or change what is kept.
    pub fn tee(&mut self) -> &mut Tee<R> {
        match &mut self.body {
            Body::Plain(tee) | Body::Between(tee) | Body::Whole(tee) => tee,
            Body::Member(decoder) => decoder.get_mut().held(),
            Body::Swapping => unreachable!("the body is swapped only inside read"),
        }
    }

    /// Gives back the last decompressed `bytes` produced: they are produced again.
    pub fn unread(&mut self, bytes: &[u8]) {
        self.produced -= bytes.len() as u64;
        let mut replay = bytes.to_vec();
        replay.extend_from_slice(&self.replay[self.replayed..]);
        self.replay = replay;
        self.replayed = 0;
    }

    /// Gives back the last decompressed bytes produced, `produced` of them, held in a
    /// spool (in a temporary file when large) after any given back before them: they are
    /// produced again, from there.
    pub fn unread_spool(&mut self, mut spool: Spool<'static>, produced: u64) -> io::Result<()> {
        // Bytes given back before, not produced again yet, come after these.
        spool.write_all(&self.replay[self.replayed..])?;
        self.replay = Vec::new();
        self.replayed = 0;
        self.produced -= produced;
        self.spools.push(spool.into_reader()?);
        Ok(())
    }

    /// Whether bytes given back are still to be produced again.
    fn replaying(&self) -> bool {
        self.replayed < self.replay.len() || self.spools.iter().any(|s| s.left() > 0)
    }

    /// A plain input that goes on with gzip members (`rest`, produced last and given
    /// back, starts the first): it is read as gzip from there.
    pub fn switch_to_gzip(&mut self, rest: &[u8]) -> io::Result<()> {
        let Body::Plain(tee) = std::mem::replace(&mut self.body, Body::Swapping) else {
            unreachable!("only a plain input switches")
        };
        let mut tee = tee;
        let mut all = rest.to_vec();
        all.extend_from_slice(&self.replay[self.replayed..]);
        // Bytes given back in a spool (a block that ran past the end of the file) are
        // read again as raw input from here: held in memory, as the rest is.
        for mut spool in self.spools.drain(..).rev() {
            spool.read_to_end(&mut all)?;
        }
        self.replay = Vec::new();
        self.replayed = 0;
        tee.unread(&all);
        self.produced -= rest.len() as u64;
        tee.kept.clear();
        tee.kept_from = tee.consumed;
        tee.keeping = self.keep_gzip;
        self.body = Body::Between(tee);
        self.gzip = true;
        Ok(())
    }

    /// Forgets the member starts before decompressed offset `offset`, keeping the last.
    pub fn forget_members_before(&mut self, offset: u64) {
        while self.members.len() > 1 && self.members[1].decompressed <= offset {
            self.members.pop_front();
        }
    }

    /// The member that starts exactly at decompressed offset `offset`, if one does.
    pub fn member_at(&self, offset: u64) -> Option<MemberStart> {
        self.members
            .iter()
            .rev()
            .find(|m| m.decompressed == offset)
            .copied()
    }

    /// The first member start after decompressed offset `offset`.
    pub fn member_after(&self, offset: u64) -> Option<MemberStart> {
        self.members
            .iter()
            .find(|m| m.decompressed > offset)
            .copied()
    }

    /// Whether the member that starts at `member` has ended: a member after it began, or
    /// the stream is between members past it (at the file's end, cut short there, or
    /// before bytes that are not a member). With no damage found since it began, it ended
    /// whole, its CRC-32 and length checked (RFC 1952 §2.3.1), or cut short by the file's
    /// end ([`Stream::truncated`]).
    pub fn member_ended(&self, member: MemberStart) -> bool {
        let last = self.members.back();
        last.is_some_and(|m| m.compressed > member.compressed)
            || (matches!(self.body, Body::Between(_)) && last == Some(&member))
    }

    /// Whether the input is at its end with no member open (and no search paused).
    pub fn at_end(&mut self) -> io::Result<bool> {
        if self.replaying() || self.skipping.is_some() {
            return Ok(false);
        }
        match &mut self.body {
            Body::Between(tee) | Body::Plain(tee) => tee.at_end(),
            _ => Ok(false),
        }
    }

    /// A decoder for the member starting in `input`: the last one, reset, if there is one.
    fn decoder(&mut self, input: Tee<R>) -> Decoder<R> {
        match self.spare.take() {
            Some(mut decoder) => {
                decoder.reset(Slot::Held(input));
                decoder
            }
            None => Box::new(GzDecoder::new(Slot::Held(input))),
        }
    }

    /// The input back from a decoder done with its member; the decoder is kept for the next.
    fn park(&mut self, mut decoder: Decoder<R>) -> Tee<R> {
        let input = decoder.reset(Slot::Empty);
        self.spare = Some(decoder);
        match input {
            Slot::Held(tee) => tee,
            Slot::Empty => unreachable!("a decoder holds the input while inside a member"),
        }
    }

    /// Notes damage (`pending`) and moves to the next member start after `search_from`;
    /// `true` when the search is paused ([`Skip::Paused`]).
    fn damaged_member(
        &mut self,
        tee: &mut Tee<R>,
        pending: Pending,
        search_from: u64,
    ) -> io::Result<bool> {
        self.damaged += 1;
        // Bytes that are not a member after a whole one leave what it produced whole; a
        // damaged member (corrupt, a bad CRC, cut) leaves what the members before it
        // produced whole, not its own bytes.
        let whole_until = pending.whole_until;
        self.damage_produced = Some(
            self.damage_produced
                .map_or(whole_until, |p| p.min(whole_until)),
        );
        let skip = tee.find_member(search_from)?;
        Ok(self.settle(tee, pending, skip))
    }

    /// After a search for the next member: the damage is noted once it ends, else it
    /// waits, paused; `true` when paused.
    fn settle(&mut self, tee: &Tee<R>, pending: Pending, skip: Skip) -> bool {
        if skip == Skip::Paused {
            self.skipping = Some(pending);
            return true;
        }
        self.damage.push(Damage {
            offset: pending.offset,
            found_at: pending.found_at,
            reason: pending.reason,
            resumed_at: (skip == Skip::Found).then_some(tee.consumed),
            file_ends_there: skip == Skip::End && tee.consumed == pending.found_at,
        });
        false
    }

    /// Whether a search for the next member is paused.
    pub fn skipping(&self) -> bool {
        self.skipping.is_some()
    }

    /// Whether a paused search holds [`KEPT_LIMIT`] kept bytes: they are to be passed on.
    pub fn kept_full(&mut self) -> bool {
        self.skipping.is_some() && self.tee().kept.len() >= KEPT_LIMIT as u64
    }

    /// Whether every byte produced has been read, a member ended whole, and bytes that
    /// are not a member follow it (their search paused): the reader is at a member's end.
    pub fn at_member_end(&self, position: u64) -> bool {
        self.skipping.as_ref().is_some_and(|p| p.after_member)
            && position == self.produced
            && !self.replaying()
    }

    /// Where the first damage not reported yet was found in the file (a paused search's
    /// included).
    pub fn first_damage_found_at(&self) -> Option<u64> {
        self.damage
            .first()
            .map(|d| d.found_at)
            .or(self.skipping.as_ref().map(|p| p.found_at))
    }

    /// Where the first damage not reported yet starts in the file (a paused search's
    /// included): the damaged member's start, or the first byte that is not a member.
    pub fn first_damage_offset(&self) -> Option<u64> {
        self.damage
            .first()
            .map(|d| d.offset)
            .or(self.skipping.as_ref().map(|p| p.offset))
    }

    /// Decompresses the member starting in `tee` whole ([`Whole`]), if it can: `true`
    /// when it did, its compressed bytes consumed.
    fn decompress_whole(&mut self, tee: &mut Tee<R>) -> io::Result<bool> {
        if !cfg!(feature = "libdeflate") {
            return Ok(false);
        }
        let Some(input) = tee.fill_at_least(WHOLE_INPUT)? else {
            return Ok(false);
        };
        let whole = self.whole.get_or_insert_with(|| Box::new(Whole::new()));
        let Some(consumed) = whole.decompress(input) else {
            return Ok(false);
        };
        tee.consume(consumed);
        Ok(true)
    }

    fn read_gzip(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match std::mem::replace(&mut self.body, Body::Swapping) {
                Body::Whole(tee) => {
                    let whole = self.whole.as_mut().expect("a member decompressed whole");
                    let n = whole.read(buf);
                    if n > 0 || buf.is_empty() {
                        self.body = Body::Whole(tee);
                        return Ok(n);
                    }
                    self.body = Body::Between(tee);
                }
                Body::Member(mut decoder) => match decoder.read(buf) {
                    Ok(0) if !buf.is_empty() => self.body = Body::Between(self.park(decoder)),
                    Ok(n) => {
                        self.body = Body::Member(decoder);
                        return Ok(n);
                    }
                    Err(error) => {
                        let member = self.members.back().copied();
                        let member_start = member.map_or(0, |m| m.compressed);
                        let whole_until = member.map_or(0, |m| m.decompressed);
                        let produced = member.is_some_and(|m| m.decompressed < self.produced);
                        let mut tee = self.park(decoder);
                        let found_at = tee.consumed;
                        if error.kind() == io::ErrorKind::UnexpectedEof
                            && tee.at_end()?
                            && !tee.ran_into_a_member(member_start)
                        {
                            // RFC 1952: the last member cut short by the end of the file
                            // (not a member damaged or cut short, whose deflate data went
                            // on through the members after it to the end of the file).
                            self.truncated = true;
                            self.body = Body::Between(tee);
                            return Ok(0);
                        }
                        if !produced {
                            // A member that gave nothing: not one, its bytes skipped.
                            self.members.pop_back();
                        }
                        if std::mem::take(&mut self.lean) {
                            // What was decoded is recompressed: the rest is kept as it is.
                            tee.keeping = true;
                        }
                        let pending = Pending {
                            offset: member_start,
                            found_at,
                            reason: error.to_string(),
                            after_member: false,
                            whole_until,
                            pause: produced,
                        };
                        let paused = self.damaged_member(&mut tee, pending, member_start)?;
                        // Damaged deflate data may decode past the member's end, into the
                        // next member: found before where the damage was. The damage is
                        // then somewhere in the member, as when its trailer does not match.
                        let ran_on = !paused && tee.consumed < found_at;
                        if failed_check(&error) || ran_on {
                            let end = match paused {
                                true => found_at,
                                false => found_at.min(tee.consumed),
                            };
                            self.failed_check = Some(FailedCheck {
                                member: member_start,
                                end,
                            });
                        }
                        self.body = Body::Between(tee);
                        if paused {
                            return Ok(0);
                        }
                        if produced {
                            self.pause = true;
                            return Ok(0);
                        }
                        if self.mid_record {
                            // A member that gave nothing, inside a record: the bytes before
                            // it are the start of a record whose rest it held, which the
                            // next member's bytes are not (read on, they were taken as that
                            // record's rest, the next record swallowed).
                            return Ok(0);
                        }
                    }
                },
                Body::Between(mut tee) => {
                    if let Some(pending) = self.skipping.take() {
                        // A paused search goes on.
                        let pause = pending.pause;
                        let skip = tee.skip_to_member()?;
                        let paused = self.settle(&tee, pending, skip);
                        self.body = Body::Between(tee);
                        if paused {
                            return Ok(0);
                        }
                        if pause {
                            self.pause = true;
                            return Ok(0);
                        }
                        continue;
                    }
                    let start = tee.fill_buf()?;
                    if start.is_empty() {
                        self.body = Body::Between(tee);
                        return Ok(0);
                    }
                    if !(GZIP_MAGIC.starts_with(&start[..start.len().min(3)])) {
                        let offset = tee.consumed;
                        if tee.restores_magic()? {
                            // A member whose magic number is damaged: read as one.
                            self.restored.push(offset);
                            self.body = Body::Between(tee);
                            continue;
                        }
                        // Bytes between members that are not a member (padding, junk).
                        let pending = Pending {
                            offset,
                            found_at: offset,
                            reason: "bytes that are not a gzip member".to_owned(),
                            after_member: true,
                            whole_until: self.produced,
                            pause: false,
                        };
                        if std::mem::take(&mut self.lean) {
                            // What was decoded is recompressed: these are kept as they are.
                            tee.keeping = true;
                        }
                        tee.member.clear();
                        let paused = self.damaged_member(&mut tee, pending, offset)?;
                        self.body = Body::Between(tee);
                        if paused {
                            return Ok(0);
                        }
                        continue;
                    }
                    if std::mem::take(&mut self.lean) {
                        // A new member may hold records of its own: its bytes are kept.
                        tee.keeping = true;
                    }
                    tee.begin_member();
                    self.members.push_back(MemberStart {
                        decompressed: self.produced,
                        compressed: tee.consumed,
                    });
                    self.body = match self.decompress_whole(&mut tee)? {
                        true => Body::Whole(tee),
                        false => Body::Member(self.decoder(tee)),
                    };
                }
                other => {
                    self.body = other;
                    unreachable!("read_gzip is only called on gzip input")
                }
            }
        }
    }
}

impl<R: Read> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.replayed < self.replay.len() {
            let rest = &self.replay[self.replayed..];
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.replayed += n;
            if self.replayed == self.replay.len() {
                self.replay = Vec::new();
                self.replayed = 0;
            }
            self.produced += n as u64;
            return Ok(n);
        }
        while let Some(spool) = self.spools.last_mut() {
            let n = spool.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.produced += n as u64;
                return Ok(n);
            }
            self.spools.pop();
        }
        if std::mem::take(&mut self.pause) {
            return Ok(0);
        }
        let n = match &mut self.body {
            Body::Plain(tee) => tee.read(buf)?,
            _ => self.read_gzip(buf)?,
        };
        self.produced += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;

    fn member(text: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    /// Each member's bytes come out whole, in order, with its start in both offsets,
    /// whether it is decompressed whole (the small ones) or streamed (one larger than
    /// [`WHOLE_OUTPUT`]); one decoder serves every streamed member.
    #[test]
    fn members_come_out_whole_and_in_order_either_way() {
        let large = vec![b'x'; WHOLE_OUTPUT + 1];
        let texts: [&[u8]; 4] = [b"first member ", &large, b"third, a little longer ", &large];
        let members: Vec<Vec<u8>> = texts.iter().map(|t| member(t)).collect();
        let file = members.concat();
        let mut stream = Stream::new(&file[..]).unwrap();
        let mut out = Vec::new();
        stream.read_to_end(&mut out).unwrap();
        assert!(out == texts.concat(), "the bytes differ");
        assert!(stream.spare.is_some() && stream.at_end().unwrap() && !stream.truncated);
        assert_eq!(stream.whole.is_some(), cfg!(feature = "libdeflate"));
        let (mut decompressed, mut compressed) = (0, 0);
        let mut stream = Stream::new(&file[..]).unwrap();
        for (text, member) in texts.iter().zip(&members) {
            let mut part = vec![0; text.len()];
            stream.read_exact(&mut part).unwrap();
            assert_eq!(
                stream.member_at(decompressed),
                Some(MemberStart {
                    decompressed,
                    compressed
                })
            );
            decompressed += text.len() as u64;
            compressed += member.len() as u64;
        }
        assert_eq!(
            (stream.produced, compressed),
            (out.len() as u64, file.len() as u64)
        );
    }

    /// A reader giving at most 7 bytes a read, as a slow pipe might.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// The input buffer reads on until it holds what was asked for (or the input ends),
    /// and the bytes it holds survive being moved to its front, in order.
    #[test]
    fn the_input_buffer_holds_what_is_asked_for_in_order() {
        let data: Vec<u8> = (0..3 * INPUT_BUFFER).map(|i| (i % 251) as u8).collect();
        let mut input = Input::new(Trickle(&data));
        let mut at = 0;
        for (wanted, consumed) in [
            (100, 90),
            (WHOLE_INPUT, WHOLE_INPUT - 5),
            (INPUT_BUFFER, 700_000),
        ] {
            let held = input.fill_at_least(wanted).unwrap();
            assert!(
                held.len() >= wanted.min(INPUT_BUFFER),
                "{} < {wanted}",
                held.len()
            );
            assert!(
                held == &data[at..at + held.len()],
                "the bytes held differ at {at}"
            );
            input.consume(consumed);
            at += consumed;
        }
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).unwrap();
        assert!(rest == data[at..], "the rest differs");
        assert!(input.fill_at_least(WHOLE_INPUT).unwrap().is_empty());
    }

    /// Reads everything, through the pauses after damage.
    fn read_all(stream: &mut Stream<&[u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        while !stream.at_end().unwrap() || !stream.replay.is_empty() {
            stream.read_to_end(&mut out).unwrap();
        }
        out
    }

    /// A damaged member (its data overwritten, its CRC wrong, cut short mid-file), junk
    /// or NULs between members or after the last: noted with where it is, and reading
    /// resumes at the next member, which comes out whole.
    #[test]
    fn damage_resumes_at_the_next_member() {
        let texts: [&[u8]; 3] = [b"first member ", b"second, a little longer ", b"third"];
        let members: Vec<Vec<u8>> = texts.iter().map(|t| member(t)).collect();
        let mut bad_data = members[1].clone();
        bad_data[12..].iter_mut().for_each(|b| *b = 0xff);
        let mut bad_crc = members[1].clone();
        let at = bad_crc.len() - 6;
        bad_crc[at] ^= 1;
        let cut = members[1][..members[1].len() / 2].to_vec();
        for second in [bad_data, bad_crc, cut, b"junk\0\0".to_vec(), vec![0; 3]] {
            let file = [&members[0][..], &second, &members[2], &[0; 7]].concat();
            let mut stream = Stream::new(&file[..]).unwrap();
            let out = read_all(&mut stream);
            assert!(
                out.starts_with(texts[0]) && out.ends_with(texts[2]),
                "{:?} {:?}",
                String::from_utf8_lossy(&out),
                stream.damage
            );
            let damage = &stream.damage;
            assert_eq!(damage.len(), 2, "{damage:?}");
            assert_eq!(damage[0].offset, members[0].len() as u64, "{damage:?}");
            assert_eq!(
                damage[0].resumed_at,
                Some((members[0].len() + second.len()) as u64)
            );
            assert_eq!(damage[1].offset, (file.len() - 7) as u64);
            assert_eq!(damage[1].resumed_at, None);
        }
    }

    /// RFC 1952 §2.3.1: a member whose trailer (CRC-32 or length) does not match what its
    /// deflate data decoded to is told from one whose deflate data cannot be decoded, with
    /// where its bytes end: after its trailer, or where the next member starts when the
    /// decoder read on into it. The damage says whether the file ends where it was found.
    #[test]
    fn a_trailer_that_does_not_match_is_told_apart() {
        let texts: [&[u8]; 2] = [b"first member ", b"second, a little longer "];
        let members: Vec<Vec<u8>> = texts.iter().map(|t| member(t)).collect();
        let wrong = |at_end: usize| {
            let mut bytes = members[1].clone();
            let at = bytes.len() - at_end;
            bytes[at] ^= 1;
            bytes
        };
        let mut corrupt = members[1].clone();
        // After the 10-byte header: block type 11, reserved (RFC 1951 §3.2.3), an error.
        corrupt[10..14].copy_from_slice(b"\xff\xff\xff\xff");
        let second = members[0].len() as u64;
        for (name, damaged, check) in [
            ("the CRC-32", wrong(8), true),
            ("the length", wrong(1), true),
            ("corrupt deflate data", corrupt, false),
        ] {
            for last in [true, false] {
                let after: &[u8] = if last { &[] } else { &members[0] };
                let file = [&members[0][..], &damaged, after].concat();
                let mut stream = Stream::new(&file[..]).unwrap();
                read_all(&mut stream);
                let end = second + damaged.len() as u64;
                let expected = check.then_some(FailedCheck {
                    member: second,
                    end,
                });
                assert_eq!(stream.failed_check, expected, "{name}");
                let damage = &stream.damage[0];
                assert_eq!(damage.file_ends_there, last && check, "{name}: {damage:?}");
                assert_eq!(damage.resumed_at, (!last).then_some(end), "{name}");
            }
        }
        // Deflate data overwritten that still decodes, on past the member's end into the
        // next member, then fails its trailer: the damaged member ends where the next
        // starts, not where the damage was found.
        let mut overwritten = members[1].clone();
        overwritten[12..].iter_mut().for_each(|b| *b = 0xff);
        let file = [&members[0][..], &overwritten, &members[0], &members[0]].concat();
        let mut stream = Stream::new(&file[..]).unwrap();
        let out = read_all(&mut stream);
        assert!(out.ends_with(&[texts[0], texts[0]].concat()), "{out:?}");
        let next = second + overwritten.len() as u64;
        let damage = &stream.damage[0];
        assert!(damage.found_at > next, "{damage:?}");
        let end = next;
        assert_eq!(
            stream.failed_check,
            Some(FailedCheck {
                member: second,
                end
            })
        );
    }
}
