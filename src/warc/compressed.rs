//! A WARC file compressed whole with bzip2, xz, zstd or LZ4 (`.warc.zst`, resiliparse's
//! `.warc.lz4`...), read by [`Links`](super::Links) and [`EncodedLinks`](super::EncodedLinks)
//! as the command line reads it: decompressed as it is read ([`compress::Decoder`]), and
//! read on after damage from the next block or frame that decodes, each stream read as a
//! WARC of its own ([`Options`]' `read_on`: it may start inside the record the damage
//! cut). gzip is read by the records' framing itself, member by member
//! ([`super::stream`]).

use super::Error;
use super::list::{Mode, Reader};
use crate::Options;
use crate::compress::{Compression, Decoder};
use crate::warning::{Problem, Warning};
use std::collections::VecDeque;
use std::io::{self, BufReader, Read};
use std::sync::{Arc, Mutex, PoisonError};

/// The input buffer a compressed input is decoded through: as the pipeline's.
const CHUNK: usize = 256 * 1024;

/// The most bytes read to tell the compression: a first read as large as the framing's.
const HEAD: usize = 64 * 1024;

/// The input of a [`Reader`]: a WARC as it is (plain or gzip), or compressed otherwise.
pub(super) enum Source<R: Read, M: Mode> {
    /// Not looked at yet: its compression is told at the first [`Source::next`].
    Unread(Option<(R, Arc<Options>, Arc<M>)>),
    /// Plain or gzip: the bytes looked at, then the rest.
    Warc(Box<Reader<LookedAt<R>, M>>),
    /// bzip2, xz, zstd or LZ4.
    Compressed(Box<Streams<R, M>>),
}

impl<R: Read, M: Mode> Source<R, M> {
    pub(super) fn new(reader: R, options: Options, mode: M) -> Self {
        Source::Unread(Some((reader, Arc::new(options), Arc::new(mode))))
    }

    pub(super) fn next(&mut self) -> Option<Result<M::Item, Error>> {
        if let Source::Unread(unread) = self {
            let (reader, options, mode) = unread.take()?;
            match Source::open(reader, options, mode) {
                Ok(source) => *self = source,
                Err(error) => return Some(Err(error.into())),
            }
        }
        match self {
            Source::Unread(_) => None,
            Source::Warc(reader) => reader.next(),
            Source::Compressed(streams) => streams.next(),
        }
    }

    /// Tells the compression by the input's first bytes ([`Compression::detect`]), read
    /// until there are [`Compression::MAGIC_LEN`] of them (a pipe may give fewer at first).
    fn open(mut reader: R, options: Arc<Options>, mode: Arc<M>) -> io::Result<Self> {
        let head = first_bytes(&mut reader)?;
        let compression = Compression::detect(&head);
        let input = io::Cursor::new(head).chain(reader);
        match compression {
            None | Some(Compression::Gzip) => {
                Ok(Source::Warc(Box::new(Reader::new(input, options, mode))))
            }
            Some(compression) => {
                let input = BufReader::with_capacity(CHUNK, input);
                let mut decoder = Decoder::new(compression, input);
                let first = options.for_the_streams_of(&mut decoder);
                let decoder = Shared(Arc::new(Mutex::new(decoder)));
                let read_on = Arc::new(Options {
                    read_on: true,
                    ..first.clone()
                });
                let reader = Reader::new(decoder.clone(), Arc::new(first), Arc::clone(&mode));
                Ok(Source::Compressed(Box::new(Streams {
                    decoder,
                    reader: Some(reader),
                    read_on,
                    mode,
                    warnings: VecDeque::new(),
                })))
            }
        }
    }
}

/// The first bytes of `reader`: what its first read gives, read on while they are fewer
/// than [`Compression::MAGIC_LEN`] and the input has more.
fn first_bytes(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = vec![0; HEAD];
    let mut len = 0;
    while len < Compression::MAGIC_LEN {
        match reader.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    head.truncate(len);
    Ok(head)
}

/// An input whose first bytes were looked at: they, then the rest.
type LookedAt<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// A decoder the records' reader reads from, shared with [`Streams`], which reads on
/// with it after damage.
struct Shared<R>(Arc<Mutex<Decoder<BufReader<LookedAt<R>>>>>);

impl<R> Clone for Shared<R> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<R: Read> Shared<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Decoder<BufReader<LookedAt<R>>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<R: Read> Read for Shared<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.lock().read(buf)
    }
}

/// The decompressed streams of a compressed WARC: the first, then after each damage the
/// one read on from the next block or frame that decodes ([`Decoder::resume`]), each
/// read by a [`Reader`] of its own, the damage said between them.
pub(super) struct Streams<R: Read, M: Mode> {
    decoder: Shared<R>,
    /// The reader of the stream being read; `None` once the input has ended.
    reader: Option<Reader<Shared<R>, M>>,
    /// The options of a stream read on: `read_on` set.
    read_on: Arc<Options>,
    mode: Arc<M>,
    /// The damage met, to hand out before the next stream's records.
    warnings: VecDeque<M::Item>,
}

impl<R: Read, M: Mode> Streams<R, M> {
    fn next(&mut self) -> Option<Result<M::Item, Error>> {
        loop {
            if let Some(warning) = self.warnings.pop_front() {
                return Some(Ok(warning));
            }
            match self.reader.as_mut()?.next() {
                Some(Err(error)) => {
                    // The input is unreadable: nothing after it.
                    self.reader = None;
                    return Some(Err(error));
                }
                Some(item) => return Some(item),
                None => {}
            }
            self.reader = None;
            if let Err(error) = self.read_on() {
                return Some(Err(error.into()));
            }
        }
    }

    /// At the end of a stream: its damage said, and the next stream that decodes read
    /// on from (the compressed bytes before it passed over), if any. As the command
    /// line's `each_stream`, which copies those bytes to its output.
    fn read_on(&mut self) -> io::Result<()> {
        let damage = self.decoder.lock().damage_read_on(&mut |_| Ok(()))?;
        let Some(damage) = damage else {
            return Ok(());
        };
        let resumed = damage.resumed_at.is_some();
        let warning = Warning::new(Problem::Compression(damage));
        self.warnings.push_back(self.mode.warning(warning));
        if resumed {
            let (read_on, mode) = (Arc::clone(&self.read_on), Arc::clone(&self.mode));
            self.reader = Some(Reader::new(self.decoder.clone(), read_on, mode));
        }
        Ok(())
    }
}
