//! WARC files: `warc_links` streams the links of a file (a path or a binary file object)
//! record by record with the GIL released (`rewrite`/`links` take a WARC in memory
//! through `absolve::document`, as any document).

use crate::args;
use crate::link::Link;
use absolve::{Event, warc};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Mutex, TryLockError};

/// How many links one trip out of the GIL gathers, at most (memory stays bounded).
const BATCH: usize = 512;

/// How many warnings one trip out of the GIL gathers, at most: a stretch of input with
/// warnings and no link (a file of damaged records) has them issued as they come, not
/// held until the next link.
pub(crate) const PENDING_WARNINGS: usize = 256;

/// A binary file object read from Rust: each read takes the GIL for the call to `read`.
/// A `read(n)` that gives more than `n` bytes has the rest kept for the next read; an
/// exception that is not an `Exception` (`KeyboardInterrupt`, `SystemExit`) is carried
/// through the reader, to be raised as itself.
struct PyReader {
    file: Py<PyAny>,
    /// Bytes a `read` gave beyond what was asked, `excess[given..]` not read yet.
    excess: Vec<u8>,
    given: usize,
}

impl PyReader {
    fn new(file: Py<PyAny>) -> PyReader {
        PyReader {
            file,
            excess: Vec::new(),
            given: 0,
        }
    }
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.given < self.excess.len() {
            let n = (self.excess.len() - self.given).min(buf.len());
            buf[..n].copy_from_slice(&self.excess[self.given..self.given + n]);
            self.given += n;
            return Ok(n);
        }
        Python::attach(|py| {
            let chunk = self
                .file
                .call_method1(py, "read", (buf.len(),))
                .map_err(
                    |e| match e.is_instance_of::<pyo3::exceptions::PyException>(py) {
                        true => io::Error::other(e.to_string()),
                        false => io::Error::other(e),
                    },
                )?;
            let chunk = chunk.bind(py);
            let bytes = chunk.cast::<PyBytes>().map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "read() gave {}, not bytes: open the file in binary mode ('rb')",
                        args::type_name(chunk)
                    ),
                )
            })?;
            let bytes = bytes.as_bytes();
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            if bytes.len() > n {
                self.excess = bytes[n..].to_vec();
                self.given = 0;
            }
            Ok(n)
        })
    }
}

/// The source of `warc_links`: a path (`str`, `os.PathLike`) opened here, or an object
/// with a binary `read`. Returns the reader and the name messages give it.
pub(crate) fn open_source(source: &Bound<'_, PyAny>) -> PyResult<(Box<dyn Read + Send>, String)> {
    let py = source.py();
    let is_path = source.is_instance_of::<PyString>()
        || source.is_instance(&py.import("os")?.getattr("PathLike")?)?;
    if is_path {
        let path: std::path::PathBuf = source.extract()?;
        let label = path.display().to_string();
        let file = open_file(py, path).map_err(|e| match e {
            Opening::Failed(e) => os_error(&e, &label),
            Opening::Interrupted(raised) => raised,
        })?;
        return Ok((
            Box::new(io::BufReader::with_capacity(64 * 1024, file)),
            label,
        ));
    }
    if source.hasattr("read")? {
        let label = source
            .getattr("name")
            .and_then(|name| name.str().map(|s| s.to_string()))
            .unwrap_or_else(|_| "<file object>".to_owned());
        return Ok((Box::new(PyReader::new(source.clone().unbind())), label));
    }
    Err(PyTypeError::new_err(format!(
        "source: expected a path or a binary file object, not {}",
        args::type_name(source)
    )))
}

/// Why a file was not opened.
pub(crate) enum Opening {
    Failed(io::Error),
    /// A signal handler raised (Ctrl-C: `KeyboardInterrupt`) while `open` waited.
    Interrupted(PyErr),
}

/// Opens `path` with the GIL released: a FIFO or a device may wait in `open` until its
/// other end comes (POSIX `open()`: "O_NONBLOCK is clear: an open() for reading-only shall
/// block the calling thread until a thread opens the file for writing"). Those are opened
/// on a thread of their own while this one checks for signals, so that Ctrl-C stops the
/// wait as it stops Python's own `open` (Rust's retries `open` when a signal interrupts it).
pub(crate) fn open_file(
    py: Python<'_>,
    path: std::path::PathBuf,
) -> Result<std::fs::File, Opening> {
    if !may_wait_in_open(py, &path) {
        return py
            .detach(|| std::fs::File::open(&path))
            .map_err(Opening::Failed);
    }
    let (send, opened) = std::sync::mpsc::channel();
    // Left waiting if the caller gives up: it ends when the other end comes, the file
    // then closed as the receiver is gone.
    std::thread::spawn(move || send.send(std::fs::File::open(&path)));
    let mut opened = Some(opened);
    loop {
        // Moved into the closure and back: a `Receiver` is not `Sync`.
        let receiver = opened.take().expect("put back after each wait");
        let (answer, receiver) = py.detach(move || {
            let answer = receiver.recv_timeout(std::time::Duration::from_millis(100));
            (answer, receiver)
        });
        opened = Some(receiver);
        match answer {
            Ok(file) => return file.map_err(Opening::Failed),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                py.check_signals().map_err(Opening::Interrupted)?
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Opening::Failed(io::Error::other(
                    "the thread opening the file ended without an answer",
                )));
            }
        }
    }
}

/// Whether `open(path)` may wait for another end: `path` is neither a regular file nor a
/// directory (a FIFO, a device); looked at with the GIL released.
pub(crate) fn may_wait_in_open(py: Python<'_>, path: &std::path::Path) -> bool {
    py.detach(|| std::fs::metadata(path))
        .is_ok_and(|meta| !meta.is_file() && !meta.is_dir())
}

/// `OSError(errno, strerror, filename)`: Python picks the subclass (`FileNotFoundError`...).
fn os_error(error: &io::Error, label: &str) -> PyErr {
    let text = error.to_string();
    let strerror = text.split(" (os error").next().unwrap_or(&text).to_owned();
    match error.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, strerror, label.to_owned())),
        None => PyOSError::new_err(format!("{label}: {text}")),
    }
}

/// A library error, worded as the CLI words it, with the file's name.
pub(crate) fn warc_error(error: warc::Error, label: &str) -> PyErr {
    let error = match error {
        // `KeyboardInterrupt`, `SystemExit` raised in a file object's `read`: as themselves.
        warc::Error::Io(error) if error.get_ref().is_some_and(|e| e.is::<PyErr>()) => {
            match error.into_inner().map(|inner| inner.downcast::<PyErr>()) {
                Some(Ok(raised)) => return *raised,
                _ => unreachable!("checked above"),
            }
        }
        other => other,
    };
    match error {
        warc::Error::Io(error) if error.raw_os_error().is_some() => os_error(&error, label),
        warc::Error::Io(error) => PyOSError::new_err(format!("{label}: {error}")),
        other => PyValueError::new_err(format!("{label}: {other}")),
    }
}

/// Every link of every record of a WARC file (``.warc`` or ``.warc.gz``, one gzip member
/// per record or one for the whole file; or compressed whole with bzip2, xz, zstd or LZ4,
/// told by its first bytes, as the command line reads it), streaming: one payload in
/// memory at a time.
///
/// ``source`` is a path (``str``, ``pathlib.Path``) or a binary file object (``open(p,
/// "rb")``, an HTTP response, ``io.BytesIO``). Each ``Link`` has ``record`` (the
/// ``WARC-Record-ID``) and ``target_uri`` (the ``WARC-Target-URI``, the page's URL) beside
/// the fields ``links`` gives; the HTTP header fields' URLs (``Location``, ``Link``...)
/// come first, as ``element="http"``. The base of a page is its ``<base href>``, else its
/// target URI (with ``http_base_headers=True``, the HTTP ``Content-Base`` and
/// ``Content-Location`` fields between them). ``charset``, ``resolve_fragments`` and
/// ``rfc`` are those of ``rewrite``.
///
/// Damaged records are read past with an ``AbsolveWarning`` naming the record, damaged
/// compressed data with one naming the byte offset, reading on from the next member that
/// decodes; a file that is not a WARC raises ``ValueError`` (``OSError`` for a file that
/// cannot be read) naming the file, once the links before it have been given. The library
/// reads and parses with the GIL released.
///
/// Example::
///
///     for link in absolve.warc_links("crawl.warc.gz"):
///         print(link.target_uri, link.element, link.resolved)
#[pyfunction]
#[pyo3(
    signature = (source, *, charset = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false),
    text_signature = "(source, *, charset=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False)"
)]
fn warc_links(
    source: &Bound<'_, PyAny>,
    charset: Option<&str>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
    http_base_headers: bool,
) -> PyResult<WarcLinks> {
    let options = args::check(None, charset, None, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers);
    let (reader, label) = open_source(source)?;
    Ok(WarcLinks {
        state: Mutex::new(State {
            links: Some(warc::Links::new(reader, options)),
            ready: Vec::new(),
            warnings: VecDeque::new(),
            failure: None,
        }),
        label,
        made_in: std::process::id(),
    })
}

/// The iterator ``warc_links`` returns: ``Link`` objects, record after record.
#[pyclass(module = "absolve")]
pub struct WarcLinks {
    state: Mutex<State>,
    /// The file's name, for messages.
    label: String,
    /// The process it was made in.
    made_in: u32,
}

struct State {
    /// `None` once the input is exhausted or failed.
    links: Option<warc::Links<Box<dyn Read + Send>>>,
    /// Links gathered and not yet given, last first.
    ready: Vec<absolve::Link>,
    /// Warnings met with them, not yet issued (issued before them).
    warnings: VecDeque<String>,
    /// The error that ended the input, raised once the links before it are given.
    failure: Option<warc::Error>,
}

impl State {
    /// Reads up to [`BATCH`] links (without the GIL), and the warnings met, each named
    /// `label`, [`PENDING_WARNINGS`] at most (then fewer links, or none).
    fn fill(&mut self, label: &str) {
        let warnings = &mut self.warnings;
        let Some(links) = self.links.as_mut() else {
            return;
        };
        let mut gathered = Vec::with_capacity(BATCH);
        let mut ended = false;
        while gathered.len() < BATCH && warnings.len() < PENDING_WARNINGS {
            match links.next() {
                Some(Ok(Event::Link(link))) => gathered.push(link),
                Some(Ok(Event::Warning(warning))) => {
                    warnings.push_back(format!("{label}: {}", crate::document::worded(&warning)));
                }
                // The library may give an error before the links it had found in the
                // record it failed on: those are given first, the error after them.
                Some(Err(error)) => {
                    self.failure.get_or_insert(error);
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
        if ended {
            self.links = None;
        }
        gathered.reverse();
        self.ready = gathered;
    }
}

#[pymethods]
impl WarcLinks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Link>> {
        // Not `lock()`: a second thread would wait holding the GIL that a file object's
        // `read` needs in the first.
        let mut state = self.state.try_lock().map_err(|e| busy(e, "warc_links"))?;
        crate::same_process(self.made_in, "warc_links")?;
        let state = &mut *state;
        loop {
            if state.ready.is_empty() && state.warnings.is_empty() {
                let label = &self.label;
                crate::detached(py, || state.fill(label));
            }
            // Each warning taken as it is issued: one raised (a filter of "error") leaves
            // the others and the links for the next calls.
            crate::warn_pending(py, &mut state.warnings)?;
            if let Some(found) = state.ready.pop() {
                return Ok(Some(Link::from(found)));
            }
            if state.links.is_none() {
                break;
            }
            // Only warnings so far: read on, Ctrl-C heard between trips.
            py.check_signals()?;
        }
        match state.failure.take() {
            Some(error) => Err(warc_error(error, &self.label)),
            None => Ok(None),
        }
    }
}

/// Why an iterator's state could not be taken: used by another thread now, or left
/// unusable by a panic in an earlier call (a bug of absolve: its message says where).
pub(crate) fn busy<T>(error: TryLockError<T>, what: &str) -> PyErr {
    match error {
        TryLockError::WouldBlock => PyRuntimeError::new_err(format!(
            "{what}: the same iterator used by two threads at once"
        )),
        TryLockError::Poisoned(_) => PyRuntimeError::new_err(format!(
            "{what}: the iterator stopped at an earlier internal error (raised then); make a new one"
        )),
    }
}

/// Adds the WARC functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(warc_links, module)?)?;
    module.add_class::<WarcLinks>()
}
