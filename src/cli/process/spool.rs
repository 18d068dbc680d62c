//! The output of one input processed beside others (`links -j N`): held until the inputs
//! before it are written, so that the output stays in input order. Memory stays bounded:
//! past [`SPILL`] bytes, the output goes to an anonymous temporary file.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

/// How many bytes of one input's output are held in memory before it spills to disk.
pub const SPILL: usize = 4 << 20;

/// An input's output: in memory, then (past [`SPILL`]) in a temporary file.
#[derive(Debug, Default)]
pub struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
}

impl Spool {
    /// An empty spool.
    pub fn new() -> Self {
        Spool::default()
    }

    /// Writes everything held to `out`, in the order it was written here.
    pub fn copy_to(self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.memory)?;
        if let Some(file) = self.file {
            let mut file = file.into_inner().map_err(|e| e.into_error())?;
            file.seek(SeekFrom::Start(0))?;
            let mut buffer = vec![0; 64 * 1024];
            loop {
                match file.read(&mut buffer)? {
                    0 => break,
                    n => out.write_all(&buffer[..n])?,
                }
            }
        }
        Ok(())
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
            self.memory = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_output_stays_in_memory_and_comes_back_whole() {
        let mut spool = Spool::new();
        spool.write_all(b"one\n").unwrap();
        spool.write_all(b"two\n").unwrap();
        assert!(spool.file.is_none());
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert_eq!(out, b"one\ntwo\n");
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
        spool.copy_to(&mut out).unwrap();
        assert_eq!(out, expected);
    }
}
