//! `absolve._absolve`: the Python face of the absolve library, a thin layer of PyO3
//! functions over `absolve::{url, document, html, warc}`. Arguments are checked as the CLI
//! checks its flags; the library's work runs with the GIL released; its warnings become
//! Python warnings of category `absolve.AbsolveWarning`.

mod args;
mod arrow;
mod document;
mod iter_links;
mod link;
mod stream;
mod warc;

use absolve::Options;
use document::{Outcome, Want};
use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::ffi::CString;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pyo3::create_exception!(
    absolve,
    AbsolveWarning,
    PyUserWarning,
    "Something wrong in a document that did not stop absolve: a part or record passed through unchanged, a <base href> that gives no usable URL, a value not valid in the document's charset."
);

/// Resolves ``reference`` against ``base`` as RFC 1808 §4 defines it (or RFC 3986 §5.2
/// with ``rfc=3986``); an empty ``base`` leaves the reference as it is (§3.4).
///
/// >>> absolve.resolve("http://a/b/c/d;p?q#f", "../g")
/// 'http://a/b/g'
/// >>> absolve.resolve("http://a/b/c/d;p?q", "../../../g", rfc=3986)
/// 'http://a/g'
#[pyfunction]
#[pyo3(signature = (base, reference, rfc = None, *, spec = None), text_signature = "(base, reference, rfc=1808, *, spec='rfc1808')")]
fn resolve(
    base: &str,
    reference: &str,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
) -> PyResult<String> {
    let standard = args::standard_of(rfc, spec)?;
    // As the CLI's `resolve BASE`: a base must be absolute, or empty (§3.4).
    if !base.is_empty() && !absolve::url::has_scheme(base) {
        return Err(PyValueError::new_err(format!(
            "base: {base:?} has no scheme: a base URL must be absolute (an empty base leaves references unchanged)"
        )));
    }
    // Well under a microsecond: releasing the GIL would cost more than the work.
    Ok(absolve::url::resolve_with(standard, base, reference))
}

/// Makes every link of ``document`` absolute; returns the new bytes, every byte outside
/// a changed URL unchanged.
///
/// ``document`` is ``bytes``: an HTML page, a MIME message (``.eml``, ``.emlx``, MHTML), an mbox
/// archive, a WARC file or a Safari web archive (each resource against its own
/// ``WebResourceURL``: ``url`` only for one without), told apart by content
/// (``format="auto"``) or named by
/// ``format="html"|"mime"|"mbox"|"warc"|"css"|"feed"|"webarchive"|"svg"`` (a stylesheet is only
/// ever named). ``url`` is the URL it was retrieved from
/// (RFC 1808 §3.3), the base when the document gives none; without it, references the
/// document does not anchor stay relative (§3.4). ``charset`` (a WHATWG label) or the
/// ``Content-Type`` of ``headers`` (a mapping or ``(name, value)`` pairs, as Scrapy,
/// requests or http.client give them) is the transport's charset: a BOM wins over it, it
/// wins over ``<meta charset>``. ``resolve_fragments=True`` resolves ``#x`` references
/// too, as RFC 1808 §5 does; ``spec="rfc3986"`` (or ``rfc=3986``) resolves by RFC 3986
/// §5.2 instead, ``spec="whatwg"`` by the WHATWG URL Standard (each URL what a browser's
/// ``element.href`` gives; a reference it rejects is left as it is, with a warning). For a WARC,
/// ``http_base_headers=True`` takes the HTTP ``Content-Base``/``Content-Location`` fields
/// as bases too (see ``warc_links``); a WARC's pages take their URL from their records,
/// so ``url`` is not used for them. A message (``.eml``, MHTML, one of an mbox) or a
/// stylesheet read from a path or a file is held in memory whole to be read: one larger
/// than ``max_held`` bytes (default 256 MiB) is passed through unchanged and its links are
/// not listed, with a warning (``bytes`` given are held already: no limit applies).
///
/// Raises ``ValueError`` for a bad argument (a ``url`` without a scheme, an unknown
/// charset, ``rfc`` neither 1808 nor 3986) and ``TypeError`` for a ``str`` document.
/// Problems inside the document are warnings (``absolve.AbsolveWarning``), not errors.
///
/// >>> absolve.rewrite(b'<a href="../x">x</a>', "http://h/d/p.html")
/// b'<a href="http://h/x">x</a>'
#[pyfunction]
#[pyo3(
    signature = (document, url = None, *, format = "auto", charset = None, headers = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false, keep_local = false, max_held = None),
    text_signature = "(document, url=None, *, format='auto', charset=None, headers=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False, keep_local=False, max_held=268435456)"
)]
#[allow(clippy::too_many_arguments)]
fn rewrite<'py>(
    py: Python<'py>,
    document: &Bound<'py, PyAny>,
    url: Option<&str>,
    format: &str,
    charset: Option<&str>,
    headers: Option<&Bound<'py, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'py, PyAny>>,
    spec: Option<&str>,
    http_base_headers: bool,
    keep_local: bool,
    max_held: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = check(format, url, charset, headers, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers)
        .with_keep_local(keep_local);
    let options = args::max_held(options, max_held)?;
    let document = args::document("document", document)?;
    let outcome = run(py, &document, &options, Want::Output)?;
    warn_all(py, &outcome.warnings)?;
    Ok(PyBytes::new(py, &outcome.output))
}

/// Every URL of ``document``, in document order, as ``Link`` objects (the fields of a line
/// of ``absolve links``: ``element``, ``attribute``, ``original``, ``resolved``, ``base``,
/// ``base_from``, ``offset``, and ``message``/``part`` or ``record``/``target_uri`` where
/// they apply).
///
/// The arguments are those of ``rewrite``. For a crawler, pass the response body, its URL
/// and its headers:
///
/// >>> [l.resolved for l in absolve.links(b'<base href="/s/"><img srcset="a.png 1x, b.png 2x">', "http://h/d/p.html")]
/// ['http://h/s/', 'http://h/s/a.png', 'http://h/s/b.png']
#[pyfunction]
#[pyo3(
    signature = (document, url = None, *, format = "auto", charset = None, headers = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false, keep_local = false, max_held = None),
    text_signature = "(document, url=None, *, format='auto', charset=None, headers=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False, keep_local=False, max_held=268435456)"
)]
#[allow(clippy::too_many_arguments)]
fn links<'py>(
    py: Python<'py>,
    document: &Bound<'py, PyAny>,
    url: Option<&str>,
    format: &str,
    charset: Option<&str>,
    headers: Option<&Bound<'py, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'py, PyAny>>,
    spec: Option<&str>,
    http_base_headers: bool,
    keep_local: bool,
    max_held: Option<u64>,
) -> PyResult<Bound<'py, PyList>> {
    let options = check(format, url, charset, headers, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers)
        .with_keep_local(keep_local);
    let options = args::max_held(options, max_held)?;
    let document = args::document("document", document)?;
    let outcome = run(py, &document, &options, Want::Links)?;
    warn_all(py, &outcome.warnings)?;
    PyList::new(py, outcome.links)
}

/// How many links ``links`` would return, without building ``Link`` objects: the library's
/// time alone, for measuring the binding's own cost. Not part of the public API.
#[pyfunction]
#[pyo3(signature = (document, url = None, *, format = "auto"))]
fn _count_links(
    py: Python<'_>,
    document: &Bound<'_, PyAny>,
    url: Option<&str>,
    format: &str,
) -> PyResult<usize> {
    let options = check(format, url, None, None, false, None, None)?;
    let document = args::document("document", document)?;
    Ok(run(py, &document, &options, Want::Links)?.links.len())
}

/// The checked options of a call, its format among them.
pub(crate) fn check(
    format: &str,
    url: Option<&str>,
    charset: Option<&str>,
    headers: Option<&Bound<'_, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
) -> PyResult<Options> {
    let format = args::format(format)?;
    Ok(args::check(url, charset, headers, resolve_fragments, rfc, spec)?.with_format(format))
}

/// Runs the library over a document with the GIL released.
fn run(
    py: Python<'_>,
    document: &args::Document<'_>,
    options: &Options,
    want: Want,
) -> PyResult<Outcome> {
    detached(py, || document::process(document, options, want)).map_err(PyValueError::new_err)
}

/// The process that imported the module: the one whose rayon global pool has threads.
static IMPORTED_BY: OnceLock<u32> = OnceLock::new();

/// The pool of a process forked from the one that imported the module, and its pid.
static FORKED_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// Runs the library's `work` with the GIL released, on rayon's global pool, or, in a
/// process forked after `import absolve` (`multiprocessing`'s "fork" start method), inside
/// a pool of that process's own: `fork()` copies only the calling thread, so the global
/// pool that the parent started is there with none of its threads, and work sent to it
/// would wait forever (POSIX `fork()`: "a process shall be created with a single thread").
pub(crate) fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> T {
    py.detach(|| in_process_pool(work))
}

/// Runs the library's `work` on rayon's global pool, or, in a process forked from the one
/// that imported the module, inside a pool of that process's own (see [`detached`]).
pub(crate) fn in_process_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match forked_pool() {
        None => work(),
        Some(pool) => pool.install(work),
    }
}

/// The pool of this process when it is not the one that imported the module (built at
/// its first call, kept for the next); `None` in the importing process.
fn forked_pool() -> Option<Arc<rayon::ThreadPool>> {
    let pid = std::process::id();
    if *IMPORTED_BY.get_or_init(|| pid) == pid {
        return None;
    }
    let mut pool = FORKED_POOL.lock().unwrap_or_else(PoisonError::into_inner);
    match &*pool {
        Some((owner, pool)) if *owner == pid => Some(Arc::clone(pool)),
        _ => {
            // As many threads as the global pool would have (`absolve::threads`).
            let threads = std::env::var(absolve::threads::ENV)
                .ok()
                .and_then(|count| count.trim().parse::<usize>().ok())
                .and_then(std::num::NonZeroUsize::new)
                .map(absolve::threads::bounded)
                .or_else(|| std::thread::available_parallelism().ok())
                .map_or(1, |threads| threads.get());
            let built = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
                .map(Arc::new)?;
            *pool = Some((pid, Arc::clone(&built)));
            Some(built)
        }
    }
}

/// Refuses an iterator made in another process: what it had in flight (work on the
/// parent's threads) never comes to a forked child.
pub(crate) fn same_process(made_in: u32, what: &str) -> PyResult<()> {
    match std::process::id() == made_in {
        true => Ok(()),
        false => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{what}: this iterator was made in another process (before a fork): make a new one in this process"
        ))),
    }
}

/// Issues each warning as an `AbsolveWarning`.
pub(crate) fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    warnings.iter().try_for_each(|warning| warn(py, warning))
}

/// Issues the warnings of `pending` in order, each taken out before it is issued: when one
/// raises (a warnings filter of `"error"`), the others stay for the next call, so that
/// nothing is lost.
pub(crate) fn warn_pending(
    py: Python<'_>,
    pending: &mut std::collections::VecDeque<String>,
) -> PyResult<()> {
    while let Some(warning) = pending.pop_front() {
        warn(py, &warning)?;
    }
    Ok(())
}

/// Issues `warning` as an `AbsolveWarning`.
fn warn(py: Python<'_>, warning: &str) -> PyResult<()> {
    let category = py.get_type::<AbsolveWarning>();
    let message = CString::new(warning.replace('\0', "\\0"))?;
    PyErr::warn(py, category.as_any(), &message, 2)
}

/// The Rust extension of the ``absolve`` package; import ``absolve``, not this module.
#[pymodule]
fn _absolve(module: &Bound<'_, PyModule>) -> PyResult<()> {
    IMPORTED_BY.get_or_init(std::process::id);
    module.add_function(wrap_pyfunction!(resolve, module)?)?;
    module.add_function(wrap_pyfunction!(rewrite, module)?)?;
    module.add_function(wrap_pyfunction!(links, module)?)?;
    module.add_function(wrap_pyfunction!(_count_links, module)?)?;
    module.add_class::<link::Link>()?;
    module.add_class::<stream::Rewriter>()?;
    module.add("AbsolveWarning", module.py().get_type::<AbsolveWarning>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    warc::register(module)?;
    iter_links::register(module)?;
    arrow::register(module)?;
    bound_threads(module.py())
}

/// `RAYON_NUM_THREADS` past four threads per core is lowered to that, with an
/// `AbsolveWarning` (`absolve::threads`: each thread holds its own buffers). Otherwise
/// nothing starts here: the pool starts at the first parallel work, so that a process
/// forking after `import absolve` (`multiprocessing`) has no threads missing in its children.
fn bound_threads(py: Python<'_>) -> PyResult<()> {
    let pool = absolve::threads::global_pool(None);
    match pool.asked {
        Some(asked) if pool.lowered() => warn_all(
            py,
            &[format!(
                "{}={}: using {} threads, {} per core (more would only take more memory)",
                absolve::threads::ENV,
                asked.count(),
                pool.threads,
                absolve::threads::PER_CORE,
            )],
        ),
        _ => Ok(()),
    }
}
