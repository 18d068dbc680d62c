//! Compressed input, whatever its name: gzip (RFC 1952, every member), bzip2, xz, zstd
//! (RFC 8878, every frame) and LZ4 (the LZ4 Frame Format, every frame: `lz4.rs`), told
//! apart by their magic bytes ([`Compression::detect`]).
//!
//! A [`Decoder`] reads the decompressed bytes and never loses what came before damage: on
//! a bad checksum, a truncated or corrupt stream, or bytes after the last member that do
//! not start another one, the decompressed stream ends cleanly, the [`Damage`] is recorded
//! ([`Decoder::damage`]) and the compressed bytes not decoded are handed back as they are
//! ([`Decoder::into_rest`]). [`rewrite`] puts it together: decompress, transform, compress
//! with the same [`Encoder`], then append the raw rest, so that what came before the damage
//! is processed and the rest is copied as it is.
//!
//! # Where the rest starts
//!
//! The rest starts at the first compressed byte not decoded into the output: at the start
//! of a member (frame, stream) whose header is bad or that is not a member at all, at the
//! trailer (checksum) of a member whose checksum or length does not match, and inside a
//! member's data where its decoder failed:
//!
//! - gzip and xz: at the first byte the decoder had not consumed (the last partial symbol
//!   of a truncated deflate stream, or the part of an xz chunk read before the damage,
//!   cannot be cut out on a byte boundary and are not in the rest);
//! - bzip2: at the byte the damaged block starts in (blocks are found by their 48-bit
//!   magic numbers, at any bit); a block's output is delivered once its CRC matched, never
//!   before, so a corrupt block is only in the rest;
//! - zstd: at the damaged block's header (RFC 8878 §3.1.1.2: blocks are whole bytes), and
//!   everything the frame decoded before it, its window included, is delivered;
//! - LZ4: at the damaged block's size field (LZ4 Frame Format §4: blocks are whole bytes,
//!   each with its size), at the content checksum if that does not match; a block is
//!   delivered once it decoded (and its block checksum, if any, matched), never before.
//!
//! A damaged member's start is not chosen instead: its decoded part has already been
//! delivered (memory stays bounded), and copying it again would double it. When nothing
//! at all was delivered (the input damaged from its first member on), the rest starts at
//! the input's start: nothing of it is lost (the first megabyte consumed is kept for this).
//!
//! # Reading on after damage
//!
//! [`Decoder::resume`] reads on from the next member (gzip member, bzip2 or xz stream, zstd
//! or LZ4 frame) that decodes, the compressed bytes before it handed over as they are; the
//! pipeline does so in a mail folder and a WARC file, whose messages and records after
//! the damage are whole ([`starts_damaged`]: a file whose start is damaged). A candidate
//! member is decoded from a copy first ([`TRIAL_INPUT`], [`TRIAL_OUTPUT`],
//! [`MAX_FALSE_STARTS`]); one that damaged data ran into (deflate or LZMA data decoded on
//! past its member's end) is found among the last compressed bytes consumed, kept for
//! that (1 MiB at least), and read again. A bzip2 stream is also read on at a block, as
//! `bzip2recover` does: each block after it decoded alone, as a stream of its own, its
//! CRC checked; and so is an xz stream, its blocks found by their header's CRC32 (see
//! `xz.rs`), a block taken to read on from once it ended whole, its check matched; and so
//! is an LZ4 frame of independent blocks (as the `lz4` tool writes them), at the block
//! after a damaged one, where the damaged block's size field says, when it decodes alone
//! (its checksum matched, if the frame has block checksums). A gzip member or zstd or
//! LZ4 frame whose magic number is damaged, where a member was looked for, is read with
//! it restored when the rest of it decodes.
//!
//! ```
//! use absolve::compress::{Compression, Decoder, Encoder};
//! use std::io::{Read, Write};
//!
//! let mut encoder = Encoder::new(Compression::Gzip, Vec::new())?;
//! encoder.write_all(b"From a@b Mon Jan  1 00:00:00 2024\n")?;
//! let gz = encoder.finish()?;
//! assert_eq!(Compression::detect(&gz), Some(Compression::Gzip));
//!
//! let mut text = String::new();
//! let mut decoder = Decoder::new(Compression::Gzip, &gz[..]);
//! decoder.read_to_string(&mut text)?;
//! assert!(text.starts_with("From a@b"));
//! assert_eq!(decoder.damage(), None);
//! # Ok::<(), std::io::Error>(())
//! ```

use flate2::{Crc, Decompress, FlushDecompress, Status as FlateStatus};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, Cursor, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};

mod lz4;
mod xz;

/// The size of the decoder's output buffer: 128 KiB, so that a caller's `read` or
/// `fill_buf` gets large chunks and the per-call overhead stays small.
pub const OUTPUT_BUFFER: usize = 128 * 1024;

/// The most memory a stream may make a decoder allocate for its window or dictionary:
/// 128 MiB, zstd's default `--memory` limit (window log 27), above xz's largest preset
/// dictionary (64 MiB, `-9`). A stream that claims more is damage, not an allocation.
pub const MAX_WINDOW: u64 = 128 * 1024 * 1024;

/// The longest gzip header read (RFC 1952 §2.3 `FEXTRA`, `FNAME`, `FCOMMENT`): 1 MiB.
const MAX_GZIP_HEADER: usize = 1024 * 1024;

/// A compression format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// gzip (RFC 1952): one member or more, each deflate data (RFC 1951).
    Gzip,
    /// bzip2: one stream or more.
    Bzip2,
    /// xz (the .xz file format 1.2): one stream or more.
    Xz,
    /// Zstandard (RFC 8878): one frame or more.
    Zstd,
    /// LZ4 (the LZ4 Frame Format): one frame or more, legacy frames too.
    Lz4,
}

/// Every compression, in the order [`Compression::detect`] tries them.
pub const ALL: [Compression; 5] = [
    Compression::Gzip,
    Compression::Bzip2,
    Compression::Xz,
    Compression::Zstd,
    Compression::Lz4,
];

impl Compression {
    /// The compression whose magic bytes `head` starts with: gzip `1F 8B 08` (RFC 1952
    /// §2.3.1, deflate), bzip2 `BZh` and a block size digit `1`-`9`, xz `FD 37 7A 58 5A 00`,
    /// zstd `28 B5 2F FD` (RFC 8878 §3.1.1), LZ4 `04 22 4D 18` (LZ4 Frame Format §2) or its
    /// legacy frame's `02 21 4C 18` (§6). Skippable frames `5? 2A 4D 18` (RFC 8878 §3.1.2,
    /// LZ4 Frame Format §5: the two formats share them) are looked past, within `head`, to
    /// the frame that follows them; zstd when none does.
    ///
    /// ```
    /// use absolve::compress::Compression;
    ///
    /// assert_eq!(Compression::detect(b"\x1f\x8b\x08\0"), Some(Compression::Gzip));
    /// assert_eq!(Compression::detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
    /// assert_eq!(Compression::detect(b"\xfd7zXZ\0"), Some(Compression::Xz));
    /// assert_eq!(Compression::detect(b"\x28\xb5\x2f\xfd"), Some(Compression::Zstd));
    /// assert_eq!(Compression::detect(b"\x04\x22\x4d\x18"), Some(Compression::Lz4));
    /// assert_eq!(Compression::detect(b"\x50\x2a\x4d\x18\0\0\0\0\x04\x22\x4d\x18"), Some(Compression::Lz4));
    /// assert_eq!(Compression::detect(b"From a@b"), None);
    /// assert_eq!(Compression::detect(b"BZh0"), None);
    /// ```
    pub fn detect(head: &[u8]) -> Option<Compression> {
        let compression = ALL.into_iter().find(|c| c.starts(head))?;
        if compression != Compression::Zstd || !is_skippable_magic(head) {
            return Some(compression);
        }
        let after = after_skippable_frames(head);
        match lz4::starts_content(after) {
            true => Some(Compression::Lz4),
            false => Some(Compression::Zstd),
        }
    }

    /// Whether `bytes` start a member (stream, frame) of this compression.
    fn starts(self, bytes: &[u8]) -> bool {
        match self {
            Compression::Gzip => bytes.starts_with(&GZIP_MAGIC),
            Compression::Bzip2 => {
                bytes.starts_with(b"BZh") && bytes.get(3).is_some_and(|d| (b'1'..=b'9').contains(d))
            }
            Compression::Xz => bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]),
            Compression::Zstd => {
                bytes.starts_with(&ZSTD_MAGIC) || bytes.get(..4).is_some_and(is_skippable_magic)
            }
            Compression::Lz4 => {
                lz4::starts_content(bytes) || bytes.get(..4).is_some_and(is_skippable_magic)
            }
        }
    }

    /// The magic number a member whose own is damaged is read with ([`Decoder::resume`]):
    /// gzip's (RFC 1952 §2.3.1: ID1, ID2 and CM), zstd's (RFC 8878 §3.1.1) and LZ4's (LZ4
    /// Frame Format §2); bzip2 and xz streams are read on at their first block instead.
    fn restorable_magic(self) -> Option<&'static [u8]> {
        match self {
            Compression::Gzip => Some(&GZIP_MAGIC),
            Compression::Zstd => Some(&ZSTD_MAGIC),
            Compression::Lz4 => Some(&lz4::MAGIC),
            Compression::Bzip2 | Compression::Xz => None,
        }
    }

    /// Whether `bytes` start a member that holds content: as [`Compression::starts`], but
    /// not a skippable frame (RFC 8878 §3.1.2, LZ4 Frame Format §5).
    fn starts_content(self, bytes: &[u8]) -> bool {
        match self {
            Compression::Zstd => bytes.starts_with(&ZSTD_MAGIC),
            Compression::Lz4 => lz4::starts_content(bytes),
            _ => self.starts(bytes),
        }
    }

    /// How many bytes [`Compression::detect`] needs to tell every compression: 6.
    pub const MAGIC_LEN: usize = 6;

    /// The file name extension, without the dot: `gz`, `bz2`, `xz`, `zst`, `lz4`.
    ///
    /// ```
    /// assert_eq!(absolve::compress::Compression::Zstd.extension(), "zst");
    /// ```
    pub fn extension(self) -> &'static str {
        match self {
            Compression::Gzip => "gz",
            Compression::Bzip2 => "bz2",
            Compression::Xz => "xz",
            Compression::Zstd => "zst",
            Compression::Lz4 => "lz4",
        }
    }

    /// The compression a file name extension names (any case, without the dot): `gz`,
    /// `bz2`, `xz`, `zst`, `lz4`, and the other spellings `gzip`, `bzip2`, `zstd`.
    ///
    /// ```
    /// use absolve::compress::Compression;
    ///
    /// assert_eq!(Compression::from_extension("GZ"), Some(Compression::Gzip));
    /// assert_eq!(Compression::from_extension("txt"), None);
    /// ```
    pub fn from_extension(extension: &str) -> Option<Compression> {
        const TABLE: [(&str, Compression); 8] = [
            ("gz", Compression::Gzip),
            ("gzip", Compression::Gzip),
            ("bz2", Compression::Bzip2),
            ("bzip2", Compression::Bzip2),
            ("xz", Compression::Xz),
            ("zst", Compression::Zstd),
            ("zstd", Compression::Zstd),
            ("lz4", Compression::Lz4),
        ];
        TABLE
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(extension))
            .map(|&(_, c)| c)
    }

    /// The format's usual name: `gzip`, `bzip2`, `xz`, `zstd`, `lz4`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// RFC 8878 §3.1.1: a Zstandard frame's magic number, little-endian `0xFD2FB528`.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// A gzip member's first bytes (RFC 1952 §2.3.1): ID1, ID2, and CM 8 (deflate).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// RFC 8878 §3.1.1.1: the longest frame header, magic number included: 4 + 1 + 1 + 4 + 8.
const ZSTD_MAX_HEADER: usize = 18;

/// RFC 8878 §3.1.1.2.4: `Block_Maximum_Size` is at most 128 KiB.
const ZSTD_MAX_BLOCK: usize = 128 * 1024;

/// RFC 8878 §3.1.2 (and LZ4 Frame Format §5): a skippable frame's magic number is
/// `0x184D2A5?`.
fn is_skippable_magic(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[0] & 0xf0 == 0x50 && bytes[1..4] == [0x2a, 0x4d, 0x18]
}

/// The bytes of `head` after the skippable frames it starts with (RFC 8878 §3.1.2: magic
/// number, 4-byte size, that many bytes), as far as `head` holds them.
fn after_skippable_frames(mut head: &[u8]) -> &[u8] {
    while is_skippable_magic(head) && head.len() >= 8 {
        let size = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
        match head.get(8 + size..) {
            Some(after) => head = after,
            None => return &[],
        }
    }
    head
}

/// The compression of a buffered input, told by its first bytes, without consuming them.
/// A reader that gives fewer than [`Compression::MAGIC_LEN`] bytes at first (a pipe) is
/// judged on what it gave.
///
/// ```
/// let mut input: &[u8] = b"\x1f\x8b\x08\0rest";
/// assert_eq!(absolve::compress::detect_in(&mut input)?, Some(absolve::compress::Compression::Gzip));
/// assert_eq!(input.len(), 8);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn detect_in<R: BufRead>(input: &mut R) -> io::Result<Option<Compression>> {
    Ok(Compression::detect(input.fill_buf()?))
}

/// What went wrong in a compressed stream, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Where the raw rest ([`Decoder::into_rest`]) starts in the compressed input.
    pub compressed_offset: u64,
    /// How many decompressed bytes were delivered before it.
    pub decompressed_offset: u64,
    /// What the damage is.
    pub reason: DamageReason,
    /// Where reading resumed after it ([`Decoder::resume`]): the compressed offset of the
    /// member read on from, the bytes before it copied as they are; `None` when the rest
    /// of the input was copied as it is. At the damage itself, the member there was read
    /// with its damaged magic number restored; before it, the damaged data decoded on into
    /// the member there, which was read again.
    pub resumed_at: Option<u64>,
}

/// Whether damage ended the stream a [`Decoder`] gives ([`Decoder::damage_end`]): set by
/// the decoder when it meets damage, cleared when it reads on; looked at by the WARC
/// framing reading the stream, for which a record cut there is cut by the damage, not by
/// the file's end (`Options`' `input_ends_at_damage`).
#[derive(Debug, Clone, Default)]
pub(crate) struct DamageEnd(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl DamageEnd {
    /// Whether damage ended the stream.
    pub(crate) fn ended(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn set(&self, ended: bool) {
        self.0.store(ended, std::sync::atomic::Ordering::SeqCst);
    }
}

/// What damage a [`Decoder`] met.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DamageReason {
    /// The input ends inside a member.
    #[error("the {0} stream is truncated")]
    Truncated(Compression),
    /// A member's data cannot be decoded.
    #[error("corrupt {0} data: {1}")]
    Corrupt(Compression, String),
    /// A member's checksum (or gzip's length) does not match its data.
    #[error("{0} checksum mismatch: the data may be damaged")]
    BadChecksum(Compression),
    /// A member's header is not valid.
    #[error("bad {0} header: {1}")]
    BadHeader(Compression, String),
    /// Only zero bytes follow the last member (padding to a block size, as tape and some
    /// tools write); judged on the bytes buffered at that point.
    #[error("zero padding after the last {0} member")]
    ZeroPadding(Compression),
    /// Bytes after a complete member that do not start another one.
    #[error("bytes after the last {0} member that do not start another one")]
    TrailingData(Compression),
    /// A compressed stream inside as many layers of compression as the limit already
    /// (`pipeline::MAX_COMPRESSION_LAYERS`): not decompressed.
    #[error("{0} data inside {1} layers of compression already: not decompressed")]
    TooManyLayers(Compression, usize),
    /// zstd or LZ4 skippable frames (this many) too large to hold ([`MAX_SKIPPABLE_HELD`]):
    /// left out of the output. Not damage: the content is whole.
    #[error(
        "{1} {0} skippable frame(s) (metadata, no content) too large to keep in memory (more than {MAX_SKIPPABLE_HELD} bytes held): left out of the output"
    )]
    SkippableNotKept(Compression, u64),
    /// zstd or LZ4 skippable frames (this many) that came between two content frames:
    /// written after the content, since the frame boundary they stood at is not in the
    /// rewritten content ([`SkippableFrames`]). Not damage: the content is whole.
    #[error(
        "{1} {0} skippable frame(s) (metadata, no content) between content frames written after the content: the frame boundaries they stood at are not in the rewritten content"
    )]
    SkippableMoved(Compression, u64),
    /// A seek table (zstd's seekable format) left out of the output: the compressed bytes
    /// after damage, copied as they are, follow the rewritten frames, and a table at the
    /// end of those would not describe them ([`SkippableFrames`]).
    #[error(
        "the zstd seek table (seekable format) is left out of the output: the compressed bytes after damage, copied as they are, would not be described by it"
    )]
    SeekTableDropped,
    /// A stream that asks for more memory than [`MAX_WINDOW`].
    #[error("the {0} stream needs a window larger than the limit of {MAX_WINDOW} bytes")]
    WindowTooLarge(Compression),
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let DamageReason::TooManyLayers(..) = self.reason {
            return write!(f, "{}; copied as it is", self.reason);
        }
        if let DamageReason::SeekTableDropped = self.reason {
            return write!(
                f,
                "{}; it was at compressed byte {}",
                self.reason, self.compressed_offset
            );
        }
        if let DamageReason::SkippableNotKept(..) | DamageReason::SkippableMoved(..) = self.reason {
            return write!(
                f,
                "{}, the first at compressed byte {}",
                self.reason, self.compressed_offset
            );
        }
        if let (Some(at), DamageReason::BadHeader(c, _) | DamageReason::TrailingData(c)) =
            (self.resumed_at, &self.reason)
            && at == self.compressed_offset
        {
            // Nothing passed over: the member there decodes with its magic number
            // restored (`Decoder::resume`).
            return write!(
                f,
                "a {c} member whose magic number is damaged at compressed byte {at} (after {} decompressed bytes): read with it restored, the rest of it decodes",
                self.decompressed_offset
            );
        }
        write!(
            f,
            "{} at compressed byte {} (after {} decompressed bytes); ",
            self.reason, self.compressed_offset, self.decompressed_offset
        )?;
        match self.resumed_at {
            // The damaged data decoded on into the member there (`Decoder::resume`).
            Some(at) if at < self.compressed_offset => write!(
                f,
                "the damaged data decoded on into the member at compressed byte {at}, which is read again from there (byte offsets after this count from it)"
            ),
            Some(at) => write!(
                f,
                "the compressed bytes up to byte {at} are not decoded (rewrite copies them as they are), and reading resumes there (byte offsets after this count from it)"
            ),
            None => write!(f, "the rest is not decoded (rewrite copies it as it is)"),
        }
    }
}

/// A buffered input that can look ahead past its reader's buffer (a member's header or
/// trailer that straddles two reads) without consuming, and counts what it consumed.
struct Input<R> {
    inner: R,
    /// Bytes taken from `inner` to look ahead, not yet consumed, from `carry_pos`.
    carry: Vec<u8>,
    carry_pos: usize,
    consumed: u64,
    /// The last bytes consumed, at least [`LOOKBACK`] of them (all, when fewer were):
    /// where damaged data that decoded on ran into the next member
    /// ([`Decoder::resume`]).
    behind: Vec<u8>,
}

/// Keeps `bytes`, just consumed, at the end of those `behind`, which hold from
/// [`LOOKBACK`] to twice as many (the oldest dropped a megabyte at a time).
fn keep_behind(behind: &mut Vec<u8>, bytes: &[u8]) {
    if behind.len() + bytes.len() > 2 * LOOKBACK {
        let drop = (behind.len() + bytes.len())
            .saturating_sub(LOOKBACK)
            .min(behind.len());
        behind.drain(..drop);
    }
    let keep = bytes.len().min(2 * LOOKBACK);
    behind.extend_from_slice(&bytes[bytes.len() - keep..]);
}

/// How many of the compressed bytes last consumed are kept, so that a member damaged
/// data decoded on into can be read again ([`Decoder::resume`]): 1 MiB.
const LOOKBACK: usize = 1024 * 1024;

impl<R: BufRead> Input<R> {
    fn new(inner: R) -> Self {
        Input {
            inner,
            carry: Vec::new(),
            carry_pos: 0,
            consumed: 0,
            behind: Vec::new(),
        }
    }

    /// At least `n` bytes ahead, without consuming them; fewer only at the end of input.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.carry_pos >= self.carry.len() {
            let available = self.inner.fill_buf()?.len();
            if available >= n || available == 0 {
                return self.inner.fill_buf();
            }
            self.carry.clear();
            self.carry_pos = 0;
        } else if self.carry.len() - self.carry_pos >= n {
            return Ok(&self.carry[self.carry_pos..]);
        } else if self.carry_pos > 0 {
            self.carry.drain(..self.carry_pos);
            self.carry_pos = 0;
        }
        while self.carry.len() < n {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let take = chunk.len().min(n - self.carry.len());
            self.carry.extend_from_slice(&chunk[..take]);
            self.inner.consume(take);
        }
        Ok(&self.carry)
    }

    fn into_rest(self) -> Rest<R> {
        Cursor::new(self.carry[self.carry_pos..].to_vec()).chain(self.inner)
    }

    /// The bytes consumed from compressed byte `from` on, if they are still behind.
    fn behind_from(&self, from: u64) -> Option<&[u8]> {
        let back = usize::try_from(self.consumed.checked_sub(from)?).ok()?;
        (back <= self.behind.len()).then(|| &self.behind[self.behind.len() - back..])
    }

    /// Puts `magic` in place of the bytes ahead (a member's damaged magic number, read as
    /// the one it was, [`Decoder::resume`]).
    fn restore_ahead(&mut self, magic: &[u8]) -> io::Result<()> {
        // Into `carry`, where they can be changed: the reader's buffer cannot.
        if self.carry_pos >= self.carry.len() {
            self.carry.clear();
            self.carry_pos = 0;
        }
        while self.carry.len() - self.carry_pos < magic.len() {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            let take = chunk.len().min(magic.len());
            self.carry.extend_from_slice(&chunk[..take]);
            self.inner.consume(take);
        }
        self.carry[self.carry_pos..self.carry_pos + magic.len()].copy_from_slice(magic);
        Ok(())
    }

    /// Moves the position back by the last `n` bytes consumed (they are behind): they are
    /// read again.
    fn rewind(&mut self, n: usize) {
        let at = self.behind.len() - n;
        let mut carry = self.behind.split_off(at);
        carry.extend_from_slice(&self.carry[self.carry_pos.min(self.carry.len())..]);
        self.carry = carry;
        self.carry_pos = 0;
        self.consumed -= n as u64;
    }
}

impl<R: BufRead> BufRead for Input<R> {
    /// The bytes available now; empty at the end of the input.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.carry_pos < self.carry.len() {
            Ok(&self.carry[self.carry_pos..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, n: usize) {
        self.consumed += n as u64;
        if self.carry_pos < self.carry.len() {
            let end = (self.carry_pos + n).min(self.carry.len());
            keep_behind(&mut self.behind, &self.carry[self.carry_pos..end]);
            self.carry_pos += n;
            if self.carry_pos >= self.carry.len() {
                self.carry.clear();
                self.carry_pos = 0;
            }
        } else {
            if let Ok(available) = self.inner.fill_buf() {
                keep_behind(&mut self.behind, &available[..n.min(available.len())]);
            }
            self.inner.consume(n);
        }
    }
}

impl<R: BufRead> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_from_buffer(self, out)
    }
}

/// `Read::read` for a reader whose `BufRead` does the work: as many bytes as fit from
/// those available now, consumed (what `std::io::BufReader` does).
pub(crate) fn read_from_buffer(reader: &mut impl BufRead, out: &mut [u8]) -> io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(out.len());
    out[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}

/// The raw compressed bytes after damage: the bytes the decoder looked ahead at, then the
/// rest of the reader.
pub type Rest<R> = io::Chain<Cursor<Vec<u8>>, R>;

/// How many compressed bytes a candidate member is tried on before [`Decoder::resume`]
/// reads on from it: 4 MiB, room for a whole bzip2 block (`BZIP2_MAX_UNIT`).
pub const TRIAL_INPUT: usize = 2 * BZIP2_MAX_UNIT;

/// How many decompressed bytes, with no damage, make a candidate member one that
/// [`Decoder::resume`] reads on from when it does not end sooner: 1 MiB. Damaged deflate
/// data holding a gzip magic number fails long before.
pub const TRIAL_OUTPUT: u64 = 1024 * 1024;

/// How many candidate members that fail their trial [`Decoder::resume`] passes over
/// before it gives up, the rest copied as it is: 1,024 (a hostile input could hold a
/// magic number every few bytes).
pub const MAX_FALSE_STARTS: usize = 1024;

/// How many bytes [`Decoder::resume`] looks for a candidate in before it hands them over.
const SCAN_STEP: usize = 256 * 1024;

/// Whether `head`, which starts with no magic number, holds a member of `compression`
/// that decodes past its first byte: a compressed file (its name says which) whose start
/// is damaged, to be read from that member on ([`Decoder::resume`]). At most
/// [`MAX_FALSE_STARTS`] candidates are tried.
///
/// ```
/// use absolve::compress::{Compression, Encoder, starts_damaged};
/// use std::io::Write;
///
/// let mut encoder = Encoder::new(Compression::Gzip, Vec::new())?;
/// encoder.write_all(b"From a@b Mon Jan  1 00:00:00 2024\n")?;
/// let mut gz = encoder.finish()?;
/// assert!(!starts_damaged(Compression::Gzip, &gz));
/// let whole = gz.clone();
/// gz[0] = b'_';
/// gz.extend_from_slice(&whole);
/// assert!(starts_damaged(Compression::Gzip, &gz));
/// assert!(!starts_damaged(Compression::Gzip, b"<html>"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn starts_damaged(compression: Compression, head: &[u8]) -> bool {
    if Compression::detect(head).is_some() {
        return false;
    }
    if decodes_with_magic_restored(compression, head) {
        return true;
    }
    let mut scan = Scan::new(compression, None);
    (1..head.len())
        .map_while(|at| {
            let read_on = scan.read_on_at(head, at);
            (scan.false_starts < MAX_FALSE_STARTS).then_some(read_on)
        })
        .any(|read_on| matches!(read_on, Some(Ok(_))))
}

/// Where [`Decoder::resume`] reads on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadOn {
    /// At a member: a gzip member, a bzip2 or xz stream, a zstd frame.
    Member,
    /// At a bzip2 block, which starts at this bit of the byte (from the most significant).
    Bzip2Block(usize),
    /// At an xz block, its stream's check type this (the .xz format §2.1.1.2).
    XzBlock(u8),
    /// Nowhere: the search ended.
    Nowhere,
}

/// A search for where to read on after damage, byte after byte, counting the candidates
/// that fail their trial.
struct Scan {
    compression: Compression,
    /// The check type of the damaged xz stream, if its header was read.
    xz_check: Option<u8>,
    /// The next bzip2 block magic number at or after the byte looked at.
    bzip2_block: Option<usize>,
    false_starts: usize,
}

impl Scan {
    fn new(compression: Compression, xz_check: Option<u8>) -> Self {
        Scan {
            compression,
            xz_check,
            bzip2_block: None,
            false_starts: 0,
        }
    }

    /// Whether reading can go on at byte `at` of `window`: `Ok` where (the candidate
    /// passed its trial), `Err` for a candidate that failed, `None` for none there.
    #[inline]
    fn read_on_at(&mut self, window: &[u8], at: usize) -> Option<Result<ReadOn, ()>> {
        match self.may_start_at(window, at) {
            true => self.try_at(window, at),
            false => None,
        }
    }

    /// A first look, byte by byte over damaged data: whether a candidate can start at
    /// byte `at` of `window` (its first byte; an xz block header's flags).
    #[inline]
    fn may_start_at(&self, window: &[u8], at: usize) -> bool {
        let first = window[at];
        match self.compression {
            Compression::Gzip => first == GZIP_MAGIC[0],
            Compression::Zstd => first == ZSTD_MAGIC[0],
            Compression::Lz4 => first == lz4::MAGIC[0] || first == lz4::LEGACY_MAGIC[0],
            Compression::Xz => {
                first == 0xfd || (first != 0 && window.get(at + 1).is_some_and(|f| f & 0x3c == 0))
            }
            // Its blocks are found by a search of their own (`bzip2_block_in_byte`).
            Compression::Bzip2 => true,
        }
    }

    /// [`Scan::read_on_at`] past its first look.
    #[inline(never)]
    fn try_at(&mut self, window: &[u8], at: usize) -> Option<Result<ReadOn, ()>> {
        let tried = &window[at..window.len().min(at + TRIAL_INPUT)];
        let found = if self.compression.starts_content(tried) {
            let decodes = trial_decodes(self.compression, tried);
            Some(decodes.then_some(ReadOn::Member).ok_or(()))
        } else {
            match self.compression {
                Compression::Bzip2 => bzip2_block_in_byte(window, at, &mut self.bzip2_block)
                    .map(|found| found.map(ReadOn::Bzip2Block)),
                Compression::Xz if xz::block_header_at(tried) => Some(
                    xz_blocks_decode(tried, self.xz_check)
                        .map(ReadOn::XzBlock)
                        .ok_or(()),
                ),
                _ => None,
            }
        };
        if let Some(Err(())) = found {
            self.false_starts += 1;
        }
        found
    }
}

/// Whether the member at the start of `bytes` decodes: it ends whole, or gives
/// [`TRIAL_OUTPUT`] bytes with no damage, or (bzip2) a block whose CRC matched.
fn trial_decodes(compression: Compression, bytes: &[u8]) -> bool {
    passes_trial(Decoder::new(compression, bytes), false)
}

/// Whether the member at the start of `bytes`, whose magic number is damaged, decodes
/// ([`passes_trial`]) with it restored ([`Compression::restorable_magic`]). `bytes` may
/// end before the member does (the bytes looked at, a file cut short): a member that
/// decodes with no damage up to their end, [`TRIAL_CUT_OUTPUT`] bytes at least, decodes.
/// Tried only where a member was looked for, never over a scan of damaged data.
pub(crate) fn decodes_with_magic_restored(compression: Compression, bytes: &[u8]) -> bool {
    let Some(magic) = compression.restorable_magic() else {
        return false;
    };
    if bytes.len() <= magic.len() || bytes.starts_with(magic) {
        return false;
    }
    let rest = &bytes[magic.len()..bytes.len().min(TRIAL_INPUT)];
    let restored = Cursor::new(magic).chain(rest);
    passes_trial(Decoder::new(compression, restored), true)
}

/// How many decompressed bytes a member tried on a file's first bytes only must give, with
/// no damage before their end, to be taken as decoding ([`decodes_with_magic_restored`]):
/// 16 KiB. Damaged deflate data fails long before.
const TRIAL_CUT_OUTPUT: u64 = 16 * 1024;

/// Whether the xz blocks at the start of `bytes` decode ([`passes_trial`]) as the
/// blocks of a stream whose check type is `check`, or, when that is not known, one of
/// them ([`xz::CHECKS`]): the check type that did.
fn xz_blocks_decode(bytes: &[u8], check: Option<u8>) -> Option<u8> {
    let checks = match check {
        Some(check) => vec![check],
        None => xz::CHECKS.to_vec(),
    };
    checks.into_iter().find(|&check| {
        let mut trial = Decoder::new(Compression::Xz, bytes);
        trial.read_on_at_block(xz_blocks(check));
        let delivered = run_trial(&mut trial);
        trial_passed(&trial, delivered, false)
            || (check != xz::NO_CHECK && an_xz_block_ended_before_the_damage(bytes, &trial))
    })
}

/// Whether the first of the xz blocks at the start of `bytes` ended whole before the
/// damage `trial` (their decoder) met: a block header (the .xz format §3.1, its CRC32
/// matched) starts after it, and the decoder read past that header's start before the
/// damage. The decoder checks a block's check (§3.4) as it reads it, so the block before
/// that header ended with its check matched: as a bzip2 block whose CRC matched, that
/// makes it a block to read on from, though the blocks after it, damaged, give less than
/// [`TRIAL_OUTPUT`] (blocks of less than 1 MiB, damaged a few blocks apart).
fn an_xz_block_ended_before_the_damage(bytes: &[u8], trial: &Decoder<&[u8]>) -> bool {
    let Some(damage) = &trial.damage else {
        return false;
    };
    let read_past = usize::try_from(damage.compressed_offset)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    (1..read_past).any(|at| xz::block_header_at(&bytes[at..]))
}

/// A decoder of the xz blocks at the input's position, as a stream whose check type is
/// `check`: given a stream header made for them ([`xz::stream_header`]).
fn xz_blocks(check: u8) -> Codec {
    let mut stream = xz_stream();
    let header_read = stream.process(&xz::stream_header(check), &mut [], lzma_rust2::Action::Run);
    debug_assert!(header_read.is_ok(), "a made xz stream header is refused");
    let read = XzRead {
        check: Some(check),
        from_block: true,
    };
    Codec::Xz(Some(stream), read)
}

/// Whether `trial`'s first member decodes: it ends whole, or gives [`TRIAL_OUTPUT`] bytes
/// with no damage, or (bzip2) a block whose CRC matched; `cut_short` (its bytes may end
/// before it does), or gives [`TRIAL_CUT_OUTPUT`] bytes with no damage before they end.
fn passes_trial<R: BufRead>(mut trial: Decoder<R>, cut_short: bool) -> bool {
    let delivered = run_trial(&mut trial);
    trial_passed(&trial, delivered, cut_short)
}

/// Reads `trial` until its first member ends whole, it has given [`TRIAL_OUTPUT`] bytes,
/// or it meets damage: how many bytes it gave.
fn run_trial<R: BufRead>(trial: &mut Decoder<R>) -> u64 {
    let mut delivered = 0;
    while trial.whole == 0 && delivered < TRIAL_OUTPUT {
        match trial.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(out) => {
                let n = out.len();
                delivered += n as u64;
                trial.consume(n);
            }
        }
    }
    delivered
}

/// [`passes_trial`]'s verdict on `trial`, run ([`run_trial`]), which gave `delivered` bytes.
fn trial_passed<R>(trial: &Decoder<R>, delivered: u64, cut_short: bool) -> bool {
    let compression = trial.compression;
    let decoded_to_the_cut = cut_short
        && delivered >= TRIAL_CUT_OUTPUT
        && matches!(&trial.damage, Some(damage) if matches!(damage.reason, DamageReason::Truncated(_)));
    trial.whole > 0
        || (trial.damage.is_none() && delivered >= TRIAL_OUTPUT)
        || (compression == Compression::Bzip2 && delivered > 0)
        || decoded_to_the_cut
}

/// How an xz stream is read.
#[derive(Clone, Copy, Default)]
struct XzRead {
    /// The check type (the .xz format §2.1.1.2) of the last stream header read: what a
    /// stream read on at a block is given ([`xz::stream_header`]).
    check: Option<u8>,
    /// Whether the stream being read was read on at a block ([`Decoder::resume`]): it is
    /// given a stream header made for it, and ends at its index, which counts the blocks
    /// passed over too ([`Decoder::xz_index_ends_the_blocks`]).
    from_block: bool,
}

/// An xz stream decoder that allocates at most [`MAX_WINDOW`] for its dictionary.
fn xz_stream() -> Box<lzma_rust2::XzStream> {
    let limit_kib = u32::try_from(MAX_WINDOW / 1024).unwrap_or(u32::MAX);
    Box::new(lzma_rust2::XzStream::new_mem_limit(false, limit_kib))
}

/// Where a gzip member is (RFC 1952 §2.2).
enum GzipState {
    /// Before a member's header, or at the end of the input.
    Header,
    /// In the deflate data, with the CRC-32 and length of what it gave so far.
    Data(Crc),
    /// Before the trailer (CRC32, ISIZE), with what the data gave.
    Trailer(Crc),
}

/// One decoder per compression, in its state.
enum Codec {
    Gzip(Box<Decompress>, GzipState),
    /// `None` between streams.
    Bzip2(Option<Box<Bzip2Stream>>),
    /// `None` between streams.
    Xz(Option<Box<lzma_rust2::XzStream>>, XzRead),
    /// The frame decoder and, inside a frame, whether it ends with a checksum.
    Zstd(Box<FrameDecoder>, Option<bool>),
    Lz4(Box<lz4::Lz4>),
}

impl Codec {
    /// A decoder of `compression`, before its first member.
    fn new(compression: Compression) -> Codec {
        match compression {
            Compression::Gzip => Codec::Gzip(Box::new(Decompress::new(false)), GzipState::Header),
            Compression::Bzip2 => Codec::Bzip2(None),
            Compression::Xz => Codec::Xz(None, XzRead::default()),
            Compression::Zstd => {
                let mut decoder = FrameDecoder::new();
                decoder.set_max_window_size(MAX_WINDOW);
                Codec::Zstd(Box::new(decoder), None)
            }
            Compression::Lz4 => Codec::Lz4(Box::new(lz4::Lz4::new())),
        }
    }
}

/// A reader of the decompressed bytes of every member of a compressed input; on damage it
/// ends cleanly and records it (see the [module documentation](self)).
///
/// It implements [`Read`] and [`BufRead`], handing out up to [`OUTPUT_BUFFER`] bytes at a
/// time. It allocates at most [`MAX_WINDOW`] for a window, whatever the input claims.
///
/// ```
/// use absolve::compress::{Compression, Decoder, DamageReason};
/// use std::io::Read;
///
/// // Two gzip members, then junk.
/// let mut gz = Vec::new();
/// for text in ["one ", "two"] {
///     let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
///     std::io::Write::write_all(&mut e, text.as_bytes())?;
///     gz.extend(e.finish()?);
/// }
/// let members = gz.len() as u64;
/// gz.extend_from_slice(b"junk");
///
/// let mut decoder = Decoder::new(Compression::Gzip, &gz[..]);
/// let mut text = String::new();
/// decoder.read_to_string(&mut text)?;
/// assert_eq!(text, "one two");
/// let damage = decoder.damage().unwrap();
/// assert_eq!(damage.reason, DamageReason::TrailingData(Compression::Gzip));
/// assert_eq!(damage.compressed_offset, members);
/// let mut rest = Vec::new();
/// decoder.into_rest().read_to_end(&mut rest)?;
/// assert_eq!(rest, b"junk");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Decoder<R> {
    compression: Compression,
    input: Input<R>,
    codec: Codec,
    out: Box<[u8]>,
    out_pos: usize,
    out_len: usize,
    delivered: u64,
    /// How many members began; a compressed input with none is not damage-free.
    members: u64,
    /// How many members ended whole (their checksum, when they have one, matched).
    whole: u64,
    /// Whether reading resumed after damage ([`Decoder::resume`]).
    resumed: bool,
    /// Where the stream being read started (0, or where reading resumed), and how many
    /// bytes were delivered then.
    stream_start: u64,
    delivered_at_stream_start: u64,
    /// Where the last member began, in the compressed input, and how many members had
    /// ended whole then.
    member_start: u64,
    whole_at_member_start: u64,
    done: bool,
    damage: Option<Damage>,
    /// Told whether damage ended the stream, once asked for ([`Decoder::damage_end`]).
    damage_end: Option<DamageEnd>,
    /// Where the zstd skippable frames met go, to be written back ([`SkippableFrames`]).
    skippable: Option<SkippableFrames>,
    /// Skippable frames not kept (too large to hold): how many, where the first was.
    not_kept: Option<Damage>,
    /// Whether skippable frames were kept whose place is not decided yet.
    undecided: bool,
}

impl<R: BufRead> Decoder<R> {
    /// A decoder of `compression` over `input` (give it a large buffer: 64 KiB or more).
    pub fn new(compression: Compression, input: R) -> Self {
        Decoder {
            compression,
            input: Input::new(input),
            codec: Codec::new(compression),
            out: vec![0; OUTPUT_BUFFER].into_boxed_slice(),
            out_pos: 0,
            out_len: 0,
            delivered: 0,
            members: 0,
            whole: 0,
            resumed: false,
            stream_start: 0,
            delivered_at_stream_start: 0,
            member_start: 0,
            whole_at_member_start: 0,
            done: false,
            damage: None,
            damage_end: None,
            skippable: None,
            not_kept: None,
            undecided: false,
        }
    }

    /// Keeps the zstd or LZ4 skippable frames met (RFC 8878 §3.1.2, LZ4 Frame Format §5:
    /// no content, but metadata a tool put there: a seek table, pzstd's frame sizes) in `frames`, each with where it
    /// came in the decompressed stream, for an [`Encoder`] given the same `frames` to
    /// write back ([`Encoder::keep_skippable_frames`], [`SkippableFrames`] says where).
    /// Without it they are passed over. At most [`MAX_SKIPPABLE_HELD`] bytes of them are held at once; a
    /// frame that does not fit is left out, and said ([`Decoder::skippable_not_kept`]).
    pub fn keep_skippable_frames(&mut self, frames: SkippableFrames) {
        frames.lock().compression = Some(self.compression);
        if self.resumed {
            // Compressed bytes copied as they are come before the frames written: a seek
            // table at the end would not describe them.
            frames.lock().raw_rest = true;
        }
        self.skippable = Some(frames);
    }

    /// The skippable frames left out of the output for want of room
    /// ([`DamageReason::SkippableNotKept`]), if any: how many, where the first was.
    pub fn skippable_not_kept(&self) -> Option<&Damage> {
        self.not_kept.as_ref()
    }

    /// The compression read.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The damage met, once the decompressed stream has ended; `None` if every member was
    /// whole.
    pub fn damage(&self) -> Option<&Damage> {
        self.damage.as_ref()
    }

    /// Whether damage ended the stream being read, for whoever holds the handle returned:
    /// set once the decoder meets damage, cleared when reading resumes after it
    /// ([`Decoder::resume`]). Not where the input ends inside a member
    /// ([`DamageReason::Truncated`]): that is the file's end.
    pub(crate) fn damage_end(&mut self) -> DamageEnd {
        self.damage_end
            .get_or_insert_with(DamageEnd::default)
            .clone()
    }

    /// Tells the [`Decoder::damage_end`] handle, if any, whether damage ended the stream.
    fn tell_damage_end(&self) {
        if let Some(end) = &self.damage_end {
            let damaged = self.damage.as_ref();
            end.set(
                damaged.is_some_and(|damage| !matches!(damage.reason, DamageReason::Truncated(_))),
            );
        }
    }

    /// Whether the stream being read (from the input's start, or from where reading last
    /// resumed, [`Decoder::resume`]) has delivered no byte so far.
    pub(crate) fn gave_nothing(&self) -> bool {
        self.delivered == self.delivered_at_stream_start && self.out_len == 0
    }

    /// How many compressed bytes were consumed so far.
    pub fn compressed_offset(&self) -> u64 {
        self.input.consumed
    }

    /// The raw compressed bytes not decoded: after damage, from where it starts (see the
    /// [module documentation](self)); empty after a whole stream read to its end.
    pub fn into_rest(self) -> Rest<R> {
        self.input.into_rest()
    }

    /// The damage met, if any, once [`Decoder::resume`] has read on after it: with
    /// `resumed_at` set where reading resumed, if it did. What each reader of a file's
    /// streams says between them (`pipeline::each_stream`, `warc::Links`).
    pub(crate) fn damage_read_on(
        &mut self,
        gap: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<Option<Damage>> {
        let Some(damage) = self.damage.clone() else {
            return Ok(None);
        };
        let resumed = self.resume(gap)?;
        Ok(Some(Damage {
            resumed_at: resumed.then(|| self.compressed_offset()),
            ..damage
        }))
    }

    /// After damage, reads on at the next member (gzip member, bzip2 or xz stream, zstd
    /// or LZ4 frame; a bzip2 or xz block, an LZ4 frame's next independent block) that
    /// decodes: the compressed bytes before it go to `gap` as they are, then the decoder
    /// delivers that member's bytes and those after it, as a stream of its own
    /// (`read` gives bytes again; [`Decoder::damage`] is cleared, the next one is its own).
    /// Returns `false` when none is found before the end of the input (every byte went to
    /// `gap`) or the search gave up ([`MAX_FALSE_STARTS`]); `false` with nothing done when
    /// there was no damage.
    ///
    /// A candidate is a member's magic number (RFC 1952 §2.3.1, RFC 8878 §3.1.1, the xz
    /// and bzip2 stream headers) whose member, decoded from a copy of at most
    /// [`TRIAL_INPUT`] bytes, ends whole (its checksum matched), or gives [`TRIAL_OUTPUT`]
    /// bytes (a bzip2 block, an xz block: one, its check matched) with no damage: damaged
    /// data that happens to hold a magic number fails that. An LZ4 block is where the
    /// damaged block's size field says, and decodes alone. Memory stays bounded: the
    /// copy, then the bytes go to `gap` as they are passed over.
    ///
    /// ```
    /// use absolve::compress::{Compression, Decoder};
    /// use std::io::{Read, Write};
    ///
    /// let member = |text: &str| -> std::io::Result<Vec<u8>> {
    ///     let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    ///     e.write_all(text.as_bytes())?;
    ///     e.finish()
    /// };
    /// let mut damaged = member("one ")?;
    /// let at = damaged.len() - 8;
    /// damaged[at] ^= 1; // its CRC-32
    /// let gz = [damaged.clone(), member("two")?].concat();
    ///
    /// let mut decoder = Decoder::new(Compression::Gzip, &gz[..]);
    /// let mut text = String::new();
    /// decoder.read_to_string(&mut text)?;
    /// assert!(decoder.damage().is_some());
    /// let mut gap = Vec::new();
    /// assert!(decoder.resume(&mut |bytes| Ok(gap.extend_from_slice(bytes)))?);
    /// assert_eq!(gap, damaged[at..]);
    /// decoder.read_to_string(&mut text)?;
    /// assert_eq!(text, "one two");
    /// assert_eq!(decoder.damage(), None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn resume(&mut self, gap: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<bool> {
        if self.damage.is_none() || self.out_pos < self.out_len {
            return Ok(false);
        }
        if self.magic_restores()? {
            self.restart();
            return Ok(true);
        }
        let mut false_starts = 0;
        let xz_check = match &self.codec {
            Codec::Xz(_, read) => read.check,
            _ => None,
        };
        if let Some((skip, codec)) = self.lz4_next_block()? {
            gap(&self.input.peek(skip)?[..skip])?;
            self.input.consume(skip);
            self.restart();
            self.read_on_at_block(codec);
            return Ok(true);
        }
        if let Some(back) = self.ran_into_a_member(&mut false_starts)? {
            self.input.rewind(back);
            self.restart();
            return Ok(true);
        }
        loop {
            let window = self.input.peek(TRIAL_INPUT + SCAN_STEP)?;
            if window.is_empty() {
                return Ok(false);
            }
            let scanned = window.len().min(SCAN_STEP);
            let mut scan = Scan::new(self.compression, xz_check);
            let found = (0..scanned).find_map(|at| match scan.read_on_at(window, at) {
                Some(Ok(read_on)) => Some((at, read_on)),
                Some(Err(())) if scan.false_starts + false_starts >= MAX_FALSE_STARTS => {
                    Some((scanned, ReadOn::Nowhere))
                }
                _ => None,
            });
            false_starts += scan.false_starts;
            let (passed, read_on) = found.unwrap_or((scanned, ReadOn::Nowhere));
            gap(&window[..passed])?;
            self.input.consume(passed);
            if self.read_on(read_on) {
                return Ok(true);
            }
            if false_starts >= MAX_FALSE_STARTS {
                return Ok(false);
            }
        }
    }

    /// Where a member was looked for and none starts (a bad header, bytes after a member
    /// that start no other), whether one whose magic number is damaged does: it decodes
    /// with the magic number restored ([`decodes_with_magic_restored`]). If so, the magic
    /// number is restored in the input, to be read from there.
    fn magic_restores(&mut self) -> io::Result<bool> {
        let Some(damage) = &self.damage else {
            return Ok(false);
        };
        let where_a_member_was_looked_for = matches!(
            damage.reason,
            DamageReason::BadHeader(..) | DamageReason::TrailingData(_)
        ) && damage.compressed_offset == self.input.consumed;
        let compression = self.compression;
        if !where_a_member_was_looked_for
            || !decodes_with_magic_restored(compression, self.input.peek(TRIAL_INPUT)?)
        {
            return Ok(false);
        }
        let magic = compression.restorable_magic().expect("restored above");
        self.input.restore_ahead(magic)?;
        Ok(true)
    }

    /// Reads on at the input's position as `read_on` says; `false` for
    /// [`ReadOn::Nowhere`].
    fn read_on(&mut self, read_on: ReadOn) -> bool {
        if read_on == ReadOn::Nowhere {
            return false;
        }
        self.restart();
        match read_on {
            ReadOn::Nowhere | ReadOn::Member => {}
            // bzip2recover's way: each block alone, its CRC checked.
            ReadOn::Bzip2Block(bit) => {
                self.read_on_at_block(Codec::Bzip2(Some(Box::new(Bzip2Stream::at_block(bit)))))
            }
            ReadOn::XzBlock(check) => self.read_on_at_block(xz_blocks(check)),
        }
        true
    }

    /// Reads on with `codec`, in a stream read on at a block: the stream's start is gone,
    /// and its first member (the rest of the stream) starts here.
    fn read_on_at_block(&mut self, codec: Codec) {
        self.codec = codec;
        self.members = 1;
        self.member_start = self.input.consumed;
        self.whole_at_member_start = self.whole;
    }

    /// Damaged data can decode on into the next member (deflate, LZMA: its bytes read as
    /// the damaged member's): how far back, among the bytes behind, the first member that
    /// starts after the damaged member's start and decodes begins. Those bytes are read
    /// again; what they decoded to as the damaged member's was delivered with it.
    fn ran_into_a_member(&mut self, false_starts: &mut usize) -> io::Result<Option<usize>> {
        if self.whole_at_member_start != self.whole {
            // The last member ended whole: the damage is after it.
            return Ok(None);
        }
        let Some(behind) = self.input.behind_from(self.member_start + 1) else {
            return Ok(None);
        };
        let mut joined = behind.to_vec();
        let back = joined.len();
        joined.extend_from_slice(self.input.peek(TRIAL_INPUT)?);
        for at in 0..back {
            if !self.compression.starts_content(&joined[at..]) {
                continue;
            }
            if trial_decodes(
                self.compression,
                &joined[at..joined.len().min(at + TRIAL_INPUT)],
            ) {
                return Ok(Some(back - at));
            }
            *false_starts += 1;
            if *false_starts >= MAX_FALSE_STARTS {
                break;
            }
        }
        Ok(None)
    }

    /// A new stream at the input's position: the codec before its first member, no
    /// damage (what was delivered is still counted).
    fn restart(&mut self) {
        self.resumed = true;
        self.stream_start = self.input.consumed;
        self.delivered_at_stream_start = self.delivered;
        self.codec = Codec::new(self.compression);
        self.done = false;
        self.damage = None;
        self.tell_damage_end();
        self.not_kept = None;
        self.undecided = false;
        self.members = 0;
        self.out_pos = 0;
        self.out_len = 0;
    }

    /// Ends the stream with `reason`, the rest starting at the input's position.
    fn stop(&mut self, reason: DamageReason) {
        self.done = true;
        self.raw_rest_follows();
        self.damage = Some(Damage {
            compressed_offset: self.input.consumed,
            decompressed_offset: self.delivered + self.out_len as u64,
            reason,
            resumed_at: None,
        });
        self.tell_damage_end();
        self.rest_from_the_start_if_nothing_given();
    }

    /// Damage before the stream (from the input's start, or from where reading resumed)
    /// gave a byte: nothing was decoded from the bytes it consumed, so the rest starts
    /// where it started (when those bytes are still kept, [`LOOKBACK`]), none of them
    /// lost.
    fn rest_from_the_start_if_nothing_given(&mut self) {
        if !self.gave_nothing() {
            return;
        }
        let back = self.input.consumed - self.stream_start;
        if back == 0 || back > self.input.behind.len() as u64 {
            return;
        }
        self.input.rewind(back as usize);
        if let Some(damage) = &mut self.damage {
            damage.compressed_offset = self.stream_start;
        }
    }

    /// What stands after a complete member: the end, another member, zero padding or
    /// other data. Returns whether another member starts.
    fn next_member(&mut self) -> io::Result<bool> {
        let compression = self.compression;
        let head = self.input.peek(Compression::MAGIC_LEN)?;
        if head.is_empty() {
            if self.members == 0 {
                self.stop(DamageReason::Truncated(compression));
            }
            self.done = true;
            return Ok(false);
        }
        if compression.starts(head)
            || (!matches!(compression, Compression::Zstd | Compression::Lz4)
                && head.len() < 4
                && self.members == 0)
        {
            self.members += 1;
            self.member_start = self.input.consumed;
            self.whole_at_member_start = self.whole;
            return Ok(true);
        }
        let zeros = self.input.fill_buf()?.iter().all(|&b| b == 0);
        let reason = if self.members == 0 {
            DamageReason::BadHeader(compression, "no magic number".into())
        } else if zeros {
            DamageReason::ZeroPadding(compression)
        } else {
            DamageReason::TrailingData(compression)
        };
        self.stop(reason);
        Ok(false)
    }

    /// Decodes into the output buffer, from empty, until it holds something or the
    /// stream ended.
    fn fill(&mut self) -> io::Result<()> {
        self.out_pos = 0;
        self.out_len = 0;
        while self.out_len == 0 && !self.done {
            match self.codec {
                Codec::Gzip(..) => self.fill_gzip()?,
                Codec::Bzip2(_) => self.fill_bzip2()?,
                Codec::Xz(..) => self.fill_xz()?,
                Codec::Zstd(..) => self.fill_zstd()?,
                Codec::Lz4(_) => self.fill_lz4()?,
            }
        }
        self.decide_skippable();
        Ok(())
    }

    /// RFC 1952 §2.2: header, deflate data, trailer, member after member.
    fn fill_gzip(&mut self) -> io::Result<()> {
        let Codec::Gzip(inflate, state) = &mut self.codec else {
            unreachable!("fill_gzip on another codec")
        };
        match state {
            GzipState::Header => {
                if !self.next_member()? {
                    return Ok(());
                }
                match gzip_header_len(&mut self.input)? {
                    Ok(len) => {
                        self.input.consume(len);
                        let Codec::Gzip(inflate, state) = &mut self.codec else {
                            unreachable!()
                        };
                        inflate.reset(false);
                        *state = GzipState::Data(Crc::new());
                    }
                    Err(reason) => self.stop(reason),
                }
            }
            GzipState::Data(crc) => {
                let input = self.input.fill_buf()?;
                if input.is_empty() {
                    self.stop(DamageReason::Truncated(Compression::Gzip));
                    return Ok(());
                }
                let (in_before, out_before) = (inflate.total_in(), inflate.total_out());
                let result =
                    inflate.decompress(input, &mut self.out[self.out_len..], FlushDecompress::None);
                let consumed = (inflate.total_in() - in_before) as usize;
                let produced = (inflate.total_out() - out_before) as usize;
                crc.update(&self.out[self.out_len..self.out_len + produced]);
                self.out_len += produced;
                self.input.consume(consumed);
                match result {
                    Ok(FlateStatus::StreamEnd) => {
                        let crc = std::mem::replace(crc, Crc::new());
                        *state = GzipState::Trailer(crc);
                    }
                    Ok(_) if consumed == 0 && produced == 0 => self.stop(DamageReason::Corrupt(
                        Compression::Gzip,
                        "no progress".into(),
                    )),
                    Ok(_) => {}
                    Err(e) => {
                        self.stop(DamageReason::Corrupt(Compression::Gzip, deflate_error(&e)))
                    }
                }
            }
            GzipState::Trailer(crc) => {
                let (sum, amount) = (crc.sum(), crc.amount());
                let trailer = self.input.peek(8)?;
                if trailer.len() < 8 {
                    self.stop(DamageReason::Truncated(Compression::Gzip));
                    return Ok(());
                }
                let stored_crc = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
                let stored_len = u32::from_le_bytes(trailer[4..8].try_into().expect("4 bytes"));
                if stored_crc != sum || stored_len != amount {
                    self.stop(DamageReason::BadChecksum(Compression::Gzip));
                    return Ok(());
                }
                self.input.consume(8);
                let Codec::Gzip(_, state) = &mut self.codec else {
                    unreachable!()
                };
                *state = GzipState::Header;
                self.whole += 1;
            }
        }
        Ok(())
    }

    /// A bzip2 stream, unit by unit ([`Bzip2Stream`]): a block's output is delivered once
    /// its CRC matched, and damage leaves the rest at the byte the damaged unit starts in.
    fn fill_bzip2(&mut self) -> io::Result<()> {
        let Codec::Bzip2(slot) = &mut self.codec else {
            unreachable!("fill_bzip2 on another codec")
        };
        let Some(stream) = slot else {
            if self.next_member()? {
                let Codec::Bzip2(slot) = &mut self.codec else {
                    unreachable!()
                };
                *slot = Some(Box::new(Bzip2Stream::new()));
            }
            return Ok(());
        };
        if stream.held_pos < stream.held.len() {
            let held = &stream.held[stream.held_pos..];
            let n = held.len().min(self.out.len() - self.out_len);
            self.out[self.out_len..self.out_len + n].copy_from_slice(&held[..n]);
            self.out_len += n;
            stream.held_pos += n;
            if stream.held_pos == stream.held.len() && stream.unit == Bzip2Unit::Ended {
                *slot = None;
                self.whole += 1;
            }
            return Ok(());
        }
        match stream.decode_unit(&mut self.input)? {
            Ok(()) if stream.unit == Bzip2Unit::Ended && stream.held.is_empty() => {
                *slot = None;
                self.whole += 1;
            }
            Ok(()) => {}
            // A whole last block, then the end of the input: delivered, then the damage.
            Err(reason) if stream.unit == Bzip2Unit::Ended => {
                let held = std::mem::take(&mut stream.held);
                self.pending_after_damage(held, reason);
            }
            Err(reason) => self.stop(reason),
        }
        Ok(())
    }

    /// An xz stream (the .xz format §2), block after block; one read on at a block
    /// ([`XzRead::from_block`]) ends at its index.
    fn fill_xz(&mut self) -> io::Result<()> {
        let Codec::Xz(slot, read) = &mut self.codec else {
            unreachable!("fill_xz on another codec")
        };
        let Some(stream) = slot else {
            if self.next_member()? {
                let Codec::Xz(slot, read) = &mut self.codec else {
                    unreachable!()
                };
                *slot = Some(xz_stream());
                read.from_block = false;
            }
            return Ok(());
        };
        let input = self.input.fill_buf()?;
        let action = if input.is_empty() {
            lzma_rust2::Action::Finish
        } else {
            lzma_rust2::Action::Run
        };
        let at_end = input.is_empty();
        // The stream counts what it consumed and produced as it goes, so that what came
        // before an error inside this call is delivered too.
        let (in_before, out_before) = (stream.total_in(), stream.total_out());
        let result = stream.process(input, &mut self.out[self.out_len..], action);
        let consumed = (stream.total_in() - in_before) as usize;
        let produced = (stream.total_out() - out_before) as usize;
        if let Some(check) = stream.check_type() {
            read.check = Some(check as u8);
        }
        let from_block = read.from_block;
        self.out_len += produced;
        self.input.consume(consumed);
        match result {
            Ok(result) => {
                if result.status == lzma_rust2::Status::StreamEnd {
                    *slot = None;
                    self.whole += 1;
                } else if consumed == 0 && produced == 0 {
                    let reason = if at_end {
                        DamageReason::Truncated(Compression::Xz)
                    } else {
                        DamageReason::Corrupt(Compression::Xz, "no progress".into())
                    };
                    self.stop(reason);
                }
            }
            Err(_) if from_block && self.xz_index_ends_the_blocks()? => {}
            Err(e) => {
                let text = e.to_string();
                let reason = if at_end || e.kind() == io::ErrorKind::UnexpectedEof {
                    DamageReason::Truncated(Compression::Xz)
                } else if text.contains("memory") {
                    DamageReason::WindowTooLarge(Compression::Xz)
                } else if text.to_ascii_lowercase().contains("check") {
                    DamageReason::BadChecksum(Compression::Xz)
                } else {
                    DamageReason::Corrupt(Compression::Xz, text)
                };
                self.stop(reason);
            }
        }
        Ok(())
    }

    /// A stream read on at a block ([`XzRead::from_block`]) meets its index (§4), whose
    /// record count also counts the blocks passed over, and the decoder refuses it: when
    /// the index and the stream footer after it are whole ([`xz::index_and_footer_len`]),
    /// they are passed over and the stream ends whole (every block's check matched).
    /// Returns whether it did; if not, the position is where it was.
    fn xz_index_ends_the_blocks(&mut self) -> io::Result<bool> {
        // The index indicator and a record count of at most 9 bytes (§1.2).
        let from = self.input.consumed.saturating_sub(10);
        let Some(back) = self
            .input
            .behind_from(from)
            .and_then(xz::index_start_behind)
        else {
            return Ok(false);
        };
        self.input.rewind(back);
        let Some(len) = xz::index_and_footer_len(self.input.peek(xz::MAX_INDEX)?) else {
            self.input.consume(back);
            return Ok(false);
        };
        self.input.consume(len);
        if let Codec::Xz(slot, read) = &mut self.codec {
            *slot = None;
            read.from_block = false;
        }
        self.whole += 1;
        Ok(true)
    }

    /// RFC 8878 §3.1: frame after frame; a skippable frame (§3.1.2) holds no content and
    /// is passed over. A frame is decoded block by block (§3.1.1.2), each block looked at
    /// whole before the decoder reads it, so that damage leaves the rest at the start of
    /// the damaged block (or header), and what the frame decoded before is delivered.
    fn fill_zstd(&mut self) -> io::Result<()> {
        let Codec::Zstd(frames, frame) = &mut self.codec else {
            unreachable!("fill_zstd on another codec")
        };
        if frames.can_collect() > 0 {
            let n = frames.read(&mut self.out[self.out_len..])?;
            self.out_len += n;
            return Ok(());
        }
        let Some(checksum) = *frame else {
            return self.zstd_frame_start();
        };
        if frames.is_finished() {
            let (stored, computed) = (
                frames.get_checksum_from_data(),
                frames.get_calculated_checksum(),
            );
            *frame = None;
            if let (Some(stored), Some(computed)) = (stored, computed)
                && stored != computed
            {
                // The rest starts at the checksum (§3.1.1: 4 bytes after the last block).
                self.stop(DamageReason::BadChecksum(Compression::Zstd));
            } else {
                if checksum {
                    self.input.consume(4);
                }
                self.whole += 1;
            }
            return Ok(());
        }
        self.zstd_block(checksum)
    }

    /// The start of a zstd frame (or a skippable frame, passed over).
    fn zstd_frame_start(&mut self) -> io::Result<()> {
        if !self.next_member()? {
            return Ok(());
        }
        if self.skippable_frame_here(Compression::Zstd)? {
            return Ok(());
        }
        let head = self.input.peek(ZSTD_MAX_HEADER)?;
        // §3.1.1.1.1: bit 2 of the Frame_Header_Descriptor, Content_Checksum_flag.
        let checksum = head.get(4).is_some_and(|d| d & 0x04 != 0);
        let mut header = head;
        let available = header.len();
        let Codec::Zstd(frames, frame) = &mut self.codec else {
            unreachable!()
        };
        match frames.reset(&mut header) {
            Ok(()) => {
                let read = available - header.len();
                self.input.consume(read);
                *frame = Some(checksum);
            }
            Err(e) => {
                let reason = match e {
                    ruzstd::decoding::errors::FrameDecoderError::WindowSizeTooBig { .. } => {
                        DamageReason::WindowTooLarge(Compression::Zstd)
                    }
                    _ if available < ZSTD_MAX_HEADER => DamageReason::Truncated(Compression::Zstd),
                    e => DamageReason::BadHeader(Compression::Zstd, e.to_string()),
                };
                // The rest starts at the frame's magic number.
                self.stop(reason);
            }
        }
        Ok(())
    }

    /// Whether a skippable frame (zstd's and LZ4's share them: RFC 8878 §3.1.2, LZ4 Frame
    /// Format §5) starts at the input's position; if so, it is read ([`Self::skippable_frame`]),
    /// or the input stopped as truncated in `compression` when its size is cut short.
    fn skippable_frame_here(&mut self, compression: Compression) -> io::Result<bool> {
        let head = self.input.peek(8)?;
        if !is_skippable_magic(head) {
            return Ok(false);
        }
        if head.len() < 8 {
            self.stop(DamageReason::Truncated(compression));
            return Ok(true);
        }
        let length = 8 + u64::from(u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")));
        self.skippable_frame(length)?;
        Ok(true)
    }

    /// RFC 8878 §3.1.2 (LZ4 Frame Format §5): a skippable frame of `length` bytes (its
    /// magic number and size included) at the input's position: kept whole if a
    /// [`SkippableFrames`] was given and has room, else passed over (and counted as not
    /// kept if it was given).
    fn skippable_frame(&mut self, length: u64) -> io::Result<()> {
        let offset = self.input.consumed;
        let at = self.delivered + self.out_len as u64;
        let queue = self.skippable.clone();
        let kept = match &queue {
            Some(queue) if queue.has_room(length) => {
                let mut frame = Vec::with_capacity(length as usize);
                (&mut self.input).take(length).read_to_end(&mut frame)?;
                let whole = frame.len() as u64 == length;
                if whole {
                    queue.push(Met { at, offset }, frame);
                    self.undecided = true;
                }
                whole
            }
            _ => {
                let skipped = io::copy(&mut (&mut self.input).take(length), &mut io::sink())?;
                if skipped == length && queue.is_some() {
                    self.count_not_kept(offset, at);
                }
                skipped == length
            }
        };
        if !kept {
            self.stop(DamageReason::Truncated(self.compression));
        }
        Ok(())
    }

    /// Skippable frames kept since content was last delivered: before content if some
    /// came now, after the last if the stream ended.
    fn decide_skippable(&mut self) {
        if !self.undecided || (self.out_len == 0 && !self.done) {
            return;
        }
        if let Some(queue) = &self.skippable {
            queue.decide(self.out_len == 0);
        }
        self.undecided = false;
    }

    /// Damage: the compressed bytes from it on are copied after the rewritten frames, as
    /// they are, which the kept skippable frames are told (a seek table cannot describe
    /// them).
    fn raw_rest_follows(&self) {
        if let Some(queue) = &self.skippable {
            queue.lock().raw_rest = true;
        }
    }

    /// One more skippable frame not kept, at compressed byte `offset`.
    fn count_not_kept(&mut self, offset: u64, at: u64) {
        match &mut self.not_kept {
            Some(Damage {
                reason: DamageReason::SkippableNotKept(_, count),
                ..
            }) => *count += 1,
            _ => {
                self.not_kept = Some(Damage {
                    compressed_offset: offset,
                    decompressed_offset: at,
                    reason: DamageReason::SkippableNotKept(self.compression, 1),
                    resumed_at: None,
                })
            }
        }
    }

    /// One block of a zstd frame (§3.1.1.2), the frame's checksum after the last.
    fn zstd_block(&mut self, checksum: bool) -> io::Result<()> {
        let header = self.input.peek(3)?;
        if header.len() < 3 {
            return self.zstd_damage(DamageReason::Truncated(Compression::Zstd));
        }
        let header = u32::from(header[0]) | u32::from(header[1]) << 8 | u32::from(header[2]) << 16;
        let (last, kind, size) = (header & 1 == 1, (header >> 1) & 3, (header >> 3) as usize);
        let content = match kind {
            1 => 1, // RLE_Block: one byte, repeated
            3 => {
                let reason = DamageReason::Corrupt(Compression::Zstd, "reserved block type".into());
                return self.zstd_damage(reason);
            }
            _ => size,
        };
        if size > ZSTD_MAX_BLOCK {
            let reason =
                DamageReason::Corrupt(Compression::Zstd, "block larger than 128 KiB".into());
            return self.zstd_damage(reason);
        }
        let block_len = 3 + content;
        let trailer = if last && checksum { 4 } else { 0 };
        let bytes = self.input.peek(block_len + trailer)?;
        if bytes.len() < block_len {
            return self.zstd_damage(DamageReason::Truncated(Compression::Zstd));
        }
        // A last block whose checksum is cut short is decoded with a stand-in checksum,
        // so that the frame ends and all it decoded is delivered; the cut checksum is the
        // rest.
        let cut_checksum = bytes.len() < block_len + trailer;
        let block: std::borrow::Cow<'_, [u8]> = if cut_checksum {
            let mut block = bytes[..block_len].to_vec();
            block.extend_from_slice(&[0; 4]);
            block.into()
        } else {
            bytes[..block_len + trailer].into()
        };
        let Codec::Zstd(frames, _) = &mut self.codec else {
            unreachable!()
        };
        if let Err(e) = frames.decode_blocks(&block[..], BlockDecodingStrategy::UptoBlocks(1)) {
            return self.zstd_damage(DamageReason::Corrupt(Compression::Zstd, e.to_string()));
        }
        if cut_checksum {
            self.input.consume(block_len);
            return self.zstd_damage(DamageReason::Truncated(Compression::Zstd));
        }
        // The checksum is consumed once it matched (see `fill_zstd`).
        self.input.consume(block_len);
        Ok(())
    }

    /// Damage in a zstd frame at the input's position: the frame is ended with an empty
    /// last block (§3.1.1.2.2 Raw_Block, size 0) and a stand-in checksum, so that the
    /// decoder hands over all it decoded, window included; that is delivered, then the
    /// stream ends with `reason`.
    fn zstd_damage(&mut self, reason: DamageReason) -> io::Result<()> {
        let Codec::Zstd(frames, frame) = &mut self.codec else {
            unreachable!()
        };
        let checksum = frame.take().unwrap_or(false);
        let end: &[u8] = if checksum {
            &[1, 0, 0, 0, 0, 0, 0]
        } else {
            &[1, 0, 0]
        };
        let mut decoded = Vec::new();
        if frames
            .decode_blocks(end, BlockDecodingStrategy::UptoBlocks(1))
            .is_ok()
        {
            frames.collect_to_writer(&mut decoded)?;
        }
        self.pending_after_damage(decoded, reason);
        Ok(())
    }

    /// The bytes a zstd frame decoder held when its block failed: they are delivered,
    /// then the stream ends with `reason`. At most one window (bounded by [`MAX_WINDOW`]).
    fn pending_after_damage(&mut self, decoded: Vec<u8>, reason: DamageReason) {
        let compressed_offset = self.input.consumed;
        let decompressed_offset = self.delivered + (self.out_len + decoded.len()) as u64;
        self.done = true;
        self.raw_rest_follows();
        self.damage = Some(Damage {
            compressed_offset,
            decompressed_offset,
            reason,
            resumed_at: None,
        });
        self.tell_damage_end();
        if decoded.is_empty() {
            self.rest_from_the_start_if_nothing_given();
        }
        if decoded.len() <= self.out.len() - self.out_len {
            self.out[self.out_len..self.out_len + decoded.len()].copy_from_slice(&decoded);
            self.out_len += decoded.len();
        } else {
            let mut out = std::mem::take(&mut self.out).into_vec();
            out.truncate(self.out_len);
            out.extend_from_slice(&decoded);
            self.out_len = out.len();
            self.out = out.into_boxed_slice();
        }
    }
}

/// What a bzip2 stream holds next, from a bit of the byte at the input's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bzip2Unit {
    /// `BZh` and the block size digit.
    Header,
    /// A block: its magic `0x314159265359`, its CRC and its data, up to the next magic.
    Block,
    /// The end-of-stream magic `0x177245385090` and the stream's CRC, to a byte boundary.
    End,
    /// The stream ended; its last output is being delivered.
    Ended,
}

/// The 48-bit magic numbers that start a bzip2 block (the digits of pi) and the end of a
/// stream (those of the square root of pi).
const BZIP2_BLOCK_MAGIC: u64 = 0x3141_5926_5359;
const BZIP2_END_MAGIC: u64 = 0x1772_4538_5090;

/// The longest a bzip2 unit is looked ahead for its end: a block holds at most 900 kB
/// before its Huffman coding, which can grow incompressible data only a little.
const BZIP2_MAX_UNIT: usize = 2 * 1024 * 1024;

/// One bzip2 stream, decoded a unit (a block) at a time. The units are found by their
/// 48-bit magic numbers, at any bit offset (as `bzip2recover` finds them); the decoder
/// is given one unit's bytes at a time, so that a block's output is known to be whole
/// and its CRC to match when the decoder asks for the next block's bytes. Until then the
/// output is held (a block's output is bounded: 900 kB before bzip2's first run-length
/// coding, at most 46 MB after it).
struct Bzip2Stream {
    decoder: bzip2::Decompress,
    unit: Bzip2Unit,
    /// The bit of the byte at the input's position where the unit starts (0-7, from the
    /// most significant).
    start_bit: usize,
    /// Bytes at the input's position the decoder has read already (0, or 1 when the unit
    /// starts inside that byte).
    ahead: usize,
    held: Vec<u8>,
    held_pos: usize,
    /// Read block by block, each as a stream of its own ([`single_block_stream`]): the
    /// stream was read on at a block after damage ([`Decoder::resume`]), its start and
    /// its stream CRC (over every block) gone.
    blockwise: bool,
}

impl Bzip2Stream {
    fn new() -> Self {
        Bzip2Stream {
            decoder: bzip2::Decompress::new(false),
            unit: Bzip2Unit::Header,
            start_bit: 0,
            ahead: 0,
            held: Vec::new(),
            held_pos: 0,
            blockwise: false,
        }
    }

    /// A stream read on at the block that starts at bit `start_bit` of the byte at the
    /// input's position.
    fn at_block(start_bit: usize) -> Self {
        Bzip2Stream {
            unit: Bzip2Unit::Block,
            start_bit,
            blockwise: true,
            ..Bzip2Stream::new()
        }
    }

    /// Blockwise ([`Bzip2Stream::blockwise`], from [`Bzip2Stream::decode_unit`], which
    /// emptied `held`): the unit at the input's position decoded alone, a block as a stream of its own (its CRC checked), the end of the stream
    /// passed over (its CRC is over blocks that are gone).
    fn decode_alone<R: BufRead>(
        &mut self,
        input: &mut Input<R>,
    ) -> io::Result<Result<(), DamageReason>> {
        if self.unit == Bzip2Unit::End {
            let end = (self.start_bit + 80).div_ceil(8);
            if input.peek(end)?.len() < end {
                return Ok(Err(DamageReason::Truncated(Compression::Bzip2)));
            }
            input.consume(end);
            self.unit = Bzip2Unit::Ended;
            return Ok(Ok(()));
        }
        let (end, next) = find_bzip2_unit_end(input, self.start_bit + 48)?;
        let Some((bit, unit)) = next else {
            let reason = match end < BZIP2_MAX_UNIT {
                true => DamageReason::Truncated(Compression::Bzip2),
                false => DamageReason::Corrupt(Compression::Bzip2, "no end to the block".into()),
            };
            return Ok(Err(reason));
        };
        let bytes = input.peek(end)?;
        match decode_single_block(&bytes[..end], self.start_bit, bit) {
            Some(held) => self.held = held,
            None => {
                let reason = DamageReason::Corrupt(Compression::Bzip2, "bad block".into());
                return Ok(Err(reason));
            }
        }
        input.consume(bit / 8);
        self.start_bit = bit % 8;
        self.unit = unit;
        Ok(Ok(()))
    }

    /// Decodes the unit at the input's position into `held`, and moves the input to the
    /// next one; on damage, nothing of the unit is held and the input stays at its start.
    fn decode_unit<R: BufRead>(
        &mut self,
        input: &mut Input<R>,
    ) -> io::Result<Result<(), DamageReason>> {
        self.held.clear();
        self.held_pos = 0;
        if self.blockwise {
            return self.decode_alone(input);
        }
        let (end, next) = match self.unit {
            // §end of stream: 48 bits of magic and 32 of CRC, then padding.
            Bzip2Unit::End => ((self.start_bit + 80).div_ceil(8), None),
            Bzip2Unit::Header => find_bzip2_unit_end(input, 32)?,
            _ => find_bzip2_unit_end(input, self.start_bit + 48)?,
        };
        let bytes = input.peek(end)?;
        let truncated = bytes.len() < end || (next.is_none() && self.unit != Bzip2Unit::End);
        let bytes = &bytes[self.ahead.min(bytes.len())..end.min(bytes.len())];
        let mut fed = 0;
        loop {
            if self.held.capacity() - self.held.len() < OUTPUT_BUFFER {
                self.held.reserve(OUTPUT_BUFFER);
            }
            let (in_before, out_before) = (self.decoder.total_in(), self.decoder.total_out());
            let result = self.decoder.decompress_vec(&bytes[fed..], &mut self.held);
            fed += (self.decoder.total_in() - in_before) as usize;
            let produced = self.decoder.total_out() - out_before;
            match result {
                Ok(bzip2::Status::StreamEnd) => {
                    input.consume(self.ahead + fed);
                    self.unit = Bzip2Unit::Ended;
                    return Ok(Ok(()));
                }
                Ok(_)
                    if produced == 0
                        && (fed == bytes.len() || in_before == self.decoder.total_in()) =>
                {
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.held.clear();
                    return Ok(Err(match e {
                        bzip2::Error::DataMagic => {
                            DamageReason::BadHeader(Compression::Bzip2, "bad magic number".into())
                        }
                        _ if truncated => DamageReason::Truncated(Compression::Bzip2),
                        e => DamageReason::Corrupt(Compression::Bzip2, e.to_string()),
                    }));
                }
            }
        }
        self.held.shrink_to(OUTPUT_BUFFER);
        let input_ended = end < BZIP2_MAX_UNIT && fed == bytes.len();
        if next.is_none() && input_ended && !self.held.is_empty() {
            // The block was output whole and its CRC matched (bzip2 outputs a block once
            // it is read, and checks its CRC once it is output): the input ends in the
            // marker after it. The rest starts where that marker can start.
            let full = input.peek(end)?;
            let marker = partial_bzip2_magic(&full[..end.min(full.len())], self.start_bit + 48);
            input.consume(marker / 8);
            self.unit = Bzip2Unit::Ended;
            return Ok(Err(DamageReason::Truncated(Compression::Bzip2)));
        }
        if self.unit == Bzip2Unit::Block && self.held.is_empty() && next.is_some() {
            // A whole block gives its output once read: one that gives none is cut short,
            // the next unit's bytes read as its own (the stream after it is another's).
            let reason = DamageReason::Corrupt(Compression::Bzip2, "a block cut short".into());
            return Ok(Err(reason));
        }
        let Some((bit, unit)) = next.filter(|_| fed == bytes.len()) else {
            self.held.clear();
            let reason = if truncated && end < BZIP2_MAX_UNIT {
                DamageReason::Truncated(Compression::Bzip2)
            } else {
                DamageReason::Corrupt(Compression::Bzip2, "no end to the block".into())
            };
            return Ok(Err(reason));
        };
        input.consume(bit / 8);
        self.ahead = end - bit / 8;
        self.start_bit = bit % 8;
        self.unit = unit;
        Ok(Ok(()))
    }
}

/// The bzip2 block from bit `from` to bit `to` of `bytes` as a stream of its own, as
/// `bzip2recover` writes one: the stream header (`BZh9`: the largest block size, any
/// block fits), the block's bits, the end-of-stream magic number and the stream CRC,
/// which for one block is the block's CRC (the 32 bits after its magic number).
fn single_block_stream(bytes: &[u8], from: usize, to: usize) -> Vec<u8> {
    let bit_at = |bit: usize| u64::from(bytes[bit / 8] >> (7 - bit % 8) & 1);
    let mut out = BitWriter::default();
    out.push(u64::from_be_bytes(*b"\0\0\0\0BZh9"), 32);
    let mut bit = from;
    while bit + 8 <= to {
        let (byte, shift) = (bit / 8, bit % 8);
        let high = u64::from(bytes[byte]) << shift;
        let low = u64::from(*bytes.get(byte + 1).unwrap_or(&0)) >> (8 - shift);
        out.push((high | low) & 0xff, 8);
        bit += 8;
    }
    for bit in bit..to {
        out.push(bit_at(bit), 1);
    }
    let crc = (from + 48..from + 80).fold(0, |crc, bit| crc << 1 | bit_at(bit));
    out.push(BZIP2_END_MAGIC, 48);
    out.push(crc, 32);
    out.finish()
}

/// Bits written most significant first, the last byte padded with zeros.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    bits: u64,
    count: u32,
}

impl BitWriter {
    /// The low `n` bits of `value` (at most 56).
    fn push(&mut self, value: u64, n: u32) {
        let mut n = n;
        while n > 0 {
            let take = n.min(56 - self.count);
            let part = (value >> (n - take)) & ((1 << take) - 1);
            self.bits = self.bits << take | part;
            self.count += take;
            n -= take;
            while self.count >= 8 {
                self.count -= 8;
                self.bytes.push((self.bits >> self.count) as u8);
            }
            self.bits &= (1 << self.count) - 1;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.count > 0 {
            self.bytes.push((self.bits << (8 - self.count)) as u8);
        }
        self.bytes
    }
}

/// For [`Decoder::resume`]: whether a bzip2 block starts in byte `at` of `window` and
/// decodes (`Ok` with its bit in the byte) or not (`Err`); `None` if none starts there.
/// `next` keeps where the next block magic number was found, so that `window` is
/// searched once.
fn bzip2_block_in_byte(
    window: &[u8],
    at: usize,
    next: &mut Option<usize>,
) -> Option<Result<usize, ()>> {
    if next.is_none_or(|bit| bit < at * 8) {
        *next = Some(next_bzip2_block(window, at * 8).unwrap_or(usize::MAX));
    }
    let bit = next.filter(|bit| bit / 8 == at)?;
    Some(match bzip2_block_decodes(window, bit) {
        true => Ok(bit % 8),
        false => Err(()),
    })
}

/// The first bit at `from` or later in `bytes` where a bzip2 block magic number starts.
fn next_bzip2_block(bytes: &[u8], from: usize) -> Option<usize> {
    let mut from = from;
    loop {
        match find_bzip2_magic(bytes, from)? {
            (bit, Bzip2Unit::Block) => return Some(bit),
            (bit, _) => from = bit + 1,
        }
    }
}

/// Whether the bzip2 block whose magic number starts at bit `start` of `bytes` decodes
/// alone, its CRC matched ([`decode_single_block`]); its end is the next magic number,
/// within [`BZIP2_MAX_UNIT`] bytes.
fn bzip2_block_decodes(bytes: &[u8], start: usize) -> bool {
    let limit = bytes.len().min(start / 8 + BZIP2_MAX_UNIT);
    find_bzip2_magic(&bytes[..limit], start + 48)
        .is_some_and(|(end, _)| decode_single_block(bytes, start, end).is_some())
}

/// What the bzip2 block from bit `from` to bit `to` of `bytes` decodes to, decoded alone
/// ([`single_block_stream`]); `None` if it does not decode or its CRC does not match.
fn decode_single_block(bytes: &[u8], from: usize, to: usize) -> Option<Vec<u8>> {
    // 48 bits of magic number and 32 of CRC at least.
    if to < from + 80 {
        return None;
    }
    let stream = single_block_stream(bytes, from, to);
    let mut decoder = bzip2::Decompress::new(false);
    let mut out = Vec::with_capacity(OUTPUT_BUFFER);
    loop {
        if out.capacity() - out.len() < OUTPUT_BUFFER {
            out.reserve(OUTPUT_BUFFER);
        }
        let before = (decoder.total_in(), decoder.total_out());
        let status = decoder.decompress_vec(&stream[decoder.total_in() as usize..], &mut out);
        match status {
            Ok(bzip2::Status::StreamEnd) => return Some(out),
            Ok(_) if before == (decoder.total_in(), decoder.total_out()) => return None,
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

/// Where the bzip2 unit at the input's position ends: the byte after its last bit, and
/// the bit where the next unit starts and what it is (`None` when no magic number comes
/// before the end of the input or [`BZIP2_MAX_UNIT`]). Looks ahead without consuming.
fn find_bzip2_unit_end<R: BufRead>(
    input: &mut Input<R>,
    from_bit: usize,
) -> io::Result<(usize, Option<(usize, Bzip2Unit)>)> {
    let mut want = 64 * 1024;
    let mut scanned = from_bit;
    loop {
        let bytes = input.peek(want)?;
        if let Some(found) = find_bzip2_magic(&bytes[..bytes.len().min(want)], scanned) {
            return Ok((found.0.div_ceil(8), Some(found)));
        }
        if bytes.len() < want || want >= BZIP2_MAX_UNIT {
            return Ok((bytes.len().min(want), None));
        }
        // The next look starts where a magic number could still begin.
        scanned = scanned.max((bytes.len() * 8).saturating_sub(47));
        want = (want * 4).min(BZIP2_MAX_UNIT);
    }
}

/// The first bit at `from` or later from which the rest of `bytes` is the start of a
/// bzip2 block or end-of-stream magic number (a marker cut by the end of the input);
/// the end of `bytes` when none is.
fn partial_bzip2_magic(bytes: &[u8], from: usize) -> usize {
    const MAGICS: [u64; 2] = [BZIP2_BLOCK_MAGIC, BZIP2_END_MAGIC];
    let total = bytes.len() * 8;
    let bit_at = |bit: usize| u64::from(bytes[bit / 8] >> (7 - bit % 8) & 1);
    (from.max(total.saturating_sub(47))..total)
        .find(|&start| {
            let len = total - start;
            let tail = (start..total).fold(0, |value, bit| value << 1 | bit_at(bit));
            MAGICS.iter().any(|magic| magic >> (48 - len) == tail)
        })
        .unwrap_or(total)
}

/// The first bzip2 block or end-of-stream magic number starting at bit `from` or later
/// in `bytes` (bits counted from the most significant of each byte, as bzip2 writes).
fn find_bzip2_magic(bytes: &[u8], from: usize) -> Option<(usize, Bzip2Unit)> {
    const MASK: u64 = (1 << 48) - 1;
    let total = bytes.len() * 8;
    for byte in from / 8..bytes.len() {
        let mut window = [0u8; 8];
        let n = (bytes.len() - byte).min(8);
        window[..n].copy_from_slice(&bytes[byte..byte + n]);
        let window = u64::from_be_bytes(window);
        for shift in 0..8 {
            let bit = byte * 8 + shift;
            if bit + 48 > total {
                return None;
            }
            if bit < from {
                continue;
            }
            match (window >> (16 - shift)) & MASK {
                BZIP2_BLOCK_MAGIC => return Some((bit, Bzip2Unit::Block)),
                BZIP2_END_MAGIC => return Some((bit, Bzip2Unit::End)),
                _ => {}
            }
        }
    }
    None
}

/// What a deflate error says. zlib-rs 0.6 reports an error its fast decoding loop finds
/// (`invalid distance too far back`, `invalid distance code`, ...) as `repeated call with
/// bad state`: the message of the state it then enters overwrites the real one, and it
/// reads as a fault of the caller's. It is said as what it is: the data do not decode.
fn deflate_error(error: &flate2::DecompressError) -> String {
    match error.message() {
        Some("repeated call with bad state") => "invalid deflate data".to_owned(),
        _ => error.to_string(),
    }
}

/// RFC 1952 §2.3: the length of the gzip member header at the input's start, or what is
/// wrong with it. Looks ahead without consuming.
fn gzip_header_len<R: BufRead>(input: &mut Input<R>) -> io::Result<Result<usize, DamageReason>> {
    const FHCRC: u8 = 0x02;
    const FEXTRA: u8 = 0x04;
    const FNAME: u8 = 0x08;
    const FCOMMENT: u8 = 0x10;
    const RESERVED: u8 = 0xe0;
    let bad = |what: &str| Ok(Err(DamageReason::BadHeader(Compression::Gzip, what.into())));
    let truncated = || Ok(Err(DamageReason::Truncated(Compression::Gzip)));
    let mut need = 10;
    let head = input.peek(need)?;
    if head.len() < need {
        return truncated();
    }
    let flags = head[3];
    if flags & RESERVED != 0 {
        return bad("reserved flag bits set");
    }
    if flags & FEXTRA != 0 {
        let head = input.peek(need + 2)?;
        if head.len() < need + 2 {
            return truncated();
        }
        need += 2 + usize::from(u16::from_le_bytes([head[need], head[need + 1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag == 0 {
            continue;
        }
        // A zero-terminated string: look ahead in growing steps, up to the limit.
        let mut ahead = need + 256;
        loop {
            let head = input.peek(ahead)?;
            if let Some(nul) = head.get(need..).and_then(|s| memchr::memchr(0, s)) {
                need += nul + 1;
                break;
            }
            if head.len() < ahead {
                return truncated();
            }
            if ahead >= MAX_GZIP_HEADER {
                return bad("file name or comment too long");
            }
            ahead = (ahead * 2).min(MAX_GZIP_HEADER);
        }
    }
    if flags & FHCRC != 0 {
        need += 2;
    }
    if input.peek(need)?.len() < need {
        return truncated();
    }
    Ok(Ok(need))
}

impl<R: BufRead> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_from_buffer(self, buf)
    }
}

impl<R: BufRead> BufRead for Decoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.out_pos >= self.out_len {
            self.fill()?;
        }
        Ok(&self.out[self.out_pos..self.out_len])
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.out_len - self.out_pos);
        self.out_pos += amount;
        self.delivered += amount as u64;
    }
}

/// The most bytes of zstd skippable frames held at once between a [`Decoder`] and an
/// [`Encoder`] ([`Decoder::keep_skippable_frames`]): 16 MiB. Real ones are small (a seek
/// table, a few bytes per frame).
pub const MAX_SKIPPABLE_HELD: u64 = 16 << 20;

/// The zstd skippable frames (RFC 8878 §3.1.2) a [`Decoder`] met and an [`Encoder`] has
/// yet to write: shared, since the decoder may run on another thread. Bounded by
/// [`MAX_SKIPPABLE_HELD`].
///
/// A rewrite changes the content's length, and the encoder cuts frames of its own
/// ([`ZSTD_FRAME`]): of the input's frame boundaries, only the start and the end of the
/// content are still in the output. So a skippable frame is written:
///
/// - before the first content if it came before it (a dictionary, a header), after the
///   last if it came after it; unchanged, in its order;
/// - after the content if it came between two content frames, before those that came
///   after the last, and said ([`SkippableFrames::notes`],
///   [`DamageReason::SkippableMoved`]): at the same decompressed offset of the new
///   content it would cut a line, a message, a record;
/// - rewritten if it describes the frames around it, so that it describes the frames
///   written rather than the input's: pzstd's frame sizes (magic `0x184D2A50`, 4 bytes,
///   the compressed size of the frame after it, which `pzstd -d` trusts: it takes any
///   skippable frame of that shape for one) come before each frame written; a seek table (zstd's seekable format: magic `0x184D2A5E`, footer
///   magic `0x8F92EAB1`) comes once, last, with an entry for every frame before it,
///   skippable ones included (decompressed size 0), and checksums if the input's had
///   them. After damage, the input's bytes copied as they are follow the frames written,
///   and no table at their end could describe them: it is left out, and said
///   ([`DamageReason::SeekTableDropped`]).
///
/// ```
/// use absolve::compress::{Compression, DamageReason, Decoder, Encoder, SkippableFrames};
/// use std::io::{Read, Write};
///
/// let skippable = |data: &[u8]| {
///     let mut frame = vec![0x53, 0x2a, 0x4d, 0x18, data.len() as u8, 0, 0, 0];
///     frame.extend_from_slice(data);
///     frame
/// };
/// let zstd = |text: &[u8]| -> std::io::Result<Vec<u8>> {
///     let mut encoder = Encoder::new(Compression::Zstd, Vec::new())?;
///     encoder.write_all(text)?;
///     encoder.finish()
/// };
/// // Metadata, content, metadata, content.
/// let mut zst = skippable(b"head");
/// zst.extend(zstd(b"<a href=x>")?);
/// zst.extend(skippable(b"middle"));
/// zst.extend(zstd(b"<a href=y>")?);
///
/// let frames = SkippableFrames::default();
/// let mut decoder = Decoder::new(Compression::Zstd, &zst[..]);
/// decoder.keep_skippable_frames(frames.clone());
/// let mut text = Vec::new();
/// decoder.read_to_end(&mut text)?;
/// let mut encoder = Encoder::new(Compression::Zstd, Vec::new())?;
/// encoder.keep_skippable_frames(frames.clone());
/// encoder.write_all(&text)?;
///
/// // The head first, the content in one frame, the middle frame after it.
/// let mut expected = skippable(b"head");
/// expected.extend(zstd(b"<a href=x><a href=y>")?);
/// expected.extend(skippable(b"middle"));
/// assert_eq!(encoder.finish()?, expected);
/// let notes = frames.notes();
/// assert_eq!(notes.len(), 1);
/// assert_eq!(notes[0].reason, DamageReason::SkippableMoved(Compression::Zstd, 1));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SkippableFrames(Arc<Mutex<SkippableQueue>>);

#[derive(Debug, Default)]
struct SkippableQueue {
    /// The compression of the frames: zstd's pzstd sizes and seek tables are told from
    /// other frames ([`SkippableKind`]); LZ4's are all kept as they are.
    compression: Option<Compression>,
    /// Each frame kept, with where it came (see [`Place`]) and where it was met.
    frames: VecDeque<(Place, Met, Vec<u8>)>,
    /// Whether the frame at the queue's back is shaped as pzstd's size of the next frame.
    pzstd_shaped: bool,
    held: u64,
    /// Whether pzstd's frame sizes were met: one is written before each frame.
    pzstd: bool,
    /// The last seek table met, and whether its entries had checksums: one is written
    /// last.
    seek_table: Option<(Met, bool)>,
    /// Whether the decoder stopped on damage: the compressed bytes from it on follow.
    raw_rest: bool,
    /// What the encoder did that is said: frames moved, a seek table left out.
    moved: Option<Damage>,
    table_dropped: Option<Damage>,
}

/// Where the decoder met a skippable frame: after `at` decompressed bytes, at compressed
/// byte `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Met {
    at: u64,
    offset: u64,
}

/// Where a skippable frame came among the content frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Whether content follows is not known yet.
    Undecided,
    /// Before the first content.
    Start,
    /// Between two content frames.
    Middle,
    /// After the last content.
    End,
}

/// What a skippable frame holds, told by its magic number and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkippableKind {
    /// pzstd's: magic `0x184D2A50`, 4 bytes, the compressed size of the frame after it
    /// (if a frame follows it).
    PzstdSize,
    /// The seekable format's seek table, with whether its entries have checksums.
    SeekTable { checksums: bool },
    /// Anything else: kept as it is.
    Other,
}

/// pzstd's skippable frame (zstd's `contrib/pzstd/SkippableFrame.h`): magic `0x184D2A50`,
/// `Frame_Size` 4, then the compressed size of the frame that follows.
const PZSTD_MAGIC: [u8; 4] = [0x50, 0x2a, 0x4d, 0x18];

/// The seekable format's seek table (zstd's
/// `contrib/seekable_format/zstd_seekable_compression_format.md`): a skippable frame of
/// magic `0x184D2A5E`, its entries, then a 9-byte footer: `Number_Of_Frames` (4 bytes),
/// `Seek_Table_Descriptor` (1) and `Seekable_Magic_Number` `0x8F92EAB1` (4).
const SEEK_TABLE_MAGIC: [u8; 4] = [0x5e, 0x2a, 0x4d, 0x18];
const SEEKABLE_MAGIC: [u8; 4] = [0xb1, 0xea, 0x92, 0x8f];
const SEEK_TABLE_FOOTER: usize = 9;
/// `Seek_Table_Descriptor` bit 7: each entry ends with a checksum.
const SEEK_TABLE_CHECKSUMS: u8 = 0x80;

/// The checksum of no data: the low 32 bits of XXH64 of nothing, seed 0, as a zstd
/// frame's `Content_Checksum` (RFC 8878 §3.1.1) and a seek table entry's checksum are.
const EMPTY_CHECKSUM: u32 = 0x51d8_e999;

impl SkippableKind {
    /// What the skippable frame `frame` (magic number and size included) holds.
    fn of(frame: &[u8]) -> SkippableKind {
        if frame.len() == 12 && frame.starts_with(&PZSTD_MAGIC) && frame[4..8] == [4, 0, 0, 0] {
            return SkippableKind::PzstdSize;
        }
        let payload = frame.get(8..).unwrap_or_default();
        if !frame.starts_with(&SEEK_TABLE_MAGIC) || payload.len() < SEEK_TABLE_FOOTER {
            return SkippableKind::Other;
        }
        let footer = &payload[payload.len() - SEEK_TABLE_FOOTER..];
        let frames = u64::from(u32::from_le_bytes(footer[..4].try_into().expect("4 bytes")));
        let descriptor = footer[4];
        // Bits 6-2 are reserved, and must be zero.
        if footer[5..] != SEEKABLE_MAGIC || descriptor & 0x7c != 0 {
            return SkippableKind::Other;
        }
        let checksums = descriptor & SEEK_TABLE_CHECKSUMS != 0;
        let entry = if checksums { 12 } else { 8 };
        match frames * entry + SEEK_TABLE_FOOTER as u64 == payload.len() as u64 {
            true => SkippableKind::SeekTable { checksums },
            false => SkippableKind::Other,
        }
    }
}

impl SkippableFrames {
    fn lock(&self) -> std::sync::MutexGuard<'_, SkippableQueue> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has_room(&self, length: u64) -> bool {
        self.lock().held + length <= MAX_SKIPPABLE_HELD
    }

    /// A frame the decoder met: kept, or (a seek table) noted, to be rewritten.
    fn push(&self, met: Met, frame: Vec<u8>) {
        let mut queue = self.lock();
        let kind = match queue.compression {
            Some(Compression::Lz4) => SkippableKind::Other,
            _ => SkippableKind::of(&frame),
        };
        match kind {
            SkippableKind::SeekTable { checksums } => queue.seek_table = Some((met, checksums)),
            kind => {
                queue.held += frame.len() as u64;
                queue.frames.push_back((Place::Undecided, met, frame));
                queue.pzstd_shaped = kind == SkippableKind::PzstdSize;
            }
        }
    }

    /// The frames whose place was undecided: content follows them (`ended` false), or
    /// none does. The last, if shaped as pzstd's size of the next frame and content
    /// follows, is pzstd's: rewritten, not kept.
    fn decide(&self, ended: bool) {
        let mut queue = self.lock();
        if std::mem::take(&mut queue.pzstd_shaped) && !ended {
            let (_, _, frame) = queue.frames.pop_back().expect("the frame pushed last");
            queue.held -= frame.len() as u64;
            queue.pzstd = true;
        }
        for (place, met, _) in &mut queue.frames {
            if *place == Place::Undecided {
                *place = match (ended, met.at) {
                    (true, _) => Place::End,
                    (false, 0) => Place::Start,
                    (false, _) => Place::Middle,
                };
            }
        }
    }

    /// The next frame, if it came before the first content.
    fn pop_start(&self) -> Option<Vec<u8>> {
        let mut queue = self.lock();
        if !matches!(queue.frames.front(), Some((Place::Start, ..))) {
            return None;
        }
        let (_, _, frame) = queue.frames.pop_front()?;
        queue.held -= frame.len() as u64;
        Some(frame)
    }

    /// The next frame, wherever it came, once the content is written; one that came
    /// between content frames is counted as moved.
    fn pop_remaining(&self) -> Option<Vec<u8>> {
        let mut queue = self.lock();
        let (place, met, frame) = queue.frames.pop_front()?;
        queue.held -= frame.len() as u64;
        if place == Place::Middle {
            match &mut queue.moved {
                Some(Damage {
                    reason: DamageReason::SkippableMoved(_, count),
                    ..
                }) => *count += 1,
                _ => {
                    let compression = queue.compression.unwrap_or(Compression::Zstd);
                    queue.moved = Some(met.note(DamageReason::SkippableMoved(compression, 1)));
                }
            }
        }
        Some(frame)
    }

    /// Whether pzstd's frame sizes are to be written.
    fn pzstd(&self) -> bool {
        self.lock().pzstd
    }

    /// Whether a seek table is to be written last, and with checksums; `None` if none
    /// was met, or if the bytes after damage follow (then it is left out, and noted).
    fn seek_table_to_write(&self) -> Option<bool> {
        let mut queue = self.lock();
        let (met, checksums) = queue.seek_table?;
        if queue.raw_rest {
            queue.table_dropped = Some(met.note(DamageReason::SeekTableDropped));
            return None;
        }
        Some(checksums)
    }

    /// What an [`Encoder`] did with the frames that a user should be told, once it
    /// finished: frames that came between content frames written after the content
    /// ([`DamageReason::SkippableMoved`]: how many, where the first was met), a seek
    /// table left out after damage ([`DamageReason::SeekTableDropped`]). Not damage: the
    /// content is whole. See [`SkippableFrames`] for an example.
    pub fn notes(&self) -> Vec<Damage> {
        let queue = self.lock();
        queue
            .moved
            .iter()
            .chain(&queue.table_dropped)
            .cloned()
            .collect()
    }
}

impl Met {
    /// A note about the frame met here.
    fn note(self, reason: DamageReason) -> Damage {
        Damage {
            compressed_offset: self.offset,
            decompressed_offset: self.at,
            reason,
            resumed_at: None,
        }
    }
}

/// A writer that compresses what it is given, in one of the [`Compression`]s; call
/// [`Encoder::finish`] at the end.
///
/// gzip is written as one member at the default level (6); bzip2 at level 9 (the `bzip2`
/// tool's default); xz at preset 6 (the `xz` tool's default); zstd with the `ruzstd`
/// crate's only level, near `zstd -1`, as a sequence of frames of [`ZSTD_FRAME`] bytes of
/// input each (RFC 8878 §3.1: a stream is one frame or more), so that memory is bounded.
///
/// ```
/// use absolve::compress::{Compression, Decoder, Encoder, ALL};
/// use std::io::{Read, Write};
///
/// for compression in ALL {
///     let mut encoder = Encoder::new(compression, Vec::new())?;
///     encoder.write_all(b"<a href=x>")?;
///     let bytes = encoder.finish()?;
///     let mut back = Vec::new();
///     Decoder::new(compression, &bytes[..]).read_to_end(&mut back)?;
///     assert_eq!(back, b"<a href=x>");
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Encoder<W: Write> {
    inner: EncoderInner<W>,
}

enum EncoderInner<W: Write> {
    Gzip(flate2::write::GzEncoder<W>),
    Bzip2(bzip2::write::BzEncoder<W>),
    Xz(Box<lzma_rust2::XzWriter<W>>),
    Zstd(ZstdFrames<W>),
    Lz4(Lz4Frames<W>),
}

/// How much input each zstd frame an [`Encoder`] writes holds: 4 MiB.
pub const ZSTD_FRAME: usize = 4 * 1024 * 1024;

/// Writes zstd frames of up to [`ZSTD_FRAME`] bytes of input each.
struct ZstdFrames<W> {
    inner: W,
    pending: Vec<u8>,
    compressed: Vec<u8>,
    /// Whether a frame was written: an empty input still gets one (empty) frame.
    wrote: bool,
    /// The skippable frames to write back ([`SkippableFrames`]).
    skippable: Option<SkippableFrames>,
    /// Every frame written so far, for a seek table.
    written: Vec<SeekEntry>,
}

/// A seek table entry: a frame's compressed and decompressed sizes, and the checksum of
/// its content if known.
#[derive(Debug, Clone, Copy)]
struct SeekEntry {
    compressed: u64,
    decompressed: u64,
    checksum: Option<u32>,
}

impl<W: Write> ZstdFrames<W> {
    /// Writes the frame in progress: after the skippable frames that came before the
    /// content, and after pzstd's size of it if the input had pzstd's sizes.
    fn flush_frame(&mut self) -> io::Result<()> {
        let mut compressed = std::mem::take(&mut self.compressed);
        compressed.clear();
        ruzstd::encoding::compress(
            &self.pending[..],
            &mut compressed,
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        while let Some(frame) = self.skippable.as_ref().and_then(SkippableFrames::pop_start) {
            self.write_skippable(&frame)?;
        }
        if self.skippable.as_ref().is_some_and(SkippableFrames::pzstd) {
            self.write_skippable(&pzstd_size(compressed.len()))?;
        }
        let checksum = content_checksum(&compressed);
        self.write_frame(&compressed, self.pending.len() as u64, checksum)?;
        self.compressed = compressed;
        self.pending.clear();
        self.wrote = true;
        Ok(())
    }

    /// Writes a skippable frame (no content).
    fn write_skippable(&mut self, frame: &[u8]) -> io::Result<()> {
        self.write_frame(frame, 0, Some(EMPTY_CHECKSUM))
    }

    /// Writes a frame, noted for a seek table.
    fn write_frame(
        &mut self,
        frame: &[u8],
        decompressed: u64,
        checksum: Option<u32>,
    ) -> io::Result<()> {
        self.inner.write_all(frame)?;
        if self.skippable.is_some() {
            self.written.push(SeekEntry {
                compressed: frame.len() as u64,
                decompressed,
                checksum,
            });
        }
        Ok(())
    }

    /// Ends the stream: the frame in progress, then every skippable frame left (those
    /// that came after the first content), then a seek table if the input had one.
    fn finish(mut self) -> io::Result<W> {
        if !self.pending.is_empty() || !self.wrote {
            self.flush_frame()?;
        }
        let Some(queue) = self.skippable.clone() else {
            return Ok(self.inner);
        };
        while let Some(frame) = queue.pop_remaining() {
            self.write_skippable(&frame)?;
        }
        if let Some(table) = queue
            .seek_table_to_write()
            .and_then(|checksums| seek_table(&self.written, checksums))
        {
            self.inner.write_all(&table)?;
        }
        Ok(self.inner)
    }
}

/// pzstd's skippable frame ([`PZSTD_MAGIC`]) giving the compressed size of the frame
/// after it, `length` bytes (a frame of [`ZSTD_FRAME`] bytes of input, well below 4 GiB).
fn pzstd_size(length: usize) -> [u8; 12] {
    let size = u32::try_from(length).expect("a frame of 4 MiB of input fits in 4 GiB");
    let mut frame = [0; 12];
    frame[..4].copy_from_slice(&PZSTD_MAGIC);
    frame[4] = 4;
    frame[8..].copy_from_slice(&size.to_le_bytes());
    frame
}

/// RFC 8878 §3.1.1: a frame's `Content_Checksum`, its last 4 bytes if its header's
/// `Content_Checksum_flag` (§3.1.1.1.1, bit 2) says it has one.
fn content_checksum(frame: &[u8]) -> Option<u32> {
    let flagged = frame.starts_with(&ZSTD_MAGIC) && frame.get(4).is_some_and(|d| d & 0x04 != 0);
    let last = frame.len().checked_sub(4).filter(|_| flagged)?;
    Some(u32::from_le_bytes(
        frame[last..].try_into().expect("4 bytes"),
    ))
}

/// The seekable format's seek table ([`SEEK_TABLE_MAGIC`]) for the frames `entries`,
/// with checksums if asked and every entry has one. `None` past what its 32-bit fields
/// hold (some 350 million frames, over a petabyte of content).
fn seek_table(entries: &[SeekEntry], checksums: bool) -> Option<Vec<u8>> {
    let checksums = checksums && entries.iter().all(|e| e.checksum.is_some());
    let entry = if checksums { 12 } else { 8 };
    let size = u32::try_from(entries.len() * entry + SEEK_TABLE_FOOTER).ok()?;
    let mut table = Vec::with_capacity(8 + size as usize);
    table.extend_from_slice(&SEEK_TABLE_MAGIC);
    table.extend_from_slice(&size.to_le_bytes());
    for e in entries {
        table.extend_from_slice(&u32::try_from(e.compressed).ok()?.to_le_bytes());
        table.extend_from_slice(&u32::try_from(e.decompressed).ok()?.to_le_bytes());
        if let (true, Some(checksum)) = (checksums, e.checksum) {
            table.extend_from_slice(&checksum.to_le_bytes());
        }
    }
    table.extend_from_slice(&u32::try_from(entries.len()).ok()?.to_le_bytes());
    table.push(if checksums { SEEK_TABLE_CHECKSUMS } else { 0 });
    table.extend_from_slice(&SEEKABLE_MAGIC);
    Some(table)
}

impl<W: Write> Write for ZstdFrames<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(ZSTD_FRAME - self.pending.len());
        self.pending.extend_from_slice(&buf[..n]);
        if self.pending.len() == ZSTD_FRAME {
            self.flush_frame()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes LZ4 frames (LZ4 Frame Format §2) as resiliparse's FastWARC and python-lz4 do by
/// default: independent blocks of up to 64 KiB, each frame with a content checksum; a
/// frame per member ([`Encoder::end_member`]: a WARC rewrite ends one at each record); the
/// skippable frames kept before the first and after the last ([`SkippableFrames`]).
struct Lz4Frames<W: Write> {
    /// lz4_flex's encoder, which starts a frame at the first write after one ended.
    encoder: lz4_flex::frame::FrameEncoder<W>,
    /// Whether a frame is open (written to and not ended).
    open: bool,
    /// Whether a frame was written: an empty input still gets one (empty) frame.
    wrote: bool,
    skippable: Option<SkippableFrames>,
}

impl<W: Write> Lz4Frames<W> {
    fn new(output: W) -> Self {
        let info = lz4_flex::frame::FrameInfo::new()
            .block_size(lz4_flex::frame::BlockSize::Max64KB)
            .content_checksum(true);
        Lz4Frames {
            encoder: lz4_flex::frame::FrameEncoder::with_frame_info(info, output),
            open: false,
            wrote: false,
            skippable: None,
        }
    }

    /// Ends the frame being written, if one is: its last block, end mark and checksum.
    fn end_frame(&mut self) -> io::Result<()> {
        if self.open {
            self.open = false;
            self.encoder.try_finish().map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// Ends the stream: the frame in progress (an empty one if none was written), then
    /// every skippable frame left.
    fn finish(mut self) -> io::Result<W> {
        if !self.wrote {
            self.write_start()?;
            self.open = true;
        }
        self.end_frame()?;
        let mut out = self.encoder.into_inner();
        while let Some(frame) = self
            .skippable
            .as_ref()
            .and_then(SkippableFrames::pop_remaining)
        {
            out.write_all(&frame)?;
        }
        Ok(out)
    }

    /// Before the first frame: the skippable frames that came before the content.
    fn write_start(&mut self) -> io::Result<()> {
        if !self.wrote {
            self.wrote = true;
            while let Some(frame) = self.skippable.as_ref().and_then(SkippableFrames::pop_start) {
                self.encoder.get_mut().write_all(&frame)?;
            }
        }
        Ok(())
    }
}

impl<W: Write> Write for Lz4Frames<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.write_start()?;
        self.open = true;
        self.encoder.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.encoder.get_mut().flush()
    }
}

impl<W: Write> Encoder<W> {
    /// An encoder of `compression` writing to `output`.
    pub fn new(compression: Compression, output: W) -> io::Result<Self> {
        let inner = match compression {
            Compression::Gzip => EncoderInner::Gzip(flate2::write::GzEncoder::new(
                output,
                flate2::Compression::default(),
            )),
            Compression::Bzip2 => EncoderInner::Bzip2(bzip2::write::BzEncoder::new(
                output,
                bzip2::Compression::best(),
            )),
            Compression::Xz => EncoderInner::Xz(Box::new(lzma_rust2::XzWriter::new(
                output,
                lzma_rust2::XzOptions::with_preset(6),
            )?)),
            Compression::Zstd => EncoderInner::Zstd(ZstdFrames {
                inner: output,
                pending: Vec::new(),
                compressed: Vec::new(),
                wrote: false,
                skippable: None,
                written: Vec::new(),
            }),
            Compression::Lz4 => EncoderInner::Lz4(Lz4Frames::new(output)),
        };
        Ok(Encoder { inner })
    }

    /// zstd and LZ4: writes the skippable frames a [`Decoder`] kept in `frames`
    /// ([`Decoder::keep_skippable_frames`]): before the content those that came before
    /// it, after it the others; zstd's pzstd frame sizes and seek table rewritten to
    /// describe the frames written ([`SkippableFrames`] says why). Other compressions have
    /// no skippable frames: nothing is done.
    pub fn keep_skippable_frames(&mut self, frames: SkippableFrames) {
        match &mut self.inner {
            EncoderInner::Zstd(e) => e.skippable = Some(frames),
            EncoderInner::Lz4(e) => e.skippable = Some(frames),
            _ => {}
        }
    }

    /// Ends the member being written, so that what is written next starts one of its own:
    /// LZ4 ends its frame (a WARC rewrite does so at each record, as a `.warc.gz` has a
    /// member per record, and resiliparse's FastWARC writes a `.warc.lz4`); the other
    /// compressions write on in the same member or frame.
    ///
    /// ```
    /// use absolve::compress::{Compression, Decoder, Encoder};
    /// use std::io::{Read, Write};
    ///
    /// let mut encoder = Encoder::new(Compression::Lz4, Vec::new())?;
    /// encoder.write_all(b"WARC/1.1 one")?;
    /// encoder.end_member()?;
    /// encoder.write_all(b"WARC/1.1 two")?;
    /// let lz4 = encoder.finish()?;
    /// // Two frames, each starting with the magic number.
    /// assert_eq!(lz4.windows(4).filter(|w| *w == [0x04, 0x22, 0x4d, 0x18]).count(), 2);
    /// let mut text = String::new();
    /// Decoder::new(Compression::Lz4, &lz4[..]).read_to_string(&mut text)?;
    /// assert_eq!(text, "WARC/1.1 oneWARC/1.1 two");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn end_member(&mut self) -> io::Result<()> {
        match &mut self.inner {
            EncoderInner::Lz4(e) => e.end_frame(),
            _ => Ok(()),
        }
    }

    /// Writes the end of the compressed stream, and gives the writer back.
    pub fn finish(self) -> io::Result<W> {
        match self.inner {
            EncoderInner::Gzip(e) => e.finish(),
            EncoderInner::Bzip2(e) => e.finish(),
            EncoderInner::Xz(e) => e.finish(),
            EncoderInner::Zstd(e) => e.finish(),
            EncoderInner::Lz4(e) => e.finish(),
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            EncoderInner::Gzip(e) => e.write(buf),
            EncoderInner::Bzip2(e) => e.write(buf),
            EncoderInner::Xz(e) => e.write(buf),
            EncoderInner::Zstd(e) => e.write(buf),
            EncoderInner::Lz4(e) => e.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            EncoderInner::Gzip(e) => e.flush(),
            EncoderInner::Bzip2(e) => e.flush(),
            EncoderInner::Xz(e) => e.flush(),
            EncoderInner::Zstd(e) => e.flush(),
            EncoderInner::Lz4(e) => e.flush(),
        }
    }
}

/// Rewrites a compressed input in the same compression: decompresses `input`, hands the
/// decompressed bytes and an [`Encoder`] to `transform`, copies whatever `transform` left
/// unread into the encoder as it is, finishes the compressed stream, then appends the raw
/// rest after damage ([`Decoder::into_rest`]). Returns the damage, if any: what came before
/// it is processed and written, the rest is copied as it is.
///
/// ```
/// use absolve::compress::{rewrite, Compression, Decoder, Encoder};
/// use std::io::{Read, Write};
///
/// let mut plain = Encoder::new(Compression::Xz, Vec::new())?;
/// plain.write_all(b"href=a")?;
/// let xz = plain.finish()?;
///
/// let mut out = Vec::new();
/// let damage = rewrite(Compression::Xz, &xz[..], &mut out, |decoded, encoded| {
///     let mut text = String::new();
///     decoded.read_to_string(&mut text)?;
///     encoded.write_all(text.replace("a", "http://h/a").as_bytes())
/// })?;
/// assert_eq!(damage, None);
/// let mut back = String::new();
/// Decoder::new(Compression::Xz, &out[..]).read_to_string(&mut back)?;
/// assert_eq!(back, "href=http://h/a");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn rewrite<R, W, F>(
    compression: Compression,
    input: R,
    output: &mut W,
    transform: F,
) -> io::Result<Option<Damage>>
where
    R: BufRead,
    W: Write,
    F: FnOnce(&mut Decoder<R>, &mut Encoder<&mut W>) -> io::Result<()>,
{
    let mut decoder = Decoder::new(compression, input);
    let mut encoder = Encoder::new(compression, &mut *output)?;
    transform(&mut decoder, &mut encoder)?;
    io::copy(&mut decoder, &mut encoder)?;
    encoder.finish()?;
    let damage = decoder.damage().cloned();
    io::copy(&mut decoder.into_rest(), output)?;
    Ok(damage)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compress(compression: Compression, data: &[u8]) -> Vec<u8> {
        let mut e = Encoder::new(compression, Vec::new()).unwrap();
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode(compression: Compression, bytes: &[u8]) -> (Vec<u8>, Option<Damage>, Vec<u8>) {
        let mut d = Decoder::new(compression, bytes);
        let mut out = Vec::new();
        d.read_to_end(&mut out).unwrap();
        let damage = d.damage().cloned();
        let mut rest = Vec::new();
        d.into_rest().read_to_end(&mut rest).unwrap();
        (out, damage, rest)
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("From line {i} <a href=\"x{}\">\n", i * 7919 % 1000))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn every_format_round_trips_and_is_detected() {
        let data = text(20_000);
        for c in ALL {
            let bytes = compress(c, &data);
            assert_eq!(Compression::detect(&bytes), Some(c));
            let (out, damage, rest) = decode(c, &bytes);
            assert_eq!(out, data, "{c}");
            assert_eq!(damage, None, "{c}");
            assert!(rest.is_empty());
        }
    }

    #[test]
    fn empty_input_round_trips() {
        for c in ALL {
            let (out, damage, _) = decode(c, &compress(c, b""));
            assert!(out.is_empty());
            assert_eq!(damage, None, "{c}");
        }
    }

    #[test]
    fn concatenated_members_are_all_read() {
        for c in ALL {
            let mut bytes = compress(c, b"one\n");
            bytes.extend(compress(c, b"two\n"));
            let (out, damage, _) = decode(c, &bytes);
            assert_eq!(out, b"one\ntwo\n", "{c}");
            assert_eq!(damage, None, "{c}");
        }
    }

    #[test]
    fn truncation_keeps_what_came_before() {
        let data = text(12_000);
        for c in ALL {
            let bytes = compress(c, &data);
            let cut = &bytes[..bytes.len() * 3 / 4];
            let (out, damage, rest) = decode(c, cut);
            let damage = damage.expect("truncated");
            assert_eq!(damage.reason, DamageReason::Truncated(c), "{c}");
            assert!(data.starts_with(&out), "{c}: a prefix of the data");
            assert_eq!(damage.decompressed_offset, out.len() as u64);
            assert_eq!(
                damage.compressed_offset + rest.len() as u64,
                cut.len() as u64,
                "{c}: the rest is the undecoded tail"
            );
        }
    }

    #[test]
    fn a_truncated_gzip_delivers_nearly_everything() {
        let data = text(12_000);
        let bytes = compress(Compression::Gzip, &data);
        let (out, _, _) = decode(Compression::Gzip, &bytes[..bytes.len() - 20]);
        assert!(
            out.len() + 1000 > data.len(),
            "{} of {}",
            out.len(),
            data.len()
        );
    }

    #[test]
    fn zero_padding_after_gzip_is_the_rest() {
        let mut bytes = compress(Compression::Gzip, b"mail\n");
        let end = bytes.len() as u64;
        bytes.extend([0; 512]);
        let (out, damage, rest) = decode(Compression::Gzip, &bytes);
        assert_eq!(out, b"mail\n");
        let damage = damage.unwrap();
        assert_eq!(damage.reason, DamageReason::ZeroPadding(Compression::Gzip));
        assert_eq!(damage.compressed_offset, end);
        assert_eq!(rest, vec![0; 512]);
    }

    #[test]
    fn a_bad_crc_keeps_the_data_and_the_trailer_is_the_rest() {
        let mut bytes = compress(Compression::Gzip, b"first\n");
        let trailer = bytes.len() - 8;
        bytes[trailer] ^= 0xff;
        let second = compress(Compression::Gzip, b"second\n");
        bytes.extend(&second);
        let (out, damage, rest) = decode(Compression::Gzip, &bytes);
        assert_eq!(out, b"first\n");
        let damage = damage.unwrap();
        assert_eq!(damage.reason, DamageReason::BadChecksum(Compression::Gzip));
        assert_eq!(damage.compressed_offset, trailer as u64);
        assert_eq!(rest, &bytes[trailer..]);
    }

    #[test]
    fn junk_between_gzip_members_stops_there() {
        let mut bytes = compress(Compression::Gzip, b"a");
        let at = bytes.len();
        bytes.extend(b"JUNK");
        bytes.extend(compress(Compression::Gzip, b"b"));
        let (out, damage, rest) = decode(Compression::Gzip, &bytes);
        assert_eq!(out, b"a");
        assert_eq!(
            damage.unwrap().reason,
            DamageReason::TrailingData(Compression::Gzip)
        );
        assert_eq!(rest, &bytes[at..]);
    }

    #[test]
    fn gzip_header_with_name_and_comment() {
        let mut e = flate2::GzBuilder::new()
            .filename("2024-January.txt")
            .comment("pipermail")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), flate2::Compression::fast());
        e.write_all(b"x").unwrap();
        let bytes = e.finish().unwrap();
        let (out, damage, _) = decode(Compression::Gzip, &bytes);
        assert_eq!((out.as_slice(), damage), (&b"x"[..], None));
    }

    #[test]
    fn corrupt_data_stops_without_error() {
        let data = text(12_000);
        for c in ALL {
            let mut bytes = compress(c, &data);
            let mid = bytes.len() / 2;
            for b in &mut bytes[mid..mid + 64] {
                *b ^= 0x5a;
            }
            let (out, damage, rest) = decode(c, &bytes);
            let damage = damage.unwrap_or_else(|| panic!("{c}: damage found"));
            assert_eq!(
                damage.compressed_offset + rest.len() as u64,
                bytes.len() as u64
            );
            assert_eq!(damage.decompressed_offset, out.len() as u64);
            // Block formats lose the damaged block (bzip2, zstd, an xz LZMA2 chunk, up to
            // 2 MiB); deflate keeps everything before the damaged bytes.
            if c == Compression::Gzip {
                let before = data.len() / 4;
                assert!(out.len() >= before, "{c}: {} of {}", out.len(), data.len());
                assert_eq!(out[..before], data[..before], "{c}");
            }
        }
    }

    /// bzip2 with 100 kB blocks (`bzip2 -1`), so that a test has several.
    fn bzip2_small_blocks(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Whether a bzip2 block's magic number starts in the first byte of `rest`.
    fn starts_a_bzip2_block(rest: &[u8]) -> bool {
        find_bzip2_magic(rest, 0).is_some_and(|(bit, unit)| bit < 8 && unit == Bzip2Unit::Block)
    }

    #[test]
    fn a_damaged_bzip2_block_is_the_rest_and_the_blocks_before_are_delivered() {
        // Before: the bytes of the block in progress were in neither the output nor the
        // rest, and a corrupt block's output was delivered before its CRC was checked.
        let data = text(12_000);
        let bytes = bzip2_small_blocks(&data);
        let mut blocks = 0;
        let mut from = 0;
        while let Some((bit, _)) = find_bzip2_magic(&bytes, from) {
            blocks += 1;
            from = bit + 1;
        }
        assert!(blocks >= 4, "{blocks} markers");

        let cut = &bytes[..bytes.len() - 200];
        let (out, damage, rest) = decode(Compression::Bzip2, cut);
        let damage = damage.unwrap();
        assert_eq!(damage.reason, DamageReason::Truncated(Compression::Bzip2));
        assert!(
            data.starts_with(&out) && out.len() > data.len() / 2,
            "{}",
            out.len()
        );
        assert_eq!(damage.compressed_offset as usize + rest.len(), cut.len());
        assert!(
            starts_a_bzip2_block(&rest),
            "the rest starts at the cut block"
        );

        // Only the end-of-stream marker cut: every block is delivered.
        let (out, damage, rest) = decode(Compression::Bzip2, &bytes[..bytes.len() - 6]);
        assert_eq!(out, data);
        assert_eq!(
            damage.unwrap().reason,
            DamageReason::Truncated(Compression::Bzip2)
        );
        assert!(!rest.is_empty() && rest.len() <= 5, "{} bytes", rest.len());

        let mut flipped = bytes.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x55;
        let (out, damage, rest) = decode(Compression::Bzip2, &flipped);
        assert!(damage.is_some());
        assert!(data.starts_with(&out), "no garbled block delivered");
        assert!(out.len() > data.len() / 4, "{}", out.len());
        assert!((damage.unwrap().compressed_offset as usize) <= mid);
        assert!(starts_a_bzip2_block(&rest));
        assert_eq!(rest[..], flipped[flipped.len() - rest.len()..]);
    }

    #[test]
    fn a_bzip2_magic_number_is_found_at_any_bit() {
        let magic: u64 = 0x3141_5926_5359;
        for shift in 0..8 {
            let bits = (magic << 16) >> shift;
            let mut bytes = vec![0xff];
            bytes.extend(bits.to_be_bytes());
            assert_eq!(
                find_bzip2_magic(&bytes, 0),
                Some((8 + shift, Bzip2Unit::Block))
            );
        }
    }

    #[test]
    fn a_damaged_zstd_frame_delivers_what_its_window_held() {
        // Before: the decoder kept its window (all of a small frame) on damage.
        let data = text(30_000);
        let bytes = compress(Compression::Zstd, &data);
        let (out, damage, rest) = decode(Compression::Zstd, &bytes[..bytes.len() - 1]);
        assert_eq!(
            damage.unwrap().reason,
            DamageReason::Truncated(Compression::Zstd)
        );
        assert!(data.starts_with(&out));
        assert!(
            out.len() + 128 * 1024 >= data.len(),
            "{} of {}",
            out.len(),
            data.len()
        );
        // The rest is the cut block, from its header.
        assert!(!rest.is_empty());

        // A frame header whose data is not zstd: all of it is the rest.
        let bad = b"\x28\xb5\x2f\xfdgarbage<a href=\"x\">";
        let (out, damage, rest) = decode(Compression::Zstd, bad);
        assert!(out.is_empty() && damage.is_some());
        assert_eq!(rest, bad);
    }

    #[test]
    fn the_empty_checksum_is_what_a_frame_of_nothing_ends_with() {
        let frame = compress(Compression::Zstd, b"");
        assert_eq!(content_checksum(&frame), Some(EMPTY_CHECKSUM));
    }

    #[test]
    fn pzstd_sizes_and_seek_tables_are_told_from_other_skippable_frames() {
        let frame = |magic: u8, data: &[u8]| {
            let mut frame = vec![magic, 0x2a, 0x4d, 0x18];
            frame.extend((data.len() as u32).to_le_bytes());
            frame.extend_from_slice(data);
            frame
        };
        assert_eq!(
            SkippableKind::of(&pzstd_size(1234)),
            SkippableKind::PzstdSize
        );
        assert_eq!(
            SkippableKind::of(&frame(0x50, b"12345")),
            SkippableKind::Other
        );
        assert_eq!(
            SkippableKind::of(&frame(0x51, b"1234")),
            SkippableKind::Other
        );
        let entries = [SeekEntry {
            compressed: 10,
            decompressed: 20,
            checksum: Some(7),
        }];
        for checksums in [false, true] {
            let table = seek_table(&entries, checksums).unwrap();
            assert_eq!(
                SkippableKind::of(&table),
                SkippableKind::SeekTable { checksums }
            );
            let mut wrong_count = table.clone();
            wrong_count[table.len() - SEEK_TABLE_FOOTER] += 1;
            assert_eq!(SkippableKind::of(&wrong_count), SkippableKind::Other);
        }
        assert_eq!(
            SkippableKind::of(&frame(0x5e, b"SEEK TABLE")),
            SkippableKind::Other
        );
        let no_checksum = SeekEntry {
            checksum: None,
            ..entries[0]
        };
        let table = seek_table(&[entries[0], no_checksum], true).unwrap();
        assert_eq!(
            SkippableKind::of(&table),
            SkippableKind::SeekTable { checksums: false },
            "checksums only if every entry has one"
        );
    }

    #[test]
    fn not_compressed_at_all_is_a_bad_header() {
        for c in ALL {
            let (out, damage, rest) = decode(c, b"plain text, long enough");
            assert!(out.is_empty());
            assert!(matches!(
                damage.unwrap().reason,
                DamageReason::BadHeader(..)
            ));
            assert_eq!(rest, b"plain text, long enough");
        }
    }

    #[test]
    fn a_huge_window_claim_is_refused_not_allocated() {
        // RFC 8878 §3.1.1.1: a frame header whose window descriptor asks for 2^41 bytes.
        let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0, 0, 0, 0];
        let (_, damage, _) = decode(Compression::Zstd, &frame);
        assert!(damage.is_some());
    }

    #[test]
    fn rewrite_appends_the_raw_rest() {
        let mut bytes = compress(Compression::Gzip, b"href=a\n");
        bytes.extend(b"\0\0\0garbage");
        let mut out = Vec::new();
        let damage = rewrite(Compression::Gzip, &bytes[..], &mut out, |d, e| {
            let mut s = String::new();
            d.read_to_string(&mut s)?;
            e.write_all(s.to_uppercase().as_bytes())
        })
        .unwrap();
        assert!(damage.is_some());
        assert!(out.ends_with(b"\0\0\0garbage"));
        let (back, _, _) = decode(Compression::Gzip, &out);
        assert_eq!(back, b"HREF=A\n");
    }

    #[test]
    fn rewrite_passes_through_what_the_transform_left() {
        let bytes = compress(Compression::Bzip2, b"abcdef");
        let mut out = Vec::new();
        rewrite(Compression::Bzip2, &bytes[..], &mut out, |d, e| {
            let mut two = [0; 2];
            d.read_exact(&mut two)?;
            e.write_all(b"XY")
        })
        .unwrap();
        assert_eq!(decode(Compression::Bzip2, &out).0, b"XYcdef");
    }
}
