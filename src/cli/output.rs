//! Where the CLI writes: the sinks that turn the library's reports into bytes, JSON and
//! warnings (files are written by [`super::write`]).

use absolve::html::{Sink, Warning};
use absolve::links::{Link, Located};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The name an input is reported by.
pub fn label(path: Option<&Path>) -> String {
    path.map_or_else(|| "-".to_owned(), |p| p.display().to_string())
}

/// How many warnings were printed, for the summary of `-r`.
static WARNINGS: AtomicUsize = AtomicUsize::new(0);

/// Prints a warning about `label` on standard error.
pub fn warn(label: &str, warning: &dyn std::fmt::Display) {
    WARNINGS.fetch_add(1, Ordering::Relaxed);
    eprintln!("absolve: warning: {label}: {warning}");
}

/// How many warnings were printed so far.
pub fn warnings() -> usize {
    WARNINGS.load(Ordering::Relaxed)
}

/// A sink of the CLI: it also knows which input, message and part it is reporting on.
pub trait CliSink: Sink {
    /// The input's name, for warnings.
    fn label(&self) -> &str;
    /// The message (1-based, in an mbox) and MIME part the next reports are about.
    fn locate(&mut self, _message: Option<usize>, _part: Option<&str>) {}
    /// A link found in a WARC record (its `WARC-Record-ID` and `WARC-Target-URI`).
    fn record_link(&mut self, _record: &str, _target_uri: Option<&str>, link: &Link) {
        self.link(link);
    }
}

/// Writes the rewritten bytes; warnings go to standard error.
pub struct RewriteSink<W: Write> {
    pub out: W,
    pub label: String,
}

impl<W: Write> Sink for RewriteSink<W> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }
    fn warning(&mut self, warning: Warning) {
        warn(&self.label, &warning);
    }
    fn wants_links(&self) -> bool {
        false
    }
}

/// Prints each link as a JSON line; the document's bytes are dropped.
pub struct LinksSink<'a, W: Write> {
    pub out: W,
    pub label: &'a str,
    pub message: Option<usize>,
    pub part: Option<String>,
    pub error: Option<io::Error>,
}

impl<W: Write> CliSink for RewriteSink<W> {
    fn label(&self) -> &str {
        &self.label
    }
}

impl<W: Write> CliSink for LinksSink<'_, W> {
    fn label(&self) -> &str {
        self.label
    }
    fn locate(&mut self, message: Option<usize>, part: Option<&str>) {
        self.message = message;
        self.part = part.map(str::to_owned);
    }
    fn record_link(&mut self, record: &str, target_uri: Option<&str>, link: &Link) {
        if self.error.is_none()
            && let Err(error) = self.write_located(link, Some(record), Some(target_uri))
        {
            self.error = Some(error);
        }
    }
}

impl<W: Write> LinksSink<'_, W> {
    fn write_record(&mut self, link: &Link) -> io::Result<()> {
        self.write_located(link, None, None)
    }

    /// One line: the link with where it is ([`Located`]: every line has the same keys).
    fn write_located(
        &mut self,
        link: &Link,
        record: Option<&str>,
        target_uri: Option<Option<&str>>,
    ) -> io::Result<()> {
        let record = Located {
            file: Some(self.label),
            message: self.message,
            part: self.part.as_deref(),
            record,
            target_uri: target_uri.flatten(),
            link,
        };
        serde_json::to_writer(&mut self.out, &record)?;
        self.out.write_all(b"\n")
    }
}

impl<W: Write> Sink for LinksSink<'_, W> {
    fn output(&mut self, _bytes: &[u8]) -> io::Result<()> {
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
    /// Only the links are printed: the rewritten bytes are not built.
    fn wants_output(&self) -> bool {
        false
    }
    fn link(&mut self, link: &Link) {
        if self.error.is_none()
            && let Err(error) = self.write_record(link)
        {
            self.error = Some(error);
        }
    }
    fn warning(&mut self, warning: Warning) {
        let context = match (&self.message, &self.part) {
            (Some(m), Some(p)) => format!(" message {m} part {p}"),
            _ => String::new(),
        };
        warn(&format!("{}{context}", self.label), &warning);
    }
}
