//! The arguments every function shares, checked as the CLI checks its flags: a bad one
//! raises `ValueError` (or `TypeError` for a wrong type) with the CLI's message, the flag
//! named by its Python argument name, before any work is done.

use absolve::format::Format;
use absolve::html::{self, charset};
use absolve::url::Standard;
use absolve::{OptionError, Options};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use std::borrow::Cow;
use std::path::PathBuf;

/// The `format=` argument, in any case as the CLI's `--format`: `"auto"` (`None`: told
/// apart by content), or the format named.
pub fn format(value: &str) -> PyResult<Option<Format>> {
    if value.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    value
        .parse::<Format>()
        .map(Some)
        .map_err(|e| PyValueError::new_err(format!("format: {e}")))
}

/// A value the library's [`Options`] refused: `ValueError` with the CLI's wording, the
/// option named by its Python argument name.
pub fn option_error(error: OptionError) -> PyErr {
    PyValueError::new_err(format!("{}: {}", error.option(), error.reason()))
}

/// Checks `url`, `charset`/`headers`, `resolve_fragments` and `rfc` through the library's
/// one validating constructor ([`Options`]), as the CLI checks its flags.
pub fn check(
    url: Option<&str>,
    charset: Option<&str>,
    headers: Option<&Bound<'_, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
) -> PyResult<Options> {
    let standard = standard_of(rfc, spec)?;
    let mut options = Options::new()
        .with_standard(standard)
        .with_resolve_fragments(resolve_fragments);
    if let Some(url) = url {
        options = options.with_url(url).map_err(option_error)?;
    }
    // The caller's charset wins over the response's Content-Type (both are the transport's).
    match (charset, headers) {
        (Some(label), _) => options = options.with_charset(label).map_err(option_error)?,
        (None, Some(headers)) => {
            let encoding = content_type(headers)?
                .and_then(|value| charset::from_content_type(&value))
                .and_then(|label| charset::from_label(&label));
            if let Some(encoding) = encoding {
                let html = html::Options {
                    charset: Some(encoding),
                    ..options.html().clone()
                };
                options = options.with_html(html);
            }
        }
        (None, None) => {}
    }
    Ok(options)
}

/// `max_held=`: the most bytes of one message, stylesheet or web archive read from a file or stream
/// held in memory ([`Options::with_max_held`]); `None` keeps the default (256 MiB).
/// `ValueError` for 0, which would hold nothing.
pub fn max_held(options: Options, max_held: Option<u64>) -> PyResult<Options> {
    match max_held {
        None => Ok(options),
        Some(0) => Err(PyValueError::new_err(
            "max_held: 0 bytes would hold nothing: give a size such as 512 * 2**20",
        )),
        Some(bytes) => Ok(options.with_max_held(bytes)),
    }
}

/// `spec=` (`"rfc1808"`, `"rfc3986"`, `"whatwg"`, any case) or its older spelling `rfc=`
/// (1808 or 3986), as the CLI's `--spec` and `--rfc`; not both.
pub fn standard_of(rfc: Option<&Bound<'_, PyAny>>, spec: Option<&str>) -> PyResult<Standard> {
    match (rfc, spec) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "spec: give spec= or its older spelling rfc=, not both",
        )),
        (Some(rfc), None) => standard(rfc),
        (None, Some(spec)) => spec
            .parse::<Standard>()
            .map_err(|e| PyValueError::new_err(format!("spec: {e}"))),
        (None, None) => Ok(Standard::Rfc1808),
    }
}

/// `rfc=`: 1808 or 3986, as a number or a string.
pub fn standard(rfc: &Bound<'_, PyAny>) -> PyResult<Standard> {
    let text = if let Ok(number) = rfc.extract::<i64>() {
        number.to_string()
    } else if let Ok(text) = rfc.extract::<String>() {
        text
    } else {
        return Err(PyTypeError::new_err(format!(
            "rfc: expected 1808 or 3986, not {}",
            type_name(rfc)
        )));
    };
    Standard::from_rfc(&text).map_err(|e| PyValueError::new_err(format!("rfc: {e}")))
}

/// The `Content-Type` of HTTP response headers given as a mapping (a `dict`, Scrapy's
/// `Headers`, `http.client.HTTPMessage`, requests' `CaseInsensitiveDict`) or as a list of
/// `(name, value)` pairs; names and values may be `str` or `bytes`, a value may be a list
/// (Scrapy keeps every value: the last one counts, as for a repeated header).
fn content_type(headers: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let pairs = if headers.hasattr("items")? {
        headers.call_method0("items")?
    } else {
        headers.clone()
    };
    let mut found = None;
    for pair in pairs.try_iter().map_err(|_| headers_type_error(headers))? {
        let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
            pair?.extract().map_err(|_| headers_type_error(headers))?;
        if header_text(&name)?.eq_ignore_ascii_case("content-type") {
            found = last_header_value(&value)?;
        }
    }
    Ok(found)
}

fn headers_type_error(headers: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "headers: expected a mapping or a list of (name, value) pairs, not {}",
        type_name(headers)
    ))
}

/// A header value: `str`, `bytes`, or a list of them (the last one counts).
fn last_header_value(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        return header_text(value).map(Some);
    }
    let not_text = |_| {
        PyTypeError::new_err(format!(
            "headers: names and values must be str or bytes (or a list of them), not {}",
            type_name(value)
        ))
    };
    let mut last = None;
    for item in value.try_iter().map_err(not_text)? {
        last = Some(header_text(&item?)?);
    }
    Ok(last)
}

/// A header name or value as text: `bytes` are ISO-8859-1, as HTTP/1.1 has them.
fn header_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().iter().map(|&b| char::from(b)).collect());
    }
    value.extract::<String>().map_err(|_| {
        PyTypeError::new_err(format!(
            "headers: names and values must be str or bytes, not {}",
            type_name(value)
        ))
    })
}

/// A document: its bytes, or the file it is.
pub enum Document<'a> {
    /// `bytes` (borrowed), or a `bytearray`/`memoryview` (copied).
    Bytes(Cow<'a, [u8]>),
    /// An `os.PathLike` naming a FIFO or a device, opened here (see [`path_document`]):
    /// read once, as a stream.
    Stream(PathBuf, std::fs::File),
    /// An `os.PathLike` (`pathlib.Path`): the file is read by the library, which can then
    /// find a saved page's URL in its extended attributes and the files beside it
    /// (`keep_local`).
    Path(PathBuf),
}

/// The bytes of a document: `bytes` are borrowed (they cannot change); a `bytearray` or
/// `memoryview` is copied. `str` is refused: a page is bytes until its charset is known.
pub fn bytes<'a>(argument: &str, value: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(array) = value.cast::<PyByteArray>() {
        return Ok(Cow::Owned(array.to_vec()));
    }
    if value.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{argument}: expected bytes (the document as received), not str: pass the raw body, or encode it and give charset="
        )));
    }
    match value.call_method0("tobytes") {
        Ok(bytes) if bytes.is_instance_of::<PyBytes>() => Ok(Cow::Owned(bytes.extract()?)),
        _ => Err(PyTypeError::new_err(format!(
            "{argument}: expected bytes, not {}",
            type_name(value)
        ))),
    }
}

/// A document argument: bytes as [`bytes`] takes them, or a path (`os.PathLike`).
pub fn document<'a>(argument: &str, value: &'a Bound<'_, PyAny>) -> PyResult<Document<'a>> {
    let py = value.py();
    if value.is_instance(&py.import("os")?.getattr("PathLike")?)? {
        return path_document(py, value.extract()?);
    }
    if value.is_instance_of::<PyString>() {
        return bytes(argument, value).map(Document::Bytes);
    }
    bytes(argument, value).map(Document::Bytes).map_err(|_| {
        PyTypeError::new_err(format!(
            "{argument}: expected bytes or a path (os.PathLike), not {}",
            type_name(value)
        ))
    })
}

/// A path given as a document. A regular file is read by the library by its path; a FIFO
/// or a device, whose `open` waits until its other end comes, is opened here as
/// `warc_links` opens one (`warc::open_file`: the wait without the GIL, Ctrl-C heard),
/// and read as a stream. A failure is worded as the library's (`ValueError`).
fn path_document(py: Python<'_>, path: PathBuf) -> PyResult<Document<'static>> {
    if !crate::warc::may_wait_in_open(py, &path) {
        return Ok(Document::Path(path));
    }
    match crate::warc::open_file(py, path.clone()) {
        Ok(file) => Ok(Document::Stream(path, file)),
        Err(crate::warc::Opening::Failed(error)) => Err(PyValueError::new_err(format!(
            "{}: {error}",
            path.display()
        ))),
        Err(crate::warc::Opening::Interrupted(raised)) => Err(raised),
    }
}

/// The name of an object's type, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "an unknown type".to_owned())
}
