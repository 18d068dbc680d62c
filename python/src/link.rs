//! `absolve.Link`: one URL found, with the fields of a line of `absolve links`.

use pyo3::exceptions::{PyAttributeError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

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
///   ``content-base``, ``content-location``, ``xml-base``, ``encapsulating``,
///   ``retrieval-url``, ``saved-from``, ``singlefile``, ``httrack``, ``origin-xattr``,
///   ``none``;
/// - ``offset``: the byte offset of the value in the (decoded) document;
/// - ``message``, ``part``: the message number and MIME part (messages and mbox only);
/// - ``record``, ``target_uri``: the WARC record ID and target URI (WARC only);
/// - any field the library's records gain (``srcdoc``: how deep in ``<iframe srcdoc>``
///   documents; ``kept``: why a value was left as written) reads the same way.
///
/// ``link.dict()`` (or ``dict(link)``) gives the same mapping as the CLI's JSON line,
/// with the location fields that do not apply left out; ``link["resolved"]`` works too.
///
/// A ``Link`` pickles (``multiprocessing``, Spark) and copies to an equal ``Link``.
#[pyclass(module = "absolve", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub link: absolve::Link,
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
        (&link.base, link.base_from, link.offset, &link.location).hash(state);
    }
}

/// A link the library found, with its location.
impl From<absolve::Link> for Link {
    fn from(link: absolve::Link) -> Self {
        Link { link }
    }
}

impl Link {
    /// The link as a line of `absolve links` (less `file`), by the library's serde
    /// derive: every field `absolve::Link` has, in the same order.
    fn json(&self) -> String {
        serde_json::to_string(&self.link).unwrap_or_default()
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
    /// ``content-location``, ``xml-base``, ``encapsulating``, ``retrieval-url``,
    /// ``saved-from``, ``singlefile``, ``httrack``, ``origin-xattr`` or ``none``
    /// (the Rust library's ``absolve::base::BaseSource``).
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
        self.link.location.message
    }

    /// The IMAP part number (``1``, ``1.2``) in a MIME message; ``None`` elsewhere.
    #[getter]
    fn part(&self) -> Option<&str> {
        self.link.location.part.as_deref()
    }

    /// The ``WARC-Record-ID`` of the record the page came in; ``None`` outside WARC.
    #[getter]
    fn record(&self) -> Option<&str> {
        self.link.location.record.as_deref()
    }

    /// The ``WARC-Target-URI`` of that record (the page's URL); ``None`` outside WARC.
    #[getter]
    fn target_uri(&self) -> Option<&str> {
        self.link.location.target_uri.as_deref()
    }

    /// The link as a ``dict`` with the keys of a line of ``absolve links`` (less ``file``),
    /// in the same order.
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let loads = py.import("json")?.getattr("loads")?;
        Ok(loads.call1((self.json(),))?.cast_into::<PyDict>()?)
    }

    /// The link from its JSON line (`json`), as pickle rebuilds it: see `__reduce__`.
    #[classmethod]
    fn _from_json(_class: &Bound<'_, PyType>, json: &str) -> PyResult<Link> {
        serde_json::from_str::<absolve::Link>(json)
            .map(Link::from)
            .map_err(|e| PyValueError::new_err(format!("not a pickled absolve.Link: {e}")))
    }

    /// Pickle's recipe (Python's `object.__reduce__`): `Link._from_json` called with the
    /// link's JSON line, every field of the library's `Link` in it (its serde derive reads
    /// back what it writes).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let rebuild = py.get_type::<Link>().getattr("_from_json")?;
        Ok((rebuild, PyTuple::new(py, [self.json()])?))
    }

    /// A `Link` cannot change (`frozen`): its copy is itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// A `Link` cannot change and holds only strings and numbers: its deep copy is itself.
    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
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
