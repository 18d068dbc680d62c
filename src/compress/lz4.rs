//! LZ4 frames (resiliparse's `.warc.lz4`), read block by block so that damage is found
//! at a block's bytes and what came before it is delivered: the frame format is read
//! here, each block decoded by `lz4_flex`'s block decoder, its checksums (xxHash-32,
//! seed 0) computed by `twox-hash`.
//!
//! References are to the [LZ4 Frame Format Description](https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md),
//! version 1.6.4: a frame (§2) is a magic number `0x184D2204`, a frame descriptor (§3:
//! FLG, BD, an optional content size and dictionary ID, a header checksum), blocks (§4:
//! a 4-byte size whose high bit marks an uncompressed block, the data, an optional block
//! checksum), an end mark (a size of 0) and an optional content checksum. Skippable
//! frames (§5) are zstd's (`0x184D2A5?`, passed over or kept as zstd's are), and the
//! legacy frame (§6: magic `0x184C2102`, then blocks of 8 MiB of content each, with no
//! end mark, no checksum) is read too.
//!
//! They are written by [`Encoder`](super::Encoder) with lz4_flex's frame encoder.
//!
//! Memory is bounded by the block maximum size (§3: 4 MiB at most; 8 MiB for a legacy
//! block) and the 64 KiB a linked block may refer back to: a frame's content size field
//! is only checked against what the frame held, never allocated from.

use super::{Compression, DamageReason, Decoder, is_skippable_magic};
use std::hash::Hasher;
use std::io::{self, BufRead};
use twox_hash::XxHash32;

/// §2: an LZ4 frame's magic number, little-endian `0x184D2204`.
pub(super) const MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// §6: the legacy frame's magic number, little-endian `0x184C2102`.
pub(super) const LEGACY_MAGIC: [u8; 4] = [0x02, 0x21, 0x4c, 0x18];

/// §3: the longest frame header, magic number included: 4 + FLG + BD + 8 + 4 + HC.
const MAX_HEADER: usize = 19;

/// §6: a legacy block holds 8 MiB of content (the last one less).
const LEGACY_BLOCK: usize = 8 * 1024 * 1024;

/// The most compressed bytes a legacy block of [`LEGACY_BLOCK`] bytes takes (liblz4's
/// `LZ4_COMPRESSBOUND`): a size field above it is no block.
const LEGACY_BOUND: usize = LEGACY_BLOCK + LEGACY_BLOCK / 255 + 16;

/// §4: how far back a linked block may refer, into the blocks before it: 64 KiB.
const WINDOW: usize = 64 * 1024;

/// Whether `bytes` start an LZ4 frame or a legacy frame (not a skippable one).
pub(super) fn starts_content(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC) || bytes.starts_with(&LEGACY_MAGIC)
}

/// The frame being read: what its descriptor says (§3.1).
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// A legacy frame (§6): independent blocks of [`LEGACY_BLOCK`] bytes, no checksums,
    /// no end mark.
    legacy: bool,
    /// FLG bit 5, B.Indep: each block decodes alone; else it may refer to the 64 KiB of
    /// content before it.
    independent: bool,
    /// FLG bit 4, B.Checksum: each block ends with the xxHash-32 of its data.
    block_checksum: bool,
    /// FLG bit 2, C.Checksum: the end mark is followed by the xxHash-32 of the content.
    content_checksum: bool,
    /// BD bits 6-4: the most content a block holds.
    block_max: usize,
    /// FLG bit 3, C.Size: the content's size the descriptor gives (checked, never
    /// allocated from).
    content_size: Option<u64>,
    /// Read on at a block after a damaged one ([`Decoder::resume`]): the content's size
    /// and checksum, which count the lost block, are not checked.
    read_on: bool,
}

/// An LZ4 decoder's state between calls: the frame being read, the content of the last
/// block not yet delivered, the window a linked block refers to.
pub(super) struct Lz4 {
    frame: Option<Frame>,
    /// The last block's content, `block[..len]`, delivered from `pos`. The buffer keeps
    /// the largest block size met, so that it is not cleared again for each block.
    block: Vec<u8>,
    len: usize,
    pos: usize,
    /// The last [`WINDOW`] bytes of the frame's content, for linked blocks.
    window: Vec<u8>,
    /// The xxHash-32 and the length of the frame's content so far.
    hasher: XxHash32,
    content_len: u64,
    /// A damaged block of a frame of independent blocks whose size field was read: the
    /// frame, and the compressed offset of the next block, after the damaged block's size
    /// field, data and checksum ([`Decoder::lz4_next_block`]).
    damaged_block: Option<(Frame, u64)>,
}

impl Lz4 {
    pub(super) fn new() -> Self {
        Lz4 {
            frame: None,
            block: Vec::new(),
            len: 0,
            pos: 0,
            window: Vec::new(),
            hasher: XxHash32::with_seed(0),
            content_len: 0,
            damaged_block: None,
        }
    }

    /// A decoder that reads on in `frame` at the block after a damaged one, as a frame
    /// of its own whose content's size and checksum are not checked.
    fn read_on_in(frame: Frame) -> Self {
        let mut state = Lz4::new();
        state.start(Frame {
            read_on: true,
            ..frame
        });
        state
    }

    /// A new frame: its content starts empty.
    fn start(&mut self, frame: Frame) {
        self.frame = Some(frame);
        self.window.clear();
        self.hasher = XxHash32::with_seed(0);
        self.content_len = 0;
    }

    /// The block just decoded into `self.block`, counted into the frame's checksum and
    /// length, and (linked blocks) its last bytes kept as the window.
    fn decoded(&mut self, frame: Frame, len: usize) {
        self.len = len;
        self.pos = 0;
        let content = &self.block[..len];
        if frame.content_checksum {
            self.hasher.write(content);
        }
        self.content_len += len as u64;
        if !frame.independent {
            let keep = len.min(WINDOW);
            let drop = (self.window.len() + keep).saturating_sub(WINDOW);
            self.window.drain(..drop);
            self.window.extend_from_slice(&content[len - keep..]);
        }
    }

    /// Room in `block` for a block of `frame`: its block maximum size.
    fn make_room(&mut self, frame: Frame) {
        if self.block.len() < frame.block_max {
            self.block.resize(frame.block_max, 0);
        }
    }
}

/// A frame descriptor at the start of `header` (magic number included, §3), and its
/// length; `Err` with what is wrong, [`DamageReason::Truncated`] if `header` ends first.
fn frame_header(header: &[u8]) -> Result<(Frame, usize), DamageReason> {
    let bad = |why: &str| DamageReason::BadHeader(Compression::Lz4, why.into());
    let truncated = DamageReason::Truncated(Compression::Lz4);
    let (&flg, &bd) = (
        header.get(4).ok_or(truncated.clone())?,
        header.get(5).ok_or(truncated.clone())?,
    );
    if flg >> 6 != 0b01 {
        return Err(bad("version is not 01"));
    }
    if flg & 0x02 != 0 || bd & 0x8f != 0 {
        return Err(bad("reserved bits set"));
    }
    if flg & 0x01 != 0 {
        return Err(bad(
            "the frame needs a dictionary (Dict-ID), which is not given",
        ));
    }
    let block_max = match (bd >> 4) & 0x07 {
        4 => 64 * 1024,
        5 => 256 * 1024,
        6 => 1024 * 1024,
        7 => 4 * 1024 * 1024,
        _ => return Err(bad("block maximum size 0 to 3 is reserved")),
    };
    let has_size = flg & 0x08 != 0;
    let len = 6 + if has_size { 8 } else { 0 };
    let descriptor = header.get(4..len + 1).ok_or(truncated)?;
    // §3.1: HC, the second byte of the xxHash-32 of the descriptor (FLG to before HC).
    let checksum = (XxHash32::oneshot(0, &descriptor[..len - 4]) >> 8) as u8;
    if checksum != descriptor[len - 4] {
        return Err(bad("header checksum mismatch"));
    }
    let content_size =
        has_size.then(|| u64::from_le_bytes(header[6..14].try_into().expect("8 bytes")));
    let frame = Frame {
        legacy: false,
        independent: flg & 0x20 != 0,
        block_checksum: flg & 0x10 != 0,
        content_checksum: flg & 0x04 != 0,
        block_max,
        content_size,
        read_on: false,
    };
    Ok((frame, len + 1))
}

/// A legacy frame (§6), its header the magic number alone.
const LEGACY_FRAME: Frame = Frame {
    legacy: true,
    independent: true,
    block_checksum: false,
    content_checksum: false,
    block_max: LEGACY_BLOCK,
    content_size: None,
    read_on: false,
};

/// What a block's 4-byte size field (§4) says.
enum BlockHead {
    /// The end mark (§4: a size of 0).
    EndMark,
    /// A legacy frame ends where the next frame's magic number (or the input's end) is.
    LegacyEnd,
    /// A block of this many bytes, stored uncompressed if so.
    Block { size: usize, uncompressed: bool },
}

/// The block size field `field` of a block in `frame`, or what is wrong with it.
fn block_head(frame: Frame, field: [u8; 4]) -> Result<BlockHead, DamageReason> {
    let value = u32::from_le_bytes(field);
    if frame.legacy {
        if starts_content(&field) || is_skippable_magic(&field) {
            return Ok(BlockHead::LegacyEnd);
        }
        if value as usize > LEGACY_BOUND {
            return Err(DamageReason::Corrupt(
                Compression::Lz4,
                "legacy block larger than 8 MiB".into(),
            ));
        }
        return Ok(BlockHead::Block {
            size: value as usize,
            uncompressed: false,
        });
    }
    if value == 0 {
        return Ok(BlockHead::EndMark);
    }
    let size = (value & 0x7fff_ffff) as usize;
    if size > frame.block_max {
        let why = format!(
            "block of {size} bytes, larger than its frame's maximum of {}",
            frame.block_max
        );
        return Err(DamageReason::Corrupt(Compression::Lz4, why));
    }
    Ok(BlockHead::Block {
        size,
        uncompressed: value & 0x8000_0000 != 0,
    })
}

impl<R: BufRead> Decoder<R> {
    /// Frame after frame (§2), block after block (§4): one block decoded into the
    /// output, or a frame's start or end read.
    pub(super) fn fill_lz4(&mut self) -> io::Result<()> {
        let super::Codec::Lz4(state) = &mut self.codec else {
            unreachable!("fill_lz4 on another codec")
        };
        if state.pos < state.len {
            let n = (state.len - state.pos).min(self.out.len() - self.out_len);
            self.out[self.out_len..self.out_len + n]
                .copy_from_slice(&state.block[state.pos..state.pos + n]);
            state.pos += n;
            self.out_len += n;
            return Ok(());
        }
        match state.frame {
            None => self.lz4_frame_start(),
            Some(frame) => self.lz4_block(frame),
        }
    }

    /// The start of a frame: an LZ4 frame's descriptor read, a legacy frame's magic
    /// number, or a skippable frame passed over (or kept).
    fn lz4_frame_start(&mut self) -> io::Result<()> {
        if !self.next_member()? {
            return Ok(());
        }
        if self.skippable_frame_here(Compression::Lz4)? {
            return Ok(());
        }
        let head = self.input.peek(MAX_HEADER)?;
        let read = match head.starts_with(&LEGACY_MAGIC) {
            true => Ok((LEGACY_FRAME, LEGACY_MAGIC.len())),
            false => frame_header(head),
        };
        match read {
            Ok((frame, len)) => {
                self.input.consume(len);
                let super::Codec::Lz4(state) = &mut self.codec else {
                    unreachable!()
                };
                state.start(frame);
            }
            // The rest starts at the frame's magic number.
            Err(reason) => self.stop(reason),
        }
        Ok(())
    }

    /// One block of `frame` (§4), or its end mark and content checksum.
    fn lz4_block(&mut self, frame: Frame) -> io::Result<()> {
        let field = self.input.peek(4)?;
        if field.is_empty() && frame.legacy {
            return self.lz4_frame_end(frame, 0);
        }
        let Some(field) = field.get(..4) else {
            self.stop(DamageReason::Truncated(Compression::Lz4));
            return Ok(());
        };
        let (size, uncompressed) = match block_head(frame, field.try_into().expect("4 bytes")) {
            Ok(BlockHead::Block { size, uncompressed }) => (size, uncompressed),
            Ok(BlockHead::EndMark) => return self.lz4_frame_end(frame, 4),
            Ok(BlockHead::LegacyEnd) => return self.lz4_frame_end(frame, 0),
            Err(reason) => {
                self.stop(reason);
                return Ok(());
            }
        };
        let checksum_len = if frame.block_checksum { 4 } else { 0 };
        let len = 4 + size + checksum_len;
        let bytes = self.input.peek(len)?;
        if bytes.len() < len {
            self.stop(DamageReason::Truncated(Compression::Lz4));
            return Ok(());
        }
        let data = &bytes[4..4 + size];
        if frame.block_checksum {
            let stored = u32::from_le_bytes(bytes[4 + size..len].try_into().expect("4 bytes"));
            if XxHash32::oneshot(0, data) != stored {
                // Nothing of the block is delivered: the rest starts at its size field.
                self.lz4_block_damaged(frame, len, DamageReason::BadChecksum(Compression::Lz4));
                return Ok(());
            }
        }
        let super::Codec::Lz4(state) = &mut self.codec else {
            unreachable!()
        };
        state.make_room(frame);
        let room = &mut state.block[..frame.block_max];
        let decoded = match uncompressed {
            // `size` is at most the block maximum size (`block_head`).
            true => {
                room[..size].copy_from_slice(data);
                Ok(size)
            }
            false => decode_block(data, frame, &state.window, room),
        };
        match decoded {
            Ok(n) => state.decoded(frame, n),
            Err(reason) => {
                self.lz4_block_damaged(frame, len, reason);
                return Ok(());
            }
        }
        self.input.consume(len);
        Ok(())
    }

    /// A block of `frame` that takes `len` bytes is damaged (`reason`): the rest starts at
    /// its size field. In a frame of independent blocks, the next block, `len` bytes on,
    /// may be read on from ([`Decoder::lz4_next_block`]).
    fn lz4_block_damaged(&mut self, frame: Frame, len: usize, reason: DamageReason) {
        let next = self.input.consumed + len as u64;
        if let super::Codec::Lz4(state) = &mut self.codec {
            state.damaged_block = frame.independent.then_some((frame, next));
        }
        self.stop(reason);
    }

    /// After a damaged block of a frame of independent blocks (its data or its checksum
    /// damaged, its size field read), the block after it, as bzip2recover reads on at
    /// the next bzip2 block: where its size field says (LZ4 Frame Format §4), if a block
    /// that decodes alone is there, its checksum matched when the frame has block
    /// checksums ([`next_block_decodes`]). Returns how many bytes are before it (the
    /// damaged block's, and the frame's header too when the rest starts there) and a
    /// codec that reads on there, as a frame of its own whose content's size and checksum
    /// are not checked.
    pub(super) fn lz4_next_block(&mut self) -> io::Result<Option<(usize, super::Codec)>> {
        let super::Codec::Lz4(state) = &mut self.codec else {
            return Ok(None);
        };
        let Some((frame, next)) = state.damaged_block.take() else {
            return Ok(None);
        };
        // The rest starts at the damaged block, or before it, at the frame's start, when
        // the frame gave nothing before the damage.
        let Some(skip) = next
            .checked_sub(self.input.consumed)
            .and_then(|skip| usize::try_from(skip).ok())
        else {
            return Ok(None);
        };
        let ahead = self.input.peek(skip + 4 + frame.block_max + 4)?;
        if ahead.len() <= skip || !next_block_decodes(&ahead[skip..], frame) {
            return Ok(None);
        }
        let codec = super::Codec::Lz4(Box::new(Lz4::read_on_in(frame)));
        Ok(Some((skip, codec)))
    }

    /// The end of `frame`: its end mark (`end_mark` bytes: 4, or none for a legacy
    /// frame), its content size and checksum checked, the checksum consumed once it
    /// matched.
    fn lz4_frame_end(&mut self, frame: Frame, end_mark: usize) -> io::Result<()> {
        let checksum_len = if frame.content_checksum { 4 } else { 0 };
        let trailer = self.input.peek(end_mark + checksum_len)?;
        let (available, stored) = (
            trailer.len(),
            trailer
                .get(end_mark..end_mark + checksum_len)
                .and_then(|bytes| bytes.try_into().ok())
                .map(u32::from_le_bytes),
        );
        let super::Codec::Lz4(state) = &mut self.codec else {
            unreachable!()
        };
        state.frame = None;
        let content_size = frame.content_size.filter(|_| !frame.read_on);
        if let Some(size) = content_size.filter(|&size| size != state.content_len) {
            // The rest starts at the end mark.
            let why = format!(
                "the frame says it holds {size} bytes, its blocks held {}",
                state.content_len
            );
            self.stop(DamageReason::Corrupt(Compression::Lz4, why));
            return Ok(());
        }
        if available < end_mark + checksum_len {
            // The rest starts at the cut checksum.
            self.input.consume(end_mark.min(available));
            self.stop(DamageReason::Truncated(Compression::Lz4));
            return Ok(());
        }
        let computed = state.hasher.finish_32();
        self.input.consume(end_mark);
        if !frame.read_on && stored.is_some_and(|stored| stored != computed) {
            // The rest starts at the checksum.
            self.stop(DamageReason::BadChecksum(Compression::Lz4));
            return Ok(());
        }
        self.input.consume(checksum_len);
        self.whole += 1;
        Ok(())
    }
}

/// Decodes the compressed block `data` of `frame` into `out` (room for the frame's block
/// maximum size), a linked block with the `window` before it: how many bytes it held.
fn decode_block(
    data: &[u8],
    frame: Frame,
    window: &[u8],
    out: &mut [u8],
) -> Result<usize, DamageReason> {
    let decoded = match frame.independent {
        true => lz4_flex::block::decompress_into(data, out),
        false => lz4_flex::block::decompress_into_with_dict(data, out, window),
    };
    decoded.map_err(|e| DamageReason::Corrupt(Compression::Lz4, e.to_string()))
}

/// Whether `bytes` start with a block of `frame` that decodes alone (its checksum
/// matched, when the frame has block checksums): where a damaged block's size field says
/// the next block is ([`Decoder::lz4_next_block`]). Not the frame's end: nothing of the
/// frame is left to read on in, and the next frame is looked for as after other damage
/// (its end mark and content checksum passed over with the damaged block).
fn next_block_decodes(bytes: &[u8], frame: Frame) -> bool {
    let Some(field) = bytes.get(..4) else {
        return false;
    };
    let (size, uncompressed) = match block_head(frame, field.try_into().expect("4 bytes")) {
        Ok(BlockHead::Block { size, uncompressed }) => (size, uncompressed),
        Ok(BlockHead::EndMark | BlockHead::LegacyEnd) | Err(_) => return false,
    };
    let checksum_len = if frame.block_checksum { 4 } else { 0 };
    let Some(block) = bytes.get(4..4 + size + checksum_len) else {
        return false;
    };
    let data = &block[..size];
    if frame.block_checksum {
        let stored = u32::from_le_bytes(block[size..].try_into().expect("4 bytes"));
        return XxHash32::oneshot(0, data) == stored;
    }
    uncompressed || decode_block(data, frame, &[], &mut vec![0; frame.block_max]).is_ok()
}
