//! Arrow out: links as Apache Arrow record batches, built in Rust with `arrow-rs` and
//! handed to `pyarrow` through the Arrow C data interface, in the form of the Arrow
//! PyCapsule interface (<https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html>):
//! a batch crosses as two capsules (`arrow_schema`, `arrow_array`), its buffers shared, not
//! copied, and no Python object is made per link.
//!
//! - `warc_link_batches(source, batch_rows)`: the links of a WARC file, streaming, with
//!   the columns of the Spark job's table ([`WARC_COLUMNS`]);
//! - `links_table(document, url)`: the links of a whole document as a `pyarrow.Table`,
//!   with the keys of a line of `absolve links` ([`DOCUMENT_COLUMNS`]).

use crate::args;
use crate::document::{self, Want};
use crate::warc::{PENDING_WARNINGS, busy, open_source, warc_error};
use absolve::base::BaseSource;
use absolve::links::{LinkRef, Location};
use absolve::warc;
use arrow_array::builder::{ArrayBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::collections::VecDeque;
use std::io::Read;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// The columns of `warc_link_batches`, those of the Spark job's table
/// (`absolve/spark.py`'s `COLUMNS`): name and whether it may be null. All are strings.
pub const WARC_COLUMNS: [(&str, bool); 8] = [
    ("page_url", true),
    ("record_id", true),
    ("element", false),
    ("attribute", true),
    ("original", false),
    ("resolved", false),
    ("base", true),
    ("base_from", false),
];

/// The columns of `links_table`: the keys of a line of `absolve links` (less `file`), in
/// its order, with their Arrow types.
pub const DOCUMENT_COLUMNS: [(&str, DataType, bool); 13] = [
    ("message", DataType::UInt64, true),
    ("part", DataType::Utf8, true),
    ("record", DataType::Utf8, true),
    ("target_uri", DataType::Utf8, true),
    ("element", DataType::Utf8, false),
    ("attribute", DataType::Utf8, true),
    ("original", DataType::Utf8, false),
    ("resolved", DataType::Utf8, false),
    ("base", DataType::Utf8, true),
    ("base_from", DataType::Utf8, false),
    ("offset", DataType::UInt64, false),
    ("srcdoc", DataType::UInt32, false),
    ("kept", DataType::Utf8, true),
];

/// The schema of `warc_link_batches`' batches (made once).
fn warc_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(Schema::new(
                WARC_COLUMNS
                    .iter()
                    .map(|&(name, nullable)| Field::new(name, DataType::Utf8, nullable))
                    .collect::<Vec<_>>(),
            ))
        })
        .clone()
}

/// The schema of `links_table`'s table (made once).
fn document_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(Schema::new(
                DOCUMENT_COLUMNS
                    .iter()
                    .map(|(name, kind, nullable)| Field::new(*name, kind.clone(), *nullable))
                    .collect::<Vec<_>>(),
            ))
        })
        .clone()
}

/// The most bytes of text the string columns of one batch hold together: a batch ends
/// before a row would take it past this (the row then starts the next batch). Rows repeat
/// their page's URL and base, which may be long (a 33 KB `WARC-Target-URI` times 65,536
/// links passed the 2 GiB that an Arrow `utf8` column's 32-bit offsets address, and took
/// 2 GB of memory), so rows alone do not bound a batch; with this, a batch holds at most
/// 32 MiB of text whatever its rows hold (a Common Crawl batch of 65,536 rows, some 380
/// bytes of text each, holds 25 MB). It bounded each column alone before, eight of them:
/// 256 MiB a batch, and a WARC file of long page URLs took 251 MB through Python.
pub const BATCH_TEXT_BYTES: usize = 32 << 20;

/// Whether a batch whose columns hold `held` bytes of text, and `rows` rows, can take a
/// row of `adding` bytes of text: always when it is empty (a row on its own is never
/// refused), else only within [`BATCH_TEXT_BYTES`] in all.
fn fits(
    rows: usize,
    held: impl Iterator<Item = usize>,
    adding: impl Iterator<Item = usize>,
) -> bool {
    rows == 0 || held.sum::<usize>() + adding.sum::<usize>() <= BATCH_TEXT_BYTES
}

/// The rows of the WARC batch being gathered, as the [`Rows`] they are in (each shared
/// with the next batch when a batch ends inside it): the columns are built once the batch
/// ends, each with its exact size. Builders appended to as rows came grew by doubling, a
/// batch's buffers copied as they grew and up to twice its text allocated; glibc kept the
/// freed buffers' pages (a WARC file of long page URLs peaked at 251 MB in Python).
#[derive(Default)]
struct WarcColumns {
    /// The rows, in order: which of each [`Rows`].
    segments: Vec<(Arc<Rows>, Range<usize>)>,
    rows: usize,
    /// The bytes of text of each column, in [`WARC_COLUMNS`] order.
    bytes: [usize; 8],
}

impl WarcColumns {
    fn len(&self) -> usize {
        self.rows
    }

    /// The values of row `n` of `rows`, in [`WARC_COLUMNS`] order.
    fn values(rows: &Rows, n: usize) -> [Option<&str>; 8] {
        let row = &rows.rows[n];
        let location = &rows.locations[row.location];
        [
            location.target_uri.as_deref(),
            location.record.as_deref(),
            Some(rows.text(&row.element)),
            row.attribute.as_ref().map(|at| rows.text(at)),
            Some(rows.text(&row.original)),
            Some(rows.text(&row.resolved)),
            rows.bases[row.base].as_deref(),
            Some(row.base_from.as_str()),
        ]
    }

    /// Takes row `n` of `rows` if the batch can ([`BATCH_TEXT_BYTES`]); `false` if not.
    fn take(&mut self, rows: &Arc<Rows>, n: usize) -> bool {
        let lengths = Self::values(rows, n).map(|v| v.map_or(0, str::len));
        if !fits(self.rows, self.bytes.into_iter(), lengths.into_iter()) {
            return false;
        }
        for (bytes, length) in self.bytes.iter_mut().zip(lengths) {
            *bytes += length;
        }
        self.rows += 1;
        match self.segments.last_mut() {
            Some((last, range)) if Arc::ptr_eq(last, rows) && range.end == n => range.end += 1,
            _ => self.segments.push((Arc::clone(rows), n..n + 1)),
        }
        true
    }

    /// The rows taken since the last batch, as one, each column allocated once at its
    /// size; the [`Rows`] they were in are let go.
    fn finish(&mut self) -> RecordBatch {
        let mut builders: [StringBuilder; 8] =
            std::array::from_fn(|i| StringBuilder::with_capacity(self.rows, self.bytes[i]));
        for (rows, range) in self.segments.drain(..) {
            for n in range {
                for (builder, value) in builders.iter_mut().zip(Self::values(&rows, n)) {
                    builder.append_option(value);
                }
            }
        }
        (self.rows, self.bytes) = (0, [0; 8]);
        let columns: Vec<ArrayRef> = builders
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        RecordBatch::try_new(warc_schema(), columns)
            .expect("the columns are built to the schema: same count, types and lengths")
    }
}

/// Some links of a record as rows, gathered on the thread that finds them (a
/// [`warc::Encode`]): their own strings one after the other in one buffer, what
/// consecutive links share (the record's keys, the base) kept once. No `Link` is made per
/// link, nor its strings allocated and freed.
#[derive(Default)]
struct Rows {
    /// Every row's element, attribute, original and resolved text.
    text: String,
    rows: Vec<Row>,
    /// The locations of the rows, each kept once while consecutive rows share it.
    locations: Vec<Location>,
    /// The bases of the rows, the same.
    bases: Vec<Option<Arc<str>>>,
}

/// One link of [`Rows`]: its texts as ranges of [`Rows::text`], its location and base as
/// indexes.
struct Row {
    location: usize,
    element: Range<usize>,
    attribute: Option<Range<usize>>,
    original: Range<usize>,
    resolved: Range<usize>,
    base: usize,
    base_from: BaseSource,
}

impl Rows {
    /// Adds `link` as a row.
    fn push(&mut self, link: LinkRef<'_>) {
        if self.locations.last() != Some(link.location) {
            self.locations.push(link.location.clone());
        }
        if self
            .bases
            .last()
            .is_none_or(|last| last.as_ref() != link.base)
        {
            self.bases.push(link.base.cloned());
        }
        let row = Row {
            location: self.locations.len() - 1,
            element: self.put(link.element),
            attribute: link.attribute.map(|attribute| self.put(attribute)),
            original: self.put(link.original),
            resolved: self.put(link.resolved),
            base: self.bases.len() - 1,
            base_from: link.base_from,
        };
        self.rows.push(row);
    }

    /// Appends `text` to the buffer: where it is.
    fn put(&mut self, text: &str) -> Range<usize> {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    fn text(&self, range: &Range<usize>) -> &str {
        &self.text[range.clone()]
    }
}

/// The [`warc::Encode`] of `warc_link_batches`: links become [`Rows`].
struct RowsOfLinks;

/// The room [`Rows`] starts with: the texts of [`warc`]'s 64 links to an output, of some
/// 150 bytes each in a Common Crawl record.
const ROWS_TEXT: usize = 16 << 10;

impl warc::Encode for RowsOfLinks {
    type Output = Rows;
    fn start(&self) -> Rows {
        Rows {
            text: String::with_capacity(ROWS_TEXT),
            rows: Vec::with_capacity(64),
            ..Rows::default()
        }
    }
    fn link(&self, rows: &mut Rows, link: LinkRef<'_>) {
        rows.push(link);
    }
}

/// Every link of a document as batches with [`DOCUMENT_COLUMNS`], each ended before its
/// string columns would pass [`BATCH_TEXT_BYTES`] (at least one batch, empty if no link),
/// each link freed once it is in a batch.
fn document_batches(links: Vec<crate::link::Link>) -> Vec<RecordBatch> {
    let mut columns = DocumentColumns::default();
    let mut batches = Vec::new();
    for link in links {
        let link = link.link;
        // As the CLI's JSON says it (`"local"`): the library's serde names.
        let kept = link.kept.and_then(|k| {
            serde_json::to_value(k)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
        });
        let place = &link.location;
        let strings = [
            place.part.as_deref(),
            place.record.as_deref(),
            place.target_uri.as_deref(),
            Some(link.element.as_str()),
            link.attribute.as_deref(),
            Some(link.original.as_str()),
            Some(link.resolved.as_str()),
            link.base.as_deref(),
            Some(link.base_from.as_str()),
            kept.as_deref(),
        ];
        if !columns.fits(&strings) {
            batches.push(columns.finish());
        }
        columns.push(place.message, strings, link.offset, link.srcdoc);
    }
    if columns.message.len() > 0 || batches.is_empty() {
        batches.push(columns.finish());
    }
    batches
}

/// The builders of [`DOCUMENT_COLUMNS`]: the numbers apart, the strings in their order.
#[derive(Default)]
struct DocumentColumns {
    message: UInt64Builder,
    /// `part` to `base_from`, then `kept`.
    strings: [StringBuilder; 10],
    offset: UInt64Builder,
    srcdoc: UInt32Builder,
}

impl DocumentColumns {
    /// Whether the batch being built can take a row of `strings` ([`BATCH_TEXT_BYTES`]).
    fn fits(&self, strings: &[Option<&str>; 10]) -> bool {
        fits(
            self.message.len(),
            self.strings.iter().map(|b| b.values_slice().len()),
            strings.iter().map(|v| v.map_or(0, str::len)),
        )
    }

    fn push(
        &mut self,
        message: Option<usize>,
        strings: [Option<&str>; 10],
        offset: u64,
        srcdoc: u32,
    ) {
        self.message.append_option(message.map(|m| m as u64));
        for (builder, value) in self.strings.iter_mut().zip(strings) {
            builder.append_option(value);
        }
        self.offset.append_value(offset);
        self.srcdoc.append_value(srcdoc);
    }

    /// The rows appended since the last batch, as one; the builders start again empty.
    fn finish(&mut self) -> RecordBatch {
        let mut strings = self
            .strings
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef);
        let mut columns: Vec<ArrayRef> = vec![Arc::new(self.message.finish())];
        columns.extend(strings.by_ref().take(9));
        columns.push(Arc::new(self.offset.finish()));
        columns.push(Arc::new(self.srcdoc.finish()));
        columns.extend(strings);
        RecordBatch::try_new(document_schema(), columns)
            .expect("the columns are built to the schema: same count, types and lengths")
    }
}

/// A batch on its way to `pyarrow`: the Arrow PyCapsule interface's producer side
/// (`__arrow_c_array__`), which `pyarrow.record_batch()` (pyarrow >= 14) imports.
#[pyclass(module = "absolve._absolve", name = "_ArrowBatch", frozen)]
struct ArrowBatch {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowBatch {
    /// The schema and the data as the `arrow_schema` and `arrow_array` capsules, each
    /// released by its destructor unless the consumer moved it out.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        // The producer may ignore a requested schema (the interface's rule): ours is fixed.
        let _ = requested_schema;
        let array = StructArray::from(self.batch.clone()).into_data();
        let schema = FFI_ArrowSchema::try_from(array.data_type())
            .map_err(|e| PyRuntimeError::new_err(format!("Arrow schema export: {e}")))?;
        let array = FFI_ArrowArray::new(&array);
        let schema =
            PyCapsule::new_with_value_and_destructor(py, schema, c"arrow_schema", |value, _| {
                drop(value)
            })?;
        let array =
            PyCapsule::new_with_value_and_destructor(py, array, c"arrow_array", |value, _| {
                drop(value)
            })?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }
}

/// A Rust batch as a `pyarrow.RecordBatch`.
fn to_pyarrow(py: Python<'_>, batch: RecordBatch) -> PyResult<Bound<'_, PyAny>> {
    let record_batch = py.import("pyarrow")?.getattr("record_batch")?;
    record_batch.call1((Bound::new(py, ArrowBatch { batch })?,))
}

/// The links of every record of a WARC file as ``pyarrow.RecordBatch`` objects of up to
/// ``batch_rows`` rows each, built in Rust (no Python object per link), with the GIL
/// released while the file is read and the batch is built. A batch also ends before its
/// columns would hold more than 32 MiB of text in all (rows repeat their page's URL,
/// which can be long), so that what a batch holds is bounded whatever the links.
///
/// The columns are those of the table of ``python -m absolve.spark``, all strings:
/// ``page_url`` (the record's ``WARC-Target-URI``), ``record_id`` (its
/// ``WARC-Record-ID``), ``element``, ``attribute``, ``original``, ``resolved``, ``base``,
/// ``base_from`` (as ``Link`` has them; ``page_url``, ``record_id``, ``attribute`` and
/// ``base`` may be null). ``source`` and the keyword arguments are those of
/// ``warc_links`` (a WARC file plain or compressed), and so are the warnings and errors:
/// a damaged record or damaged compressed data is an ``AbsolveWarning``; a file that is
/// not a WARC raises ``ValueError`` once the batch of the links before it has been given. Under a warnings
/// filter of ``"error"``, a warning raised leaves the batch and the other warnings for the
/// next ``next()``: nothing is lost.
///
/// pandas, Polars and DuckDB read the batches without a Python object per link::
///
///     import pyarrow as pa
///     links = pa.Table.from_batches(absolve.warc_link_batches("crawl.warc.gz"))
///     frame = links.to_pandas()          # pandas (types_mapper=pd.ArrowDtype: no copy)
///     frame = polars.from_arrow(links)   # Polars
///     duckdb.sql("SELECT element, count(*) FROM links GROUP BY element")  # DuckDB
///
/// For files larger than memory, hand the batches on one at a time (to
/// ``pyarrow.parquet.ParquetWriter.write_batch``, or
/// ``pa.RecordBatchReader.from_batches(schema, batches)`` for DuckDB and Polars' lazy
/// scans): ``batch_rows`` (and the 32 MiB of text a batch holds at most) bounds what is held.
#[pyfunction]
#[pyo3(
    signature = (source, batch_rows = 65536, *, charset = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false),
    text_signature = "(source, batch_rows=65536, *, charset=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False)"
)]
fn warc_link_batches(
    source: &Bound<'_, PyAny>,
    batch_rows: i64,
    charset: Option<&str>,
    resolve_fragments: bool,
    rfc: Option<&Bound<'_, PyAny>>,
    spec: Option<&str>,
    http_base_headers: bool,
) -> PyResult<WarcLinkBatches> {
    // A count, not `usize`: -1 is a `ValueError` as 0 is, not an `OverflowError`.
    let batch_rows = usize::try_from(batch_rows)
        .ok()
        .filter(|&rows| rows > 0)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "batch_rows: must be 1 or more (65536 by default), not {batch_rows}"
            ))
        })?;
    let options = args::check(None, charset, None, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers);
    let (reader, label) = open_source(source)?;
    Ok(WarcLinkBatches {
        state: Mutex::new(BatchState {
            links: Some(warc::EncodedLinks::new(reader, options, RowsOfLinks)),
            rows: None,
            columns: WarcColumns::default(),
            failure: None,
            batch: None,
            warnings: VecDeque::new(),
        }),
        batch_rows,
        label,
        made_in: std::process::id(),
    })
}

/// The iterator ``warc_link_batches`` returns: ``pyarrow.RecordBatch`` objects.
#[pyclass(module = "absolve")]
pub struct WarcLinkBatches {
    state: Mutex<BatchState>,
    batch_rows: usize,
    /// The file's name, for messages.
    label: String,
    /// The process it was made in.
    made_in: u32,
}

struct BatchState {
    /// `None` once the input is exhausted or failed.
    links: Option<warc::EncodedLinks<Box<dyn Read + Send>, RowsOfLinks>>,
    /// Rows read but not yet all in a batch, and the first of them not yet taken: a batch
    /// ends at `batch_rows` exactly, the rest wait for the next.
    rows: Option<(Arc<Rows>, usize)>,
    columns: WarcColumns,
    /// The error that ended the input, raised once the links before it are given.
    failure: Option<warc::Error>,
    /// The batch built and not given yet, and the warnings met while building it, each
    /// issued before it: one raised (a warnings filter of "error") leaves the others and
    /// the batch for the next calls.
    batch: Option<RecordBatch>,
    warnings: VecDeque<String>,
}

impl BatchState {
    /// Reads links until `rows` are gathered, the batch holds [`BATCH_TEXT_BYTES`] of text or the input
    /// ends (without the GIL): the batch (`None` if no link was left) and the warnings
    /// met, named `label`, are kept for [`WarcLinkBatches::__next__`] to give. It stops
    /// too at [`PENDING_WARNINGS`] warnings, the rows gathered kept for the next call.
    fn fill(&mut self, rows: usize, label: &str) {
        let mut full = false;
        while self.columns.len() < rows && !full && self.warnings.len() < PENDING_WARNINGS {
            if let Some((held, next)) = &mut self.rows {
                while *next < held.rows.len() && self.columns.len() < rows {
                    if !self.columns.take(held, *next) {
                        full = true;
                        break;
                    }
                    *next += 1;
                }
                if *next == held.rows.len() {
                    self.rows = None;
                }
                continue;
            }
            let Some(links) = self.links.as_mut() else {
                break;
            };
            match links.next() {
                Some(Ok(warc::Encoded::Links(read))) => self.rows = Some((Arc::new(read), 0)),
                Some(Ok(warc::Encoded::Warning(warning))) => {
                    let warning = document::worded(&warning);
                    self.warnings.push_back(format!("{label}: {warning}"));
                }
                // The links found before an error are given first, the error after.
                Some(Err(error)) => {
                    self.failure.get_or_insert(error);
                }
                None => self.links = None,
            }
        }
        let ended = full || self.columns.len() >= rows || self.links.is_none();
        self.batch = (ended && self.columns.len() > 0).then(|| self.columns.finish());
    }
}

#[pymethods]
impl WarcLinkBatches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        // Not `lock()`: a second thread would wait holding the GIL that a file object's
        // `read` needs in the first.
        let mut state = self
            .state
            .try_lock()
            .map_err(|e| busy(e, "warc_link_batches"))?;
        crate::same_process(self.made_in, "warc_link_batches")?;
        let state = &mut *state;
        loop {
            if state.batch.is_none() && state.warnings.is_empty() {
                let (rows, label) = (self.batch_rows, &self.label);
                crate::detached(py, || state.fill(rows, label));
            }
            crate::warn_pending(py, &mut state.warnings)?;
            if let Some(batch) = state.batch.take() {
                // Kept if pyarrow cannot take it, to be given by the next call.
                return to_pyarrow(py, batch.clone()).map(Some).inspect_err(|_| {
                    state.batch = Some(batch);
                });
            }
            if state.links.is_none() && state.rows.is_none() {
                break;
            }
            // Only warnings so far (the batch not full yet): read on, Ctrl-C heard.
            py.check_signals()?;
        }
        match state.failure.take() {
            Some(error) => Err(warc_error(error, &self.label)),
            None => Ok(None),
        }
    }
}

/// Every link of ``document`` as a ``pyarrow.Table``, one row per link, in document
/// order, built in Rust with the GIL released. The arguments are those of ``links``.
///
/// The columns are the keys of a line of ``absolve links`` (less ``file``), in its order:
/// ``message`` (uint64), ``part``, ``record``, ``target_uri`` (null where they do not
/// apply), ``element``, ``attribute``, ``original``, ``resolved``, ``base``,
/// ``base_from``, ``offset`` (uint64), ``srcdoc`` (uint32), ``kept``. Its columns are in
/// chunks that hold at most 32 MiB of text together (as ``warc_link_batches``' batches).
///
/// >>> absolve.links_table(b'<a href="../x">x</a>', "http://h/d/p.html").column("resolved").to_pylist()
/// ['http://h/x']
#[pyfunction]
#[pyo3(
    signature = (document, url = None, *, format = "auto", charset = None, headers = None, resolve_fragments = false, rfc = None, spec = None, http_base_headers = false, keep_local = false, max_held = None),
    text_signature = "(document, url=None, *, format='auto', charset=None, headers=None, resolve_fragments=False, rfc=1808, spec='rfc1808', http_base_headers=False, keep_local=False, max_held=268435456)"
)]
#[allow(clippy::too_many_arguments)]
fn links_table<'py>(
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
) -> PyResult<Bound<'py, PyAny>> {
    let options = crate::check(format, url, charset, headers, resolve_fragments, rfc, spec)?
        .with_http_base_headers(http_base_headers)
        .with_keep_local(keep_local);
    let options = args::max_held(options, max_held)?;
    let document = args::document("document", document)?;
    let (batches, warnings) = crate::detached(py, || {
        document::process(&document, &options, Want::Links)
            .map(|outcome| (document_batches(outcome.links), outcome.warnings))
    })
    .map_err(PyValueError::new_err)?;
    crate::warn_all(py, &warnings)?;
    let batches = batches
        .into_iter()
        .map(|batch| to_pyarrow(py, batch))
        .collect::<PyResult<Vec<_>>>()?;
    py.import("pyarrow")?
        .getattr("Table")?
        .call_method1("from_batches", (batches,))
}

/// Adds the Arrow functions to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(warc_link_batches, module)?)?;
    module.add_function(wrap_pyfunction!(links_table, module)?)?;
    module.add_class::<WarcLinkBatches>()?;
    module.add_class::<ArrowBatch>()
}
