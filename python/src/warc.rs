//! WARC files: placeholder until `absolve::warc` is merged.

use crate::args::Checked;
use crate::document::{Outcome, Want};

/// Whether `document` starts like a WARC file.
pub fn looks_like_warc(document: &[u8]) -> bool {
    document.starts_with(b"WARC/")
}

pub fn in_memory(_document: &[u8], _checked: &Checked, _want: Want) -> Result<Outcome, String> {
    Err("WARC is not supported yet".to_owned())
}

/// Adds the WARC functions to the module.
pub fn register(module: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
    use pyo3::prelude::*;
    module.add_function(pyo3::wrap_pyfunction!(warc_links, module)?)
}

/// Placeholder.
#[pyo3::pyfunction]
fn warc_links(_source: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<()> {
    Err(pyo3::exceptions::PyNotImplementedError::new_err("not yet"))
}
