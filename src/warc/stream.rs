//! The bytes of a WARC file as one stream of records, whether it is plain or gzipped:
//! WARC 1.1 Annex D (one gzip member per record) or one gzip stream for the whole file.
//!
//! For `rewrite`, the compressed bytes read are kept (a [`Tee`]) and each gzip member's
//! start is remembered in both offsets, so that a record that is a member of its own can
//! be copied byte for byte, member and all.

use flate2::bufread::GzDecoder;
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};

/// How many bytes are read from the input at a time.
pub(crate) const CHUNK: usize = 64 * 1024;

/// The gzip magic number (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A buffered reader of the raw input that counts the bytes consumed and, while
/// `keeping`, keeps them.
pub(crate) struct Tee<R> {
    inner: BufReader<R>,
    /// Bytes consumed from the input since it began.
    pub consumed: u64,
    /// Bytes kept, the first of them at input offset `kept_from`.
    pub kept: Vec<u8>,
    pub kept_from: u64,
    pub keeping: bool,
}

impl<R: Read> Tee<R> {
    fn new(inner: R) -> Self {
        Tee {
            inner: BufReader::with_capacity(CHUNK, inner),
            consumed: 0,
            kept: Vec::new(),
            kept_from: 0,
            keeping: false,
        }
    }

    /// Drops the kept bytes before input offset `to`.
    pub fn drop_kept_before(&mut self, to: u64) {
        let n = (to.saturating_sub(self.kept_from) as usize).min(self.kept.len());
        self.kept.drain(..n);
        self.kept_from += n as u64;
        if self.kept.is_empty() {
            self.kept_from = self.consumed;
        }
    }
}

impl<R: Read> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        if self.keeping {
            self.kept.extend_from_slice(&self.inner.buffer()[..amount]);
        } else if self.kept.is_empty() {
            self.kept_from = self.consumed + amount as u64;
        }
        self.consumed += amount as u64;
        self.inner.consume(amount);
    }
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
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

enum Body<R> {
    Plain(Tee<R>),
    /// Inside a gzip member.
    Member(Decoder<R>),
    /// Between members, or at the end.
    Between(Tee<R>),
    /// A transient state while a member is replaced.
    Swapping,
}

/// The decompressed bytes of a WARC file, plain or gzip, detected by the magic number.
pub(crate) struct Stream<R> {
    body: Body<R>,
    /// Decompressed bytes produced so far.
    pub produced: u64,
    /// Member starts not yet passed by the reader (and the last one passed).
    pub members: VecDeque<MemberStart>,
    pub gzip: bool,
    /// The last gzip member was cut short (a truncated file).
    pub truncated: bool,
    /// The decoder of the last member, for the next.
    spare: Option<Decoder<R>>,
}

impl<R: Read> Stream<R> {
    /// A stream over `input`; gzip when it starts with the gzip magic number.
    pub fn new(input: R) -> io::Result<Self> {
        let mut tee = Tee::new(input);
        let gzip = tee.fill_buf()?.starts_with(&GZIP_MAGIC);
        let body = if gzip {
            Body::Between(tee)
        } else {
            Body::Plain(tee)
        };
        Ok(Stream {
            body,
            produced: 0,
            members: VecDeque::new(),
            gzip,
            truncated: false,
            spare: None,
        })
    }

    /// The raw input, to read or change what is kept.
    pub fn tee(&mut self) -> &mut Tee<R> {
        match &mut self.body {
            Body::Plain(tee) | Body::Between(tee) => tee,
            Body::Member(decoder) => decoder.get_mut().held(),
            Body::Swapping => unreachable!("the body is swapped only inside read"),
        }
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

    /// Whether the input is at its end with no member open.
    pub fn at_end(&self) -> bool {
        match &self.body {
            Body::Between(tee) | Body::Plain(tee) => tee.inner.buffer().is_empty(),
            _ => false,
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

    fn read_gzip(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match std::mem::replace(&mut self.body, Body::Swapping) {
                Body::Member(mut decoder) => match decoder.read(buf) {
                    Ok(0) if !buf.is_empty() => self.body = Body::Between(self.park(decoder)),
                    Ok(n) => {
                        self.body = Body::Member(decoder);
                        return Ok(n);
                    }
                    Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => {
                        // RFC 1952: a member cut short; what it gave so far was returned.
                        self.truncated = true;
                        self.body = Body::Between(self.park(decoder));
                        let tee = self.tee();
                        let rest = tee.fill_buf()?.len();
                        tee.consume(rest);
                        return Ok(0);
                    }
                    Err(error) => {
                        let at = decoder.get_mut().held().consumed;
                        self.body = Body::Between(self.park(decoder));
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            GzipError { at, error },
                        ));
                    }
                },
                Body::Between(mut tee) => {
                    if tee.fill_buf()?.is_empty() {
                        self.body = Body::Between(tee);
                        return Ok(0);
                    }
                    self.members.push_back(MemberStart {
                        decompressed: self.produced,
                        compressed: tee.consumed,
                    });
                    self.body = Body::Member(self.decoder(tee));
                }
                other => {
                    self.body = other;
                    unreachable!("read_gzip is only called on gzip input")
                }
            }
        }
    }
}

/// A gzip member that cannot be decompressed, at a file offset.
#[derive(Debug, thiserror::Error)]
#[error("damaged gzip data near byte {at} of the file: {error}")]
pub(crate) struct GzipError {
    pub at: u64,
    pub error: io::Error,
}

impl<R: Read> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
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

    /// One decoder serves every member: each member's bytes come out whole, in order,
    /// with its start in both offsets; a damaged member after one that decoded (the
    /// decoder reset for it) is an error that says where it is.
    #[test]
    fn members_share_one_decoder() {
        let texts: [&[u8]; 3] = [b"first member ", b"second, a little longer ", b"third"];
        let members: Vec<Vec<u8>> = texts.iter().map(|t| member(t)).collect();
        let file = members.concat();
        let mut stream = Stream::new(&file[..]).unwrap();
        let mut out = Vec::new();
        stream.read_to_end(&mut out).unwrap();
        assert_eq!(out, texts.concat());
        assert!(stream.spare.is_some() && stream.at_end() && !stream.truncated);
        let second = stream.member_at(texts[0].len() as u64).unwrap();
        assert_eq!(second.compressed, members[0].len() as u64);
        assert_eq!(
            stream.member_after(second.decompressed).unwrap().compressed,
            (members[0].len() + members[1].len()) as u64
        );

        let mut damaged = members[1].clone();
        damaged[12..].iter_mut().for_each(|b| *b = 0xff);
        let file = [&members[0][..], &damaged, &members[2]].concat();
        let mut stream = Stream::new(&file[..]).unwrap();
        let mut out = Vec::new();
        let error = stream.read_to_end(&mut out).unwrap_err();
        let at = error
            .get_ref()
            .unwrap()
            .downcast_ref::<GzipError>()
            .unwrap()
            .at;
        assert!(at > members[0].len() as u64, "{at}");
        assert!(out.starts_with(texts[0]));
    }
}
