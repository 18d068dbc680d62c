//! `absolve.Rewriter`: an HTML document rewritten as it arrives, chunk by chunk.

use crate::args;
use crate::link::Link;
use absolve::html;
use absolve::{Collected, Sink, Warning};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};

/// Where the library's rewriter writes: shared with the Python object, which takes the
/// output (and links, warnings) after each chunk.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Collected>>);

impl Shared {
    fn with<T>(&self, f: impl FnOnce(&mut Collected) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Sink for Shared {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.with(|c| c.output.extend_from_slice(bytes));
        Ok(())
    }
    fn link(&mut self, link: absolve::Link) {
        self.with(|c| c.links.push(link));
    }
    fn wants_links(&self) -> bool {
        self.with(|c| c.keep_links)
    }
    fn warning(&mut self, warning: Warning) {
        self.with(|c| c.warnings.push(warning));
    }
}

/// Rewrites an HTML document as it arrives: ``write(chunk)`` returns the rewritten bytes
/// settled so far, ``end()`` the rest. The concatenated results equal
/// ``absolve.rewrite(whole, url, format="html", ...)``, whatever the chunking.
///
/// Until the document's ``<base href>`` is known, output is held back (at most 1 MiB: then
/// ``url`` is used, with an ``AbsolveWarning``), since a ``<base>`` applies to the URLs
/// before it too. With ``keep_links=True``, ``take_links()`` returns the links found so far.
/// The arguments are those of ``absolve.rewrite``. A warning raised as an error (a warnings
/// filter of ``"error"``) leaves the bytes of that call for the next ``write()`` or
/// ``end()`` (``end()`` may be called again after it raised): nothing is lost.
///
/// >>> r = absolve.Rewriter("http://h/a/")
/// >>> r.write(b'<img src="x.pn') + r.write(b'g">') + r.end()
/// b'<img src="http://h/a/x.png">'
#[pyclass(module = "absolve")]
pub struct Rewriter {
    /// `None` once ended. The library's rewriter is `Send`; the lock makes this object
    /// `Sync` as Python objects must be, and is never contended (the GIL orders calls).
    inner: Mutex<Option<html::Rewriter<Shared>>>,
    shared: Shared,
    /// Warnings not issued yet (one before them raised): issued before the output.
    warnings: VecDeque<String>,
}

#[pymethods]
impl Rewriter {
    #[new]
    #[pyo3(
        signature = (url = None, *, charset = None, headers = None, resolve_fragments = false, rfc = None, spec = None, keep_links = false),
        text_signature = "(url=None, *, charset=None, headers=None, resolve_fragments=False, rfc=1808, spec='rfc1808', keep_links=False)"
    )]
    fn new(
        url: Option<&str>,
        charset: Option<&str>,
        headers: Option<&Bound<'_, PyAny>>,
        resolve_fragments: bool,
        rfc: Option<&Bound<'_, PyAny>>,
        spec: Option<&str>,
        keep_links: bool,
    ) -> PyResult<Self> {
        let checked = args::check(url, charset, headers, resolve_fragments, rfc, spec)?;
        let shared = Shared::default();
        shared.with(|c| c.keep_links = keep_links);
        let inner = html::Rewriter::new(checked.base(), checked.html(), shared.clone());
        Ok(Rewriter {
            inner: Mutex::new(Some(inner)),
            shared,
            warnings: VecDeque::new(),
        })
    }

    /// Feeds the next chunk (``bytes``); returns the rewritten bytes now settled (often
    /// ``b""`` while a tag or the ``<base href>`` is still open).
    fn write<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let chunk = args::bytes("chunk", chunk)?;
        // The GIL is released while the library works.
        py.detach(|| {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            let inner = inner.as_mut().ok_or_else(|| {
                PyValueError::new_err("write() after end(): the rewriter has ended")
            })?;
            inner
                .write(&chunk)
                .map_err(|e| PyValueError::new_err(e.to_string()))
        })?;
        self.take_output(py)
    }

    /// Ends the document; returns the rest of the rewritten bytes.
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(inner) = inner else {
            // After an `end()` that a warning raised from: what it had not given yet.
            if !self.warnings.is_empty() || self.shared.with(|c| !c.output.is_empty()) {
                return self.take_output(py);
            }
            return Err(PyValueError::new_err("end() twice: the rewriter has ended"));
        };
        py.detach(|| inner.end())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        self.take_output(py)
    }

    /// The links found since the last call (with ``keep_links=True``; else always ``[]``).
    fn take_links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let links = self.shared.with(|c| std::mem::take(&mut c.links));
        PyList::new(py, links.into_iter().map(Link::from))
    }
}

impl Rewriter {
    /// The output settled so far, taken, after the warnings are issued as
    /// `AbsolveWarning`, each taken as it is issued: when one raises (a warnings filter of
    /// "error"), the others and the output wait for the next `write()` or `end()`, so that
    /// the pieces joined are still the whole document.
    fn take_output<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let met = self.shared.with(|c| std::mem::take(&mut c.warnings));
        self.warnings
            .extend(met.iter().map(crate::document::worded));
        crate::warn_pending(py, &mut self.warnings)?;
        let output = self.shared.with(|c| std::mem::take(&mut c.output));
        Ok(PyBytes::new(py, &output))
    }
}
