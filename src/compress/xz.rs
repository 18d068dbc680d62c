//! xz read on at a block after damage ([`Decoder::resume`](super::Decoder::resume)), as
//! `bzip2recover` does for bzip2: `xz -T` (and every multi-threaded encoder) writes a
//! stream of blocks of 24 MiB or more, each starting with a header its CRC32 guards, and
//! the data of one does not depend on the others (LZMA2 resets its dictionary at a
//! block's start). A damaged block need not lose the blocks after it.
//!
//! References are to [The .xz File Format](https://tukaani.org/xz/xz-file-format.txt),
//! version 1.2.1. The blocks are decoded by `lzma_rust2`'s stream decoder, given a stream
//! header made for them ([`stream_header`]); the format's small integer headers are read
//! here, as the decoder does not expose its own.

use flate2::Crc;

/// The check types a stream header can name (§2.1.1.2), xz's default (CRC64) first: what
/// a stream read on at a block is tried with when the damaged stream's own is not known
/// (its header is what was damaged).
pub(super) const CHECKS: [u8; 4] = [0x04, 0x01, 0x0a, NO_CHECK];

/// The check type "None" (§2.1.1.2): a block of it has no check to match.
pub(super) const NO_CHECK: u8 = 0x00;

/// The longest index (§4) and stream footer (§2.1.2) looked ahead at to end a stream read
/// on at a block: 1 MiB, an index of some 100,000 blocks. A longer one is not checked,
/// and is left as damage (copied as it is).
pub(super) const MAX_INDEX: usize = 1024 * 1024;

/// The stream footer's length and magic bytes (§2.1.2).
const FOOTER_LEN: usize = 12;
const FOOTER_MAGIC: [u8; 2] = *b"YZ";

/// The stream header's magic bytes (§2.1.1.1).
const HEADER_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0x00];

/// The CRC32 the format uses throughout (§5.4.1: that of ISO 3309, gzip's).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = Crc::new();
    crc.update(bytes);
    crc.sum()
}

/// Whether a block header starts `bytes` (§3.1): its first byte gives its size (`0x00`
/// starts the index instead, §4.1), the reserved bits of its flags are zero (§3.1.2), its
/// fields fit and end in LZMA2 ([`filters_end_in_lzma2`]), and its CRC32 matches
/// (§3.1.7). One chance in 2^32 that other bytes pass; the CRC32 is computed for few.
pub(super) fn block_header_at(bytes: &[u8]) -> bool {
    let Some(&size) = bytes.first().filter(|&&size| size != 0) else {
        return false;
    };
    let len = (usize::from(size) + 1) * 4;
    let Some(header) = bytes.get(..len) else {
        return false;
    };
    let (body, crc) = header.split_at(len - 4);
    body[1] & 0x3c == 0 && filters_end_in_lzma2(body).is_some() && crc32(body).to_le_bytes() == crc
}

/// The LZMA2 filter's ID (§5.3.1), which ends every filter chain xz writes.
const LZMA2_FILTER: u64 = 0x21;

/// Whether the fields of a block header without its CRC32 fit: the sizes its flags
/// say are there (§3.1.3, §3.1.4), its filter flags (§3.1.5: ID, size of properties,
/// properties), the last LZMA2's, then zero padding (§3.1.6).
fn filters_end_in_lzma2(body: &[u8]) -> Option<()> {
    let flags = body[1];
    let mut at = 2;
    let next = |at: &mut usize| -> Option<u64> {
        let (value, len) = vli(body.get(*at..)?)?;
        *at += len;
        Some(value)
    };
    for present in [0x40, 0x80] {
        if flags & present != 0 {
            next(&mut at)?;
        }
    }
    let mut id = 0;
    for _ in 0..=(flags & 0x03) {
        id = next(&mut at)?;
        let properties = usize::try_from(next(&mut at)?).ok()?;
        at = at
            .checked_add(properties)
            .filter(|&end| end <= body.len())?;
    }
    (id == LZMA2_FILTER && body[at..].iter().all(|&b| b == 0)).then_some(())
}

/// A stream header (§2.1.1) naming `check`: what the blocks after a damaged one are given
/// to be decoded as a stream of their own.
pub(super) fn stream_header(check: u8) -> [u8; 12] {
    let flags = [0x00, check];
    let mut header = [0; 12];
    header[..6].copy_from_slice(&HEADER_MAGIC);
    header[6..8].copy_from_slice(&flags);
    header[8..].copy_from_slice(&crc32(&flags).to_le_bytes());
    header
}

/// A variable-length integer (§1.2) at the start of `bytes`: its value and length, or
/// `None` when it does not end within 9 bytes, or ends in a zero byte after the first.
fn vli(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0;
    for (i, &byte) in bytes.iter().take(9).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return (i == 0 || byte != 0).then_some((value, i + 1));
        }
    }
    None
}

/// How many of the bytes just consumed, at the end of `behind`, are the start of an index
/// (§4.1, §4.2: its `0x00` indicator and its record count), which a stream decoder read
/// on at a block refuses (the count includes the blocks passed over); `None` if they
/// are not.
pub(super) fn index_start_behind(behind: &[u8]) -> Option<usize> {
    // The count's last byte is below 0x80, the bytes before it in the count at or above.
    let (&last, before) = behind.split_last()?;
    if last & 0x80 != 0 {
        return None;
    }
    let continued = before.iter().rev().take_while(|&&b| b & 0x80 != 0).count();
    let indicator = before.len().checked_sub(continued + 1)?;
    let count = &behind[indicator + 1..];
    let whole_count = vli(count).is_some_and(|(_, len)| len == count.len());
    (behind[indicator] == 0x00 && whole_count).then_some(count.len() + 1)
}

/// The length of the index (§4) at the start of `bytes` and the stream footer after it
/// (§2.1.2), when both are whole: the index's CRC32 matches, and so does the footer's,
/// whose Backward Size is the index's length and which ends in `YZ`. `None` otherwise.
pub(super) fn index_and_footer_len(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&0x00) {
        return None;
    }
    let mut at = 1;
    let (count, len) = vli(bytes.get(at..)?)?;
    at += len;
    // Two integers a record (§4.3): the input ends long before a hostile count does.
    for _ in 0..count.saturating_mul(2) {
        at += vli(bytes.get(at..)?)?.1;
    }
    // §4.4: padding to a multiple of four bytes, zeros.
    let padded = at.next_multiple_of(4);
    if bytes.get(at..padded)?.iter().any(|&b| b != 0) {
        return None;
    }
    let index_len = padded + 4;
    let stored = bytes.get(padded..index_len)?;
    if crc32(&bytes[..padded]).to_le_bytes() != stored {
        return None;
    }
    let footer = bytes.get(index_len..index_len + FOOTER_LEN)?;
    let backward_size = u32::from_le_bytes(footer[4..8].try_into().expect("4 bytes"));
    let whole = crc32(&footer[4..10]).to_le_bytes() == footer[..4]
        && footer[10..] == FOOTER_MAGIC
        && (u64::from(backward_size) + 1) * 4 == index_len as u64;
    whole.then_some(index_len + FOOTER_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_read_as_the_format_writes_them() {
        assert_eq!(vli(&[0x05]), Some((5, 1)));
        assert_eq!(vli(&[0x80 | 0x05, 0x01]), Some((5 + 128, 2)));
        // A zero byte ending a longer integer is not the shortest form (§1.2).
        assert_eq!(vli(&[0x85, 0x00]), None);
        assert_eq!(vli(&[0xff; 10]), None);
    }

    #[test]
    fn an_index_start_is_found_behind() {
        assert_eq!(index_start_behind(b"xyz\x00\x03"), Some(2));
        assert_eq!(index_start_behind(b"xyz\x00\x83\x01"), Some(3));
        assert_eq!(index_start_behind(b"xyz\x01\x03"), None);
        assert_eq!(index_start_behind(b"\x03"), None);
    }

    #[test]
    fn a_made_stream_header_is_one_xz_reads() {
        let header = stream_header(0x04);
        assert_eq!(
            super::super::Compression::detect(&header),
            Some(super::super::Compression::Xz)
        );
        assert_eq!(crc32(&header[6..8]).to_le_bytes(), header[8..]);
    }
}
