//! The arguments every function shares, checked as the CLI checks its flags: a bad one
//! raises `ValueError` (or `TypeError` for a wrong type) with the CLI's message, the flag
//! named by its Python argument name, before any work is done.

use absolve::base::Base;
use absolve::format::Format;
use absolve::html::{self, charset};
use absolve::url::Standard;
use encoding_rs::Encoding;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use std::borrow::Cow;

/// The `format=` argument: `"auto"` (`None`: told apart by content, as
/// `absolve::document` does), or the format named.
pub fn format(value: &str) -> PyResult<Option<Format>> {
    match value {
        "auto" => Ok(None),
        "html" => Ok(Some(Format::Html)),
        "mime" => Ok(Some(Format::Mime)),
        "mbox" => Ok(Some(Format::Mbox)),
        "warc" => Ok(Some(Format::Warc)),
        "css" => Ok(Some(Format::Css)),
        other => Err(PyValueError::new_err(format!(
            "format: invalid value {other:?}: expected one of \"auto\", \"html\", \"mime\", \"mbox\", \"warc\", \"css\""
        ))),
    }
}

/// The base and options of one call, checked.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The retrieval URL (§3.3), or no base (§3.4).
    pub outer: Base,
    pub options: html::Options,
    /// WARC: the HTTP `Content-Base`/`Content-Location` fields as bases (`--http-base-headers`).
    pub http_base_headers: bool,
}

impl Checked {
    /// The library's options for a document or a WARC file (`absolve::document::Options`,
    /// the same struct as `absolve::warc::Options`).
    pub fn library_options(&self) -> absolve::document::Options {
        absolve::document::Options {
            html: self.options.clone(),
            http_base_headers: self.http_base_headers,
        }
    }
}

/// Checks `url`, `charset`/`headers`, `resolve_fragments` and `rfc`.
pub fn check(
    url: Option<&str>,
    charset: Option<&str>,
    headers: Option<&Bound<'_, PyAny>>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
) -> PyResult<Checked> {
    let outer = match url {
        Some(url) => {
            Base::retrieval_url(url).map_err(|e| PyValueError::new_err(format!("url: {e}")))?
        }
        None => Base::none(),
    };
    // The caller's charset wins over the response's Content-Type (both are the transport's).
    let charset = match charset {
        Some(label) => Some(charset_label(label)?),
        None => match headers {
            Some(headers) => content_type(headers)?
                .and_then(|value| charset::from_content_type(&value))
                .and_then(|label| charset::from_label(&label)),
            None => None,
        },
    };
    Ok(Checked {
        outer,
        options: html::Options {
            standard: match rfc {
                Some(rfc) => standard(rfc)?,
                None => Standard::Rfc1808,
            },
            resolve_fragments,
            charset,
            ..html::Options::default()
        },
        http_base_headers: false,
    })
}

/// A WHATWG charset label (`charset=`), as `--charset` takes it.
fn charset_label(label: &str) -> PyResult<&'static Encoding> {
    charset::from_label(label)
        .ok_or_else(|| PyValueError::new_err(format!("charset: unknown charset label {label:?}")))
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

/// The bytes of a document: `bytes` are borrowed (they cannot change); a `bytearray` or
/// `memoryview` is copied. `str` is refused: a page is bytes until its charset is known.
pub fn document<'a>(argument: &str, value: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
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

/// The name of an object's type, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "an unknown type".to_owned())
}
