//! Bytes held in memory while small, then in an anonymous temporary file.
//!
//! A WARC record's new payload, as `rewrite` makes it: held in memory while small, then in an
//! anonymous temporary file, so that a large rewritten payload is never held beside the
//! payload it is made from. It is compared with that payload as it is written (an
//! unchanged payload leaves its record copied as it was).
//!
//! The bytes of a block from a record start found in it are held in one too, while it is
//! not known whether the block runs past the end of the file ([`Spool::into_reader`]: then
//! they are read again as the records they are).
//!
//! The compressed bytes of a gzip input kept to be copied as they are ([`Kept`]) go the
//! same way: those of the members after an overlong block are all kept until the block's
//! end tells which records they hold.
//!
//! An mbox message's rewrite goes to one as well when its `Content-Length` must be set
//! before it is written (an mboxcl message), and so does a WARC gzip member's output
//! held back until its trailer is checked.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The size of the reads and writes of a spool's temporary file (as the WARC reader's).
const FILE_CHUNK: usize = 64 * 1024;

/// The most bytes held in memory before they go to a temporary file.
pub(crate) const IN_MEMORY: usize = 4 << 20;

/// The bytes written, in memory or in a temporary file, and whether they are still the
/// same as `original`'s.
pub(crate) struct Spool<'a> {
    original: &'a [u8],
    memory: Vec<u8>,
    file: Option<io::BufWriter<File>>,
    len: u64,
    same: bool,
}

impl<'a> Spool<'a> {
    /// An empty spool for a new version of `original`.
    pub fn new(original: &'a [u8]) -> Self {
        Spool {
            original,
            memory: Vec::new(),
            file: None,
            len: 0,
            same: true,
        }
    }

    /// How many bytes were written.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the bytes written differ from the original's.
    pub fn changed(&self) -> bool {
        !self.same || self.len != self.original.len() as u64
    }

    /// The spool without its original, once compared.
    pub fn detach(self) -> Spool<'static> {
        Spool {
            original: &[],
            memory: self.memory,
            file: self.file,
            len: self.len,
            same: false,
        }
    }

    /// Gives each piece of the bytes written, in order, to `each`.
    pub fn for_each(&mut self, each: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let Some(file) = &mut self.file else {
            return each(&self.memory);
        };
        file.flush()?;
        let file = file.get_mut();
        file.seek(SeekFrom::Start(0))?;
        let mut buf = vec![0; FILE_CHUNK];
        let mut left = self.len;
        while left > 0 {
            let n = file.read(&mut buf)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the temporary file of a rewritten record is shorter than written",
                ));
            }
            let n = n.min(left as usize);
            each(&buf[..n])?;
            left -= n as u64;
        }
        Ok(())
    }

    /// The bytes written, to be read from their start (from memory, or from the temporary
    /// file a piece at a time).
    pub fn into_reader(self) -> io::Result<SpoolReader> {
        let file = match self.file {
            Some(file) => {
                let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.seek(SeekFrom::Start(0))?;
                Some(file.take(self.len))
            }
            None => None,
        };
        Ok(SpoolReader {
            memory: io::Cursor::new(self.memory),
            file,
        })
    }
}

/// The bytes of a [`Spool`], read back.
pub(crate) struct SpoolReader {
    memory: io::Cursor<Vec<u8>>,
    file: Option<io::Take<File>>,
}

impl SpoolReader {
    /// How many bytes are left to read.
    pub fn left(&self) -> u64 {
        let memory = self.memory.get_ref().len() as u64 - self.memory.position();
        memory + self.file.as_ref().map_or(0, io::Take::limit)
    }
}

impl Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.memory.read(buf)? {
            0 => match &mut self.file {
                Some(file) => file.read(buf),
                None => Ok(0),
            },
            n => Ok(n),
        }
    }
}

impl Write for Spool<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.same {
            let at = self.len as usize;
            self.same = self
                .original
                .get(at..at + bytes.len())
                .is_some_and(|o| o == bytes);
        }
        match &mut self.file {
            Some(file) => file.write_all(bytes)?,
            None if self.memory.len() + bytes.len() <= IN_MEMORY => {
                self.memory.extend_from_slice(bytes)
            }
            None => {
                let file = tempfile::tempfile()?;
                let mut file = io::BufWriter::with_capacity(FILE_CHUNK, file);
                file.write_all(&self.memory)?;
                file.write_all(bytes)?;
                self.file = Some(file);
                self.memory = Vec::new();
            }
        }
        self.len += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The most kept bytes ([`Kept`]) held in memory: beyond, the older ones go to a
/// temporary file. Less than [`IN_MEMORY`]: they are kept beside the input buffer and a
/// block's held bytes, and a member of its own this large is rare.
const KEPT_IN_MEMORY: usize = 1 << 20;

/// Bytes queued to be written out later, oldest first: the newest in memory, the older
/// ones (past [`KEPT_IN_MEMORY`], once [`Kept::spill`] is called) in an anonymous temporary
/// file. Bytes are added at the back, and taken off the front (written out or dropped) or
/// the back (given back to the input).
#[derive(Default)]
pub(crate) struct Kept {
    /// The older bytes: `file[file_from..file_to]`.
    file: Option<File>,
    file_from: u64,
    file_to: u64,
    /// The newer bytes: `memory[memory_from..]`.
    memory: Vec<u8>,
    memory_from: usize,
}

impl Kept {
    /// How many bytes are kept.
    pub fn len(&self) -> u64 {
        self.file_len() + (self.memory.len() - self.memory_from) as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn file_len(&self) -> u64 {
        self.file_to - self.file_from
    }

    /// Adds `bytes` at the back (in memory: see [`Kept::spill`]).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.memory.extend_from_slice(bytes);
    }

    /// Moves the bytes in memory to the temporary file when they are more than
    /// [`KEPT_IN_MEMORY`]: called where an error can be returned, so that memory stays bounded.
    pub fn spill(&mut self) -> io::Result<()> {
        if self.memory.len() - self.memory_from <= KEPT_IN_MEMORY {
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile()?),
        };
        file.seek(SeekFrom::Start(self.file_to))?;
        file.write_all(&self.memory[self.memory_from..])?;
        self.file_to += (self.memory.len() - self.memory_from) as u64;
        self.memory.clear();
        self.memory.shrink_to(KEPT_IN_MEMORY);
        self.memory_from = 0;
        Ok(())
    }

    /// Drops the first `n` bytes.
    pub fn drop_front(&mut self, n: u64) {
        let from_file = n.min(self.file_len());
        self.file_from += from_file;
        if self.file_from == self.file_to {
            // The file is empty: written again from its start.
            (self.file_from, self.file_to) = (0, 0);
        }
        let from_memory = (n - from_file).min((self.memory.len() - self.memory_from) as u64);
        self.memory_from += from_memory as usize;
        if self.memory_from == self.memory.len() {
            self.memory.clear();
            self.memory_from = 0;
        } else if self.memory_from > self.memory.len() / 2 {
            self.memory.drain(..self.memory_from);
            self.memory_from = 0;
        }
    }

    /// Keeps the first `n` bytes only.
    pub fn truncate(&mut self, n: u64) {
        let file_len = self.file_len();
        if n >= file_len {
            let keep = self.memory_from + (n - file_len) as usize;
            self.memory.truncate(keep);
        } else {
            self.file_to = self.file_from + n;
            self.memory.truncate(self.memory_from);
        }
    }

    /// Drops every byte.
    pub fn clear(&mut self) {
        self.truncate(0);
        self.drop_front(0);
    }

    /// Gives each piece of the bytes after the first `skip`, in order, to `each`, and keeps
    /// them: read from the temporary file a piece at a time.
    pub fn for_each_from(
        &mut self,
        skip: u64,
        each: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let from_file = self.file_len().saturating_sub(skip);
        if let Some(file) = self.file.as_mut().filter(|_| from_file > 0) {
            file.seek(SeekFrom::Start(self.file_to - from_file))?;
            let mut buf = vec![0; FILE_CHUNK];
            let mut left = from_file;
            while left > 0 {
                let wanted = left.min(buf.len() as u64) as usize;
                let n = file.read(&mut buf[..wanted])?;
                if n == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the temporary file of kept gzip bytes is shorter than written",
                    ));
                }
                each(&buf[..n])?;
                left -= n as u64;
            }
        }
        let skip_memory = skip.saturating_sub(self.file_len()) as usize;
        let memory = &self.memory[self.memory_from..];
        each(&memory[skip_memory.min(memory.len())..])
    }

    /// Writes the first `n` bytes to `out` and drops them.
    pub fn write_front(&mut self, n: u64, out: &mut dyn Write) -> io::Result<()> {
        let n = n.min(self.len());
        let from_file = n.min(self.file_len());
        if let Some(file) = self.file.as_mut().filter(|_| from_file > 0) {
            file.seek(SeekFrom::Start(self.file_from))?;
            let copied = io::copy(&mut file.take(from_file), out)?;
            if copied < from_file {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the temporary file of kept gzip bytes is shorter than written",
                ));
            }
        }
        let from_memory = (n - from_file) as usize;
        out.write_all(&self.memory[self.memory_from..self.memory_from + from_memory])?;
        self.drop_front(n);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collected(spool: &mut Spool) -> Vec<u8> {
        let mut all = Vec::new();
        spool
            .for_each(&mut |piece| {
                all.extend_from_slice(piece);
                Ok(())
            })
            .unwrap();
        all
    }

    /// Small or large, the bytes come back as written; the comparison with the original
    /// holds across pieces and beyond the memory limit.
    #[test]
    fn bytes_come_back_in_memory_and_from_a_file() {
        let original: Vec<u8> = (0..IN_MEMORY * 2 + 77).map(|i| (i % 251) as u8).collect();
        for size in [0, 10, IN_MEMORY, IN_MEMORY + 1, original.len()] {
            let mut spool = Spool::new(&original);
            for piece in original[..size].chunks(100_003) {
                spool.write_all(piece).unwrap();
            }
            assert_eq!(spool.file.is_some(), size > IN_MEMORY);
            assert_eq!(spool.len(), size as u64);
            assert_eq!(spool.changed(), size != original.len());
            assert_eq!(collected(&mut spool), &original[..size]);
        }
        let mut spool = Spool::new(&original);
        spool.write_all(&original[..IN_MEMORY]).unwrap();
        spool.write_all(b"x").unwrap();
        spool.write_all(&original[IN_MEMORY + 1..]).unwrap();
        assert!(spool.changed());
    }

    /// Read back, small or large, the bytes are those written, and what is left is said.
    #[test]
    fn bytes_are_read_back() {
        let original: Vec<u8> = (0..IN_MEMORY + 4321).map(|i| (i % 253) as u8).collect();
        for size in [0, 10, IN_MEMORY + 4321] {
            let mut spool = Spool::new(&[]);
            for piece in original[..size].chunks(65_536) {
                spool.write_all(piece).unwrap();
            }
            let mut reader = spool.into_reader().unwrap();
            assert_eq!(reader.left(), size as u64);
            let mut back = Vec::new();
            reader.read_to_end(&mut back).unwrap();
            assert_eq!(back, &original[..size]);
            assert_eq!(reader.left(), 0);
        }
    }

    /// Kept bytes come out in order, whatever part of them is in the temporary file,
    /// taken off either end.
    #[test]
    fn kept_bytes_come_out_in_order() {
        let data: Vec<u8> = (0..3 * IN_MEMORY + 999).map(|i| (i % 249) as u8).collect();
        let mut kept = Kept::default();
        let mut at = 0;
        let mut out = Vec::new();
        for piece in data.chunks(1 << 20) {
            kept.extend_from_slice(piece);
            kept.spill().unwrap();
            assert!(kept.memory.len() <= KEPT_IN_MEMORY + (1 << 20));
            kept.write_front(300_000, &mut out).unwrap();
            kept.drop_front(7);
            out.extend_from_slice(&data[at + 300_000..at + 300_007]);
            at += 300_007;
        }
        assert!(kept.file.is_some());
        assert_eq!(kept.len(), (data.len() - at) as u64);
        kept.truncate(kept.len() - 5);
        kept.write_front(u64::MAX, &mut out).unwrap();
        assert!(out == data[..data.len() - 5], "the bytes differ");
        assert!(kept.is_empty());
        kept.extend_from_slice(b"again");
        kept.write_front(2, &mut out).unwrap();
        kept.clear();
        assert!(out.ends_with(b"ag") && kept.is_empty());
    }

    /// Kept bytes read from any offset, in memory and in the temporary file, are those
    /// kept, and stay kept.
    #[test]
    fn kept_bytes_are_read_from_any_offset_and_stay() {
        let data: Vec<u8> = (0..2 * KEPT_IN_MEMORY + 999)
            .map(|i| (i % 247) as u8)
            .collect();
        let mut kept = Kept::default();
        for piece in data.chunks(300_000) {
            kept.extend_from_slice(piece);
            kept.spill().unwrap();
        }
        kept.drop_front(5);
        assert!(kept.file.is_some());
        for skip in [0, 1, KEPT_IN_MEMORY as u64, kept.len() - 3, kept.len()] {
            let mut read = Vec::new();
            kept.for_each_from(skip, &mut |piece| {
                read.extend_from_slice(piece);
                Ok(())
            })
            .unwrap();
            assert!(read == data[5 + skip as usize..], "from {skip}");
        }
        let mut out = Vec::new();
        kept.write_front(u64::MAX, &mut out).unwrap();
        assert!(out == data[5..], "the bytes stay kept");
    }
}
