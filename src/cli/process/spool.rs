//! The output of inputs processed beside each other (`links -j N`), written in input
//! order. The oldest input not yet written out (the *head*) writes straight to the shared
//! output, a block at a time; each input behind it holds its output in a [`Spool`] until
//! it becomes the head (then it empties its spool into the output and goes on writing
//! there) or until it ends (then the writer copies the spool out in its turn). Memory
//! stays bounded: past [`SPILL`] bytes, a spool goes to an anonymous temporary file.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many bytes of one input's output are held in memory before it spills to disk.
pub const SPILL: usize = 4 << 20;

/// How many bytes the head gathers before it takes the output's lock to write them.
pub const BLOCK: usize = 64 * 1024;

/// An input's output: in memory, then (past [`SPILL`]) in a temporary file.
#[derive(Debug, Default)]
pub struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
}

/// The memory of spools done with, for the next ones: a spool's buffer grows to [`SPILL`]
/// bytes, which glibc maps afresh (it is not below the mmap threshold the command sets)
/// and the kernel zeroes page by page; over 30 WARC files at `-j 2`, 57,000 page faults
/// against 4,900 at `-j 1`. At most [`SPARE_SPOOLS`] are kept.
static SPARE_MEMORY: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// How many spool buffers are kept for reuse: more than the inputs a run of a few
/// threads has behind its head at once, and a bound on what is kept (4 x 4 MiB).
const SPARE_SPOOLS: usize = 4;

/// Keeps `memory`, emptied, for the next spool, if there is room.
fn keep_memory(mut memory: Vec<u8>) {
    if memory.capacity() == 0 || memory.capacity() > 2 * SPILL {
        return;
    }
    memory.clear();
    let mut spare = SPARE_MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if spare.len() < SPARE_SPOOLS {
        spare.push(memory);
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        keep_memory(std::mem::take(&mut self.memory));
    }
}

impl Spool {
    /// An empty spool (with the memory of one done with, if any).
    pub fn new() -> Self {
        let memory = SPARE_MEMORY
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        Spool { memory, file: None }
    }

    /// Writes everything held to `out`, in the order it was written here, and leaves the
    /// spool empty (its memory kept for what comes next).
    pub fn drain_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.memory)?;
        self.memory.clear();
        if let Some(file) = self.file.take() {
            let mut file = file.into_inner().map_err(|e| e.into_error())?;
            file.seek(SeekFrom::Start(0))?;
            let mut buffer = vec![0; BLOCK];
            loop {
                match file.read(&mut buffer)? {
                    0 => break,
                    n => out.write_all(&buffer[..n])?,
                }
            }
        }
        Ok(())
    }

    /// How many bytes are held in memory.
    fn held(&self) -> usize {
        self.memory.len()
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(file) = &mut self.file {
            return file.write(bytes);
        }
        if self.memory.len() + bytes.len() > SPILL {
            let mut file = BufWriter::with_capacity(256 * 1024, tempfile::tempfile()?);
            file.write_all(&self.memory)?;
            keep_memory(std::mem::take(&mut self.memory));
            file.write_all(bytes)?;
            self.file = Some(file);
            return Ok(bytes.len());
        }
        self.memory.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

/// The output shared by the inputs, and which input's turn it is to write to it.
#[derive(Debug)]
pub struct InOrder<W> {
    out: Mutex<W>,
    /// The index of the oldest input whose output is not all written yet.
    head: AtomicUsize,
}

impl<W: Write> InOrder<W> {
    /// `out`, the first input (index 0) at its head.
    pub fn new(out: W) -> Self {
        InOrder {
            out: Mutex::new(out),
            head: AtomicUsize::new(0),
        }
    }

    /// The writer for the input at `index`.
    pub fn slot(&self, index: usize) -> Slot<'_, W> {
        Slot {
            index,
            shared: self,
            spool: Spool::new(),
            streaming: false,
        }
    }

    /// Writes what the input at the head left in its spool (nothing if it was streaming
    /// when it ended), then makes the next input the head. Only the thread that learns
    /// the head has ended calls this, once per input, in input order.
    pub fn finish_head(&self, mut spool: Spool) -> io::Result<()> {
        let written = spool.drain_to(&mut *self.lock());
        // Release: the next head sees these bytes in `out` before it writes its own.
        self.head.fetch_add(1, Ordering::Release);
        written
    }

    /// The output, back.
    #[cfg(test)]
    fn into_inner(self) -> W {
        self.out.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, W> {
        // A thread that panicked while writing leaves the bytes it wrote: still usable.
        self.out.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One input's writer: to its spool while inputs before it are unwritten, then, once it
/// is the head, to the shared output in blocks of [`BLOCK`] bytes.
#[derive(Debug)]
pub struct Slot<'a, W> {
    index: usize,
    shared: &'a InOrder<W>,
    spool: Spool,
    streaming: bool,
}

impl<W: Write> Slot<'_, W> {
    /// Writes out what is held if this input is the head; what is left (all of it, if it
    /// never was the head) goes back to be written in its turn by [`InOrder::finish_head`].
    pub fn finish(mut self) -> (Spool, io::Result<()>) {
        let written = match self.is_head() {
            true => self.write_out(),
            false => Ok(()),
        };
        (self.spool, written)
    }

    fn is_head(&mut self) -> bool {
        if !self.streaming {
            // Acquire: the inputs before this one wrote all they had before `head` moved.
            self.streaming = self.shared.head.load(Ordering::Acquire) == self.index;
        }
        self.streaming
    }

    fn write_out(&mut self) -> io::Result<()> {
        self.spool.drain_to(&mut *self.shared.lock())
    }
}

impl<W: Write> Write for Slot<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.spool.write_all(bytes)?;
        if self.spool.held() >= BLOCK && self.is_head() {
            self.write_out()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What spools leave for the next ones stays bounded: however
    /// many spools end, at most [`SPARE_SPOOLS`] buffers, none over twice [`SPILL`].
    #[test]
    fn spools_leave_their_memory_to_the_next_and_keep_little() {
        for _ in 0..3 * SPARE_SPOOLS {
            let mut spool = Spool::new();
            spool.write_all(&[b'x'; BLOCK]).unwrap();
            drop(spool);
        }
        keep_memory(Vec::with_capacity(3 * SPILL));
        let spare = SPARE_MEMORY.lock().unwrap();
        assert!(spare.len() <= SPARE_SPOOLS, "{}", spare.len());
        assert!(
            spare
                .iter()
                .all(|m| m.is_empty() && m.capacity() <= 2 * SPILL)
        );
    }

    #[test]
    fn a_small_output_stays_in_memory_and_comes_back_whole() {
        let mut spool = Spool::new();
        spool.write_all(b"one\n").unwrap();
        spool.write_all(b"two\n").unwrap();
        assert!(spool.file.is_none());
        let mut out = Vec::new();
        spool.drain_to(&mut out).unwrap();
        assert_eq!(out, b"one\ntwo\n");
        assert_eq!(spool.held(), 0);
    }

    #[test]
    fn a_large_output_spills_to_disk_and_comes_back_in_order() {
        let mut spool = Spool::new();
        let line: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let mut expected = Vec::new();
        for n in 0..(SPILL / line.len() + 10) {
            let mut chunk = n.to_string().into_bytes();
            chunk.extend_from_slice(&line);
            spool.write_all(&chunk).unwrap();
            expected.extend_from_slice(&chunk);
        }
        assert!(spool.file.is_some());
        assert!(spool.memory.len() <= SPILL);
        let mut out = Vec::new();
        spool.drain_to(&mut out).unwrap();
        assert_eq!(out, expected);
        assert!(spool.file.is_none());
    }

    /// `count` lines of `len` bytes for input `n`.
    fn lines(n: usize, count: usize, len: usize) -> Vec<Vec<u8>> {
        (0..count)
            .map(|i| {
                let mut line = format!("{n}:{i}:").into_bytes();
                line.resize(len, b'x');
                line.push(b'\n');
                line
            })
            .collect()
    }

    #[test]
    fn the_head_streams_and_the_others_wait_their_turn() {
        let shared = InOrder::new(Vec::new());
        let (mut first, mut second) = (shared.slot(0), shared.slot(1));
        // The second input writes first: held, although past a block.
        for line in lines(1, 200, 999) {
            second.write_all(&line).unwrap();
        }
        assert!(shared.lock().is_empty());
        // The head writes a block straight out, before it ends.
        for line in lines(0, 200, 999) {
            first.write_all(&line).unwrap();
        }
        let streamed = shared.lock().len();
        assert!((BLOCK..200 * 1000).contains(&streamed), "{streamed}");
        let (left, done) = first.finish();
        done.unwrap();
        assert_eq!(left.held(), 0);
        shared.finish_head(left).unwrap();
        // Now the head: its next write empties its spool out first.
        for line in lines(1, 100, 999) {
            second.write_all(&line).unwrap();
        }
        let (left, done) = second.finish();
        done.unwrap();
        shared.finish_head(left).unwrap();
        let expected: Vec<u8> = [lines(0, 200, 999), lines(1, 200, 999), lines(1, 100, 999)]
            .concat()
            .concat();
        assert_eq!(shared.into_inner(), expected);
    }

    #[test]
    fn inputs_on_threads_come_out_in_input_order() {
        let shared = InOrder::new(Vec::new());
        let inputs = 12;
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            for n in 0..inputs {
                let (shared, done) = (&shared, done.clone());
                scope.spawn(move || {
                    let mut slot = shared.slot(n);
                    // Sizes from a few bytes to several blocks.
                    for line in lines(n, (n * 37) % 300 + 1, 500) {
                        slot.write_all(&line).unwrap();
                    }
                    let (left, written) = slot.finish();
                    written.unwrap();
                    done.send((n, left)).unwrap();
                });
            }
            let mut ready = std::collections::BTreeMap::new();
            let mut next = 0;
            while next < inputs {
                let (n, left) = finished.recv().unwrap();
                ready.insert(n, left);
                while let Some(left) = ready.remove(&next) {
                    shared.finish_head(left).unwrap();
                    next += 1;
                }
            }
        });
        let expected: Vec<u8> = (0..inputs)
            .flat_map(|n| lines(n, (n * 37) % 300 + 1, 500).concat())
            .collect();
        assert_eq!(shared.into_inner(), expected);
    }
}
