//! The Python package `pgn_audit`: the command line's audit run
//! in the caller's process, its reports handed over as Arrow tables
//! through the Arrow PyCapsule interface (`__arrow_c_stream__`), so that
//! pyarrow, polars, DuckDB and pandas take them without a copy.
//!
//! - `audit(inputs, threads=None, quirks=False, progress=False)` runs the
//!   audit of `pgn-audit INPUT...` with the GIL released, its reports kept
//!   in memory (`pgn_audit::app::embedded`); the thread that called it
//!   looks for a signal every [`SIGNAL_POLL`] and, on Ctrl-C, stops the
//!   reader as the command line's first signal does and raises
//!   KeyboardInterrupt. An input that cannot be read raises `AuditError`
//!   with the command line's message.
//! - `audit_game(text)` audits one game's PGN text: its rows, named as the
//!   reports' columns.

use std::ffi::CStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, Int64Array, RecordBatch, RecordBatchIterator, StringArray};
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList, PyString};

use pgn_audit::app::embedded::{self, Embedded, Finished};
use pgn_audit_input::{Input, Memory};
use pgn_audit_report::{ArrowTable, Tables};

pyo3::create_exception!(
    pgn_audit,
    AuditError,
    PyException,
    "An input that cannot be read, or an audit that cannot run: the message is the command line's, `PATH: CAUSE`, one line per input. `.audit` holds the reports of what was read, where the run wrote any."
);

/// How often the calling thread looks for a signal (Ctrl-C) while the
/// audit runs without the GIL.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The name the Arrow PyCapsule interface gives a stream's capsule.
const STREAM_CAPSULE: &CStr = c"arrow_array_stream";

/// One report as an Arrow table: the contract's columns in order, the
/// number columns int64, the others UTF-8.
#[pyclass(frozen, module = "pgn_audit")]
struct Table {
    /// The report's name: `castling`, `claims`, …
    name: &'static str,
    table: ArrowTable,
}

#[pymethods]
impl Table {
    /// The table as an Arrow C stream (the Arrow PyCapsule interface). A
    /// `requested_schema` is not applied: the table has its one schema,
    /// which the consumer may cast.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        drop(requested_schema);
        let reader = RecordBatchIterator::new(
            self.table.batches.clone().into_iter().map(Ok),
            self.table.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, STREAM_CAPSULE)
    }

    /// How many rows the table has.
    #[getter]
    fn num_rows(&self) -> usize {
        self.table.num_rows()
    }

    /// The column names, in the contract's order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.table
            .schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __len__(&self) -> usize {
        self.table.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "<pgn_audit.Table {}: {} rows>",
            self.name,
            self.table.num_rows()
        )
    }
}

/// The reports of one audit.
#[pyclass(frozen, module = "pgn_audit")]
struct Audit {
    /// castling.csv's rows.
    #[pyo3(get)]
    castling: Py<Table>,
    /// claims.csv's rows.
    #[pyo3(get)]
    claims: Py<Table>,
    /// missed_draws.csv's rows.
    #[pyo3(get)]
    missed_draws: Py<Table>,
    /// results.csv's rows.
    #[pyo3(get)]
    results: Py<Table>,
    /// errors.csv's rows.
    #[pyo3(get)]
    errors: Py<Table>,
    /// quirks.csv's rows with `quirks=True`, else None.
    #[pyo3(get)]
    quirks: Option<Py<Table>>,
    /// summary.json as a dict.
    #[pyo3(get)]
    summary: Py<PyAny>,
}

#[pymethods]
impl Audit {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = self.summary.bind(py);
        let get = |k: &str| -> PyResult<String> { Ok(s.get_item(k)?.str()?.to_string()) };
        Ok(format!(
            "<pgn_audit.Audit: {} games, {} clean, {} flagged, {} incomplete>",
            get("games")?,
            get("clean")?,
            get("flagged")?,
            get("incomplete")?
        ))
    }
}

impl Audit {
    /// The Python objects of a run's tables and summary.
    fn new(py: Python<'_>, tables: Tables, summary_json: &str) -> PyResult<Audit> {
        let summary = py
            .import("json")?
            .call_method1("loads", (summary_json,))?
            .unbind();
        let table = |name, table| Py::new(py, Table { name, table });
        Ok(Audit {
            castling: table("castling", tables.castling)?,
            claims: table("claims", tables.claims)?,
            missed_draws: table("missed_draws", tables.missed_draws)?,
            results: table("results", tables.results)?,
            errors: table("errors", tables.errors)?,
            quirks: tables.quirks.map(|t| table("quirks", t)).transpose()?,
            summary,
        })
    }
}

/// Whether a `str` input is PGN text rather than a path: it holds a line
/// end or starts with a tag (`[`); no path of a PGN file does either in
/// practice, and a path that did can be given as `pathlib.Path`.
fn is_text(s: &str) -> bool {
    s.contains(['\n', '\r']) || s.trim_start().starts_with('[')
}

/// The inputs as given: one input or a list of them, each a path (`str`
/// or `os.PathLike`) or PGN text (`bytes`, or a `str` that [`is_text`]).
/// Text is named `<text 1>`, `<text 2>`, … in the reports, and read from
/// the caller's own buffer (a `bytes` object is not copied).
fn inputs(given: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    let mut texts = 0;
    let mut one = |item: &Bound<'_, PyAny>| -> PyResult<Input> {
        let mut text = |held: Memory| {
            texts += 1;
            Input::Memory {
                name: format!("<text {texts}>"),
                text: held,
            }
        };
        if let Ok(b) = item.cast::<PyBytes>() {
            return Ok(text(Memory::new(PyBackedBytes::from(b.clone()))));
        }
        if let Ok(s) = item.cast::<PyString>() {
            let s: String = s.extract()?;
            return Ok(match is_text(&s) {
                true => text(Memory::new(s.into_bytes())),
                false => Input::Path(PathBuf::from(s)),
            });
        }
        Ok(Input::Path(item.extract::<PathBuf>()?))
    };
    if given.cast::<PyString>().is_ok()
        || given.cast::<PyBytes>().is_ok()
        || given.hasattr("__fspath__")?
    {
        return Ok(vec![one(given)?]);
    }
    given.try_iter()?.map(|item| one(&item?)).collect()
}

/// Audits `inputs` as `pgn-audit INPUT...` does and returns its reports
/// as Arrow tables and its summary.json as a dict.
#[pyfunction]
#[pyo3(signature = (inputs, threads = None, quirks = false, progress = false))]
fn audit(
    py: Python<'_>,
    inputs: &Bound<'_, PyAny>,
    threads: Option<usize>,
    quirks: bool,
    progress: bool,
) -> PyResult<Audit> {
    let given = self::inputs(inputs)?;
    if given.is_empty() {
        return Err(PyValueError::new_err("no input given"));
    }
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let run = Embedded {
        inputs: given,
        chunk_bytes: None,
        threads,
        quirks,
        progress,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (done, ended) = mpsc::channel();
    let worker_stop = stop.clone();
    let worker = std::thread::Builder::new()
        .name("pgn-audit".to_owned())
        .spawn(move || {
            let _ = done.send(run.run(&worker_stop));
        })
        .map_err(|e| AuditError::new_err(format!("cannot start the audit: {e}")))?;
    let mut ended = ended;
    let end = loop {
        // The receiver goes into the call without the GIL and back (it may
        // be moved to another thread, not shared with one).
        let (got, back) = py.detach(move || (ended.recv_timeout(SIGNAL_POLL), ended));
        ended = back;
        match got {
            Ok(end) => break end,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    // The reader stops; the batches in flight are finished.
                    stop.store(true, Ordering::SeqCst);
                    py.detach(move || worker.join()).ok();
                    return Err(signal);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(AuditError::new_err(
                    "internal error: the audit stopped without an end",
                ));
            }
        }
    };
    py.detach(move || worker.join()).ok();
    let Finished {
        tables,
        summary,
        interrupted,
        read_errors,
    } = end.map_err(AuditError::new_err)?;
    if interrupted {
        return Err(PyKeyboardInterrupt::new_err("the audit was interrupted"));
    }
    let summary = summary
        .to_json()
        .map_err(|e| AuditError::new_err(format!("internal error: {e}")))?;
    let audit = Audit::new(py, tables, &summary)?;
    if read_errors.is_empty() {
        return Ok(audit);
    }
    let error = AuditError::new_err(read_errors.join("\n"));
    error.value(py).setattr("audit", Py::new(py, audit)?)?;
    Err(error)
}

/// Audits one game's PGN text (`str` or `bytes`): a dict with its `class`
/// (`clean`, `flagged` or `incomplete`), `plies`, `notation_quirks`, and
/// one list per report (`castling`, `claims`, `missed_draws`, `results`,
/// `errors`, `quirks`) of its rows, each a dict of the report's columns,
/// as `audit` gives them for a source `<text>`.
#[pyfunction]
fn audit_game<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let bytes: Vec<u8> = match text.cast::<PyBytes>() {
        Ok(b) => b.as_bytes().to_vec(),
        Err(_) => text.extract::<String>()?.into_bytes(),
    };
    let game = py
        .detach(|| embedded::audit_one_game(&bytes))
        .map_err(PyValueError::new_err)?;
    let d = PyDict::new(py);
    d.set_item("class", game.class)?;
    d.set_item("plies", game.plies)?;
    d.set_item("notation_quirks", game.notation_quirks)?;
    let Tables {
        castling,
        claims,
        missed_draws,
        results,
        errors,
        quirks,
    } = game.tables;
    for (name, table) in [
        ("castling", Some(castling)),
        ("claims", Some(claims)),
        ("missed_draws", Some(missed_draws)),
        ("results", Some(results)),
        ("errors", Some(errors)),
        ("quirks", quirks),
    ] {
        let rows = PyList::empty(py);
        for batch in table.iter().flat_map(|t| &t.batches) {
            append_rows(&rows, batch)?;
        }
        d.set_item(name, rows)?;
    }
    Ok(d)
}

/// Appends each row of `batch` to `rows` as a dict of its columns: an
/// int64 column's cell an `int`, a UTF-8 column's a `str`.
fn append_rows(rows: &Bound<'_, PyList>, batch: &RecordBatch) -> PyResult<()> {
    let py = rows.py();
    let schema = batch.schema();
    for i in 0..batch.num_rows() {
        let row = PyDict::new(py);
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            let any = column.as_any();
            if let Some(a) = any.downcast_ref::<Int64Array>() {
                row.set_item(field.name(), a.is_valid(i).then(|| a.value(i)))?;
            } else if let Some(a) = any.downcast_ref::<StringArray>() {
                row.set_item(field.name(), a.is_valid(i).then(|| a.value(i)))?;
            }
        }
        rows.append(row)?;
    }
    Ok(())
}

/// The module: `audit`, `audit_game`, `Audit`, `Table`, `AuditError`.
#[pymodule(name = "pgn_audit")]
fn pgn_audit_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(audit_game, m)?)?;
    m.add_class::<Audit>()?;
    m.add_class::<Table>()?;
    m.add("AuditError", m.py().get_type::<AuditError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
