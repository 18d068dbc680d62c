//! `absolve.iter_links`: the links of any document (a page, a stylesheet, a feed, a
//! message, a mail folder, a WARC file, compressed or not), streaming. The library's
//! pipeline runs on a thread of its own and hands the links over in batches through a
//! bounded channel, so that memory stays bounded whatever the link count: a mail folder
//! of millions of links is never one list.

use crate::args;
use crate::link::Link;
use absolve::pipeline::{self, Input};
use absolve::{Options, Sink, Warning};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many links a batch holds, at most.
const BATCH: usize = 512;

/// How many batches wait in the channel, at most: with [`BATCH`], what bounds memory
/// between the pipeline and the caller.
const BATCHES_AHEAD: usize = 4;

/// What the pipeline's thread sends.
enum Message {
    /// Links found and the warnings met before them, in order.
    Batch(Vec<absolve::Link>, Vec<String>),
    /// The input ended: read through, or the error that stopped it (worded).
    End(Result<(), String>),
}

/// The input, owned by the pipeline's thread.
enum Owned {
    Bytes(Vec<u8>),
    /// A regular file, read by the library by its path (see `args::Document::Path`).
    File(PathBuf),
    /// A FIFO or a device, opened already.
    Stream(std::fs::File),
}

/// Where the pipeline's links and warnings go: batches sent to the iterator. Once the
/// iterator is gone (dropped before its end), `output` fails, which stops the pipeline.
struct Batches {
    sender: SyncSender<Message>,
    links: Vec<absolve::Link>,
    warnings: Vec<String>,
    gone: Arc<AtomicBool>,
}

impl Batches {
    /// Sends what was gathered, waiting while [`BATCHES_AHEAD`] batches are not taken.
    fn send(&mut self) {
        if self.links.is_empty() && self.warnings.is_empty() {
            return;
        }
        let batch = Message::Batch(
            std::mem::replace(&mut self.links, Vec::with_capacity(BATCH)),
            std::mem::take(&mut self.warnings),
        );
        if self.sender.send(batch).is_err() {
            self.gone.store(true, Ordering::Relaxed);
        }
    }

    fn gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }
}

impl Sink for Batches {
    fn output(&mut self, _bytes: &[u8]) -> io::Result<()> {
        match self.gone() {
            true => Err(io::ErrorKind::BrokenPipe.into()),
            false => Ok(()),
        }
    }
    fn wants_output(&self) -> bool {
        false
    }
    fn wants_links(&self) -> bool {
        !self.gone()
    }
    fn link(&mut self, link: absolve::Link) {
        self.links.push(link);
        if self.links.len() >= BATCH {
            self.send();
        }
    }
    fn warning(&mut self, warning: Warning) {
        self.warnings.push(crate::document::worded(&warning));
        if self.warnings.len() >= crate::warc::PENDING_WARNINGS {
            self.send();
        }
    }
}

/// A reader that fails once the iterator is gone, so that a stream is not read on for
/// nobody.
struct UntilGone<R> {
    inner: R,
    gone: Arc<AtomicBool>,
}

impl<R: Read> Read for UntilGone<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.gone.load(Ordering::Relaxed) {
            true => Err(io::ErrorKind::BrokenPipe.into()),
            false => self.inner.read(buf),
        }
    }
}

/// Runs the pipeline over `owned` on the calling thread (the pipeline's own), sending
/// batches to `sink`'s channel, then the end.
fn run(owned: Owned, label: Option<String>, options: Options, mut sink: Batches) {
    let gone = Arc::clone(&sink.gone);
    let result = crate::in_process_pool(|| {
        let input = match &owned {
            Owned::Bytes(bytes) => Input::Bytes(bytes),
            Owned::File(path) => Input::File(path),
            Owned::Stream(file) => Input::Reader(Box::new(io::BufReader::new(UntilGone {
                inner: file,
                gone,
            }))),
        };
        pipeline::run(input, &options, &mut sink)
    });
    let result = result.map(|_| ()).map_err(|error| match &label {
        Some(label) => format!("{label}: {error}"),
        None => error.to_string(),
    });
    sink.send();
    // The iterator may be gone: nobody to tell.
    let _ = sink.sender.send(Message::End(result));
}

/// Every URL of ``document``, as ``links`` gives them, one ``Link`` at a time: the
/// document is read as the links are taken, so that memory stays bounded whatever their
/// count (a mail folder of millions of links, a WARC file).
///
/// The arguments are those of ``links``; ``document`` is ``bytes`` or a path
/// (``os.PathLike``: a file, compressed or not, or a FIFO). The warnings come as
/// ``AbsolveWarning`` before the links found after them; a document that cannot be read
/// raises ``ValueError`` once the links before the failure have been given. The library
/// runs on a thread of its own, a few batches of links ahead, with the GIL released; an
/// iterator dropped before its end stops it.
///
/// >>> [l.resolved for l in absolve.iter_links(b'<a href="a.html">', "http://h/d/")]
/// ['http://h/d/a.html']
#[pyfunction]
#[pyo3(
    signature = (document, url = None, *, format = "auto", charset = None, headers = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false, keep_local = false, max_held = None),
    text_signature = "(document, url=None, *, format='auto', charset=None, headers=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False, keep_local=False, max_held=268435456)"
)]
#[allow(clippy::too_many_arguments)]
fn iter_links(
    document: &Bound<'_, PyAny>,
    url: Option<&str>,
    format: &str,
    charset: Option<&str>,
    headers: Option<&Bound<'_, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
    http_base_headers: bool,
    keep_local: bool,
    max_held: Option<u64>,
) -> PyResult<LinkIterator> {
    let options = crate::check(format, url, charset, headers, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers)
        .with_keep_local(keep_local);
    let options = args::max_held(options, max_held)?;
    let (owned, label) = match args::document("document", document)? {
        args::Document::Bytes(bytes) => (Owned::Bytes(bytes.into_owned()), None),
        args::Document::Path(path) => {
            let label = path.display().to_string();
            (Owned::File(path), Some(label))
        }
        args::Document::Stream(path, file) => {
            (Owned::Stream(file), Some(path.display().to_string()))
        }
    };
    let (sender, receiver) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
    let gone = Arc::new(AtomicBool::new(false));
    let sink = Batches {
        sender,
        links: Vec::with_capacity(BATCH),
        warnings: Vec::new(),
        gone: Arc::clone(&gone),
    };
    std::thread::Builder::new()
        .name("absolve iter_links".to_owned())
        .spawn(move || run(owned, label, options, sink))
        .map_err(|e| PyRuntimeError::new_err(format!("iter_links: no thread to read on: {e}")))?;
    Ok(LinkIterator {
        state: Mutex::new(State {
            receiver: Some(receiver),
            ready: Vec::new(),
            warnings: VecDeque::new(),
            failure: None,
        }),
        gone,
        made_in: std::process::id(),
    })
}

/// The iterator ``iter_links`` returns: ``Link`` objects, in document order.
#[pyclass(module = "absolve")]
pub struct LinkIterator {
    state: Mutex<State>,
    /// Set when the iterator is dropped: the pipeline's thread stops.
    gone: Arc<AtomicBool>,
    /// The process it was made in.
    made_in: u32,
}

struct State {
    /// `None` once the end came.
    receiver: Option<Receiver<Message>>,
    /// Links received and not yet given, last first.
    ready: Vec<absolve::Link>,
    /// Warnings received with them, not yet issued (issued before them).
    warnings: VecDeque<String>,
    /// The error that ended the input, raised once the links before it are given.
    failure: Option<String>,
}

impl State {
    /// Waits (without the GIL) up to `wait` for the next message, and takes it in.
    /// Returns whether one came.
    fn receive(&mut self, wait: Duration) -> bool {
        let Some(receiver) = &self.receiver else {
            return false;
        };
        match receiver.recv_timeout(wait) {
            Ok(Message::Batch(mut links, warnings)) => {
                links.reverse();
                self.ready = links;
                self.warnings.extend(warnings);
            }
            Ok(Message::End(result)) => {
                self.receiver = None;
                self.failure = result.err();
            }
            Err(RecvTimeoutError::Timeout) => return false,
            Err(RecvTimeoutError::Disconnected) => {
                self.receiver = None;
                self.failure = Some("iter_links: the thread reading the document ended without a word (a bug of absolve)".to_owned());
            }
        }
        true
    }
}

#[pymethods]
impl LinkIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Link>> {
        let mut state = self
            .state
            .try_lock()
            .map_err(|e| crate::warc::busy(e, "iter_links"))?;
        crate::same_process(self.made_in, "iter_links")?;
        let state = &mut *state;
        loop {
            // Each warning taken as it is issued: one raised (a filter of "error") leaves
            // the others and the links for the next calls.
            crate::warn_pending(py, &mut state.warnings)?;
            if let Some(found) = state.ready.pop() {
                return Ok(Some(Link::from(found)));
            }
            if state.receiver.is_none() {
                break;
            }
            // Ctrl-C heard between waits.
            if !py.detach(|| state.receive(Duration::from_millis(100))) {
                py.check_signals()?;
            }
        }
        match state.failure.take() {
            Some(error) => Err(PyValueError::new_err(error)),
            None => Ok(None),
        }
    }
}

impl Drop for LinkIterator {
    fn drop(&mut self) {
        self.gone.store(true, Ordering::Relaxed);
    }
}

/// Adds `iter_links` to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(iter_links, module)?)?;
    module.add_class::<LinkIterator>()
}
