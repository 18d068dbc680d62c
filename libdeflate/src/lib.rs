//! Whole-member gzip decompression through [libdeflate], with the one thing a reader of
//! many concatenated members needs and the `libdeflater` crate does not give: how many
//! input bytes the member took (`libdeflate_gzip_decompress_ex`).
//!
//! libdeflate decompresses a whole member from one buffer into another, which lets it
//! skip the window bookkeeping a streaming inflater does; on the WARC files of absolve's
//! benchmark it inflates in 0.36 s what zlib-rs (through flate2) inflates in 0.59-0.76 s.
//! It cannot stream: the member's compressed bytes must all be in `input` and its
//! decompressed bytes must fit in `output`. A caller keeps a streaming inflater for the
//! rest (a member larger than its buffers, damaged data), as absolve does.
//!
//! This crate holds the `unsafe` FFI calls, so that absolve's own crate has none
//! (`#![deny(unsafe_code)]` there).
//!
//! ```
//! use absolve_libdeflate::{Decompressor, Error};
//!
//! // Two gzip members of "hi\n" one after the other, as in a WARC file (RFC 1952 §2.2).
//! let member: &[u8] = &[
//!     0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xcb, 0xc8, 0xe4, 0x02,
//!     0x00, 0x7a, 0x7a, 0x6f, 0xed, 0x03, 0x00, 0x00, 0x00,
//! ];
//! let two = [member, member].concat();
//! let mut decompressor = Decompressor::new();
//! let mut output = [0; 16];
//! let first = decompressor.gzip_member(&two, &mut output)?;
//! assert_eq!((first.consumed, &output[..first.produced]), (member.len(), &b"hi\n"[..]));
//! // An output buffer too small says so; cut input is bad data.
//! assert_eq!(decompressor.gzip_member(&two, &mut output[..2]), Err(Error::InsufficientSpace));
//! assert_eq!(decompressor.gzip_member(&member[..10], &mut output), Err(Error::BadData));
//! # Ok::<(), Error>(())
//! ```
//!
//! [libdeflate]: https://github.com/ebiggers/libdeflate

use std::ptr::NonNull;

/// A gzip member decompressed whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The member's compressed bytes, header and trailer included: where the next
    /// member starts in the input.
    pub consumed: usize,
    /// The bytes written at the start of the output.
    pub produced: usize,
}

/// Why a member was not decompressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Not a whole, valid gzip member: damaged, a bad CRC or size, or cut short by the
    /// end of the input given.
    BadData,
    /// The member decompresses to more bytes than the output holds.
    InsufficientSpace,
}

/// A libdeflate decompressor (some 10 KiB of tables), to be reused for every member.
///
/// ```
/// let mut decompressor = absolve_libdeflate::Decompressor::new();
/// let mut output = [0; 8];
/// assert!(decompressor.gzip_member(b"not gzip", &mut output).is_err());
/// ```
pub struct Decompressor {
    raw: NonNull<libdeflate_sys::libdeflate_decompressor>,
}

// SAFETY: a libdeflate decompressor holds no thread-local state; it is used by one
// thread at a time (every use takes `&mut self`).
unsafe impl Send for Decompressor {}

impl Decompressor {
    /// A new decompressor.
    ///
    /// # Panics
    ///
    /// If libdeflate cannot allocate it (out of memory).
    pub fn new() -> Self {
        // SAFETY: no arguments; the result is checked for null.
        let raw = unsafe { libdeflate_sys::libdeflate_alloc_decompressor() };
        Decompressor {
            raw: NonNull::new(raw).expect("libdeflate could not allocate a decompressor"),
        }
    }

    /// Decompresses the gzip member at the start of `input` into the start of `output`
    /// (RFC 1952 §2.3: header, deflate data, CRC-32 and size checked). Bytes after the
    /// member in `input` are left alone.
    ///
    /// ```
    /// let mut output = [0; 8];
    /// let error = absolve_libdeflate::Decompressor::new().gzip_member(&[0x1f, 0x8b], &mut output);
    /// assert_eq!(error, Err(absolve_libdeflate::Error::BadData));
    /// ```
    pub fn gzip_member(&mut self, input: &[u8], output: &mut [u8]) -> Result<Member, Error> {
        let mut consumed = 0;
        let mut produced = 0;
        // SAFETY: `input` and `output` are valid for their lengths for the call's duration
        // and do not overlap (one is shared, one exclusive); libdeflate reads at most
        // `input.len()` bytes, writes at most `output.len()` and sets the two counts.
        let result = unsafe {
            libdeflate_sys::libdeflate_gzip_decompress_ex(
                self.raw.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                output.as_mut_ptr().cast(),
                output.len(),
                &mut consumed,
                &mut produced,
            )
        };
        match result {
            libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS => {
                Ok(Member { consumed, produced })
            }
            libdeflate_sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => {
                Err(Error::InsufficientSpace)
            }
            _ => Err(Error::BadData),
        }
    }
}

impl Default for Decompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `libdeflate_alloc_decompressor` and is freed once.
        unsafe { libdeflate_sys::libdeflate_free_decompressor(self.raw.as_ptr()) }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Error::BadData => "not a whole, valid gzip member",
            Error::InsufficientSpace => "the member decompresses to more than the output holds",
        })
    }
}

impl std::error::Error for Error {}
