//! `absolve.Link`: one URL found, with the fields of a line of `absolve links`.

use absolve::document::LocatedLink;
use absolve::links::Located;
use pyo3::exceptions::{PyAttributeError, PyKeyError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// Where a link sits beyond its document: the message and part of a MIME message or mbox,
/// the record of a WARC file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Place {
    /// The message number (1-based) in a message or mbox.
    pub message: Option<usize>,
    /// The IMAP part number in that message.
    pub part: Option<String>,
    /// The `WARC-Record-ID` of the record the page came in.
    pub record: Option<String>,
    /// The `WARC-Target-URI` of that record (a WARC link may have none).
    pub target_uri: Option<String>,
}

/// One URL in a document, with its resolved form and the base it was resolved against.
///
/// The attributes are the fields of a line of ``absolve links`` (less ``file``):
///
/// - ``element``: the element the URL belongs to (``style`` for CSS in ``<style>``);
/// - ``attribute``: the attribute that holds it (``None`` for CSS in ``<style>``);
/// - ``original``: the URL as the document gives it (character references decoded);
/// - ``resolved``: the URL resolved against its base (RFC 1808 §4), what ``rewrite`` writes;
/// - ``base``: the effective base (``None`` when there is none, RFC 1808 §3.4);
/// - ``base_from``: where that base came from: ``base-element``, ``base-header``,
///   ``content-base``, ``content-location``, ``encapsulating``, ``retrieval-url``, ``none``;
/// - ``offset``: the byte offset of the value in the (decoded) document;
/// - ``message``, ``part``: the message number and MIME part (messages and mbox only);
/// - ``record``, ``target_uri``: the WARC record ID and target URI (WARC only);
/// - any field the library's records gain (``srcdoc``: how deep in ``<iframe srcdoc>``
///   documents; ``kept``: why a value was left as written) reads the same way.
///
/// ``link.dict()`` (or ``dict(link)``) gives the same mapping as the CLI's JSON line,
/// with the location fields that do not apply left out; ``link["resolved"]`` works too.
#[pyclass(module = "absolve", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub link: absolve::links::Link,
    pub place: Place,
}

impl std::hash::Hash for Link {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let link = &self.link;
        (
            &link.element,
            &link.attribute,
            &link.original,
            &link.resolved,
        )
            .hash(state);
        (&link.base, link.base_from, link.offset, &self.place).hash(state);
    }
}

/// A link the library located (`absolve::document`, a WARC's `RecordLink`).
impl From<LocatedLink> for Link {
    fn from(found: LocatedLink) -> Self {
        Link {
            link: found.link,
            place: Place {
                message: found.message,
                part: found.part,
                record: found.record.map(|id| id.to_string()),
                target_uri: found.target_uri.map(|uri| uri.to_string()),
            },
        }
    }
}

impl Link {
    /// A link of an HTML document: no message, part or record.
    pub fn bare(link: absolve::links::Link) -> Self {
        Link {
            link,
            place: Place::default(),
        }
    }

    /// The link as a line of `absolve links` (less `file`), by the same serde derive: every
    /// field the library's `Link` has, in the same order, with the same location fields.
    fn json(&self) -> String {
        let place = &self.place;
        let located = Located {
            file: None,
            message: place.message,
            part: place.part.as_deref(),
            record: place.record.as_deref(),
            target_uri: place.target_uri.as_deref(),
            link: &self.link,
        };
        serde_json::to_string(&located).unwrap_or_default()
    }
}

#[pymethods]
impl Link {
    /// The element the URL belongs to (``style`` for CSS inside a ``<style>`` element).
    #[getter]
    fn element(&self) -> &str {
        &self.link.element
    }

    /// The attribute that holds the URL; ``None`` for CSS in a ``<style>`` element.
    #[getter]
    fn attribute(&self) -> Option<&str> {
        self.link.attribute.as_deref()
    }

    /// The URL as the document gives it, character references and CSS escapes decoded.
    #[getter]
    fn original(&self) -> &str {
        &self.link.original
    }

    /// The URL resolved against its base: what ``rewrite`` writes.
    #[getter]
    fn resolved(&self) -> &str {
        &self.link.resolved
    }

    /// The effective base the URL was resolved against (``None``: no base, RFC 1808 §3.4).
    #[getter]
    fn base(&self) -> Option<&str> {
        self.link.base.as_deref()
    }

    /// Where the base came from: ``base-element``, ``base-header``, ``content-base``,
    /// ``content-location``, ``encapsulating``, ``retrieval-url`` or ``none``.
    #[getter]
    fn base_from(&self) -> &'static str {
        self.link.base_from.as_str()
    }

    /// The byte offset of the attribute value or CSS token in the (decoded) document.
    #[getter]
    fn offset(&self) -> u64 {
        self.link.offset
    }

    /// The message number (1-based) in a MIME message or mbox; ``None`` elsewhere.
    #[getter]
    fn message(&self) -> Option<usize> {
        self.place.message
    }

    /// The IMAP part number (``1``, ``1.2``) in a MIME message; ``None`` elsewhere.
    #[getter]
    fn part(&self) -> Option<&str> {
        self.place.part.as_deref()
    }

    /// The ``WARC-Record-ID`` of the record the page came in; ``None`` outside WARC.
    #[getter]
    fn record(&self) -> Option<&str> {
        self.place.record.as_deref()
    }

    /// The ``WARC-Target-URI`` of that record (the page's URL); ``None`` outside WARC.
    #[getter]
    fn target_uri(&self) -> Option<&str> {
        self.place.target_uri.as_deref()
    }

    /// The link as a ``dict`` with the keys of a line of ``absolve links`` (less ``file``),
    /// in the same order.
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let loads = py.import("json")?.getattr("loads")?;
        Ok(loads.call1((self.json(),))?.cast_into::<PyDict>()?)
    }

    /// The field names, as ``dict(link)`` uses them.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        Ok(self.dict(py)?.keys())
    }

    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?
            .get_item(key)?
            .ok_or_else(|| PyKeyError::new_err(key.to_owned()))
    }

    /// Fields of the library's `Link` that have no getter of their own (newer ones).
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.get_item(name)?.ok_or_else(|| {
            PyAttributeError::new_err(format!("'Link' object has no attribute '{name}'"))
        })
    }

    fn __contains__(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        self.dict(py)?.contains(key)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.dict(py)?.len())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.keys().try_iter()?.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let repr =
            |value: &str| -> PyResult<String> { Ok(PyString::new(py, value).repr()?.to_string()) };
        Ok(format!(
            "Link(element={}, attribute={}, original={}, resolved={}, base_from={})",
            repr(&self.link.element)?,
            match &self.link.attribute {
                Some(attribute) => repr(attribute)?,
                None => "None".to_owned(),
            },
            repr(&self.link.original)?,
            repr(&self.link.resolved)?,
            repr(self.link.base_from.as_str())?,
        ))
    }
}
